"""Sharded dispatch: a dispatch's workgroups cut into shards that run in other processes
(Dask workers: ``gpu.dispatch(..., client=client)``, gcnemu/device.py), merged back.

How it keeps the bits of a local dispatch:

* Every shard starts from the same memory: a snapshot of the client GPU's address space
  (``Memory.snapshot``), sent once per worker, restored at the same addresses, so pointers
  held in buffers and kernel arguments mean the same there.
* A shard runs a range of consecutive workgroups (``Launch.run(workgroups=...)``) and returns
  the bytes it wrote: where its memory differs from the snapshot, within the pages that were
  mapped (the shard's own kernarg segment, packet and scratch lie elsewhere), as runs of
  consecutive bytes.
* The client writes every shard's bytes into its memory. The workgroups of a race-free
  kernel write distinct bytes; two shards that leave different values in one byte are a
  race, a DispatchError naming the buffer and the offset, and nothing is written. (A race in
  which one of the shards writes back the value the byte had is not seen: only changed
  bytes travel.)
* Kernels whose global atomics commute (workers=2's rule: non-returning, one class, one
  width; gcnemu.kernel.global_atomic_class) combine the words that several shards changed by
  the atomic's operation: a sum of the shards' increments for add/sub, the AND, OR, XOR,
  minimum or maximum of their values. Other kernels with global atomics, and GDS users, are
  not sharded (``shard_refusal``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import DispatchError
from .mem.space import BASE, PAGE_SIZE, Memory, MemorySnapshot
from .report import DispatchReport


@dataclass
class ShardJob:
    """What every shard of a sharded dispatch needs, sent once to each worker: the GPU's
    configuration and state (the memory as a snapshot), the kernel's program source and the
    dispatch's arguments (buffers as addresses)."""

    config: object              #: GPUConfig
    step_limit: int
    waves_per_batch: int | None
    time_limit: float | None
    queue_address: int
    gds: np.ndarray
    dispatch_id: int
    source: object              #: gcnemu.kernel.ProgramSource
    kernel: str
    image_address: int          #: where the client mapped the code object's image (0: none)
    grid: tuple
    block: tuple
    args: list
    offset: tuple
    implicit_args: str
    memory: MemorySnapshot


@dataclass
class ShardWrites:
    """The bytes a shard wrote: runs of consecutive bytes at ``starts`` (offsets from the
    memory's BASE) of ``lengths`` bytes, their new values one after the other."""

    starts: np.ndarray
    lengths: np.ndarray
    values: np.ndarray

    def offsets(self) -> np.ndarray:
        """Every written byte's offset, in order (the runs expanded)."""
        if not self.lengths.size:
            return np.zeros(0, np.int64)
        first = np.cumsum(self.lengths) - self.lengths
        return np.repeat(self.starts - first, self.lengths) + np.arange(int(self.lengths.sum()))


def shard_ranges(ngroups: int, shards: int) -> list[range]:
    """``ngroups`` linear workgroup indices cut into ``shards`` consecutive ranges of nearly
    equal size (none empty)."""
    n = max(1, min(int(shards), int(ngroups)))
    cuts = [ngroups * i // n for i in range(n + 1)]
    return [range(cuts[i], cuts[i + 1]) for i in range(n)]


def written_bytes(before: MemorySnapshot, after: Memory) -> ShardWrites:
    """What a shard changed in the pages ``before`` had mapped, as runs."""
    n = before.data.size
    mapped = np.repeat(before.mapped.astype(bool), PAGE_SIZE)[:n]
    changed = np.flatnonzero((after.data[:n] != before.data) & mapped)
    if not changed.size:
        z = np.zeros(0, np.int64)
        return ShardWrites(z, z, np.zeros(0, np.uint8))
    breaks = np.flatnonzero(np.diff(changed) != 1) + 1
    starts = changed[np.concatenate(([0], breaks))]
    ends = changed[np.concatenate((breaks - 1, [changed.size - 1]))] + 1
    return ShardWrites(starts.astype(np.int64), (ends - starts).astype(np.int64),
                       after.data[changed].copy())


def merge_writes(memory: Memory, before: MemorySnapshot, writes: list, atomic=None) -> int:
    """Write every shard's bytes (``writes``: ShardWrites in shard order) into ``memory``,
    which holds what ``before`` holds. Bytes that several shards changed to different values
    are a DispatchError naming the first such byte's buffer and offset (memory unchanged) --
    unless ``atomic`` = (operation, bytes) (gcnemu.kernel.global_atomic_class): then the
    words several shards changed combine by that operation. Returns the bytes written."""
    offs = [w.offsets() for w in writes]
    if not offs or not sum(o.size for o in offs):
        return 0
    idx = np.concatenate(offs)
    val = np.concatenate([w.values for w in writes])
    owner = np.concatenate([np.full(o.size, i, np.int64) for i, o in enumerate(offs)])
    order = np.argsort(idx, kind="stable")
    idx, val, owner = idx[order], val[order], owner[order]
    again = np.flatnonzero(idx[1:] == idx[:-1]) + 1      # a byte another shard wrote before
    if again.size and atomic is None:
        differ = again[val[again] != val[again - 1]]
        if differ.size:
            k = int(differ[0])
            addr = BASE + int(idx[k])
            raise DispatchError(
                f"sharded dispatch: shards {int(owner[k - 1])} and {int(owner[k])} wrote "
                f"different values (0x{int(val[k - 1]):02x} and 0x{int(val[k]):02x}) to the "
                f"byte at 0x{addr:x}, {memory.describe(addr)}: the kernel's workgroups race "
                f"(a local dispatch would keep whichever wrote last); nothing was written")
    data = memory.data
    data[idx] = val            # for a byte written twice with one value, either
    if atomic is not None and len(writes) > 1:
        _combine_atomic_words(data, before.data, idx, val, owner, *atomic)
    return int(idx.size)


#: how shards' values of one word combine: (orig, [values], bits) -> the final value
def _add(orig, vals, bits):
    return (orig + sum(v - orig for v in vals)) % (1 << bits)


def _signed(v, bits):
    return v - (1 << bits) if v >> (bits - 1) else v


_COMBINE = {
    "add": _add,
    "and": lambda o, vals, b: _fold(vals, lambda x, y: x & y),
    "or": lambda o, vals, b: _fold(vals, lambda x, y: x | y),
    "xor": lambda o, vals, b: _fold([v ^ o for v in vals], lambda x, y: x ^ y) ^ o,
    "umin": lambda o, vals, b: min(vals),
    "umax": lambda o, vals, b: max(vals),
    "smin": lambda o, vals, b: min(vals, key=lambda v: _signed(v, b)),
    "smax": lambda o, vals, b: max(vals, key=lambda v: _signed(v, b)),
}


def _fold(vals, f):
    out = vals[0]
    for v in vals[1:]:
        out = f(out, v)
    return out


def _combine_atomic_words(data, orig, idx, val, owner, op, width) -> None:
    """Give each word (of ``width`` bytes) that several shards changed the value ``op``
    makes of the shards' values of it (each: the original word with that shard's bytes;
    shards that changed different bytes of a word count too: a minimum is not bytewise)."""
    word = idx // width
    pairs = np.unique(word * (int(owner.max()) + 1) + owner)     # (word, shard) once each
    pw = pairs // (int(owner.max()) + 1)
    words = np.unique(pw[np.flatnonzero(pw[1:] == pw[:-1]) + 1])
    if not words.size:
        return
    lo = np.searchsorted(idx, words * width)
    hi = np.searchsorted(idx, words * width + width)
    combine, bits = _COMBINE[op], 8 * width
    for w, a, b in zip(words.tolist(), lo.tolist(), hi.tolist()):
        base = w * width
        o = bytearray(orig[base:base + width].tobytes())
        per_shard = {}
        for j in range(a, b):
            per_shard.setdefault(int(owner[j]), bytearray(o))[int(idx[j]) - base] = int(val[j])
        vals = [int.from_bytes(v, "little") for v in per_shard.values()]
        new = combine(int.from_bytes(o, "little"), vals, bits)
        data[base:base + width] = np.frombuffer(new.to_bytes(width, "little"), np.uint8)


def merge_reports(reports: list, grid, block, workgroups: int) -> DispatchReport:
    """One DispatchReport of a dispatch from its shards' (in shard order): counters added up,
    faults, messages and exports in workgroup order."""
    first = reports[0]
    rep = DispatchReport(first.kernel, grid, block, workgroups, 0, occupancy=first.occupancy)
    for r in reports:
        rep.waves += r.waves
        for k, v in r.counters.items():
            rep.counters[k] = rep.counters.get(k, 0) + v
        rep.faults.extend(r.faults)
        rep.messages.extend(r.messages)
        rep.exports.extend(r.exports)
        rep.halted_waves += r.halted_waves
        rep.valu_lanes += r.valu_lanes
        rep.compile_seconds += r.compile_seconds
        for kind, n in r.dropped.items():
            rep.dropped[kind] = rep.dropped.get(kind, 0) + n
    rep.shards = len(reports)
    return rep
