"""The user-facing GPU: configuration presets, device buffers, kernels and dispatch.

    gpu = gcnemu.GPU()                        # preset "xbox-one"; GPU("hd7970"), GPU("r9-290x")
    prog = gcnemu.load("k.hsaco")             # path or bytes of a code object; or a .s file
    x = gpu.to_device(np.arange(n, dtype=np.float32))
    y = gpu.empty(n * 4)
    rep = gpu.dispatch(prog.kernel("saxpy"), grid=(n,), block=(256,),
                       args=[x, y, np.float32(2.0), np.uint32(n)])
    out = y.to_numpy(np.float32)

A dispatch places workgroups on the emulated CUs in order and runs their waves in the numba
engine; waves of a workgroup synchronise at s_barrier. Results are deterministic.
"""
from __future__ import annotations

import itertools
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from . import engine as E
from .errors import DecodeError, DispatchError, GcnEmuError, LoaderError, MemoryFault
from .isa.decoder import decode_one
from .loader import abi
from .loader.codeobject import CodeObject, KernelInfo, load_code_object
from .memory import BASE as MEM_BASE
from .memory import PAGE_SIZE, Memory, scratch_vsharp, zeros_aligned
from .memops import PRIVATE_APERTURE_HI, SHARED_APERTURE_HI, new_export_buffer, read_exports
from .program import Program, build_program
from .wave import DEFAULT_STEP_LIMIT, error_from_wave


@dataclass(frozen=True)
class GPUConfig:
    """Immutable description of a gfx7-class GPU (what the seeds and vendor specs state)."""

    name: str
    compute_units: int
    clock_mhz: int
    dpfactor: int                   #: CLRX DPFACTOR: 1/2-rate f64 = 1 ... 1/16-rate = 8
    simds_per_cu: int = 4
    waves_per_simd: int = 10
    vgprs_per_simd: int = 256       #: rows of 64 lanes
    sgprs_per_simd: int = 512
    lds_per_cu: int = 65536
    gds_bytes: int = 65536
    max_workgroups_per_cu: int = 16
    max_workgroup_size: int = 1024


PRESETS = {
    # Xbox One: 12 CUs at 853 MHz (seeds: gpu-overview / cu-whitepaper)
    "xbox-one": GPUConfig("xbox-one", 12, 853, 8),
    "hd7970": GPUConfig("hd7970", 32, 925, 2),
    "r9-290x": GPUConfig("r9-290x", 44, 1000, 4),
    "r7-260x": GPUConfig("r7-260x", 14, 1100, 8),
    "firepro-w9100": GPUConfig("firepro-w9100", 44, 930, 1),
}


#: the seed's occupancy table (clrx-gcn-timings): waves per SIMD -> SGPRs a wave may hold
_SGPR_LIMIT = {1: 128, 2: 128, 3: 128, 4: 128, 5: 96, 6: 80, 7: 72, 8: 64, 9: 56, 10: 48}


@dataclass(frozen=True)
class Occupancy:
    """How many waves of a kernel fit on a SIMD and how many of its workgroups on a CU."""

    waves_per_simd: int
    workgroups_per_cu: int
    limited_by: str          #: "VGPRs", "SGPRs", "LDS", "waves", "workgroups"


def occupancy(vgprs: int, sgprs: int, lds_bytes: int, waves_per_group: int,
              config: GPUConfig) -> Occupancy:
    """Resident waves per SIMD and workgroups per CU (the seeds: 256 VGPRs and 512 SGPRs per
    SIMD with VGPRs in granules of 4, at most 10 waves per SIMD, 40 per CU, 16 workgroups per
    CU, 64 KB LDS per CU; a workgroup's waves spread over the CU's 4 SIMDs)."""
    vg = max(4, -(-vgprs // 4) * 4)
    by = {"waves": config.waves_per_simd, "VGPRs": config.vgprs_per_simd // vg}
    by["SGPRs"] = max([n for n, lim in _SGPR_LIMIT.items() if sgprs <= lim] or [0])
    wps = min(by.values())
    limited = min(by, key=lambda k: (by[k], k != "waves"))
    simds = config.simds_per_cu
    # a workgroup's waves spread over the SIMDs: it needs ceil(waves/4) slots on the busiest one
    fits = -(-waves_per_group // simds) <= wps
    groups = (wps * simds) // waves_per_group if fits else 0
    reasons = {"workgroups": config.max_workgroups_per_cu}
    if lds_bytes:
        reasons["LDS"] = config.lds_per_cu // lds_bytes
    g = min([groups] + list(reasons.values()))
    if g < groups:
        limited = min(reasons, key=reasons.get)
    return Occupancy(wps, g, limited)


class Buffer:
    """A device allocation. ``address`` is its GPU virtual address."""

    def __init__(self, gpu: "GPU", address: int, nbytes: int, name: str):
        self.gpu = gpu
        self.address = address
        self.nbytes = nbytes
        self.name = name

    def to_numpy(self, dtype=np.uint8, count: int | None = None) -> np.ndarray:
        """Copy the buffer's contents out as a numpy array of ``dtype``."""
        dt = np.dtype(dtype)
        n = self.nbytes // dt.itemsize if count is None else int(count)
        return self.gpu.memory.read_array(self.address, dt, n)

    def write(self, array) -> None:
        """Overwrite the start of the buffer with ``array``'s bytes."""
        a = np.ascontiguousarray(array)
        if a.nbytes > self.nbytes:
            raise GcnEmuError(f"writing {a.nbytes} bytes into buffer '{self.name}' of {self.nbytes} bytes")
        self.gpu.memory.write(self.address, a)

    def __int__(self) -> int:
        return self.address

    def __repr__(self) -> str:
        return f"Buffer({self.name!r}, 0x{self.address:x}, {self.nbytes} bytes)"


@dataclass(frozen=True)
class Local:
    """A ``__local`` pointer argument: ``nbytes`` of LDS allocated per workgroup at dispatch."""

    nbytes: int


class Kernel:
    """A kernel ready to dispatch: its descriptor/metadata, the decoded program holding its
    code (for a code object: all of .text, so calls to other functions work) and the program
    row where it starts."""

    def __init__(self, info: KernelInfo, program: Program, code_object: CodeObject | None = None,
                 entry_row: int = 0, code_address: int = 0):
        self.info = info
        self.program = program
        self.name = info.name
        self.code_object = code_object
        self.entry_row = entry_row
        self.code_address = code_address   #: code-object address of the program's first byte
        self._code_facts = None            #: see code_facts

    def __repr__(self) -> str:
        return f"Kernel({self.name!r}, {len(self.program.instructions)} instructions)"

    def code_facts(self) -> tuple[str, bool]:
        """(why its workgroups must run on one worker or '', whether it can reach GDS): facts of
        the kernel's code that every launch needs, worked out once per program."""
        prog = self.program
        if self._code_facts is None or self._code_facts[0] is not prog:
            self._code_facts = (prog, _needs_serial(prog), _uses_gds(prog))
        return self._code_facts[1:]


class LoadedProgram:
    """A loaded code object (or assembled source): its kernels by name."""

    def __init__(self, code_object: CodeObject | None, kernels: dict):
        self.code_object = code_object
        self._infos = kernels
        self._kernels: dict[str, Kernel] = {}
        self._text_program: Program | None = None

    @property
    def kernel_names(self) -> list[str]:
        return sorted(self._infos)

    def kernel(self, name: str) -> Kernel:
        """The kernel called ``name`` (LoaderError listing the names that exist)."""
        if name not in self._kernels:
            if name not in self._infos:
                raise LoaderError(f"no kernel named {name!r}; kernels: {self.kernel_names or 'none'}")
            info = self._infos[name]
            co = self.code_object
            prog = None
            if co is not None and co.text_address <= info.entry_address < co.text_address + len(co.text):
                try:
                    prog = self._text()
                except LoaderError:
                    # .text is not pure code (code object v2 keeps amd_kernel_code_t headers
                    # there): decode this kernel's own bytes only
                    prog = None
            if prog is not None:
                row = prog.pc_index.get(info.entry_address - co.text_address)
                if row is None:
                    raise LoaderError(f"kernel {name}: entry 0x{info.entry_address:x} is not at an "
                                      f"instruction boundary of .text")
                self._kernels[name] = Kernel(info, prog, co, row, co.text_address)
            else:
                self._kernels[name] = Kernel(info, decode_kernel(info, info.code), co, 0,
                                             info.entry_address)
        return self._kernels[name]

    def _text(self) -> Program:
        """All of .text decoded once (kernels and the functions they call)."""
        if self._text_program is None:
            co = self.code_object
            entries = [i.entry_address - co.text_address for i in self._infos.values()]
            self._text_program = decode_text(co.text, max(entries), "code object .text")
        return self._text_program


def decode_kernel(info: KernelInfo, code: bytes) -> Program:
    """Decode one kernel's code; padding that does not decode after an s_endpgm ends it."""
    return decode_text(code, 0, info.name)


def decode_text(code: bytes, last_entry: int, name: str) -> Program:
    """Decode a code block. Bytes that do not decode after an s_endpgm that follows the last
    entry point (alignment padding, data) end the program; anything else undecodable is an
    error naming the offset."""
    out, pc, seen_end = [], 0, False
    while pc < len(code):
        try:
            ins = decode_one(code, pc)
        except DecodeError as e:
            if seen_end:
                break
            raise LoaderError(f"{name}: {e}") from None
        out.append(ins)
        seen_end = seen_end or (ins.name == "s_endpgm" and pc >= last_entry)
        pc += ins.size
    return build_program(out, name)


def load(src) -> LoadedProgram:
    """Load a code object (path or bytes) or a GCN assembly file (path ending in .s).

    Assembly files without AMDHSA directives become one kernel named after the file whose
    launch state is: s[0:1] = kernarg segment pointer, s2/s3/s4 = workgroup id x/y/z,
    v0/v1/v2 = work-item id x/y/z, 104 SGPRs and 256 VGPRs available.
    """
    if isinstance(src, (str, os.PathLike)) and str(src).endswith(".s"):
        from .isa.assembler import assemble
        text = open(src).read()
        name = os.path.splitext(os.path.basename(str(src)))[0]
        return LoadedProgram(None, {name: assembly_kernel_info(name, assemble(text))})
    co = load_code_object(src)
    return LoadedProgram(co, co.kernels)


def assembly_kernel_info(name: str, code: bytes) -> KernelInfo:
    """A KernelInfo for raw assembled code (the launch state described in `load`)."""
    import dataclasses
    fields = {f.name: 0 for f in dataclasses.fields(KernelInfo) if f.default is dataclasses.MISSING}
    fields.update(name=name, code=code, entry_address=0, descriptor_address=0, descriptor=b"",
                  code_object_version=0, vgpr_count=256, sgpr_count=104, mode_register=0x3F0,
                  user_sgpr_count=2, enable_sgpr_kernarg_segment_ptr=1, enable_sgpr_workgroup_id_x=1,
                  enable_sgpr_workgroup_id_y=1, enable_sgpr_workgroup_id_z=1,
                  enable_vgpr_workitem_id=2, enable_dx10_clamp=1, enable_ieee_mode=1,
                  float_denorm_mode_32=3, float_denorm_mode_16_64=3)
    return KernelInfo(**fields)


@dataclass
class DispatchReport:
    """What a dispatch did: launch shape, instruction counts (rocprof names), faults; in
    timing mode (GPU(timing=True)) also the simulated cycles, timing counters
    (gcnemu.timing.model.COUNTER_NAMES) and per-wave start/end cycles."""

    kernel: str
    grid: tuple
    block: tuple
    workgroups: int
    waves: int
    counters: dict = field(default_factory=dict)
    faults: list = field(default_factory=list)
    messages: list = field(default_factory=list)
    exports: list = field(default_factory=list)   #: EXP data (see gcnemu.memops.read_exports)
    wall_seconds: float = 0.0
    occupancy: Occupancy | None = None
    workers: int = 1          #: threads the dispatch's batches were shared among
    serial_reason: str = ""   #: why more workers were asked for but one was used
    #: timing mode only (GPU(timing=True)): simulated GPU cycles of the whole dispatch
    cycles: int | None = None
    #: timing mode only: int64 [waves, 2] start and end cycle of each wave, in dispatch order
    #: (workgroup by workgroup, waves of a workgroup in order)
    wave_cycles: np.ndarray | None = None
    #: timing mode only: int64 [waves]: the CU each wave ran on in the cycle model
    wave_cu: np.ndarray | None = None

    @property
    def instructions(self) -> int:
        """SQ_INSTS: wave-instructions executed."""
        return self.counters.get("SQ_INSTS", 0)

    def summary(self) -> str:
        """One line: launch shape, wave-instructions, emulation speed, faults (and the
        simulated cycles in timing mode)."""
        rate = self.instructions / self.wall_seconds / 1e6 if self.wall_seconds > 0 else 0.0
        return (f"{self.kernel}: grid {self.grid} block {self.block}, {self.workgroups} workgroups, "
                f"{self.waves} waves, {self.instructions} wave-instructions in {self.wall_seconds:.3f} s "
                f"({rate:.1f} M/s), {len(self.faults)} faults"
                + (f", {self.cycles} simulated cycles" if self.cycles is not None else ""))


_COUNTER_COLUMNS = {"SQ_INSTS": E.WS_INSTS, "SQ_INSTS_VALU": E.WS_VALU, "SQ_INSTS_SALU": E.WS_SALU,
                    "SQ_INSTS_SMEM": E.WS_SMEM, "SQ_INSTS_VMEM": E.WS_VMEM, "SQ_INSTS_LDS": E.WS_LDS_INSTS,
                    "SQ_INSTS_BRANCH_TAKEN": E.WS_TAKEN}
_COUNTER_COLS = np.array(list(_COUNTER_COLUMNS.values()))


#: the SGPR pairs of the launch state that may change from one dispatch of a launch to the
#: next (the addresses only when the kernarg segment needs more room: see _Launch._region)
_PER_DISPATCH_SGPRS = ("dispatch_ptr", "kernarg_segment_ptr", "dispatch_id")
#: batch set-ups of edge batches (cut by the grid) a worker keeps besides the full batches'
MAX_EDGE_TEMPLATES = 4
_NO_SCRATCH_VSHARP = scratch_vsharp(0, 0)

#: with several workers, batches are made small enough that each worker gets at least this
#: many (load balance); a batch costs some 0.02-0.1 ms of Python (set-up and bookkeeping)
BATCHES_PER_WORKER = 4
#: ...but a one-worker batch is cut into at most this many: cheap kernels do not win back
#: the set-up of smaller batches, which runs under the GIL (saxpy of 129 waves, 2 workers
#: against 1: 0.59x the speed in batches of 4 workgroups, 0.85x in 8, 1.02x in 16 of the
#: 32 a one-worker batch holds; a 192-wave mandelbrot 1.72x, 1.81x and 1.58x)
MAX_BATCH_SPLIT = 2


class GPU:
    """An emulated gfx7 GPU with its own memory."""

    def __init__(self, preset: str | GPUConfig = "xbox-one", *, step_limit: int = 50_000_000,
                 waves_per_batch: int = 128, timing: bool = False, timing_config=None):
        """``timing=True`` adds the cycle model (gcnemu/timing): every dispatch also returns
        ``report.cycles``, timing counters and per-wave start/end cycles; the functional
        results are the same bits as without it. ``timing_config`` (a
        gcnemu.timing.TimingConfig) overrides the cache and latency parameters."""
        if isinstance(preset, GPUConfig):
            self.config = preset
        else:
            if preset not in PRESETS:
                raise GcnEmuError(f"unknown GPU preset {preset!r}; presets: {sorted(PRESETS)}")
            self.config = PRESETS[preset]
        self.memory = Memory()
        self.step_limit = step_limit
        self.waves_per_batch = waves_per_batch
        if timing_config is not None and not timing:
            raise GcnEmuError("timing_config is given but timing is off: use GPU(timing=True, ...)")
        self.timing = bool(timing)
        if self.timing:
            from .timing.config import TimingConfig
            self.timing_config = timing_config if timing_config is not None else TimingConfig()
            if not isinstance(self.timing_config, TimingConfig):
                raise GcnEmuError(f"timing_config must be a gcnemu.timing.TimingConfig, not "
                                  f"{type(self.timing_config).__name__}")
        else:
            self.timing_config = None
        self.gds = np.zeros(self.config.gds_bytes, np.uint8)
        self._dispatch_id = 0
        self._images = {}     # id(code object) -> (code object, GPU address of its image)
        self._launches = {}   # launch key (see dispatch) -> _Launch, least recently used first
        self._pool, self._pool_size = None, 0   # helpers of workers > 1 (see _start_helpers)
        self._running = 0     # dispatches running now (from several Python threads: see _run)
        self._lock = threading.Lock()   # guards _pool, _pool_size and _running
        self._queue = self.memory.allocate(256, name="amd_queue_t")
        q = np.zeros(64, np.uint32)
        q[0x40 // 4] = SHARED_APERTURE_HI
        q[0x44 // 4] = PRIVATE_APERTURE_HI
        self.memory.write(self._queue, q)

    # --- buffers ---------------------------------------------------------------------------
    def to_device(self, array, name: str | None = None) -> Buffer:
        """Copy a numpy array into a new device buffer."""
        a = np.ascontiguousarray(array)
        nbytes = max(a.nbytes, 1)
        name = name or f"buffer{len(self.memory.alloc_names)}"
        addr = self.memory.allocate(nbytes, name=name)
        if a.nbytes:
            self.memory.write(addr, a)
        return Buffer(self, addr, a.nbytes, name)

    def empty(self, nbytes: int, name: str | None = None) -> Buffer:
        """A new zero-filled device buffer of ``nbytes`` bytes."""
        nbytes = int(nbytes)
        if nbytes <= 0:
            raise GcnEmuError(f"gpu.empty needs a positive size, got {nbytes}")
        name = name or f"buffer{len(self.memory.alloc_names)}"
        return Buffer(self, self.memory.allocate(nbytes, name=name), nbytes, name)

    # --- dispatch --------------------------------------------------------------------------
    def dispatch(self, kernel: Kernel, grid: Sequence[int], block: Sequence[int], args: Sequence = (),
                 *, strict: bool = True, workers: int = 1) -> DispatchReport:
        """Run ``kernel`` over ``grid`` work-items in workgroups of ``block``.

        ``args`` are the kernel's explicit arguments in order: Buffers (or addresses) for
        pointers, numpy scalars / Python numbers for by-value arguments, ``Local(nbytes)`` for
        ``__local`` pointers. With ``strict`` (default), accesses to unmapped memory raise
        MemoryFault after the dispatch (the report's faults list them either way); a wave that
        fails raises ExecutionError naming kernel, workgroup, wave, PC and lane.

        ``workers`` > 1 runs batches of workgroups on that many threads, the calling one and
        helpers the GPU keeps (the engine releases the GIL), with bit-identical results.
        Kernels with order-dependent global atomics or GDS run on one worker, and so does a
        launch of one batch (at most ``waves_per_batch`` waves); ``report.serial_reason``
        says why.
        """
        if not isinstance(kernel, Kernel):
            raise DispatchError(f"dispatch takes a Kernel (from gcnemu.load(...).kernel(name)), "
                                f"not {type(kernel).__name__}")
        info = kernel.info
        grid, block = _shape(grid, block, info, self.config)
        t0 = time.perf_counter()

        # dynamic LDS for __local arguments goes after the static allocation
        lds_size = info.group_segment_fixed_size
        arg_values = []
        for a in args:
            if isinstance(a, Local):
                lds_size = (lds_size + 15) & ~15
                arg_values.append(lds_size)
                lds_size += int(a.nbytes)
            else:
                arg_values.append(a)
        if lds_size > self.config.lds_per_cu:
            raise DispatchError(f"kernel {info.name} needs {lds_size} bytes of LDS per workgroup; "
                                f"a CU has {self.config.lds_per_cu}")
        # everything that does not depend on the argument values is kept per launch shape
        # (see _Launch); taken out of the cache while in use, so that a dispatch from another
        # thread never shares it. The key holds the kernel's info and program as they are now
        # (the launch keeps both alive, so their ids stay theirs)
        key = (kernel, id(info), id(kernel.program), grid, block, lds_size, max(1, int(workers)))
        launch = self._launches.pop(key, None)
        if launch is None:
            launch = _Launch(self, kernel, grid, block, lds_size, workers)
        try:
            launch.write_segments(self.memory, launch.kernarg.build(arg_values))
            rep = self._run(launch, workers)
        finally:
            self._keep_launch(key, launch)
        rep.wall_seconds = time.perf_counter() - t0
        self._dispatch_id += 1
        if strict and rep.faults:
            shown = "; ".join(rep.faults[:4])
            more = f" (and {len(rep.faults) - 4} more)" if len(rep.faults) > 4 else ""
            raise MemoryFault(f"kernel {info.name}: {len(rep.faults)} access(es) to unmapped memory: "
                              f"{shown}{more}. Loads returned 0 and stores were dropped; "
                              f"dispatch(..., strict=False) returns the report instead.")
        return rep

    def _keep_launch(self, key, launch) -> None:
        """Put a launch back into the cache as the most recent one; release (unmap) the least
        recently used ones beyond KEEP_LAUNCHES, and a launch too big to keep."""
        old = self._launches.pop(key, None)
        if old is not None and old is not launch:
            old.release(self.memory)        # a concurrent dispatch of the same shape made its own
        if launch.footprint() > KEEP_LAUNCH_BYTES:
            launch.release(self.memory)
            return
        self._launches[key] = launch
        while len(self._launches) > KEEP_LAUNCHES:
            self._launches.pop(next(iter(self._launches))).release(self.memory)

    def _image_base(self, kernel) -> int:
        """Map the kernel's code object image (code and read-only data) into GPU memory once, so
        that s_getpc-relative loads of constant tables find their data."""
        co = kernel.code_object
        if co is None or not co.segments:
            return 0
        hit = self._images.get(id(co))
        if hit is not None and hit[0] is co:
            return hit[1]
        end = max(v + len(b) for v, b in co.segments)
        base = self.memory.allocate(end, align=4096, name="code object image")
        for v, b in co.segments:
            if b:
                self.memory.write(base + v, b)
        self._images[id(co)] = (co, base)
        return base

    def _run(self, launch, workers=1) -> DispatchReport:
        ctx, info, prog, occ = launch.ctx, launch.info, launch.ctx["prog"], launch.occ
        mem = self.memory
        if occ.workgroups_per_cu < 1:
            wpg = ctx["waves_per_group"]
            raise DispatchError(
                f"kernel {info.name}: a workgroup of {launch.group_items} work-items ({wpg} waves) "
                f"does not fit on a CU: {ctx['vcount']} VGPRs and {info.sgpr_count} SGPRs per wave allow "
                f"{occ.waves_per_simd} wave(s) per SIMD ({occ.limited_by}), it needs "
                f"{-(-wpg // self.config.simds_per_cu)}")
        states = launch.get_states(self)
        for st in states:
            st.streams_used = 0
        ctx["dispatch_id"] = self._dispatch_id
        nworkers, batches = len(states), launch.batches
        totals = {k: 0 for k in _COUNTER_COLUMNS}
        fault_list, messages, export_list, traces = [], [], [], []
        waves_run = 0
        # the backing array must not grow while any dispatch runs (the engine holds the old
        # one); with dispatches from several Python threads the last to finish unlocks it
        with self._lock:
            self._running += 1
            mem.lock()
            data, mapped = mem.arrays()
        try:
            if nworkers == 1:
                results = (self._run_batch(ctx, states[0], b, data, mapped) for b in batches)
            else:
                results = self._run_shared_queue(ctx, states, batches, data, mapped)
            for res in results:
                if res.error is not None:
                    raise res.error
                waves_run += res.waves
                for k in totals:
                    totals[k] += res.totals[k]
                fault_list.extend(res.faults)
                if res.trace is not None:
                    traces.append(res.trace)
                messages.extend(res.messages)
                export_list.extend(res.exports)
        finally:
            with self._lock:
                self._running -= 1
                if not self._running:
                    mem.unlock()
        rep = DispatchReport(info.name, launch.grid, launch.block, launch.ngroups, waves_run, totals,
                             fault_list, messages, export_list, occupancy=occ)
        rep.workers = nworkers
        rep.serial_reason = launch.serial_reason if int(workers) > 1 else ""
        if self.timing:
            from .timing.model import time_dispatch
            streams = [st.streams[:st.streams_used] for st in states]
            t = time_dispatch(prog, traces, streams, self.config, self.timing_config, occ,
                              ctx["waves_per_group"])
            rep.cycles = t.cycles
            rep.counters.update(t.counters)
            rep.wave_cycles = t.wave_cycles
            rep.wave_cu = t.wave_cu
        return rep

    def _run_shared_queue(self, ctx, states, batches, data, mapped) -> list:
        """Run the batches on the calling thread and len(states) - 1 helper threads of the
        GPU's pool (see _SharedQueue); the results in batch order, up to the first failing
        batch."""
        queue = _SharedQueue(lambda st, b: self._run_batch(ctx, st, b, data, mapped), states, batches)
        self._start_helpers(len(states) - 1, queue.work)
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

    def _start_helpers(self, n: int, work) -> None:
        """Have ``n`` of the GPU's helper threads call ``work``. The threads are kept between
        dispatches (starting threads per dispatch cost more than a small launch's emulation)
        and wait idle without holding the GPU: they exit when the GPU is garbage collected
        (the pool goes with it), or at interpreter exit. Submitted under the lock, so that a
        dispatch from another Python thread that needs a bigger pool does not shut this one
        down in between."""
        with self._lock:
            if self._pool_size < n:
                if self._pool is not None:
                    self._pool.shutdown(wait=False)   # its threads finish what they run and exit
                self._pool = ThreadPoolExecutor(n, thread_name_prefix="gcnemu-worker")
                self._pool_size = n
            for _ in range(n):
                self._pool.submit(work)

    def _run_batch(self, ctx, st, batch, data, mapped) -> "_BatchResult":
        """Run the workgroups of one batch to completion in the state arrays of one worker."""
        info, prog, groups = ctx["info"], ctx["prog"], ctx["groups"]
        grid, block, wpg = ctx["grid"], ctx["block"], ctx["waves_per_group"]
        # GDS persists across dispatches: copied in and out only if the program can touch it
        st.reset(self.gds if ctx["uses_gds"] else None)
        ids = self._init_batch(ctx, st, batch)
        ws = st.ws
        while True:
            bad = E.run_group_waves(prog.code, ids, st.sregs, ws, st.vgpr, st.lds, data, mapped,
                                    np.int64(MEM_BASE), st.faults, st.msgs, np.int64(self.step_limit),
                                    st.exports, st.trace)
            if bad != -2:
                break
            st.grow_trace()   # the timing trace filled up: the waves resume where they stopped
        res = _BatchResult()
        if self.timing:
            from .timing.model import split_trace
            offsets = split_trace(st.trace, ws.shape[0], prog, st.streams_room(st.trace[0]),
                                  st.streams_used)
            res.trace = (np.asarray(batch, np.int64)[ids // wpg], ids % wpg, offsets[ids],
                         offsets[ids + 1], st.worker)
            st.streams_used = int(offsets[-1])
        res.waves = len(ids)
        res.exports = read_exports(st.exports)
        if ctx["uses_gds"]:
            self.gds[:] = st.lds[-self.config.gds_bytes:]
        # per-batch Python work is a fixed cost per 128 waves: a few whole-array numpy ops, on
        # whole columns, because the rows of waves not in the batch are zero (_init_batch sets
        # the arrays whole) and stay so (the engine runs the waves of ``ids`` only)
        sums = ws.sum(axis=0)[_COUNTER_COLS]
        res.totals = dict(zip(_COUNTER_COLUMNS, sums.tolist()))
        for w in np.flatnonzero(ws[:, E.WS_FAULTS]).tolist():
            nf = int(ws[w, E.WS_FAULTS])
            for i in range(min(nf, st.faults.shape[1])):
                addr, row, lane, wr = (int(x) for x in st.faults[w, i])
                res.faults.append(self._describe_fault(info, prog, batch, w, wpg, groups, addr, row,
                                                       lane, wr))
        nmsg = min(int(st.msgs[0, 0]), st.msgs.shape[0] - 1)
        res.messages = [(int(st.msgs[i, 0]), int(st.msgs[i, 1]), int(st.msgs[i, 2]))
                        for i in range(1, nmsg + 1)]
        if bad >= 0:
            g = batch[bad // wpg]
            gid = (g % groups[0], (g // groups[0]) % groups[1], g // (groups[0] * groups[1]))
            res.error = error_from_wave(prog, ws, int(bad), kernel=info.name,
                                        wave_label=f"{bad % wpg} of workgroup {gid}")
        else:
            stuck = np.count_nonzero(ws[:, E.WS_STATUS] == E.ST_BARRIER)
            if stuck:
                res.error = DispatchError(f"kernel {info.name}: {stuck} wave(s) wait at s_barrier "
                                          f"that the rest of their workgroup never reaches")
        return res

    def _init_batch(self, ctx, st, batch) -> np.ndarray:
        """Set up every wave of a batch of workgroups as the ABI says; returns the wave ids.

        Workgroup g goes to CU g mod #CUs (round-robin) and its waves to the CU's SIMDs in turn
        (HW_ID: wave slot [3:0], SIMD [5:4], CU [11:8])."""
        info, groups, grid, block = ctx["info"], ctx["groups"], ctx["grid"], ctx["block"]
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
        t = st.templates.get(tkey)
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
                ws[w, E.WS_HW_ID] = t["hw_low"] | ((gw % self.config.compute_units) & 0xF) << 8
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
        sregs[w, E.EXEC_LO] = (exec_mask & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        sregs[w, E.EXEC_HI] = (exec_mask >> np.uint64(32)).astype(np.uint32)
        sregs[w, E.M0] = 0xFFFFFFFF
        bpl = (priv + 3) & ~3
        wave_off = w * 64 * bpl
        # workgroup_info: {first_wave, 14'b0, ordered_append_term[10:0], size_in_waves[5:0]}
        info_val = nw[wg].astype(np.int64) | np.where(k == 0, np.int64(1) << 31, 0)
        values = {
            "dispatch_ptr": ctx["dispatch_ptr"], "queue_ptr": self._queue,
            "kernarg_segment_ptr": ctx["kernarg_segment_ptr"], "dispatch_id": ctx["dispatch_id"],
            "flat_scratch_init": bpl << 32, "private_segment_size": priv,
            "workgroup_id_x": gx[wg], "workgroup_id_y": gy[wg], "workgroup_id_z": gz[wg],
            "workgroup_info": info_val, "private_segment_wave_offset": wave_off,
        }
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
        ws[w, E.WS_MODE] = info.mode_register
        ws[w, E.WS_SGPRS] = ctx["scount"]
        ws[w, E.WS_VBASE] = w * vcount
        ws[w, E.WS_VCOUNT] = vcount
        ws[w, E.WS_GROUP] = wg
        ws[w, E.WS_LDS_BASE] = wg * ctx["lds_per_group"]
        ws[w, E.WS_LDS_SIZE] = ctx["lds_size"]
        cu = g[wg] % self.config.compute_units
        simds = self.config.simds_per_cu
        ws[w, E.WS_HW_ID] = ((k // simds) & 0xF) | ((k % simds) << 4) | ((cu & 0xF) << 8)
        ws[w, E.WS_CODE_BASE] = ctx["code_base"]
        ws[w, E.WS_PC] = ctx["entry_row"]
        if scratch is not None:
            ws[w, E.WS_SCRATCH_BASE] = scratch.address
            ws[w, E.WS_SCRATCH_WAVE] = wave_off
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
        if tkey not in st.set_up:
            # made when a kind of batch is set up a second time: a launch dispatched once (each
            # dispatch of a new shape) does not pay for copying its state
            st.set_up.add(tkey)
        elif full or sum(key != "full" for key in st.templates) < MAX_EDGE_TEMPLATES:
            firsts = {what: first for what, first, count in ctx["sgpr_layout"]}
            vrows = (w[:, None] * vcount + np.arange(min(ctx["vgpr_ids"], 3))[None, :]).ravel()
            st.templates[tkey] = dict(
                lo=lo, w=w, wg=wg, sregs=sregs.copy(), ws=ws.copy(), vrows=vrows, vvals=vgpr[vrows].copy(),
                hw_low=ws[w, E.WS_HW_ID] & ~np.int64(0xF00),
                wgid=[(firsts[f"workgroup_id_{a}"], i) for i, a in enumerate("xyz")
                      if f"workgroup_id_{a}" in firsts],
                firsts=firsts,
                per_dispatch={what: values[what] for what in _PER_DISPATCH_SGPRS if what in firsts})
        return w

    def _describe_fault(self, info, prog, batch, w, wpg, groups, addr, row, lane, wr) -> str:
        g = batch[w // wpg]
        gid = (g % groups[0], (g // groups[0]) % groups[1], g // (groups[0] * groups[1]))
        pc = prog.instructions[row].offset if 0 <= row < len(prog.instructions) else -1
        ins = prog.text_at(row) if 0 <= row < len(prog.instructions) else "?"
        where = self.memory.describe(addr) if addr >= MEM_BASE else "address below the GPU heap"
        lane_txt = f"lane {lane}" if lane >= 0 else "scalar"
        return (f"{'store to' if wr else 'load from'} 0x{addr:x} ({where}) by kernel {info.name}, "
                f"workgroup {gid}, wave {w % wpg}, {lane_txt}, pc 0x{pc:x} '{ins}'")


#: a GPU keeps the set-up of its most recent launch shapes (_Launch) for this many of them...
KEEP_LAUNCHES = 8
#: ...unless one holds more than this many bytes of state arrays and scratch: big launches
#: spend their time emulating, not setting up, and should not pin host or GPU memory
KEEP_LAUNCH_BYTES = 64 << 20


class _Launch:
    """What a dispatch of one kernel with one launch shape (grid, block, LDS size, workers)
    needs besides the argument values: the derived launch parameters (``ctx``), the kernarg
    layout, the GPU memory holding the AQL packet, kernel descriptor and kernarg segment, and
    the per-worker state arrays with their scratch. GPU.dispatch keeps recent ones
    (GPU._launches) so that a repeated small dispatch does not redo this set-up.

    Every dispatch sees them as freshly made: write_segments zeroes the memory regions before
    writing them, get_states zeroes the scratch, and a batch resets its state arrays
    (_BatchState.reset and GPU._init_batch). The per-dispatch values (dispatch id, the
    addresses of packet and kernarg segment) are set by _init_batch each time."""

    def __init__(self, gpu: "GPU", kernel: Kernel, grid, block, lds_size: int, workers: int):
        info = kernel.info
        config = gpu.config
        self.info, self.grid, self.block = info, grid, block
        self.kernarg = abi.KernargLayout(info, abi.default_hidden_args(grid, block)) \
            if info.code_object_version else _RawKernarg()
        self.priv = priv = int(info.private_segment_fixed_size)
        groups = [-(-grid[i] // block[i]) for i in range(3)]
        self.ngroups = ngroups = groups[0] * groups[1] * groups[2]
        self.group_items = group_items = block[0] * block[1] * block[2]
        waves_per_group = -(-group_items // 64)
        vcount = max(4, min(256, info.vgpr_count))
        scount = max(8, min(104, info.sgpr_count))
        self.occ = occupancy(vcount, info.sgpr_count, lds_size, waves_per_group, config)
        self.serial_reason, uses_gds = kernel.code_facts()
        sgpr_layout = abi.initial_sgpr_layout(info) if info.code_object_version else _asm_sgpr_layout(info)
        nworkers = 1 if self.serial_reason else max(1, int(workers))
        groups_per_batch = max(1, gpu.waves_per_batch // waves_per_group)
        if nworkers > 1 and ngroups <= groups_per_batch:
            # a launch that is one batch on one worker runs on the calling thread: each
            # batch it were cut into would add ~15 us of set-up under the GIL, and the
            # hand-off to a helper thread as much again, more than its emulation gains
            # (the corpus saxpy, 64 waves: 90 us on one worker, 140 us as two batches
            # on two, the other core busy)
            self.serial_reason = (f"small launch: its {ngroups * waves_per_group} waves are one batch "
                                  f"(GPU(waves_per_batch={gpu.waves_per_batch}))")
            nworkers = 1
        if nworkers > 1:
            # workers take batches from a shared queue; several batches per worker, so
            # that workgroups of unequal cost (mandelbrot's rows) even out between them
            groups_per_batch = max(-(-groups_per_batch // MAX_BATCH_SPLIT),
                                   min(groups_per_batch, ngroups // (BATCHES_PER_WORKER * nworkers)))
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
                        priv=priv, code_base=gpu._image_base(kernel) + kernel.code_address,
                        entry_row=kernel.entry_row)
        self._regions = {}      # what -> (address, bytes): kernarg segment, packet + descriptor
        self._packet = (None, None, b"")   # (kernarg address, descriptor address, AQL packet)
        self.states = None

    def write_segments(self, mem: Memory, kernarg: bytes) -> None:
        """Write the kernarg segment, and the AQL packet with the kernel descriptor a page
        after it (one allocation: each allocation a GPU keeps makes allocating slower), into
        memory as zeroed as a new allocation (the kernel may have written to them)."""
        ka = self._region(mem, "kernarg", max(len(kernarg), 16))
        pkt = self._region(mem, "dispatch_packet", PAGE_SIZE + 64)
        kd = pkt + PAGE_SIZE
        if self._packet[:2] != (ka, kd):
            self._packet = (ka, kd, abi.build_aql_dispatch_packet(self.grid, self.block, ka, kd, self.priv,
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

    def get_states(self, gpu: "GPU") -> list:
        """The workers' state arrays (made on first use), their scratch zeroed."""
        mem = gpu.memory
        if self.states is None:
            info = self.info
            self.states = []
            for i in range(self.nworkers):
                scratch = None
                if self.priv > 0:
                    scratch = mem.allocate_scratch(self.priv, self.nwaves * 64, name=f"{info.name}.scratch{i}")
                self.states.append(_BatchState(self.nbatch_groups, self.nwaves, self.ctx["vcount"],
                                               self.lds_per_group, gpu.gds, scratch, gpu.timing, i))
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


class _RawKernarg:
    """The kernarg segment of an assembly kernel (no metadata): the arguments' raw bytes."""

    @staticmethod
    def build(args) -> bytes:
        return b"".join(_raw_arg(v) for v in args)


class _BatchState:
    """The arrays one worker runs its batches of workgroups in (private per worker thread)."""

    def __init__(self, ngroups, nwaves, vcount, lds_per_group, gds, scratch, timing=False, worker=0):
        self.lds = np.zeros(ngroups * lds_per_group + gds.size, np.uint8)
        self.gds_bytes = gds.size
        self.lds[-self.gds_bytes:] = gds
        self.sregs = np.zeros((nwaves, 128), np.uint32)
        self.ws = np.zeros((nwaves, E.NWS), np.int64)
        self.vgpr = zeros_aligned((nwaves * vcount, 64), np.uint32)
        self.faults = np.zeros((nwaves, 16, 4), np.int64)
        self.msgs = np.zeros((1024, 4), np.int64)
        self.exports = new_export_buffer(1024)
        self.scratch = scratch
        self.ngroups = ngroups
        self.templates = {}    # see GPU._init_batch
        self.set_up = set()    # the kinds of batches set up so far (template keys)
        # the timing trace (gcnemu/timing/trace.py); None = timing off (the engine's
        # specialisation without recording)
        self.trace = np.zeros(1 << 18, np.int64) if timing else None
        # timing: the per-wave streams of the batches this worker ran in the current dispatch
        # (gcnemu.timing.model.split_trace), streams[:streams_used]; kept between dispatches,
        # so the model reads them where they are, from memory already touched
        self.worker = worker
        self.streams = np.zeros(1 << 18, np.int64) if timing else None
        self.streams_used = 0

    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.lds, self.sregs, self.ws, self.vgpr, self.faults, self.msgs,
                                      self.exports, self.trace, self.streams) if a is not None)

    def streams_room(self, n: int) -> np.ndarray:
        """The streams array, grown (keeping what it holds) to take ``n`` more entries."""
        need = self.streams_used + n
        if need > self.streams.shape[0]:
            grown = np.zeros(max(need, 2 * self.streams.shape[0]), np.int64)
            grown[:self.streams_used] = self.streams[:self.streams_used]
            self.streams = grown
        return self.streams

    def grow_trace(self):
        t = np.zeros(2 * self.trace.shape[0], np.int64)
        t[:self.trace.shape[0]] = self.trace
        t[1] = 0
        self.trace = t

    def reset(self, gds=None):
        """Clear what a batch may have left (sregs and ws: GPU._init_batch sets them whole);
        ``gds``: new GDS contents (None: the program does not use GDS, keep them)."""
        self.vgpr[:] = 0
        self.lds[:-self.gds_bytes] = 0
        if gds is not None:
            self.lds[-self.gds_bytes:] = gds
        self.exports[0, 0] = 0
        self.msgs[0, 0] = 0
        if self.trace is not None:
            self.trace[0] = 2
            self.trace[1] = 0


class _SharedQueue:
    """The batches of one dispatch, shared among threads (the caller and its helpers): each
    thread that calls work() takes a state (a worker's arrays) and then the next batch in
    order until none is left, so work evens out whatever the batches cost. A batch's result
    does not depend on the thread that ran it (each state is reset per batch), and results
    are merged in batch order, so the bits are those of one worker. After a failing batch
    (a wave error or an exception) no new batch starts; all batches before it have finished
    (batches start in order), so the error reported is the same as with one worker."""

    def __init__(self, run_batch, states, batches):
        self.run_batch = run_batch   # (state, batch) -> _BatchResult
        self.batches = batches
        self.free = list(states)
        self.out = [None] * len(batches)
        self.next = 0           # the next batch to start
        self.stop = False       # a batch failed
        self.busy = 0           # threads in work() holding a state
        self.cond = threading.Condition()

    def work(self) -> None:
        with self.cond:
            # a helper that wakes after the batches ran (or were stopped) leaves at once:
            # the dispatch may have returned, and its states serve the next one
            if self.stop or self.next >= len(self.batches) or not self.free:
                return
            st = self.free.pop()
            self.busy += 1
        try:
            while True:
                with self.cond:
                    if self.stop or self.next >= len(self.batches):
                        return
                    j = self.next
                    self.next += 1
                try:
                    res = self.run_batch(st, self.batches[j])
                except BaseException as e:   # re-raised by the caller in batch order
                    res = _BatchResult()
                    res.error = e
                self.out[j] = res
                if res.error is not None:
                    with self.cond:
                        self.stop = True
        finally:
            with self.cond:
                self.busy -= 1
                self.free.append(st)
                self.cond.notify_all()

    def results(self) -> list:
        """Wait until no batch runs (none can start after that: the caller has left work(),
        so all were taken or one failed); the results in order up to the first failure."""
        with self.cond:
            self.cond.wait_for(lambda: self.busy == 0)
        return list(itertools.takewhile(lambda r: r is not None, self.out))


class _BatchResult:
    def __init__(self):
        self.totals = {}
        self.faults = []
        self.messages = []
        self.exports = []
        self.error = None
        self.waves = 0
        self.trace = None    #: timing mode: (group ids, indices in group, stream starts, ends, worker)


#: global atomic ops whose results do not depend on their order: the ops of one class commute
#: with each other (add and sub are both modular additions); different classes do not
_COMMUTING_ATOMICS = {"add": "add", "sub": "add", "and": "and", "or": "or", "xor": "xor",
                      "smin": "smin", "umin": "umin", "smax": "smax", "umax": "umax"}


def _uses_gds(prog: Program) -> bool:
    """Whether a program has a DS instruction that can reach GDS."""
    return any(ins.defn.encoding == "DS" and (ins.fields.get("gds") or ins.name.startswith(("ds_gws", "ds_ordered")))
               for ins in prog.instructions)


def _needs_serial(prog: Program) -> str:
    """Why a program's workgroups must run in order on one worker ('' if they need not).

    Workgroups of a race-free kernel only interact through global atomics and GDS; everything
    else they write lands at distinct addresses, so running batches on two threads gives the
    same bits. Global atomics are made thread-safe by memory.mem_atomic (a host compare-and-
    swap), so their final memory contents do not depend on the interleaving when they do not
    return the old value (GLC=0) and all of them belong to one commuting class of the same
    width (e.g. only atomic adds/subs of dwords, as a histogram does). Any other atomic (one
    that returns the old value, swap, cmpswap, inc/dec, float ops, or a mix of classes) makes
    the result order-dependent, and GDS state is kept per worker: such kernels run serially.
    """
    if _uses_gds(prog):
        return "uses GDS (kept per worker)"
    classes = set()
    for ins in prog.instructions:
        n = ins.name
        if ins.defn.encoding == "DS":
            continue   # LDS atomics stay within one workgroup, which one worker runs
        if "_atomic_" not in n:
            continue
        op = n.split("_atomic_", 1)[1]
        wide = op.endswith("_x2")
        op = op[:-3] if wide else op
        if ins.fields.get("glc"):
            return f"uses {n} with glc (returns the old value: the order of atomics shows)"
        if op not in _COMMUTING_ATOMICS:
            return f"uses {n} (the order of {op} atomics changes the result)"
        classes.add((_COMMUTING_ATOMICS[op], wide))
        if len(classes) > 1:
            return f"uses {n} together with other kinds of global atomics (they do not commute)"
    return ""


def _raw_arg(v) -> bytes:
    if isinstance(v, Buffer):
        return v.address.to_bytes(8, "little")
    if isinstance(v, np.generic):
        return v.tobytes()
    if isinstance(v, int):
        return (v & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "little")
    raise DispatchError(f"assembly kernels take Buffers, numpy scalars or ints, not {type(v).__name__}")


def _asm_sgpr_layout(info):
    return [("kernarg_segment_ptr", 0, 2), ("workgroup_id_x", 2, 1), ("workgroup_id_y", 3, 1),
            ("workgroup_id_z", 4, 1)]


def _shape(grid, block, info, config):
    try:
        g = tuple(int(x) for x in grid)
        b = tuple(int(x) for x in block)
    except TypeError:
        raise DispatchError(f"grid and block are tuples of 1-3 ints, got {grid!r} and {block!r}") from None
    if not 1 <= len(g) <= 3 or len(b) != len(g):
        raise DispatchError(f"grid {g} and block {b} need the same number (1-3) of dimensions")
    g = g + (1,) * (3 - len(g))
    b = b + (1,) * (3 - len(b))
    if any(x <= 0 for x in g + b):
        raise DispatchError(f"grid {g} and block {b} must be positive")
    size = b[0] * b[1] * b[2]
    limit = min(config.max_workgroup_size, info.max_flat_workgroup_size or config.max_workgroup_size)
    if size > limit:
        raise DispatchError(f"workgroup of {size} work-items exceeds the limit of {limit} for kernel {info.name}")
    if info.reqd_workgroup_size and tuple(info.reqd_workgroup_size) != b:
        raise DispatchError(f"kernel {info.name} requires workgroup size {tuple(info.reqd_workgroup_size)}, got {b}")
    return g, b
