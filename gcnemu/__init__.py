"""gcnemu: a bit-exact emulator of the AMD GCN 1.1 (gfx7, Sea Islands) GPU.

Main entry points:
  gcnemu.GPU, gcnemu.load, gcnemu.Local          run compiled kernels on test buffers
  gcnemu.run_snippet, gcnemu.WaveState            run a few instructions as one wave
  gcnemu.assemble, gcnemu.disassemble             LLVM-syntax gfx7 assembler/disassembler
"""
from .jit import ensure_fresh_cache as _ensure_fresh_cache

_ensure_fresh_cache()

from .errors import (AssemblerError, DecodeError, DispatchError, ExecutionError,  # noqa: E402
                     GcnEmuError, LoaderError, MemoryFault)
from .gpu import GPU, PRESETS, Buffer, DispatchReport, GPUConfig, Kernel, Local, load  # noqa: E402
from .wave import WaveState, run_snippet  # noqa: E402


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
