"""The memory system: the GPU address space and descriptors, data formats, atomics, and one
module per memory family (ds, flat, buffer, image, export, scalar) with their compiled entries.

Sources: CLRX's GcnInstrsDs/Mubuf/Mtbuf/Mimg/Vintrp.md and GcnMemHandling.md
(shared/reference/clrx-isa-docs); each family module states its rules and choices. A family
carries an instruction out for the active lanes in lane order (so per-lane atomics are atomic
by construction).

Importing this package imports nothing, so that a module can take one part of it.
"""
