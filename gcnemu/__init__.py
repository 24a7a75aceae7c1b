"""gcnemu: a bit-exact emulator of the AMD GCN 1.1 (gfx7, Sea Islands) GPU.

Main entry points:
  gcnemu.GPU, gcnemu.load, gcnemu.Local          run compiled kernels on test buffers
  gcnemu.run_snippet, gcnemu.WaveState            run a few instructions as one wave
  gcnemu.assemble, gcnemu.disassemble             LLVM-syntax gfx7 assembler/disassembler
  gcnemu.sweep                                    kernels x configurations on Dask (a table)

The names are imported when first used, so that ``import gcnemu`` (and ``gcnemu --help``)
does not load numba and the engine.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import (AssemblerError, DecodeError, DispatchError, ExecutionError, GcnEmuError,
                     LoaderError, MemoryFault)

if TYPE_CHECKING:   # for type checkers and editors; at run time __getattr__ imports these
    from .device import GPU, Buffer, Local
    from .hardware import PRESETS, GPUConfig
    from .kernel import Kernel, load
    from .report import DispatchReport
    from .snippet import WaveState, run_snippet


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("gcnemu")
    except PackageNotFoundError:       # a source tree on sys.path, not installed
        return "0+unknown"


__version__ = _version()

#: the public names that live in submodules: name -> module
_LAZY = {"GPU": "device", "Buffer": "device", "Local": "device", "PRESETS": "hardware",
         "GPUConfig": "hardware", "Kernel": "kernel", "load": "kernel",
         "DispatchReport": "report", "WaveState": "snippet", "run_snippet": "snippet",
         "sweep": "distributed"}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'gcnemu' has no attribute {name!r}")
    from importlib import import_module
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value            # later lookups do not come here
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


def assemble(source: str, target: str = "gfx7") -> bytes:
    """Assemble GCN assembly (LLVM syntax) into machine code bytes, for ``target`` "gfx7"
    (GCN 1.1, the default) or "gfx6" (GCN 1.0, Southern Islands: no CI-only instruction)."""
    from .isa.assembler import assemble as _assemble
    from .isa.table import gen_of
    return _assemble(source, gen_of(target))


def disassemble(code: bytes, target: str = "gfx7") -> str:
    """Disassemble machine code, one instruction per line (LLVM syntax), decoding it for
    ``target`` "gfx7" (GCN 1.1, the default) or "gfx6" (GCN 1.0: CI-only opcodes such as FLAT
    are undefined, and an SMRD has no literal offset)."""
    from .isa.disassembler import disassemble as _disassemble
    from .isa.table import gen_of
    return _disassemble(code, gen_of(target))


__all__ = ["GPU", "PRESETS", "GPUConfig", "Buffer", "Kernel", "Local", "DispatchReport", "load",
           "run_snippet", "WaveState", "sweep", "assemble", "disassemble", "GcnEmuError",
           "LoaderError",
           "MemoryFault", "DispatchError", "ExecutionError", "AssemblerError", "DecodeError",
           "__version__"]
