"""gcnemu: a bit-exact emulator of the AMD GCN 1.1 (gfx7, Sea Islands) GPU.

Main entry points:
  gcnemu.GPU, gcnemu.load, gcnemu.Local          run compiled kernels on test buffers
  gcnemu.run_snippet, gcnemu.WaveState            run a few instructions as one wave
  gcnemu.assemble, gcnemu.disassemble             LLVM-syntax gfx7 assembler/disassembler
"""
from .device import GPU, Buffer, Local
from .errors import (AssemblerError, DecodeError, DispatchError, ExecutionError, GcnEmuError,
                     LoaderError, MemoryFault)
from .hardware import PRESETS, GPUConfig
from .kernel import Kernel, load
from .report import DispatchReport
from .snippet import WaveState, run_snippet


def assemble(source: str) -> bytes:
    """Assemble gfx7 assembly (LLVM syntax) into machine code bytes."""
    from .isa.assembler import assemble as _assemble
    return _assemble(source)


def disassemble(code: bytes) -> str:
    """Disassemble gfx7 machine code, one instruction per line (LLVM syntax)."""
    from .isa.disassembler import disassemble as _disassemble
    return _disassemble(code)


__all__ = ["GPU", "PRESETS", "GPUConfig", "Buffer", "Kernel", "Local", "DispatchReport", "load",
           "run_snippet", "WaveState", "assemble", "disassemble", "GcnEmuError", "LoaderError",
           "MemoryFault", "DispatchError", "ExecutionError", "AssemblerError", "DecodeError"]
