"""Launch: setting up a dispatch, placing its workgroups and running their batches.

A Launch is what a dispatch of one kernel with one launch shape (grid, block, LDS size,
workers) needs besides the argument values; a GPU keeps its recent ones. Running it cuts the
workgroups into batches, sets each batch's waves up as the AMDGPU ABI says (placement on CUs
and SIMDs, registers, scratch), runs them in the engine on one or more workers
(gcnemu/workers.py), adds up the counters and describes faults and failed waves; in timing
mode the cycle model (gcnemu/timing) replays the traces.
"""
from __future__ import annotations

import operator
import time

import numpy as np

from .errors import DispatchError, ExecutionError, MemoryFault
from .exec.engine import (NO_TRACE, SLICE_STEPS, error_from_wave, new_sched, run_group_waves,
                          run_sliced)
from .hardware import occupancy
from .kernel import Kernel
from .exec.layout import (C_PC, EXEC_HI, EXEC_LO, M0, NWS, ST_BARRIER, ST_HALTED, WS_CODE_BASE,
                          WS_FAULTS, WS_GROUP, WS_HW_ID, WS_LDS_BASE, WS_LDS_OVERRUNS, WS_LDS_SIZE,
                          WS_MODE, WS_PC, WS_SCRATCH_BASE, WS_SCRATCH_WAVE, WS_SGPRS, WS_STATUS,
                          WS_VALU_LANES, WS_VBASE, WS_VCOUNT)
from .exec.state import first_lds_overrun
from .loader import abi
from .mem.descriptors import scratch_vsharp
from .mem.export import new_export_buffer, read_exports
from .mem.space import BASE as MEM_BASE
from .mem.space import PAGE_SIZE, Memory, zeros_aligned
from .report import COUNTER_COLUMNS, PC_CYCLES_DTYPE, DispatchReport
from .timing.costs import PC_COLUMNS, STALL_REASONS
from .timing.trace import MIN_TRACE, RUNS_COUNT, tail_length
from .workers import BatchResult, SharedQueue

#: the SGPR pairs of the launch state that may change from one dispatch of a launch to the
#: next (the addresses only when the kernarg segment needs more room: see Launch._region)
_PER_DISPATCH_SGPRS = ("dispatch_ptr", "kernarg_segment_ptr", "dispatch_id")
#: batch set-ups of edge batches (cut by the grid) a worker keeps besides the full batches'
MAX_EDGE_TEMPLATES = 4
_NO_SCRATCH_VSHARP = scratch_vsharp(0, 0)

#: GPU(waves_per_batch=None): a batch holds this many waves at most where several workers
#: share the launch...
WAVES_PER_BATCH = 128
#: ...and on one worker this many, as long as their VGPRs take at most ONE_WORKER_VGPR_BYTES
#: (what 128 waves of 256 VGPRs take): a batch's set-up and bookkeeping in Python (~20-40 us)
#: is then paid once per 512 waves of a small kernel (saxpy 2^20: ~15% of its time at 128)
ONE_WORKER_WAVES_PER_BATCH = 512
ONE_WORKER_VGPR_BYTES = 8 << 20
#: with several workers, batches are made small enough that each worker gets at least this
#: many (load balance); a batch costs some 0.02-0.1 ms of Python (set-up and bookkeeping)
BATCHES_PER_WORKER = 4
#: ...but a one-worker batch is cut into at most this many: cheap kernels do not win back
#: the set-up of smaller batches, which runs under the GIL (saxpy of 129 waves, 2 workers
#: against 1: 0.59x the speed in batches of 4 workgroups, 0.85x in 8, 1.02x in 16 of the
#: 32 a one-worker batch holds; a 192-wave mandelbrot 1.72x, 1.81x and 1.58x)
MAX_BATCH_SPLIT = 2
#: the workgroups of one dispatch (their coordinates are laid out at launch: 24 bytes each)
MAX_WORKGROUPS = 1 << 22
#: the scratch of one batch of workgroups is at most this big (or one workgroup's, if larger)
MAX_BATCH_SCRATCH_BYTES = 64 << 20
#: a GPU keeps the set-up of its most recent launch shapes (Launch) for this many of them...
KEEP_LAUNCHES = 8
#: ...unless one holds more than this many bytes of state arrays and scratch: big launches
#: spend their time emulating, not setting up, and should not pin host or GPU memory
KEEP_LAUNCH_BYTES = 64 << 20
#: (counter name, ws column) of the counters a batch reports
_COUNTER_PAIRS = tuple(COUNTER_COLUMNS.items())


def compile_plan(timing: bool):
    """What a dispatch compiles on first use (roots and functions not to walk into, for the
    progress of exec.jit.CompileWatch): the engine's loop, and with timing on the timing
    model; never the sanitizer's recording (compiled by the first dispatch with
    sanitize=True, which the estimate does not count). The trace's recorders are compiled on
    first use (exec/engine.py provide_code) and add themselves to the count then."""
    from .sanitize.record import record_access
    if not timing:
        return [run_group_waves], [record_access]
    from .timing.model import split_trace, time_dispatch
    return [run_group_waves, split_trace, time_dispatch], [record_access]


class Launch:
    """What a dispatch of one kernel with one launch shape (grid, block, LDS size, workers)
    needs besides the argument values: the derived launch parameters (``ctx``), the kernarg
    layout, the GPU memory holding the AQL packet, kernel descriptor and kernarg segment, and
    the per-worker state arrays with their scratch. A GPU keeps recent ones
    (LaunchCache) so that a repeated small dispatch does not redo this set-up.

    Every dispatch sees them as freshly made: write_segments zeroes the memory regions before
    writing them, get_states zeroes the scratch, and a batch resets its state arrays
    (BatchState.reset and Launch._init_batch). The per-dispatch values (dispatch id, the
    addresses of packet and kernarg segment) are set by _init_batch each time."""

    def __init__(self, gpu, kernel: Kernel, grid, block, lds_size: int, workers: int,
                 ndim: int = 3, offset=(0, 0, 0), implicit_args: str = "rocm"):
        info = kernel.info
        config = gpu.config
        self.info, self.grid, self.block, self.ndim = info, grid, block, ndim
        self.cal = cal = getattr(info, "cal", None)
        if cal is not None:
            from .loader.cal import CalLaunchLayout
            self.kernarg = CalLaunchLayout(info, grid, block, ndim)
        elif info.code_object_version:
            hidden = abi.default_hidden_args(grid[:ndim], block[:ndim])
            for i, ax in enumerate("xyz"):
                hidden[f"hidden_global_offset_{ax}"] = int(offset[i])
            self.kernarg = abi.KernargLayout(info, hidden)
            if implicit_args == "libclc":
                self.kernarg.use_libclc_implicit_args(ndim, offset)
        else:
            self.kernarg = _RawKernarg()
        self.priv = priv = int(info.private_segment_fixed_size)
        groups = [-(-grid[i] // block[i]) for i in range(3)]
        self.ngroups = ngroups = groups[0] * groups[1] * groups[2]
        self.group_items = group_items = block[0] * block[1] * block[2]
        waves_per_group = -(-group_items // 64)
        vcount = max(4, min(256, info.vgpr_count))
        scount = max(8, min(104, info.sgpr_count))
        self.occ = occupancy(vcount, info.sgpr_count, lds_size, waves_per_group, config)
        self.serial_reason, uses_gds = kernel.code_facts()
        if cal is not None:
            sgpr_layout = [(what, first, n) for what, first, n, _v in self.kernarg.user_sgprs(0)]
            sgpr_layout += _cal_system_sgprs(info)
        else:
            sgpr_layout = abi.initial_sgpr_layout(info) if info.code_object_version else _asm_sgpr_layout(info)
        nworkers = 1 if self.serial_reason else max(1, int(workers))
        wpb = gpu.waves_per_batch or WAVES_PER_BATCH
        groups_per_batch = max(1, wpb // waves_per_group)
        # a batch's scratch is one allocation: kernels with a large private segment run in
        # smaller batches rather than map gigabytes
        scratch_groups = MAX_BATCH_SCRATCH_BYTES // (priv * 64 * waves_per_group) if priv else ngroups
        groups_per_batch = max(1, min(groups_per_batch, scratch_groups))
        if nworkers > 1 and ngroups <= groups_per_batch:
            # a launch that is one batch on one worker runs on the calling thread: each
            # batch it were cut into would add ~15 us of set-up under the GIL, and the
            # hand-off to a helper thread as much again, more than its emulation gains
            # (the corpus saxpy, 64 waves: 90 us on one worker, 140 us as two batches
            # on two, the other core busy)
            self.serial_reason = (f"small launch: its {ngroups * waves_per_group} waves are one batch "
                                  f"(GPU(waves_per_batch={wpb}))")
            nworkers = 1
        if nworkers > 1:
            # workers take batches from a shared queue; several batches per worker, so
            # that workgroups of unequal cost (mandelbrot's rows) even out between them
            groups_per_batch = max(-(-groups_per_batch // MAX_BATCH_SPLIT),
                                   min(groups_per_batch, ngroups // (BATCHES_PER_WORKER * nworkers)))
        elif gpu.waves_per_batch is None:
            waves = min(ONE_WORKER_WAVES_PER_BATCH, ONE_WORKER_VGPR_BYTES // (vcount * 256))
            groups_per_batch = max(groups_per_batch, min(waves // waves_per_group, scratch_groups))
        self.nbatch_groups = nbatch_groups = min(ngroups, groups_per_batch)
        self.nwaves = nbatch_groups * waves_per_group
        self.lds_per_group = lds_per_group = (lds_size + 255) & ~255
        self.batches = [range(f, min(ngroups, f + nbatch_groups)) for f in range(0, ngroups, nbatch_groups)]
        self.nworkers = min(nworkers, len(self.batches))
        # workgroup coordinates of the whole dispatch, and which groups are partial (cut by
        # the grid's edge), once: the per-batch set-up only slices them
        g = np.arange(ngroups, dtype=np.int64)
        gxyz = (g % groups[0], (g // groups[0]) % groups[1], g // (groups[0] * groups[1]))
        partial = np.zeros(ngroups, bool)
        for i in range(3):
            if grid[i] % block[i]:
                partial |= gxyz[i] == groups[i] - 1
        lid = np.arange(waves_per_group * 64).reshape(waves_per_group, 64)
        ids_table = np.where(lid < group_items, np.stack(
            (lid % block[0], (lid // block[0]) % block[1], lid // (block[0] * block[1]))), 0).astype(np.uint32)
        self.ctx = dict(info=info, prog=kernel.program, grid=grid, block=block, groups=groups, gxyz=gxyz,
                        ids_table=ids_table,
                        partial_before=np.concatenate(([0], np.cumsum(partial))).tolist(),
                        uses_gds=uses_gds,
                        waves_per_group=waves_per_group, vcount=vcount, scount=scount,
                        lds_per_group=lds_per_group, lds_size=lds_size, sgpr_layout=sgpr_layout,
                        vgpr_ids=info.enable_vgpr_workitem_id + 1,
                        # per dispatch (see _PER_DISPATCH_SGPRS): set by write_segments and _run
                        kernarg_segment_ptr=0, dispatch_ptr=0, dispatch_id=0,
                        priv=priv, code_base=gpu.code_image_address(kernel) + kernel.code_address,
                        entry_row=kernel.entry_row)
        self._regions = {}      # what -> (address, bytes): kernarg segment, packet + descriptor
        self._packet = (None, None, b"")   # (kernarg address, descriptor address, AQL packet)
        self.states = None
        self.sanitizer = None   # made by the first dispatch with sanitize=True
        self.sanitized = None   # the last run's batch results with sanitize_raw (see run)

    def write_segments(self, mem: Memory, kernarg: bytes) -> None:
        """Write the kernarg segment, and the AQL packet with the kernel descriptor a page
        after it (one allocation: each allocation a GPU keeps makes allocating slower), into
        memory as zeroed as a new allocation (the kernel may have written to them)."""
        ka = self._region(mem, "kernarg", max(len(kernarg), 16))
        if self.cal is not None:
            kernarg = self.kernarg.relocate(kernarg, ka)
        pkt = self._region(mem, "dispatch_packet", PAGE_SIZE + 64)
        kd = pkt + PAGE_SIZE
        if self._packet[:2] != (ka, kd):
            self._packet = (ka, kd, abi.build_aql_dispatch_packet(self.grid[:self.ndim], self.block[:self.ndim], ka, kd, self.priv,
                                                                  self.ctx["lds_size"]))
        # direct access to the backing array (byte i is address BASE + i)
        data = mem.data
        for addr, payload in ((ka, kernarg), (pkt, self._packet[2]), (kd, self.info.descriptor[:64])):
            if payload:
                data[addr - MEM_BASE:addr - MEM_BASE + len(payload)] = np.frombuffer(payload, np.uint8)
        self.ctx["kernarg_segment_ptr"] = ka
        self.ctx["dispatch_ptr"] = pkt

    def _region(self, mem: Memory, what: str, nbytes: int) -> int:
        """The address of this launch's allocation ``what`` of ``nbytes``, all zero."""
        hit = self._regions.get(what)
        if hit is not None and hit[1] != nbytes:
            # an assembly kernel's raw kernarg segment follows its arguments' sizes
            self._free(mem, [hit[0]])
            hit = None
        if hit is None:
            hit = (mem.allocate(nbytes, name=f"{self.info.name}.{what}"), nbytes)
            self._regions[what] = hit
        else:
            # the whole span of pages the allocation maps, so that it reads as a new one
            off = hit[0] - MEM_BASE
            mem.data[off:off + -(-nbytes // PAGE_SIZE) * PAGE_SIZE] = 0
        return hit[0]

    def get_states(self, gpu) -> list:
        """The workers' state arrays (made on first use), their scratch zeroed."""
        mem = gpu.memory
        if self.states is None:
            info = self.info
            self.states = []
            for i in range(self.nworkers):
                scratch = None
                if self.priv > 0:
                    scratch = mem.allocate_scratch(self.priv, self.nwaves * 64, name=f"{info.name}.scratch{i}")
                self.states.append(BatchState(self.nbatch_groups, self.nwaves, self.ctx["vcount"],
                                               self.lds_per_group, gpu.gds, scratch, gpu.timing, i,
                                               trace=gpu.coherent_caches))
        else:
            for st in self.states:
                if st.scratch is not None:
                    off = st.scratch.address - MEM_BASE
                    mem.data[off:off + -(-st.scratch.size // PAGE_SIZE) * PAGE_SIZE] = 0
        return self.states

    def footprint(self) -> int:
        """Bytes of host arrays and GPU scratch this launch holds."""
        return sum(st.nbytes() + (st.scratch.size if st.scratch is not None else 0)
                   for st in self.states or ())

    def release(self, mem: Memory) -> None:
        """Unmap the GPU memory this launch holds (it is not used again)."""
        addrs = [a for a, _ in self._regions.values()]
        addrs += [st.scratch.address for st in self.states or () if st.scratch is not None]
        self._free(mem, addrs)
        self._regions = {}
        self.states = None

    @staticmethod
    def _free(mem: Memory, addrs) -> None:
        for a in addrs:
            try:
                mem.free(a)
            except MemoryFault:
                pass     # the user freed it already


    def run(self, gpu, workers=1, time_limit=None, workgroups: range | None = None,
            sanitize: bool = False, deadline: float | None = None,
            sanitize_raw: bool = False) -> DispatchReport:
        """Run the dispatch on ``gpu`` (its segments written): every batch, on ``workers``
        threads where the launch allows; the report (timing mode: with the cycle model's).
        ``workgroups``: only these (linear workgroup indices, a range): the batches cut to
        them (a shard of a sharded dispatch, gcnemu/shards.py). ``sanitize``: the engine
        records what the sanitizer needs and the report gets its ``findings``; with
        ``sanitize_raw`` it does not: ``self.sanitized`` keeps the batches' results for
        the caller to add to those of other runs (the coherency-accurate mode runs a
        dispatch in parts, one per CU: `sanitizer_findings`). ``deadline``: the
        time.monotonic() by which the run stops with the ExecutionError of ``time_limit``
        (a run that is part of a dispatch: the dispatch's limit, gcnemu/coherency.py)."""
        ctx, info, prog, occ = self.ctx, self.info, self.ctx["prog"], self.occ
        mem = gpu.memory
        if occ.workgroups_per_cu < 1:
            wpg = ctx["waves_per_group"]
            raise DispatchError(
                f"kernel {info.name}: a workgroup of {self.group_items} work-items ({wpg} waves) "
                f"does not fit on a CU: {ctx['vcount']} VGPRs and {info.sgpr_count} SGPRs per wave allow "
                f"{occ.waves_per_simd} wave(s) per SIMD ({occ.limited_by}), it needs "
                f"{-(-wpg // gpu.config.simds_per_cu)}")
        states = self.get_states(gpu)
        for st in states:
            st.streams_used = 0
            st.sanitizing = sanitize
            if sanitize and st.shadow is None:
                st.shadow = self._sanitizer(gpu).shadow(self.nwaves, self.nbatch_groups)
        ctx["dispatch_id"] = gpu.dispatch_id
        nworkers, batches = len(states), self.batches
        if workgroups is not None:
            batches = [r for r in (range(max(b.start, workgroups.start), min(b.stop, workgroups.stop))
                                   for b in batches) if len(r)]
        totals = {k: 0 for k in COUNTER_COLUMNS}
        fault_list, messages, export_list, traces, sanitized = [], [], [], [], []
        waves_run = halted = valu_lanes = 0
        dropped = {}
        # the backing array must not grow while any dispatch runs (the engine holds it)
        data, mapped = mem.lock()
        try:
            if nworkers == 1:
                check = self._between_slices(time_limit, deadline=deadline)
                results = (self.run_batch(gpu, states[0], b, data, mapped, check) for b in batches)
            else:
                results = self._run_shared_queue(gpu, states, batches, data, mapped, time_limit,
                                                 deadline)
            progress = gpu.on_progress
            for done, res in enumerate(results, 1):
                if res.error is not None:
                    raise res.error
                if progress is not None:
                    progress(done, len(batches))
                waves_run += res.waves
                for k in totals:
                    totals[k] += res.totals[k]
                fault_list.extend(res.faults)
                if res.trace is not None:
                    traces.append(res.trace)
                if res.sanitized is not None:
                    sanitized.append(res.sanitized)
                messages.extend(res.messages)
                export_list.extend(res.exports)
                halted += res.halted
                valu_lanes += res.valu_lanes
                for kind, n in res.dropped.items():
                    dropped[kind] = dropped.get(kind, 0) + n
        finally:
            mem.unlock()
        rep = DispatchReport(info.name, self.grid, self.block, self.ngroups, waves_run, totals,
                             fault_list, messages, export_list, occupancy=occ,
                             clock_mhz=gpu.config.clock_mhz)
        rep.workers = nworkers
        rep.halted_waves = halted
        rep.valu_lanes = valu_lanes
        rep.dropped = {kind: n for kind, n in dropped.items() if n}
        rep.serial_reason = self.serial_reason if int(workers) > 1 else ""
        self.sanitized = sanitized if sanitize_raw else None
        if sanitize and not sanitize_raw:
            rep.findings = self._sanitizer(gpu).findings(sanitized, mem)
        if gpu.timing:
            from .timing.model import time_dispatch   # compiled on first timing use
            streams = [st.streams[:st.streams_used] for st in states]
            gpu.caches.check(gpu.config.compute_units, gpu.timing_config)
            t = time_dispatch(prog, traces, streams, gpu.config, gpu.timing_config, occ,
                              ctx["waves_per_group"], gpu.caches, gpu.esram_buffers.items(),
                              ctx["code_base"])
            rep.cycles = t.cycles
            rep.counters.update(t.counters)
            # rocprof's thread-cycles: each VALU wave-instruction's cycles times its active
            # lanes; the engine counts lanes per wave, not per instruction, so this spreads
            # SQ_ACTIVE_INST_VALU evenly over the VALU instructions (exact when they all cost
            # the same, as full-rate ops do)
            nvalu = rep.counters.get("SQ_INSTS_VALU", 0)
            rep.counters["SQ_THREAD_CYCLES_VALU"] = (
                t.counters["SQ_ACTIVE_INST_VALU"] * valu_lanes // nvalu if nvalu else 0)
            rep.wave_cycles = t.wave_cycles
            rep.wave_cu = t.wave_cu
            if gpu.summarize_traces:
                from .timing.rows import summarize   # for profiling (gcnemu/timing/rows.py)
                rep.trace_summary = summarize(prog, traces, streams)
            pcc = np.zeros(len(prog.instructions), PC_CYCLES_DTYPE)
            pcc["pc"] = prog.code[:len(pcc), C_PC]      # the rows' byte offsets, decoded once
            for i, name in enumerate(PC_COLUMNS):
                pcc[name] = t.pc[:, i]
            rep.pc_cycles = pcc
            column_sums = dict(zip(PC_COLUMNS, t.pc.sum(axis=0).tolist()))
            rep.stalls = {name: column_sums[name] for name in STALL_REASONS}
            simds = gpu.config.compute_units * gpu.config.simds_per_cu
            rep.achieved_occupancy = (t.counters["SQ_WAVE_CYCLES"] / (t.cycles * simds)
                                      if t.cycles else 0.0)
        #: coherency-accurate mode (gcnemu/coherency.py): the batches' raw traces
        self.raw_traces = traces if not gpu.timing else None
        return rep

    def sanitizer_findings(self, gpu, results) -> list:
        """The sanitizer's findings of a dispatch run in parts (``run(..., sanitize=True,
        sanitize_raw=True)``), from the parts' ``self.sanitized`` in workgroup order: what one
        run of the whole would report (global races between the parts included)."""
        return self._sanitizer(gpu).findings(results, gpu.memory)

    def _sanitizer(self, gpu):
        """The launch's Sanitizer (gcnemu/sanitize/shadow.py), made on first use."""
        if self.sanitizer is None:
            from .sanitize.shadow import Sanitizer
            ctx = self.ctx
            self.sanitizer = Sanitizer(ctx["prog"], gpu._gen, self.info.name,
                                       ctx["waves_per_group"], ctx["lds_size"],
                                       ctx["sgpr_layout"], ctx["vgpr_ids"])
        return self.sanitizer

    def _between_slices(self, time_limit, stopped=None, deadline=None):
        """What a batch does between its slices of work: stop with an ExecutionError once
        ``time_limit`` seconds have passed since now (or at ``deadline``, a time.monotonic(),
        when given), stop (DispatchStopped) when ``stopped()`` says another thread's batch
        failed. Ctrl-C needs nothing: Python raises KeyboardInterrupt in the calling thread as
        soon as a slice returns."""
        if deadline is None and time_limit is not None:
            deadline = time.monotonic() + time_limit
        name = self.info.name

        def check():
            if deadline is not None and time.monotonic() > deadline:
                raise ExecutionError(f"time limit of {time_limit:g} s reached (runaway kernel?); "
                                     f"dispatch(..., time_limit=None) or GPU(time_limit=...) "
                                     f"changes it", kernel=name)
            if stopped is not None and stopped():
                raise DispatchStopped()
        return check

    def _run_shared_queue(self, gpu, states, batches, data, mapped, time_limit=None,
                          deadline=None) -> list:
        """Run the batches on the calling thread and len(states) - 1 helper threads of the
        GPU's pool (see workers.SharedQueue); the results in batch order, up to the first
        failing batch."""
        check = self._between_slices(time_limit, lambda: queue.stop, deadline)
        queue = SharedQueue(lambda st, b: self.run_batch(gpu, st, b, data, mapped, check), states,
                            batches)
        gpu.helper_threads.start(len(states) - 1, queue.work)
        try:
            # the calling thread works too: the first batch starts without a hand-off, and a
            # helper that is slow to wake (or busy with another dispatch) costs nothing
            queue.work()
        except BaseException:
            with queue.cond:
                queue.stop = True    # e.g. KeyboardInterrupt: the helpers start no new batch
            raise
        finally:
            results = queue.results()
        return results

    def run_batch(self, gpu, st, batch, data, mapped, between_slices=None) -> BatchResult:
        """Run the workgroups of one batch to completion in the state arrays of one worker;
        ``between_slices()`` is called every SLICE_STEPS wave-instructions (it raises to stop
        the batch)."""
        ctx = self.ctx
        info, prog, groups = ctx["info"], ctx["prog"], ctx["groups"]
        wpg = ctx["waves_per_group"]
        # GDS persists across dispatches: copied in and out only if the program can touch it
        st.reset(gpu.gds if ctx["uses_gds"] else None)
        ids = self._init_batch(gpu, st, batch)
        ws = st.ws
        sched = new_sched()
        sh = st.shadow if st.sanitizing else None
        if sh is None:
            bad = run_sliced(
                lambda: run_group_waves(prog.code, ids, st.sregs, ws, st.vgpr, st.lds, data,
                                        mapped, np.int64(MEM_BASE), st.faults, st.msgs,
                                        np.int64(gpu.step_limit), st.exports,
                                        NO_TRACE if st.trace is None else st.trace,
                                        np.int64(SLICE_STEPS), sched),
                st.grow_trace,   # the timing trace filled up: the waves resume where they stopped
                between_slices or (lambda: None), prog.code, sched)
        else:
            from .sanitize.shadow import SANITIZE
            gwave = np.zeros(ws.shape[0], np.int64)
            gwave[ids] = np.asarray(batch, np.int64)[ids // wpg] * wpg + ids % wpg
            sh.start(gwave, np.arange(ws.shape[0], dtype=np.int64) // wpg, gpu.memory,
                     st.scratch)
            bad = run_sliced(
                lambda: run_group_waves(prog.code, ids, st.sregs, ws, st.vgpr, st.lds, data,
                                        mapped, np.int64(MEM_BASE), st.faults, st.msgs,
                                        np.int64(gpu.step_limit), st.exports, sh.trace,
                                        np.int64(SLICE_STEPS), sched, SANITIZE),
                sh.consume,      # the sanitizer's trace filled up: analysed and emptied
                between_slices or (lambda: None), prog.code, sched)
            sh.consume()
        res = BatchResult()
        if sh is not None:
            res.sanitized = sh.result(ids)
        if gpu.timing:
            spans = st.split_trace(ws.shape[0], len(ids))
            res.trace = (np.asarray(batch, np.int64)[ids // wpg], ids % wpg, spans[0, ids],
                         spans[1, ids], st.worker)
        elif st.trace is not None and sh is None:
            # coherency-accurate mode: the raw trace, with the batch's workgroups and wave ids
            # (a sanitizer's run of the mode repeats a run that recorded it: coherency.py)
            res.trace = (batch, ids, st.trace[:st.trace[0]].copy())
        res.waves = len(ids)
        res.exports = read_exports(st.exports)
        if ctx["uses_gds"]:
            gpu.gds[:] = st.lds[-gpu.config.gds_bytes:]
        # per-batch Python work is a fixed cost per 128 waves: a few whole-array numpy ops, on
        # whole columns, because the rows of waves not in the batch are zero (_init_batch sets
        # the arrays whole) and stay so (the engine runs the waves of ``ids`` only)
        # every column's sum at once (the counters, the faults, the VALU lanes): one pass
        # over ws, and the per-wave loops below only where a sum says there is something
        col = ws.sum(axis=0).tolist()
        res.totals = {name: col[c] for name, c in _COUNTER_PAIRS}
        if col[WS_FAULTS]:
            for w in np.flatnonzero(ws[:, WS_FAULTS]).tolist():
                nf = int(ws[w, WS_FAULTS])
                for i in range(min(nf, st.faults.shape[1])):
                    addr, row, lane, wr = (int(x) for x in st.faults[w, i])
                    res.faults.append(self._describe_fault(gpu.memory, batch, w, addr, row, lane, wr))
        if col[WS_LDS_OVERRUNS]:
            for w in np.flatnonzero(ws[:, WS_LDS_OVERRUNS]).tolist():
                res.faults.append(self._describe_lds_overrun(batch, w,
                                                             *first_lds_overrun(ws, w)))
        nmsg = min(int(st.msgs[0, 0]), st.msgs.shape[0] - 1)
        res.messages = [(int(st.msgs[i, 0]), int(st.msgs[i, 1]), int(st.msgs[i, 2]))
                        for i in range(1, nmsg + 1)]
        # waves that halted, and those left at a barrier (an error below)
        status = np.bincount(ws[:, WS_STATUS], minlength=ST_HALTED + 1)
        res.halted = int(status[ST_HALTED])
        res.valu_lanes = col[WS_VALU_LANES]
        # what did not fit in the record buffers is counted, not lost without a word
        res.dropped = {"s_sendmsg": int(st.msgs[0, 0]) - nmsg,
                       "faults": col[WS_FAULTS] + col[WS_LDS_OVERRUNS] - len(res.faults),
                       "exports": int(st.exports[0, 0]) - len(res.exports)}
        if bad >= 0:
            g = batch[bad // wpg]
            gid = (g % groups[0], (g // groups[0]) % groups[1], g // (groups[0] * groups[1]))
            res.error = error_from_wave(prog, ws, int(bad), kernel=info.name,
                                        wave_label=f"{bad % wpg} of workgroup {gid}")
        else:
            stuck = int(status[ST_BARRIER])
            if stuck:
                res.error = DispatchError(f"kernel {info.name}: {stuck} wave(s) wait at s_barrier "
                                          f"that the rest of their workgroup never reaches")
        return res

    def _init_batch(self, gpu, st, batch) -> np.ndarray:
        """Set up every wave of a batch of workgroups as the ABI says; returns the wave ids.

        Workgroup g goes to CU g mod #CUs (round-robin) and its waves to the CU's SIMDs in turn
        (HW_ID: wave slot [3:0], SIMD [5:4], CU [11:8])."""
        ctx = self.ctx
        info, grid, block = ctx["info"], ctx["grid"], ctx["block"]
        wpg, vcount, priv = ctx["waves_per_group"], ctx["vcount"], ctx["priv"]
        sregs, ws, vgpr, scratch = st.sregs, st.ws, st.vgpr, st.scratch
        lo, hi = batch.start, batch.stop   # batches are ranges of consecutive workgroups
        pb = ctx["partial_before"]
        full = hi - lo == st.ngroups and pb[hi] == pb[lo]
        # a batch starts the same in every dispatch of a launch but for the per-dispatch
        # scalars (the dispatch id, the packet and kernarg addresses), and batches of whole
        # workgroups differ only in the workgroup ids and HW_ID: once a kind of batch has been
        # set up in full twice, its state is kept as a template and copied from then on (per
        # worker: its scratch V# differs; batches cut by the grid's edge each have their own,
        # up to MAX_EDGE_TEMPLATES)
        tkey = "full" if full else lo
        # CAL kernels: the user SGPRs hold descriptors of the launch blob, set up every time
        t = st.templates.get(tkey) if self.cal is None else None
        if t is not None:
            w = t["w"]
            values = t["per_dispatch"]
            for what, v in values.items():
                now = ctx[what]
                if now != v:
                    # the template itself is brought up to date: a value that changed once
                    # (a reallocated kernarg segment) is not patched again in every batch
                    first = t["firsts"][what]
                    t["sregs"][w, first] = now & 0xFFFFFFFF
                    t["sregs"][w, first + 1] = (now >> 32) & 0xFFFFFFFF
                    values[what] = now
            np.copyto(sregs, t["sregs"])
            np.copyto(ws, t["ws"])
            vgpr[t["vrows"]] = t["vvals"]
            if lo != t["lo"]:
                gw = lo + t["wg"]
                for col, axis in t["wgid"]:
                    sregs[w, col] = ctx["gxyz"][axis][gw]
                ws[w, WS_HW_ID] = t["hw_low"] | ((gw % gpu.config.compute_units) & 0xF) << 8
            return w
        sregs[:] = 0
        ws[:] = 0
        g = np.arange(lo, hi, dtype=np.int64)
        gx, gy, gz = (a[lo:hi] for a in ctx["gxyz"])
        gsize = [np.minimum(block[i], grid[i] - (gx, gy, gz)[i] * block[i]) for i in range(3)]
        items = gsize[0] * gsize[1] * gsize[2]
        nw = -(-items // 64)
        wg = np.repeat(np.arange(len(batch)), nw)                    # batch-local group of each wave
        k = np.arange(len(wg)) - np.repeat(np.cumsum(nw) - nw, nw)   # wave index within its group
        w = wg * wpg + k
        lanes = np.minimum(64, items[wg] - 64 * k)
        exec_mask = np.where(lanes >= 64, np.uint64(0xFFFFFFFFFFFFFFFF),
                             (np.uint64(1) << lanes.astype(np.uint64)) - np.uint64(1))
        sregs[w, EXEC_LO] = (exec_mask & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        sregs[w, EXEC_HI] = (exec_mask >> np.uint64(32)).astype(np.uint32)
        sregs[w, M0] = 0xFFFFFFFF
        bpl = (priv + 3) & ~3
        wave_off = w * 64 * bpl
        # workgroup_info: {first_wave, 14'b0, ordered_append_term[10:0], size_in_waves[5:0]}
        info_val = nw[wg].astype(np.int64) | np.where(k == 0, np.int64(1) << 31, 0)
        values = {
            "dispatch_ptr": ctx["dispatch_ptr"], "queue_ptr": gpu.queue_address,
            "kernarg_segment_ptr": ctx["kernarg_segment_ptr"], "dispatch_id": ctx["dispatch_id"],
            "flat_scratch_init": bpl << 32, "private_segment_size": priv,
            "workgroup_id_x": gx[wg], "workgroup_id_y": gy[wg], "workgroup_id_z": gz[wg],
            "workgroup_info": info_val, "private_segment_wave_offset": wave_off,
        }
        if self.cal is not None:
            values.update({what: v for what, _f, _n, v in self.kernarg.user_sgprs(ctx["kernarg_segment_ptr"])})
        for what, first, count in ctx["sgpr_layout"]:
            if what == "private_segment_buffer":
                words = scratch.vsharp if scratch is not None else _NO_SCRATCH_VSHARP
                for i in range(4):
                    sregs[w, first + i] = int(words[i])
                continue
            v = values.get(what, 0)
            for i in range(count):
                if isinstance(v, np.ndarray):
                    sregs[w, first + i] = ((v >> (32 * i)) & 0xFFFFFFFF).astype(np.uint32)
                else:
                    sregs[w, first + i] = (int(v) >> (32 * i)) & 0xFFFFFFFF
        ws[w, WS_MODE] = info.mode_register
        ws[w, WS_SGPRS] = ctx["scount"]
        ws[w, WS_VBASE] = w * vcount
        ws[w, WS_VCOUNT] = vcount
        ws[w, WS_GROUP] = wg
        ws[w, WS_LDS_BASE] = wg * ctx["lds_per_group"]
        ws[w, WS_LDS_SIZE] = ctx["lds_size"]
        cu = g[wg] % gpu.config.compute_units
        simds = gpu.config.simds_per_cu
        ws[w, WS_HW_ID] = ((k // simds) & 0xF) | ((k % simds) << 4) | ((cu & 0xF) << 8)
        ws[w, WS_CODE_BASE] = ctx["code_base"]
        ws[w, WS_PC] = ctx["entry_row"]
        if scratch is not None:
            ws[w, WS_SCRATCH_BASE] = scratch.address
            ws[w, WS_SCRATCH_WAVE] = wave_off
        nid = min(ctx["vgpr_ids"], 3)
        if nid:
            # work-item ids: whole groups from the block's table, cut groups computed
            vals = ctx["ids_table"][:nid, k]
            cut = items[wg] != block[0] * block[1] * block[2]
            if cut.any():
                lid = 64 * k[cut, None] + np.arange(64)[None, :]
                sx, sy = gsize[0][wg[cut]][:, None], gsize[1][wg[cut]][:, None]
                ids = (lid % sx, (lid // sx) % sy, lid // (sx * sy))
                live = lid < items[wg[cut]][:, None]
                for i in range(nid):
                    vals[i, cut] = np.where(live, ids[i], 0)
            for i in range(nid):
                vgpr[w * vcount + i, :] = vals[i]
        w = w.astype(np.int64)
        if self.cal is not None:
            pass
        elif tkey not in st.set_up:
            # made when a kind of batch is set up a second time: a launch dispatched once (each
            # dispatch of a new shape) does not pay for copying its state
            st.set_up.add(tkey)
        elif full or sum(key != "full" for key in st.templates) < MAX_EDGE_TEMPLATES:
            firsts = {what: first for what, first, count in ctx["sgpr_layout"]}
            vrows = (w[:, None] * vcount + np.arange(min(ctx["vgpr_ids"], 3))[None, :]).ravel()
            st.templates[tkey] = dict(
                lo=lo, w=w, wg=wg, sregs=sregs.copy(), ws=ws.copy(), vrows=vrows, vvals=vgpr[vrows].copy(),
                hw_low=ws[w, WS_HW_ID] & ~np.int64(0xF00),
                wgid=[(firsts[f"workgroup_id_{a}"], i) for i, a in enumerate("xyz")
                      if f"workgroup_id_{a}" in firsts],
                firsts=firsts,
                per_dispatch={what: values[what] for what in _PER_DISPATCH_SGPRS if what in firsts})
        return w

    def _describe_fault(self, mem: Memory, batch, w, addr, row, lane, wr) -> str:
        """One fault record (address, row, lane, write) of wave w of a batch, as text."""
        addr &= 0xFFFFFFFFFFFFFFFF    # recorded as int64: addresses past 2^63 came out negative
        where = mem.describe(addr) if addr >= MEM_BASE else "address below the GPU heap"
        lane_txt = f"lane {lane}" if lane >= 0 else "scalar"
        return (f"{'store to' if wr else 'load from'} 0x{addr:x} ({where}) by "
                f"{self._wave_at(batch, w, row, lane_txt)}")

    def _wave_at(self, batch, w, row, lane_txt) -> str:
        """'kernel K, workgroup G, wave W, <lane_txt>, pc 0x.. 'instruction'' of wave w of a
        batch at program row ``row``: where a fault happened."""
        prog, wpg, groups = self.ctx["prog"], self.ctx["waves_per_group"], self.ctx["groups"]
        g = batch[w // wpg]
        gid = (g % groups[0], (g // groups[0]) % groups[1], g // (groups[0] * groups[1]))
        pc = prog.instructions[row].offset if 0 <= row < len(prog.instructions) else -1
        ins = prog.text_at(row) if 0 <= row < len(prog.instructions) else "?"
        return (f"kernel {self.info.name}, workgroup {gid}, wave {w % wpg}, {lane_txt}, "
                f"pc 0x{pc:x} '{ins}'")

    def _describe_lds_overrun(self, batch, w, addr, row, lane, is_write) -> str:
        """The first LDS access past its workgroup's allocation of wave w of a batch, as text
        naming the share it overran: the last __local argument's, or the kernel's own."""
        size = self.ctx["lds_size"]
        shares = self.ctx.get("lds_shares") or []
        if shares:
            what, start, nbytes = shares[-1]
            share = (f"past {what}, whose gcnemu.Local({nbytes}) is bytes {start}..{start + nbytes - 1}: "
                     f"pass a larger Local")
        else:
            share = f"past the kernel's own {size} bytes (group_segment_fixed_size)"
        kind = "store to" if is_write else "load from"
        return (f"LDS {kind} byte {addr} of a {size}-byte workgroup allocation, {share}; by "
                f"{self._wave_at(batch, w, row, f'lane {lane}')}")


class DispatchStopped(Exception):
    """A batch stopped between slices because another batch of its dispatch failed."""


class LaunchCache:
    """A GPU's recent launches by launch key, least recently used first: at most
    KEEP_LAUNCHES, none that holds more than KEEP_LAUNCH_BYTES. A launch is taken out while a
    dispatch uses it, so that a dispatch from another thread never shares it."""

    def __init__(self, memory: Memory):
        self.memory = memory
        self._launches = {}

    def take(self, key):
        """The launch kept under ``key`` (no longer kept), or None."""
        return self._launches.pop(key, None)

    def put(self, key, launch) -> None:
        """Keep a launch as the most recent one; release (unmap) the least recently used ones
        beyond KEEP_LAUNCHES, and a launch too big to keep."""
        old = self._launches.pop(key, None)
        if old is not None and old is not launch:
            old.release(self.memory)        # a concurrent dispatch of the same shape made its own
        if launch.footprint() > KEEP_LAUNCH_BYTES:
            launch.release(self.memory)
            return
        self._launches[key] = launch
        while len(self._launches) > KEEP_LAUNCHES:
            self._launches.pop(next(iter(self._launches))).release(self.memory)


class _RawKernarg:
    """The kernarg segment of an assembly kernel (no metadata): the arguments' raw bytes."""

    @staticmethod
    def build(args) -> bytes:
        return b"".join(_raw_arg(v) for v in args)


def _moved(old: np.ndarray, keep: int, tail: int, size: int) -> np.ndarray:
    """A zeroed int64 array of ``size`` entries holding old[:keep] at its start and old's last
    ``tail`` entries at its end: a grown trace (its entries, and its table of runs and DS
    scratch, gcnemu/timing/trace.py tail_length) or streams array."""
    t = np.zeros(size, np.int64)
    t[:keep] = old[:keep]
    if tail:
        t[-tail:] = old[-tail:]
    return t


class BatchState:
    """The arrays one worker runs its batches of workgroups in (private per worker thread)."""

    def __init__(self, ngroups, nwaves, vcount, lds_per_group, gds, scratch, timing=False, worker=0,
                 trace=False):
        self.lds = np.zeros(ngroups * lds_per_group + gds.size, np.uint8)
        self.gds_bytes = gds.size
        self.lds[-self.gds_bytes:] = gds
        self.sregs = np.zeros((nwaves, 128), np.uint32)
        self.ws = np.zeros((nwaves, NWS), np.int64)
        self.vgpr = zeros_aligned((nwaves * vcount, 64), np.uint32)
        self.faults = np.zeros((nwaves, 16, 4), np.int64)
        self.msgs = np.zeros((1024, 4), np.int64)
        self.exports = new_export_buffer(1024)
        self.scratch = scratch
        self.ngroups = ngroups
        self.templates = {}    # see Launch._init_batch
        self.set_up = set()    # the kinds of batches set up so far (template keys)
        # the timing trace (gcnemu/timing/trace.py); None = timing off (the engine's
        # specialisation without recording)
        # (also without timing in coherency-accurate mode, which reads the lines each memory
        # instruction touched: ``trace``)
        # timing: the per-wave streams of the batches this worker ran in the current dispatch
        # (gcnemu.timing.model.split_trace), streams[:streams_used]; kept between dispatches,
        # so the model reads them where they are, from memory already touched. The timing
        # trace is the rest of it, streams[streams_used:] (reset): a wave that ran in one
        # run keeps its entries where the engine wrote them, uncopied
        self.worker = worker
        self.streams = np.zeros(1 << 19, np.int64) if timing else None
        self.streams_used = 0
        #: the room a batch's timing trace starts with (a fresh trace of its own had as much)
        self.trace_room = 1 << 18
        self.trace = (self.streams if timing else np.zeros(1 << 18, np.int64)) \
            if timing or trace else None
        #: tr[1] of a fresh trace: 0, or -1 for coherency only (no LDS records: timing/trace.py)
        self.trace_mode = -1 if trace and not timing else 0
        self.shadow = None     # the sanitizer's state (gcnemu/sanitize/shadow.py) once used
        self.sanitizing = False

    def nbytes(self) -> int:
        trace = None if self.streams is not None else self.trace    # (timing: in streams)
        return sum(a.nbytes for a in (self.lds, self.sregs, self.ws, self.vgpr, self.faults, self.msgs,
                                      self.exports, trace, self.streams) if a is not None) + \
            (self.shadow.nbytes() if self.shadow is not None else 0)

    def _grow_streams(self, size: int):
        """Move the streams array to one of ``size`` entries (or more: at least double),
        keeping the streams, the trace's entries and its tail (the table of runs and the DS
        scratch, gcnemu/timing/trace.py) at the new end; the trace is its rest again."""
        old, tr = self.streams, self.trace
        self.streams = _moved(old, self.streams_used + int(tr[0]), tail_length(tr),
                              max(size, 2 * old.shape[0]))
        self.trace = self.streams[self.streams_used:]

    def split_trace(self, nwaves: int, nran: int) -> np.ndarray:
        """The batch's per-wave streams (gcnemu.timing.model.split_trace) added to this
        worker's: returns its spans[2, nwaves + 1] (absolute in ``streams``); ``nran``: the waves the
        batch ran (of the ``nwaves`` rows of its state arrays). The trace's entries are
        the streams of waves that ran in one run; when some wave ran in more, they are copied
        after the entries (the array grown first if that needs room), which stay as a gap."""
        from .timing.model import split_trace
        tr = self.trace
        used = int(tr[0])
        if int(tr[tr.shape[0] - RUNS_COUNT]) != nran:
            # not one run a wave: room for a copy below the trace's tail
            need = self.streams_used + 2 * used + tail_length(tr)
            if need > self.streams.shape[0]:
                self._grow_streams(need)
                tr = self.trace
        spans = split_trace(tr, nwaves, self.streams, np.int64(self.streams_used + used),
                            np.int64(self.streams_used)).reshape(2, -1)
        self.streams_used = int(spans[1, nwaves])
        return spans

    def grow_trace(self):
        """Double the trace (full: the waves resume where they stopped), its entries at the
        start and its tail (the table of runs, gcnemu/timing/trace.py) at the end."""
        old = self.trace
        if self.streams is not None:
            self._grow_streams(self.streams_used + 2 * old.shape[0])
            self.trace[1] = self.trace_mode
            return
        self.trace = _moved(old, int(old[0]), tail_length(old), 2 * old.shape[0])
        self.trace[1] = self.trace_mode

    def reset(self, gds=None):
        """Clear what a batch may have left (sregs and ws: Launch._init_batch sets them whole);
        ``gds``: new GDS contents (None: the program does not use GDS, keep them)."""
        self.vgpr[:] = 0
        self.lds[:-self.gds_bytes] = 0
        if gds is not None:
            self.lds[-self.gds_bytes:] = gds
        self.exports[0, 0] = 0
        self.msgs[0, 0] = 0
        if self.streams is not None:
            # the trace: the streams array's rest, with at least trace_room entries
            self.trace = self.streams[self.streams_used:]
            if self.trace.shape[0] < self.trace_room:
                self.trace[0] = 2      # (no entries to keep)
                self._grow_streams(self.streams_used + self.trace_room)
        if self.trace is not None:
            self.trace[0] = 2
            self.trace[1] = self.trace_mode
            if self.trace.shape[0] >= MIN_TRACE:
                self.trace[-RUNS_COUNT] = 0      # no runs (gcnemu/timing/trace.py)



def _raw_arg(v) -> bytes:
    if isinstance(v, np.generic):
        return v.tobytes()
    addr = getattr(v, "address", v)   # a Buffer, as the loader's kernarg builder takes it
    if isinstance(addr, int):
        return (addr & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "little")
    raise DispatchError(f"assembly kernels take Buffers, numpy scalars or ints, not {type(v).__name__}")


def _cal_system_sgprs(info):
    """A CAL kernel's system SGPRs: the enabled workgroup ids after its user SGPRs."""
    out, n = [], info.user_sgpr_count
    for a in "xyz":
        if getattr(info, f"enable_sgpr_workgroup_id_{a}"):
            out.append((f"workgroup_id_{a}", n, 1))
            n += 1
    return out


def _asm_sgpr_layout(info):
    return [("kernarg_segment_ptr", 0, 2), ("workgroup_id_x", 2, 1), ("workgroup_id_y", 3, 1),
            ("workgroup_id_z", 4, 1)]


def launch_shape(grid, block, info, config):
    """(grid, block) as 3-tuples, checked against the GPU's and the kernel's limits (before
    anything is allocated for them)."""
    try:
        g = tuple(_dim(x) for x in grid)
        b = tuple(_dim(x) for x in block)
    except TypeError:
        raise DispatchError(f"grid and block are tuples of 1-3 integers, got {grid!r} and "
                            f"{block!r}") from None
    if not 1 <= len(g) <= 3 or len(b) != len(g):
        raise DispatchError(f"grid {g} and block {b} need the same number (1-3) of dimensions")
    g = g + (1,) * (3 - len(g))
    b = b + (1,) * (3 - len(b))
    if any(x <= 0 for x in g + b):
        raise DispatchError(f"grid {g} and block {b} must be positive")
    if any(x > 0xFFFFFFFF for x in g):
        raise DispatchError(f"grid {g}: the AQL packet holds each dimension in 32 bits "
                            f"(at most {0xFFFFFFFF} work-items)")
    groups = 1
    for i in range(3):
        groups *= -(-g[i] // b[i])
    if groups > MAX_WORKGROUPS:
        raise DispatchError(f"grid {g} in blocks of {b} is {groups} workgroups; gcnemu runs at "
                            f"most {MAX_WORKGROUPS} in one dispatch (split it, or use larger "
                            f"blocks)")
    size = b[0] * b[1] * b[2]
    limit = min(config.max_workgroup_size, info.max_flat_workgroup_size or config.max_workgroup_size)
    if size > limit:
        raise DispatchError(f"workgroup of {size} work-items exceeds the limit of {limit} for kernel {info.name}")
    if info.reqd_workgroup_size and tuple(info.reqd_workgroup_size) != b:
        raise DispatchError(f"kernel {info.name} requires workgroup size {tuple(info.reqd_workgroup_size)}, got {b}")
    return g, b


def _dim(x) -> int:
    """A grid or block size: an integer (a float such as 1024.7 is a TypeError, not 1024)."""
    if isinstance(x, bool):
        raise TypeError
    return operator.index(x)
