"""The command processor: a queue of packets a GPU executes in order.

    q = gpu.queue()
    q.dispatch(producer, grid, block, [uav])           # same keywords as gpu.dispatch
    q.cache_op("l2", writeback=True, invalidate=False, when="eop")   # pipelined L2 write-back
    q.write_on_event(fence, 1, event="eop")            # EOP fence write F
    q.wait_memory(fence, 1, engine="pfp")              # the PFP waits on F
    q.dispatch_indirect(consumer, args, block, [uav])  # grid read by the CP from memory
    result = q.submit()                                # QueueResult: reports, findings, cycles

What the seed caches-and-coherency.txt says, and what the packets do:

* "draw calls and compute-shader dispatches enter from the command processor and retire
  after they have been fully executed. Even though draws and dispatches can run concurrently
  on the GPU, they don't overtake each other and always retire in order." Dispatches with no
  barrier between them may overlap. Functionally the packets execute one after the other;
  on a coherency-accurate GPU (``GPU(coherent_caches=True)``) a dispatch that overlaps earlier
  ones reads the lines they write as they were before them (the worst case of the overlap:
  its loads ran first) and gets a ``missing-sync`` finding for each such load. Writes land
  in packet order (in-order retirement). In timing mode (``GPU(timing=True)``) an
  overlapping dispatch starts when the previous one's last wave has launched, a dispatch
  after a barrier when the previous ones have retired; each retires no earlier than the one
  before it.
* Barriers: ``partial_flush()`` (CS_PARTIAL_FLUSH: "the command processor blocks packet
  execution until it receives a signal indicating that a ... compute shader (CS) stage has
  completely drained"), and fences: ``write_on_event`` ("WriteValueEndOfPipe": a value or a
  timestamp written when the work before it retires, at the end of pipe or end of shader,
  which for compute are the same point) followed by ``wait_memory`` ("InsertWaitOnMemory":
  the CP stalls until the value satisfies the comparison). A wait that is satisfied retires
  the dispatches before the event that wrote the value (all before the wait when a kernel
  wrote it). A wait that can never be satisfied (nothing in flight can write the value) is a
  hang: an ExecutionError.
* "Pipeline synchronization doesn't affect any GPU caches": ``cache_op(level, invalidate,
  writeback, when)`` for "l1" (TCP), "l2" (TCC), "k" (K$), "i" (I$) or "all", top of pipe
  (``when="top"``: at once, "no matter what work is running on the GPU at the time": lines
  a dispatch that may still run writes are not written back) or pipelined (``when="eop"``:
  when the work before it has retired).
* Indirect dispatches read their workgroup counts at the PFP ("CP/PFP: predication buffers,
  vertex indices, and indirect buffers"), from memory, not through the L2: the producer's
  L2 lines must be written back and it must have retired at the PFP level ("Before the
  consumer starts, insert a wait on memory F on the PFP", or "a wait on memory on the ME
  followed by the PFP_SYNC_TO_ME": ``pfp_sync_me()``). Otherwise they read what memory held
  and a ``missing-sync`` finding says why.

``gpu.dispatch`` is the simple path: a queue of one dispatch with the synchronisation a
runtime inserts around it (see GPU.__init__).

On a GPU without coherency-accurate mode memory is always current: cache operations then
change no data (in timing mode they act on the tags of ``gpu.caches``), and the findings
list stays empty; the order of the packets, fences and waits still holds.
"""
from __future__ import annotations

import operator
import struct
from dataclasses import dataclass, field

import numpy as np

from .errors import ExecutionError, GcnEmuError
from .sanitize.findings import Finding, merge_findings

#: cycles of one memory transaction of the command processor (a fence's write, a wait's
#: read): the seed: "the cost of at least two memory transactions, which will be at least
#: 800 cycles or 1us"
MEMORY_TRANSACTION_CYCLES = 400
#: comparisons of wait_memory (the seed: "the GPU supports multiple comparison functions,
#: such as less than or greater than")
COMPARES = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge}


@dataclass
class _Packet:
    """One packet of a queue (its kind and arguments)."""
    kind: str
    args: dict


@dataclass
class _DispatchContext:
    """What a queue tells GPU.dispatch about the packet it runs (coherency-accurate mode)."""
    label: str
    pending: list
    written: tuple | None = None


@dataclass
class QueueResult:
    """What ``Queue.submit`` returns: the dispatches' reports in packet order, the findings of
    the queue (its dispatches' and the command processor's, merged), and in timing mode the
    cycles from the first packet to the last retirement, with each dispatch's (start, end)."""
    reports: list = field(default_factory=list)
    findings: list = field(default_factory=list)
    cycles: int | None = None
    dispatch_cycles: list = field(default_factory=list)

    def __iter__(self):
        return iter(self.reports)

    def __len__(self):
        return len(self.reports)

    def __getitem__(self, i):
        return self.reports[i]


def _address(a, what: str) -> int:
    """An address: a Buffer (its start), a (Buffer, byte offset) pair or an integer."""
    if isinstance(a, tuple) and len(a) == 2:
        return _address(a[0], what) + operator.index(a[1])
    addr = getattr(a, "address", a)
    try:
        return operator.index(addr)
    except TypeError:
        raise GcnEmuError(f"{what} is a Buffer, (Buffer, offset) or an address, not {a!r}") from None


class Queue:
    """A command queue of a GPU (``gpu.queue()``); see the module docstring. Packets are
    recorded by the methods below and executed in order by ``submit()``."""

    def __init__(self, gpu):
        self.gpu = gpu
        self.packets: list[_Packet] = []

    # --- recording ------------------------------------------------------------------------
    def dispatch(self, kernel, grid, block, args=(), **kwargs) -> "Queue":
        """A dispatch packet: ``gpu.dispatch(kernel, grid, block, args, **kwargs)`` at its
        turn, without the runtime's synchronisation around it."""
        self.packets.append(_Packet("dispatch", dict(kernel=kernel, grid=grid, block=block,
                                                     args=args, kwargs=kwargs)))
        return self

    def dispatch_indirect(self, kernel, arguments, block, args=(), **kwargs) -> "Queue":
        """An indirect dispatch: the PFP reads three uint32 workgroup counts (x, y, z) at
        ``arguments`` (a Buffer, (Buffer, offset) or address) from memory; the grid is
        counts x block."""
        self.packets.append(_Packet("indirect", dict(kernel=kernel, address=_address(
            arguments, "dispatch_indirect's arguments"), block=block, args=args, kwargs=kwargs)))
        return self

    def partial_flush(self) -> "Queue":
        """CS_PARTIAL_FLUSH: the next packet waits until every dispatch before has retired."""
        self.packets.append(_Packet("barrier", {}))
        return self

    barrier = partial_flush

    def cache_op(self, level: str = "all", invalidate: bool = True, writeback: bool = False,
                 when: str = "top") -> "Queue":
        """Invalidate and/or write back a cache level: "l1" (TCP), "l2" (TCC), "k" (K$),
        "i" (I$), "all"; ``when`` "top" (top of pipe, at once) or "eop" (pipelined: when the
        work before it retires). The L2's invalidate writes its dirty lines back first (the
        seed's table gives the TCC Writeback+Invalidate only)."""
        from .coherency import check_level
        check_level(level)
        if when not in ("top", "eop"):
            raise GcnEmuError(f"cache_op(when=...) is 'top' or 'eop', not {when!r}")
        if not (invalidate or writeback):
            raise GcnEmuError("cache_op needs invalidate=True or writeback=True (or both)")
        self.packets.append(_Packet("cache", dict(level=level, invalidate=bool(invalidate),
                                                  writeback=bool(writeback), when=when)))
        return self

    def write_on_event(self, address, value=None, event: str = "eop", timestamp: bool = False,
                       nbytes: int = 4) -> "Queue":
        """WriteValueEndOfPipe: when the work before it retires (``event`` "eop" or "eos"),
        the CP writes ``value`` (``nbytes`` 4 or 8, little-endian) or, with ``timestamp``,
        the GPU clock (timing mode: the queue's cycle; otherwise the count of dispatches
        retired) to ``address`` (a Buffer, (Buffer, offset) or address), through the L2."""
        if event not in ("eop", "eos"):
            raise GcnEmuError(f"write_on_event(event=...) is 'eop' or 'eos', not {event!r}")
        if nbytes not in (4, 8):
            raise GcnEmuError(f"write_on_event writes 4 or 8 bytes, not {nbytes}")
        if (value is None) == (not timestamp):
            raise GcnEmuError("write_on_event takes a value or timestamp=True")
        self.packets.append(_Packet("event", dict(address=_address(address, "write_on_event's "
                                                                   "address"),
                                                  value=value, event=event,
                                                  timestamp=timestamp, nbytes=nbytes)))
        return self

    def wait_memory(self, address, reference: int, mask: int = 0xFFFFFFFF, compare: str = "==",
                    engine: str = "me") -> "Queue":
        """WAIT_REG_MEM: the CP (``engine`` "me", the micro engine, or "pfp", the prefetch
        parser) stalls until ``(dword at address & mask) compare reference``."""
        if compare not in COMPARES:
            raise GcnEmuError(f"wait_memory compare is one of {', '.join(COMPARES)}, not "
                              f"{compare!r}")
        if engine not in ("me", "pfp"):
            raise GcnEmuError(f"wait_memory engine is 'me' or 'pfp', not {engine!r}")
        self.packets.append(_Packet("wait", dict(address=_address(address, "wait_memory's "
                                                                  "address"),
                                                 reference=int(reference), mask=int(mask),
                                                 compare=compare, engine=engine)))
        return self

    def pfp_sync_me(self) -> "Queue":
        """PFP_SYNC_ME: the PFP waits until the ME has reached this packet (so that an ME
        wait before it also holds back the PFP's indirect-argument reads)."""
        self.packets.append(_Packet("pfp_sync", {}))
        return self

    # --- execution ------------------------------------------------------------------------
    def submit(self) -> QueueResult:
        """Execute the packets in order; returns a QueueResult. The queue is empty after."""
        packets, self.packets = self.packets, []
        return _Run(self.gpu).run(packets)


class _Run:
    """The state of the command processor while it executes one submission."""

    def __init__(self, gpu):
        self.gpu = gpu
        self.coherent = gpu.coherent_caches
        self.timing = gpu.timing
        self.result = QueueResult(cycles=0 if gpu.timing else None)
        self.ndispatch = 0
        #: dispatches that may still run at the ME / PFP level: (index, label, lines, data)
        self.pending = []
        self.pfp_retired = -1     # dispatches 0..pfp_retired have retired at the PFP
        self.me_retired = -1
        self.fences = {}          # address -> index of the last dispatch before its event
        # timing: the CP's clock, the last retirement, the last wave launch of the last dispatch
        self.t_cp = 0
        self.t_retire = 0
        self.t_launched = 0
        self.t_values = {}        # address -> cycle its event value was written

    def run(self, packets) -> QueueResult:
        for i, p in enumerate(packets):
            try:
                getattr(self, "_" + p.kind)(i, **p.args)
            except GcnEmuError as e:
                if getattr(e, "_queue_noted", False):
                    raise
                e.args = (f"queue packet {i} ({p.kind}): {e.args[0]}",) + e.args[1:]
                e._queue_noted = True
                raise
        res = self.result
        res.findings = merge_findings(res.findings)
        if self.timing:
            res.cycles = max(self.t_cp, self.t_retire)
        return res

    def _retire(self, upto: int, pfp: bool) -> None:
        """Dispatches 0..upto have retired (at the ME, and with ``pfp`` at the PFP too)."""
        self.me_retired = max(self.me_retired, upto)
        if pfp:
            self.pfp_retired = max(self.pfp_retired, upto)
        keep = min(self.me_retired, self.pfp_retired)
        self.pending = [p for p in self.pending if p[0] > keep]

    def _me_pending(self):
        return [(label, lines, data) for i, label, lines, data in self.pending
                if i > self.me_retired]

    def _run_dispatch(self, kernel, grid, block, args, kwargs):
        gpu = self.gpu
        label = f"#{self.ndispatch} {getattr(kernel, 'name', kernel)}"
        ctx = _DispatchContext(label, self._me_pending()) if self.coherent else None
        gpu._packet = ctx
        try:
            rep = gpu.dispatch(kernel, grid, block, args, **kwargs)
        finally:
            gpu._packet = None
        if ctx is not None and ctx.written is not None:
            _label, lines, data = ctx.written
            if lines.size:
                self.pending.append((self.ndispatch, label, lines, data))
        if rep.findings:
            self.result.findings.extend(rep.findings)
        self.result.reports.append(rep)
        if self.timing:
            start = max(self.t_cp, self.t_launched)
            cyc = rep.cycles or 0
            end = max(start + cyc, self.t_retire)
            launched = start + (int(rep.wave_cycles[:, 0].max())
                                if rep.wave_cycles is not None and len(rep.wave_cycles) else 0)
            self.t_launched = launched
            self.t_retire = end
            self.t_cp = start
            self.result.dispatch_cycles.append((start, end))
        self.ndispatch += 1
        return rep

    def _dispatch(self, i, kernel, grid, block, args, kwargs):
        self._run_dispatch(kernel, grid, block, args, kwargs)

    def _indirect(self, i, kernel, address, block, args, kwargs):
        gpu = self.gpu
        raw = gpu.memory.read_array(address, np.uint32, 3)
        counts = [int(v) for v in raw]
        if self.coherent:
            counts = self._cp_read_indirect(kernel, address, counts)
        try:
            block = tuple(block)
        except TypeError:
            block = (block,)
        block = block + (1,) * (3 - len(block))
        if any(c == 0 for c in counts):
            self.ndispatch += 1      # an empty dispatch: nothing runs (as the hardware)
            return
        grid = tuple(c * b for c, b in zip(counts, block))
        self._run_dispatch(kernel, grid, block, args, kwargs)

    def _cp_read_indirect(self, kernel, address, counts):
        """The workgroup counts the PFP reads from memory: as memory holds them, or, where a
        dispatch that has not retired at the PFP writes them, as they were before it; with
        a missing-sync finding for either stale case."""
        from .coherency import BASE, LINE
        caches = self.gpu.coherent
        caches.sync(self.gpu.memory)
        name = getattr(kernel, "name", str(kernel))
        x0 = (address - BASE) // LINE
        x1 = (address + 11 - BASE) // LINE
        data = bytearray(self.gpu.memory.read(address, 12))
        for idx, label, lines, old in self.pending:
            if idx <= self.pfp_retired:
                continue
            for j in np.flatnonzero((lines >= x0) & (lines <= x1)).tolist():
                x = int(lines[j])
                line = old[j].view(np.uint8)
                for b in range(12):
                    o = address + b - BASE - x * LINE
                    if 0 <= o < LINE:
                        data[b] = line[o]
                self.result.findings.append(Finding(
                    "missing-sync", name, address=address,
                    detail=(f"the PFP reads the indirect arguments at 0x{address:x} that "
                            f"dispatch {label} writes before that dispatch has retired at the "
                            f"PFP: wait on its fence with engine='pfp', or add pfp_sync_me() "
                            f"after the ME's wait (seed: \"The synchronization has to happen "
                            f"at the PFP level because it reads indirect buffers\")"),
                    what="indirect-pfp"))
                break
        if caches.dirty_in(address, 12):
            self.result.findings.append(Finding(
                "missing-sync", name, address=address,
                detail=(f"the indirect arguments at 0x{address:x} are dirty in the L2, and the "
                        f"CP reads memory: write the L2 back after the producer (seed: \"Issue "
                        f"a pipelined L1/L2 cache flush\")"),
                what="indirect-l2"))
        return list(struct.unpack("<3I", bytes(data)))

    def _barrier(self, i):
        self._retire(self.ndispatch - 1, pfp=False)
        if self.timing:
            self.t_cp = max(self.t_cp, self.t_retire)

    def _pfp_sync(self, i):
        self._retire(self.me_retired, pfp=True)

    def _skip_lines(self):
        """bool [lines] of the lines dispatches that may still run write (top-of-pipe cache
        operations do not reach them)."""
        caches = self.gpu.coherent
        caches.sync(self.gpu.memory)
        skip = np.zeros(caches.nlines, np.bool_)
        for idx, _label, lines, _d in self.pending:
            if idx > self.me_retired:
                skip[lines] = True
        return skip

    def _cache(self, i, level, invalidate, writeback, when):
        gpu = self.gpu
        written = 0
        if self.coherent:
            caches = gpu.coherent
            skip = self._skip_lines() if when == "top" else None
            if writeback and not invalidate:
                written = caches.writeback(level, gpu.memory, skip)
            else:
                if writeback is False and level in ("l2", "all"):
                    pass     # the TCC has Writeback+Invalidate only (see cache_op)
                written = caches.invalidate(level, gpu.memory, skip)
        elif self.timing:
            fn = gpu.caches.invalidate if invalidate else gpu.caches.writeback
            written = fn(level)
        if self.timing:
            # the written-back lines at the DRAM's bandwidth, then the write-confirm (one
            # memory transaction: "It also ensures that the write-confirms of memory writes
            # have been received")
            tc = gpu.timing_config
            bytes_per_cycle = tc.dram_gbps * 1e3 / gpu.config.clock_mhz
            cost = int(np.ceil(written * 64 / bytes_per_cycle)) + MEMORY_TRANSACTION_CYCLES
            if when == "top":
                self.t_cp += cost
            else:
                self.t_retire += cost

    def _event(self, i, address, value, event, timestamp, nbytes):
        gpu = self.gpu
        if timestamp:
            value = max(self.t_retire, self.t_cp) if self.timing else self.ndispatch
        payload = int(value).to_bytes(nbytes, "little", signed=int(value) < 0)
        if self.coherent:
            gpu.coherent.cp_write(gpu.memory, address, payload, f"the CP ({event} event)")
        else:
            gpu.memory.write(address, np.frombuffer(payload, np.uint8))
        self.fences[address] = self.ndispatch - 1
        if self.timing:
            self.t_values[address] = max(self.t_retire, self.t_cp) + MEMORY_TRANSACTION_CYCLES

    def _wait(self, i, address, reference, mask, compare, engine):
        gpu = self.gpu
        if self.coherent:
            raw = gpu.coherent.l2_read(gpu.memory, address, 4)
        else:
            raw = gpu.memory.read(address, 4)
        v = int.from_bytes(raw, "little") & mask
        if not COMPARES[compare](v, reference & mask):
            raise ExecutionError(
                f"the command processor waits forever: wait_memory at 0x{address:x} needs "
                f"(value & 0x{mask:x}) {compare} {reference & mask}, the value is {v}, and no "
                f"packet before it writes another (a fence write missing, or waiting on the "
                f"wrong value?)")
        upto = self.fences.get(address, self.ndispatch - 1)
        self._retire(upto, pfp=engine == "pfp")
        if self.timing:
            ready = self.t_values.get(address, self.t_retire)
            self.t_cp = max(self.t_cp, ready) + MEMORY_TRANSACTION_CYCLES
