"""Error types shared by every gcnemu layer.

All errors the emulator raises on bad input derive from :class:`GcnEmuError`, so callers can
catch one type. Subclasses name the layer that detected the problem.
"""
from __future__ import annotations

from typing import Optional

__all__ = [
    "GcnEmuError",
    "LoaderError",
    "MemoryFault",
    "DispatchError",
    "ExecutionError",
    "AssemblerError",
    "DecodeError",
]


class GcnEmuError(Exception):
    """Base class of every error gcnemu raises on bad input or bad programs."""


class LoaderError(GcnEmuError):
    """A code object is malformed, for another target, or lacks what was asked for."""


class MemoryFault(GcnEmuError):
    """An access to the GPU address space that the memory model cannot satisfy
    (unmapped address, double free, out-of-range host read/write)."""


class DispatchError(GcnEmuError):
    """A dispatch was requested with an invalid launch configuration or arguments."""


class ExecutionError(GcnEmuError):
    """A wave hit something the engine cannot execute.

    The optional fields locate the failure; those that are known are appended to the
    message so that it is useful even when printed without the attributes.
    """

    def __init__(
        self,
        message: str,
        *,
        kernel: Optional[str] = None,
        pc: Optional[int] = None,
        wave: Optional[int] = None,
        lane: Optional[int] = None,
        instruction: Optional[str] = None,
    ) -> None:
        self.kernel = kernel
        self.pc = pc
        self.wave = wave
        self.lane = lane
        self.instruction = instruction
        where = []
        if kernel is not None:
            where.append(f"kernel {kernel}")
        if pc is not None:
            where.append(f"pc 0x{pc:x}")
        if wave is not None:
            where.append(f"wave {wave}")
        if lane is not None:
            where.append(f"lane {lane}")
        if instruction is not None:
            where.append(f"instruction '{instruction}'")
        super().__init__(message + (f" ({', '.join(where)})" if where else ""))


class AssemblerError(GcnEmuError):
    """Assembly source could not be assembled; ``line``/``column`` are 1-based when known,
    ``source`` names the file when there is one."""

    def __init__(self, message: str, line: Optional[int] = None, column: Optional[int] = None,
                 source: Optional[str] = None) -> None:
        self.line = line
        self.column = column
        self.source = source
        self.message = message
        loc = ""
        if line is not None:
            loc = f"line {line}" + (f", column {column}" if column is not None else "") + ": "
        super().__init__((f"{source}: " if source else "") + loc + message)


class DecodeError(GcnEmuError):
    """Machine code could not be decoded; ``offset`` is the byte offset of the bad word."""

    def __init__(self, message: str, offset: Optional[int] = None) -> None:
        self.offset = offset
        super().__init__(message + (f" (at byte offset 0x{offset:x})" if offset is not None else ""))
