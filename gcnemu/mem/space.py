"""The GPU virtual address space of gfx7 (Sea Islands): allocation, host access, faults.

Design (numba first):

* One ``np.uint8`` backing array ``data`` covers the contiguous virtual range starting at
  :data:`BASE` (0x1_0000_0000, so that small integers are never valid addresses). Byte ``i`` of
  ``data`` is the byte at virtual address ``BASE + i``.
* ``mapped`` has one uint8 per 256-byte page of ``data``; 0 means unmapped. Every allocation starts
  on a page boundary (which satisfies the 256-byte alignment GCN buffers want) and is followed by
  at least one unmapped guard page, so running off the end of a buffer faults once it leaves
  the buffer's last page. (Inside that last page an overrun is not detected: like real page
  tables, mapping is per page. ``describe`` still names such an address precisely.)
* ``data`` may be reallocated (grown) by :meth:`Memory.allocate` between dispatches, never during
  one: the engine takes :meth:`Memory.arrays` at dispatch start. :meth:`Memory.lock` makes a
  growth attempt raise instead.
* The per-lane accessors :func:`mem_load` and :func:`mem_store` here and
  :func:`gcnemu.mem.atomics.mem_atomic` are numba functions taking ``(data, mapped, base,
  addr, ...)``. An unmapped access never raises: loads return 0, stores are dropped, and
  ``ok`` is False so the engine can record the fault (the seeds ask for "well-defined results
  ... rather than crashing").

Scratch (private segment): :meth:`Memory.allocate_scratch` reserves ``bytes_per_lane`` for
each lane of a whole number of waves; gcnemu/mem/descriptors.py describes its V# and where
each private byte of a lane lies.
"""
from __future__ import annotations

import bisect
import threading
from typing import NamedTuple, Optional, Union

import numpy as np

from ..errors import MemoryFault
from ..exec.jit import njit
from .descriptors import scratch_vsharp

__all__ = ["BASE", "PAGE_SIZE", "PAGE_SHIFT", "Memory", "MemorySnapshot", "ScratchSegment", "mem_load", "mem_store",
           "zeros_aligned"]

BASE = 0x1_0000_0000
PAGE_SHIFT = 8   # 256-byte pages: an overrun is caught within 256 bytes of a buffer end
PAGE_SIZE = 1 << PAGE_SHIFT
DEFAULT_MAX_BYTES = 16 << 30  # refuse to grow the backing array past 16 GiB of host memory


# --- per-lane accessors ---------------------------------------------------------------------------

@njit
def locate(data, mapped, base, addr, nbytes):
    """Byte offset of [addr, addr+nbytes) in data, or -1 if any byte is unmapped."""
    a = np.uint64(addr)
    b = np.uint64(base)
    if a < b:
        return np.int64(-1)
    off = a - b
    end = off + np.uint64(nbytes)
    if end < off or end > np.uint64(data.size):
        return np.int64(-1)
    if mapped[np.int64(off >> np.uint64(PAGE_SHIFT))] == 0:
        return np.int64(-1)
    if mapped[np.int64((end - np.uint64(1)) >> np.uint64(PAGE_SHIFT))] == 0:
        return np.int64(-1)
    return np.int64(off)


@njit
def mem_load(data, mapped, base, addr, nbytes):
    """Load ``nbytes`` (1, 2, 4 or 8) little-endian bytes at virtual ``addr``, any alignment.

    Returns (value as uint64, zero-extended; ok). Unmapped: (0, False)."""
    o = locate(data, mapped, base, addr, nbytes)
    if o < 0:
        return np.uint64(0), False
    v = np.uint64(0)
    for i in range(nbytes):
        v |= np.uint64(data[o + i]) << np.uint64(8 * i)
    return v, True


@njit
def mem_store(data, mapped, base, addr, value, nbytes):
    """Store the low ``nbytes`` (1, 2, 4 or 8) of ``value`` little-endian at ``addr``.

    Returns ok; an unmapped store writes nothing and returns False."""
    o = locate(data, mapped, base, addr, nbytes)
    if o < 0:
        return False
    v = np.uint64(value)
    for i in range(nbytes):
        data[o + i] = np.uint8((v >> np.uint64(8 * i)) & np.uint64(0xFF))
    return True


# --- the address space -------------------------------------------------------------------------

class ScratchSegment(NamedTuple):
    """A scratch (private segment) allocation: see the module docstring for its layout."""
    address: int
    size: int
    bytes_per_lane: int
    lanes: int
    waves: int
    vsharp: np.ndarray  # the private segment buffer V# (4 x uint32)

    def wave_offset(self, wave: int) -> int:
        """private_segment_wave_offset SGPR value of wave ``wave`` (0-based)."""
        if not 0 <= wave < self.waves:
            raise MemoryFault(f"wave {wave} outside scratch segment of {self.waves} waves")
        return wave * 64 * self.bytes_per_lane


class _Alloc(NamedTuple):
    start: int      # virtual address
    nbytes: int     # requested size
    end_page: int   # virtual address one past the last mapped page
    name: str


class MemorySnapshot(NamedTuple):
    """What Memory.snapshot copies: byte i of ``data`` is address BASE + i."""
    data: np.ndarray
    mapped: np.ndarray
    allocations: tuple
    counter: int


def zeros_aligned(shape, dtype, align: int = 64) -> np.ndarray:
    """np.zeros whose data starts on an ``align``-byte boundary (numpy aligns large arrays
    to 16 bytes only): rows the compiled code moves with 64-byte vector loads and stores
    (VGPR files, constant rows, the backing store) then never straddle cache lines."""
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = np.zeros(nbytes + align, np.uint8)
    off = -raw.ctypes.data % align
    return raw[off:off + nbytes].view(dtype).reshape(shape)


class Memory:
    """The GPU virtual address space: allocation, host access and fault descriptions.

    Addresses are plain ints (virtual addresses >= BASE). Host accesses (read/write) must lie
    within one allocation and raise MemoryFault otherwise; device accesses go through the numba
    helpers, which never raise.
    """

    def __init__(self, initial_bytes: int = 1 << 20, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        n = max(PAGE_SIZE, -(-int(initial_bytes) // PAGE_SIZE) * PAGE_SIZE)
        self.max_bytes = int(max_bytes)
        self.data = zeros_aligned(n, np.uint8)
        self.mapped = np.zeros(n >> PAGE_SHIFT, dtype=np.uint8)
        self._allocs: list[_Alloc] = []      # sorted by start
        self._freed: list[_Alloc] = []       # for "use after free" descriptions
        self._locks = 0           # dispatches running on the arrays (lock/unlock)
        self._counter = 0
        # allocate/free from several Python threads (e.g. dispatches on one GPU): the first-fit
        # search and the table must change as one step, or two buffers get the same range
        self._mutex = threading.RLock()
        self.alloc_start = np.zeros(0, dtype=np.uint64)
        self.alloc_end = np.zeros(0, dtype=np.uint64)
        self.alloc_names: list[str] = []
        #: bytes from BASE to the end of the highest page ever mapped, and the guard page
        #: after it: nothing above was ever mapped, so it holds zeros that no access changes
        #: (coherency-accurate mode keeps its per-line state for this range only)
        self.high_water = 0

    base = BASE

    @property
    def size(self) -> int:
        """Bytes of virtual range currently backed (BASE .. BASE + size)."""
        return int(self.data.size)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(data, mapped): what the engine passes to the numba helpers, with base = BASE.
        Valid until the next allocate() that has to grow the backing array."""
        return self.data, self.mapped

    def lock(self) -> tuple[np.ndarray, np.ndarray]:
        """Forbid growing the backing array until the matching `unlock` (a dispatch holds it
        while the engine runs on the arrays; the locks of dispatches from several Python
        threads nest). Returns `arrays()`, taken under the allocation lock, so that no
        allocation grows them in between."""
        with self._mutex:
            self._locks += 1
            return self.data, self.mapped

    def unlock(self) -> None:
        """Undo one `lock`: growth is allowed again when the last one is undone."""
        with self._mutex:
            self._locks = max(0, self._locks - 1)

    def _rebuild_table(self) -> None:
        self.alloc_start = np.array([a.start for a in self._allocs], dtype=np.uint64)
        self.alloc_end = np.array([a.start + a.nbytes for a in self._allocs], dtype=np.uint64)
        self.alloc_names = [a.name for a in self._allocs]

    def _grow(self, need_end: int) -> None:
        need = need_end - BASE
        if need <= self.data.size:
            return
        if self._locks:
            raise MemoryFault("allocation needs the backing array to grow during a dispatch")
        if need > self.max_bytes:
            raise MemoryFault(f"out of GPU memory: need {need} bytes of backing store, limit {self.max_bytes}")
        n = self.data.size
        while n < need:
            n *= 2
        n = min(max(n, need), self.max_bytes)
        n = -(-n // PAGE_SIZE) * PAGE_SIZE
        data = zeros_aligned(n, np.uint8)
        data[:self.data.size] = self.data
        mapped = np.zeros(n >> PAGE_SHIFT, dtype=np.uint8)
        mapped[:self.mapped.size] = self.mapped
        self.data, self.mapped = data, mapped

    def allocate(self, nbytes: int, align: int = 256, name: Optional[str] = None) -> int:
        """Map ``nbytes`` (>0) of zeroed memory and return its virtual address.

        The address is aligned to max(align, page); guard pages separate allocations.
        Safe to call from several threads.
        """
        with self._mutex:
            return self._allocate(nbytes, align, name)

    def _allocate(self, nbytes: int, align: int, name: Optional[str]) -> int:
        nbytes = int(nbytes)
        align = int(align)
        if nbytes <= 0:
            raise MemoryFault(f"allocation size must be positive, got {nbytes}")
        if align <= 0 or align & (align - 1):
            raise MemoryFault(f"alignment must be a power of two, got {align}")
        align = max(align, PAGE_SIZE)
        span = -(-nbytes // PAGE_SIZE) * PAGE_SIZE
        # First fit: the lowest gap that leaves a guard page on both sides.
        prev_end = BASE  # page BASE..BASE+PAGE stays unmapped: a guard before the first buffer
        start = None
        for a in self._allocs:
            cand = -(-(prev_end + PAGE_SIZE) // align) * align
            if cand + span + PAGE_SIZE <= a.start:
                start = cand
                break
            prev_end = a.end_page
        if start is None:
            start = -(-(prev_end + PAGE_SIZE) // align) * align
        end_page = start + span
        self._grow(end_page + PAGE_SIZE)  # keep the trailing guard page inside the array
        self.high_water = max(self.high_water, end_page + PAGE_SIZE - BASE)
        if name is None:
            name = f"buffer{self._counter}"
        self._counter += 1
        off = start - BASE
        self.data[off:off + span] = 0
        self.mapped[off >> PAGE_SHIFT:(off + span) >> PAGE_SHIFT] = 1
        bisect.insort(self._allocs, _Alloc(start, nbytes, end_page, name))
        self._freed = [f for f in self._freed if f.end_page <= start or f.start >= end_page]
        self._rebuild_table()
        return start

    def allocate_scratch(self, bytes_per_lane: int, lanes: int, name: str = "scratch") -> ScratchSegment:
        """Allocate the private segment of ``lanes`` work-items (rounded up to whole 64-lane
        waves), ``bytes_per_lane`` each (rounded up to a dword), in the swizzled layout."""
        if bytes_per_lane < 0 or lanes <= 0:
            raise MemoryFault(f"scratch needs bytes_per_lane >= 0 and lanes > 0, got {bytes_per_lane}, {lanes}")
        bpl = -(-int(bytes_per_lane) // 4) * 4
        waves = -(-int(lanes) // 64)
        size = max(bpl * 64 * waves, 4)
        addr = self.allocate(size, name=name)
        return ScratchSegment(addr, size, bpl, int(lanes), waves, scratch_vsharp(addr, size))

    def _find(self, address: int) -> Optional[_Alloc]:
        i = bisect.bisect_right(self._allocs, (address, float("inf"))) - 1
        if i >= 0:
            a = self._allocs[i]
            if a.start <= address < a.start + a.nbytes:
                return a
        return None

    def free(self, address: int) -> None:
        """Unmap the allocation starting at ``address`` (MemoryFault if there is none)."""
        with self._mutex:
            self._free(address)

    def _free(self, address: int) -> None:
        for i, a in enumerate(self._allocs):
            if a.start == address:
                off = a.start - BASE
                self.mapped[off >> PAGE_SHIFT:(a.end_page - BASE) >> PAGE_SHIFT] = 0
                del self._allocs[i]
                self._freed.append(a)
                self._rebuild_table()
                return
        raise MemoryFault(f"free of 0x{address:x}, which is not the start of a live allocation "
                          f"({self.describe(address)})")

    def _host_range(self, address: int, nbytes: int, what: str) -> int:
        a = self._find(address)
        if a is None or address + nbytes > a.start + a.nbytes:
            raise MemoryFault(f"host {what} of {nbytes} bytes at 0x{address:x} is outside any "
                              f"allocation ({self.describe(address)})")
        return address - BASE

    def write(self, address: int, data: Union[bytes, bytearray, memoryview, np.ndarray]) -> None:
        """Copy ``data`` (bytes or any contiguous numpy array, raw bytes) to ``address``."""
        buf = np.ascontiguousarray(data).view(np.uint8).ravel() if isinstance(data, np.ndarray) \
            else np.frombuffer(bytes(data), dtype=np.uint8)
        off = self._host_range(address, buf.size, "write")
        self.data[off:off + buf.size] = buf

    def read(self, address: int, nbytes: int) -> bytes:
        """Copy ``nbytes`` starting at ``address`` out of GPU memory."""
        off = self._host_range(address, nbytes, "read")
        return self.data[off:off + nbytes].tobytes()

    def read_array(self, address: int, dtype, count: int) -> np.ndarray:
        """A fresh numpy array of ``count`` elements of ``dtype`` read from ``address``."""
        dt = np.dtype(dtype)
        off = self._host_range(address, dt.itemsize * count, "read")
        return self.data[off:off + dt.itemsize * count].copy().view(dt)

    def describe(self, address: int) -> str:
        """Say where ``address`` is: 'buffer NAME + 0x..' or 'unmapped, N bytes past buffer X'."""
        a = self._find(address)
        if a is not None:
            return f"buffer '{a.name}' (0x{a.start:x}, {a.nbytes} bytes) + {address - a.start}"
        for f in reversed(self._freed):
            if f.start <= address < f.start + f.nbytes:
                return f"freed buffer '{f.name}' (was 0x{f.start:x}, {f.nbytes} bytes) + {address - f.start}"
        if not self._allocs:
            return f"unmapped address 0x{address:x} (no buffers allocated)"
        i = bisect.bisect_right(self._allocs, (address, float("inf"))) - 1
        before = self._allocs[i] if i >= 0 else None
        after = self._allocs[i + 1] if i + 1 < len(self._allocs) else None
        end = before.start + before.nbytes if before else None
        if before is not None and address < before.end_page:
            return (f"{address - end} bytes past the end of buffer '{before.name}' "
                    f"(0x{before.start:x}, {before.nbytes} bytes), inside its last page (mapped)")
        if before is not None and (after is None or address - end <= after.start - address):
            return f"unmapped, {address - end} bytes past buffer '{before.name}' (0x{before.start:x}, {before.nbytes} bytes)"
        return f"unmapped, {after.start - address} bytes before buffer '{after.name}' (0x{after.start:x}, {after.nbytes} bytes)"

    def snapshot(self) -> "MemorySnapshot":
        """A copy of the address space (contents up to the last mapped page, the page map and
        the allocation table) that :meth:`from_snapshot` turns back into an equal Memory, in
        this process or another one (a sharded dispatch's workers start from the client's
        memory: gcnemu/shards.py)."""
        with self._mutex:
            end = max((a.end_page for a in self._allocs), default=BASE + PAGE_SIZE) - BASE
            return MemorySnapshot(self.data[:end].copy(), self.mapped[:end >> PAGE_SHIFT].copy(),
                                  tuple(self._allocs), self._counter)

    @classmethod
    def from_snapshot(cls, snap: "MemorySnapshot") -> "Memory":
        """A new Memory holding what ``snap`` holds, every buffer at its address."""
        mem = cls(initial_bytes=snap.data.size + PAGE_SIZE)
        mem.data[:snap.data.size] = snap.data
        mem.mapped[:snap.mapped.size] = snap.mapped
        mem._allocs = list(snap.allocations)
        mem._counter = snap.counter
        mem.high_water = min(snap.data.size + PAGE_SIZE, mem.data.size)
        mem._rebuild_table()
        return mem

    def is_mapped(self, address: int) -> bool:
        """True when the page holding ``address`` is mapped."""
        off = address - BASE
        return 0 <= off < self.data.size and bool(self.mapped[off >> PAGE_SHIFT])
