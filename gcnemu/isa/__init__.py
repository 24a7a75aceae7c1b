"""The gfx7 ISA as data: instruction table, bit layouts, decoder, assembler, disassembler."""
from .table import InstrDef, instructions, lookup, by_name, FAMILIES, GFX6, GFX7  # noqa: F401
