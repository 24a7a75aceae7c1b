"""The gfx7 ISA as data: instruction table, bit layouts, decoder, assembler, disassembler."""
from .table import InstrDef, instructions, lookup, by_name, FAMILIES, GFX6, GFX7  # noqa: F401
from .decoder import Instruction, decode, decode_one  # noqa: F401
from .assembler import assemble, assemble_with_labels  # noqa: F401
from .disassembler import disassemble, format_instruction  # noqa: F401
