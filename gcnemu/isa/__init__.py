"""The gfx7 ISA as data: instruction table, bit layouts, decoder, assembler, disassembler.

    table.instructions() / lookup(enc, op, gen) / by_name()   rows of gfx7.tsv (InstrDef)
    table.operand_kinds()                                     LLVM operand kinds (size, classes)
    decode(code, gen=GFX7) -> [Instruction]                   raises DecodeError(offset)
    assemble(source) -> bytes, assemble_with_labels(source)   raises AssemblerError(line, column)
    disassemble(code, gen=GFX7, labels=False) -> str          LLVM syntax, re-assembles exactly
    format_instruction(ins) -> str                            one decoded instruction
"""
from .table import InstrDef, instructions, lookup, by_name, FAMILIES, GFX6, GFX7  # noqa: F401
from .decoder import Instruction, decode, decode_one  # noqa: F401
from .assembler import assemble, assemble_with_labels  # noqa: F401
from .disassembler import disassemble, format_instruction  # noqa: F401
