"""The execution engine: decoded programs, the numba wave loop and the VALU op kernels.

Importing this package imports nothing: gcnemu/exec/layout.py (the shared array layouts) sits
below the memory families, which import it, while engine.py sits above them.
"""
