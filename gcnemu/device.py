"""The emulated device: the GPU (of a preset configuration, gcnemu/hardware.py) and its buffers.

    gpu = gcnemu.GPU()                        # preset "xbox-one"; GPU("hd7970"), GPU("r9-290x")
    prog = gcnemu.load("k.hsaco")             # path or bytes of a code object; or a .s file
    x = gpu.to_device(np.arange(n, dtype=np.float32))
    y = gpu.empty(n * 4)
    rep = gpu.dispatch(prog.kernel("saxpy"), grid=(n,), block=(256,),
                       args=[x, y, np.float32(2.0), np.uint32(n)])
    out = y.to_numpy(np.float32)

A dispatch places workgroups on the emulated CUs in order and runs their waves in the numba
engine (gcnemu/launch.py); waves of a workgroup synchronise at s_barrier. Results are
deterministic.
"""
from __future__ import annotations

import dataclasses
import operator
import time
import uuid
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .errors import DispatchError, GcnEmuError, LoaderError, MemoryFault
from .exec.jit import CompileWatch
from .exec.layout import PRIVATE_APERTURE_HI, SHARED_APERTURE_HI
from .hardware import PRESETS, GPUConfig
from .isa.table import gen_of
from .mem.space import Memory
from .kernel import Kernel
from .launch import Launch, LaunchCache, compile_plan, launch_shape
from .report import DispatchReport
from .workers import HelperPool

def unmapped_access_error(rep: DispatchReport, hint: str) -> MemoryFault:
    """The MemoryFault of a dispatch whose report has faults: the first four, the count, and
    ``hint`` on how to get the report instead (strict=False; the CLI names its flag)."""
    total = len(rep.faults) + rep.dropped.get("faults", 0)
    shown = "; ".join(rep.faults[:4])
    more = f" (and {total - 4} more)" if total > 4 else ""
    return MemoryFault(f"kernel {rep.kernel}: {total} access(es) to unmapped memory or past "
                       f"the LDS allocation: {shown}{more}. Loads returned 0 and stores were "
                       f"dropped; {hint}")


class Buffer:
    """A device allocation. ``address`` is its GPU virtual address; ``dtype`` and ``shape``
    are those of the array it was made from (``gpu.to_device``) or for (``gpu.empty``), what
    ``to_numpy()`` returns."""

    def __init__(self, gpu: "GPU", address: int, nbytes: int, name: str,
                 dtype=np.uint8, shape: tuple | None = None):
        self.gpu = gpu
        self.address = address
        self.nbytes = nbytes
        self.name = name
        self.dtype = np.dtype(dtype)
        self.shape = (nbytes // self.dtype.itemsize,) if shape is None else tuple(shape)
        self.freed = False

    def _check_live(self) -> None:
        if self.freed:
            raise MemoryFault(f"buffer '{self.name}' (0x{self.address:x}) was freed")

    def to_numpy(self, dtype=None, count: int | None = None) -> np.ndarray:
        """Copy the buffer's contents out as a numpy array: by default of the buffer's own
        dtype and shape; with ``dtype``, a flat array of that type (``count`` items from the
        start; by default all of them: the buffer's size must then be a multiple of the item
        size)."""
        self._check_live()
        if dtype is None and count is None:
            return self.to_numpy(self.dtype).reshape(self.shape)
        dt = self.dtype if dtype is None else np.dtype(dtype)
        if dt.itemsize == 0 or dt.kind == "O":
            raise GcnEmuError(f"cannot read buffer '{self.name}' as {dt}")
        most = self.nbytes // dt.itemsize
        if count is None:
            if self.nbytes % dt.itemsize:
                raise GcnEmuError(f"buffer '{self.name}' has {self.nbytes} bytes, not a whole "
                                  f"number of {dt} items ({dt.itemsize} bytes each): pass count")
            n = most
        else:
            if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or \
                    not 0 <= count <= most:
                raise GcnEmuError(f"buffer '{self.name}' holds {most} item(s) of {dt}; count "
                                  f"must be 0..{most}, not {count!r}")
            n = int(count)
        return self.gpu.memory.read_array(self.address, dt, n)

    def write(self, array) -> None:
        """Overwrite the start of the buffer with ``array``'s bytes."""
        self._check_live()
        a = _host_array(array, f"buffer '{self.name}'.write")
        if a.nbytes > self.nbytes:
            raise GcnEmuError(f"writing {a.nbytes} bytes into buffer '{self.name}' of {self.nbytes} bytes")
        self.gpu.memory.write(self.address, a)

    def free(self) -> None:
        """Unmap the buffer: its memory goes back to the GPU; using the buffer afterwards (to
        read or write it, or in a dispatch) is an error."""
        self.gpu.free(self)

    def __int__(self) -> int:
        return self.address

    def __repr__(self) -> str:
        shape = "x".join(map(str, self.shape))
        return f"Buffer({self.name!r}, 0x{self.address:x}, {self.nbytes} bytes, {self.dtype}[{shape}])"


@dataclass(frozen=True)
class Local:
    """A ``__local`` pointer argument: ``nbytes`` of LDS allocated per workgroup at dispatch."""

    nbytes: int



class GPU:
    """An emulated GCN GPU with its own memory: gfx7 (GCN 1.1) by default, gfx6 (GCN 1.0) for
    the presets whose GPUConfig.isa says so ("tahiti", "hd7970")."""

    def __init__(self, preset: str | GPUConfig = "xbox-one", *, step_limit: int = 50_000_000,
                 waves_per_batch: int | None = None, timing: bool = False, timing_config=None,
                 time_limit: float | None = None, coherent_caches: bool = False, **overrides):
        """``timing=True`` adds the cycle model (gcnemu/timing): every dispatch also returns
        ``report.cycles``, timing counters, per-wave start/end cycles and per-instruction
        stall cycles (see DispatchReport); the functional results are the same bits as
        without it. ``timing_config`` (a gcnemu.timing.TimingConfig) overrides the cache and
        latency parameters; in timing mode ``gpu.caches`` (gcnemu.timing.caches.GPUCaches)
        keeps the caches' contents from one dispatch to the next and flushes or invalidates
        them on request.

        Keyword overrides of the preset (see OVERRIDES): ``num_cus``, ``clock_mhz``,
        ``dpfactor`` (any mode), ``l1_bytes`` (per CU), ``l2_bytes`` (the whole L2, split
        among its channels), ``dram_gbps``, ``esram_gbps``, ``icache_bytes`` and
        ``icache_ways`` (each CU group's instruction cache), ``kcache_cus`` (the CUs that
        share one SQC: its K$ and I$) (timing mode), e.g. ``GPU("xbox-one",
        timing=True, num_cus=4, dram_gbps=34)``. An unknown keyword is a GcnEmuError that
        lists the known ones.

        ``waves_per_batch``: the most waves a batch of workgroups (run in one set of state
        arrays, workgroup after workgroup) holds; None: 128 where several workers share a
        launch, else up to 512 as long as their VGPRs take at most 8 MiB
        (gcnemu/launch.py WAVES_PER_BATCH, ONE_WORKER_WAVES_PER_BATCH).

        Runaway kernels: a wave that executes ``step_limit`` instructions fails with an
        ExecutionError; a dispatch that runs longer than ``time_limit`` seconds (None: no
        limit) stops with one, whatever its loops contain (it is checked every ~0.1 s, as is
        Ctrl-C).

        ``coherent_caches=True``: coherency-accurate mode (gcnemu/coherency.py): memory
        accesses go through per-CU L1s, K$s and a write-back L2 that hold data, as the seed
        caches-and-coherency.txt describes them, so that a missing barrier or cache operation
        in a queue (``gpu.queue()``, gcnemu/queue.py) shows as stale data every time, with
        ``report.findings`` saying why; host reads see memory until an L2 write-back.
        ``gpu.dispatch`` keeps the synchronisation a runtime puts around a dispatch (all
        caches invalidated before, the L2 written back after): the same bits as without it.
        Functional only (not with timing=True)."""
        self.step_limit = _count("step_limit", step_limit)
        self.waves_per_batch = None if waves_per_batch is None else \
            _count("waves_per_batch", waves_per_batch)
        self.time_limit = _seconds("time_limit", time_limit)
        #: called as ``on_compile(name, n, m)`` when a dispatch starts compiling a function that
        #: is not in numba's disk cache (the first run after an install or an edit): the n-th
        #: of about m (exec.jit.CompileWatch); None: silent
        self.on_compile = None
        #: called as on_progress(batches done, batches in all) after each batch of workgroups
        #: of a dispatch (from the thread that collects the batches), or None
        self.on_progress = None
        #: timing mode: also read the traces back into report.trace_summary (executions per
        #: instruction, lines per wave: gcnemu.timing.rows) for the profiling tools; off by
        #: default, it costs ~5% of a timing-mode dispatch
        self.summarize_traces = False
        if isinstance(preset, GPUConfig):
            self.config = preset
        else:
            if preset not in PRESETS:
                raise GcnEmuError(f"unknown GPU preset {preset!r}; presets: {sorted(PRESETS)}")
            self.config = PRESETS[preset]
        try:
            self._gen = gen_of(self.config.isa)
        except ValueError as e:
            raise GcnEmuError(f"GPUConfig {self.config.name!r}: isa: {e}") from None


        unknown = sorted(set(overrides) - set(OVERRIDES))
        if unknown:
            raise GcnEmuError(f"GPU() got unknown keyword argument(s) {', '.join(unknown)}; the "
                              f"preset overrides are {', '.join(OVERRIDES)}")
        self.memory = Memory()
        #: the buffers placed in ESRAM: address -> bytes
        self.esram_buffers = {}
        if timing_config is not None and not timing:
            raise GcnEmuError("timing_config is given but timing is off: use GPU(timing=True, ...)")
        timing_only = sorted(k for k in overrides if OVERRIDES[k][0] == "timing")
        if timing_only and not timing:
            raise GcnEmuError(f"GPU({', '.join(k + '=...' for k in timing_only)}) sets timing "
                              f"parameters but timing is off: use GPU(timing=True, ...)")
        gpu_fields = {OVERRIDES[k][1]: _override(k, v) for k, v in overrides.items()
                      if OVERRIDES[k][0] == "gpu"}
        if gpu_fields:
            self.config = dataclasses.replace(self.config, **gpu_fields)
        self.timing = bool(timing)
        if self.timing:
            from .timing.config import TimingConfig
            tc = timing_config if timing_config is not None else TimingConfig()
            if not isinstance(tc, TimingConfig):
                raise GcnEmuError(f"timing_config must be a gcnemu.timing.TimingConfig, not "
                                  f"{type(tc).__name__}")
            fields = {}
            for k, v in overrides.items():
                if OVERRIDES[k][0] != "timing":
                    continue
                v = _override(k, v)
                if k == "l2_bytes":
                    if v % tc.l2_channels:
                        raise GcnEmuError(f"l2_bytes={v} is not a multiple of the L2's "
                                          f"{tc.l2_channels} channels")
                    v //= tc.l2_channels
                fields[OVERRIDES[k][1]] = v
            try:
                self.timing_config = dataclasses.replace(tc, **fields)
            except ValueError as e:
                raise GcnEmuError(f"GPU(): {e}") from None
            from .timing.caches import GPUCaches
            self._caches = GPUCaches(self.config.compute_units, self.timing_config)
        else:
            self.timing_config = None
            self._caches = None
        if coherent_caches and self.timing:
            raise GcnEmuError("coherent_caches=True is a functional mode; the timing mode models "
                              "the caches' tags (gpu.caches): use one or the other")
        #: coherency-accurate mode (see __init__); its caches: gcnemu.coherency.CoherentCaches
        self.coherent_caches = bool(coherent_caches)
        self._coherent = None
        if self.coherent_caches:
            self.coherent           # made now: a configuration it cannot model fails here
        #: set by gcnemu.queue.Queue while its dispatch packet runs (no runtime synchronisation)
        self._packet = None
        self.gds = np.zeros(self.config.gds_bytes, np.uint8)
        #: the ABI's dispatch_id of the next dispatch (dispatches are counted from 0)
        self.dispatch_id = 0
        self._images = {}     # id(code object) -> (code object, GPU address of its image)
        self._launches = LaunchCache(self.memory)
        #: the threads that run batches besides the calling one (dispatch(..., workers > 1))
        self.helper_threads = HelperPool()
        #: the amd_queue_t the ABI's queue_ptr points at: the flat apertures' bases
        self.queue_address = self.memory.allocate(256, name="amd_queue_t")
        q = np.zeros(64, np.uint32)
        q[0x40 // 4] = SHARED_APERTURE_HI
        q[0x44 // 4] = PRIVATE_APERTURE_HI
        self.memory.write(self.queue_address, q)

    @property
    def caches(self):
        """Timing mode: the GPU's caches (gcnemu.timing.caches.GPUCaches), kept from one
        dispatch to the next: ``gpu.caches.invalidate("l1")``, ``.writeback("l2")``,
        ``.flush("all")``, ``.valid_lines("l2")``, ..."""
        if self._caches is None:
            raise GcnEmuError("the caches are modelled in timing mode only: GPU(timing=True)")
        return self._caches

    @property
    def coherent(self):
        """Coherency-accurate mode: the caches' data (gcnemu.coherency.CoherentCaches)."""
        if not self.coherent_caches:
            raise GcnEmuError("the caches hold data in coherency-accurate mode only: "
                              "GPU(coherent_caches=True)")
        if self._coherent is None:
            from .coherency import CoherentCaches
            self._coherent = CoherentCaches(self.config.compute_units)
        return self._coherent

    def queue(self):
        """A command queue of this GPU (gcnemu.queue.Queue): dispatches, barriers, cache
        operations, end-of-pipe events and waits on memory, executed in order by submit()."""
        from .queue import Queue
        return Queue(self)

    # --- buffers ---------------------------------------------------------------------------
    def to_device(self, array, name: str | None = None, memory: str = "dram") -> Buffer:
        """Copy a numpy array (of numbers or records, not empty) into a new device buffer;
        ``memory="esram"`` places it in the GPU's ESRAM (see ``empty``)."""
        a = _host_array(array, "to_device")
        if a.nbytes == 0:
            raise GcnEmuError("to_device of an empty array: a buffer needs at least one byte "
                              "(gpu.empty(nbytes) makes one of zeros)")
        name = name or f"buffer{len(self.memory.alloc_names)}"
        addr = self._allocate(a.nbytes, name, memory)
        self.memory.write(addr, a)
        return Buffer(self, addr, a.nbytes, name, a.dtype, a.shape)

    def _allocate(self, nbytes: int, name: str, memory: str) -> int:
        """Map a buffer of ``nbytes`` in DRAM or the ESRAM (which only the timing model tells
        apart: the functional memory is one address space)."""
        if memory == "dram":
            return self.memory.allocate(nbytes, name=name)
        if memory != "esram":
            raise GcnEmuError(f"memory is 'dram' or 'esram', not {memory!r}")
        cap = self.config.esram_bytes
        if cap == 0:
            raise GcnEmuError(f"the {self.config.name} GPU has no ESRAM (the xbox-one preset "
                              f"has 32 MB)")
        used = sum(self.esram_buffers.values())
        if used + nbytes > cap:
            raise GcnEmuError(f"ESRAM is full: buffer '{name}' needs {nbytes} bytes, {used} of "
                              f"the {cap} bytes ({cap >> 20} MB) are in use by "
                              f"{len(self.esram_buffers)} buffer(s); free some or use DRAM")
        addr = self.memory.allocate(nbytes, name=name)
        self.esram_buffers[addr] = nbytes
        return addr

    def free(self, buffer: Buffer) -> None:
        """Unmap ``buffer`` (see Buffer.free); freeing it twice is a MemoryFault."""
        if not isinstance(buffer, Buffer) or buffer.gpu is not self:
            raise GcnEmuError(f"gpu.free takes a Buffer of this GPU, not {buffer!r}")
        buffer._check_live()
        self.memory.free(buffer.address)
        self.esram_buffers.pop(buffer.address, None)
        buffer.freed = True

    def empty(self, shape, dtype=np.uint8, name: str | None = None, memory: str = "dram") -> Buffer:
        """A new zero-filled device buffer for an array of ``shape`` (an int or a tuple) and
        ``dtype``, as numpy.zeros makes it, except that the default dtype is uint8:
        ``gpu.empty(n)`` is a buffer of n bytes.

        ``memory="esram"`` places it in the GPU's embedded SRAM (32 MB on the xbox-one
        preset): the same bits, but in timing mode its L2 misses go to the ESRAM's bandwidth
        and latency (TimingConfig.esram_gbps, esram_latency) instead of DRAM's. More than the
        ESRAM holds is a GcnEmuError; freeing a buffer gives its room back."""
        dims = (shape,) if isinstance(shape, (int, np.integer)) else shape
        try:
            dims = tuple(operator.index(d) for d in dims)
            dt = np.dtype(dtype)
        except TypeError:
            raise GcnEmuError(f"gpu.empty takes a shape of positive integers and a numpy dtype, "
                              f"got {shape!r} and {dtype!r}") from None
        if isinstance(shape, bool) or not dims or any(d <= 0 for d in dims) or \
                dt.itemsize == 0 or dt.kind == "O":
            raise GcnEmuError(f"gpu.empty needs a positive size and a numeric dtype, got shape "
                              f"{shape!r}, dtype {dt}")
        nbytes = int(np.prod(dims, dtype=object)) * dt.itemsize
        name = name or f"buffer{len(self.memory.alloc_names)}"
        return Buffer(self, self._allocate(nbytes, name, memory), nbytes, name, dt, dims)

    # --- dispatch --------------------------------------------------------------------------
    def dispatch(self, kernel: Kernel, grid: Sequence[int], block: Sequence[int], args: Sequence = (),
                 *, strict: bool = True, workers: int = 1, time_limit="gpu", offset=None,
                 implicit_args: str = "auto", client=None, shards: int | None = None,
                 workgroups: range | None = None, sanitize: bool = False) -> DispatchReport:
        """Run ``kernel`` over ``grid`` work-items in workgroups of ``block``.

        ``args`` are the kernel's explicit arguments in order: Buffers (or addresses) for
        pointers, numpy scalars / Python numbers for by-value arguments, ``Local(nbytes)`` for
        ``__local`` pointers. With ``strict`` (default), accesses to unmapped memory raise
        MemoryFault after the dispatch (the report's faults list them either way; the
        exception's ``report`` is the report); a wave that fails raises ExecutionError naming
        kernel, workgroup, wave, PC and lane.

        ``workers`` > 1 runs batches of workgroups on that many threads, the calling one and
        helpers the GPU keeps (the engine releases the GIL), with bit-identical results.
        Kernels with order-dependent global atomics or GDS run on one worker, and so does a
        launch of one batch (at most ``waves_per_batch`` waves); ``report.serial_reason``
        says why.

        ``time_limit``: seconds (None: none) after which the dispatch stops with an
        ExecutionError; by default the GPU's. It holds for the dispatch as a whole, also in
        coherency-accurate mode, which runs a dispatch in parts.

        ``offset``: the global work offset (OpenCL's global_work_offset), one entry per
        dimension of ``grid``: get_global_id adds it, get_global_offset returns it.
        ``implicit_args`` says how the hidden (implicit) kernel arguments are laid out:
        "rocm" as the code object's metadata describes them (hidden_global_offset_x/y/z,
        hidden_grid_dims, ...), "libclc" as libclc-14's built-ins read them (dword 0 =
        work_dim, dwords 1-3 = global offsets, at the first hidden argument), "auto" (the
        default): "libclc" for kernels gcnemu compiled from OpenCL C (gcnemu.load of a .cl
        file, gcnemu.cl), "rocm" for the others. The AQL packet's setup dimensions and
        hidden_grid_dims say how many dimensions ``grid`` has.

        ``client`` (a dask.distributed Client) runs the workgroups in ``shards`` shards on
        the cluster's workers (default: two per worker thread) and merges the bytes each
        wrote into this GPU's memory: the same bits as a local dispatch, or a DispatchError
        naming the buffer and offset of a byte two shards wrote with different values (a
        race). Kernels that workers=2 would run on one worker, timing mode and kernels not
        loaded by gcnemu.load run here instead, and ``report.serial_reason`` says why;
        ``report.shards`` counts the shards (gcnemu/shards.py).

        ``workgroups``: run only these workgroups (a range of linear workgroup indices, x
        fastest): what one shard of a sharded dispatch runs; not in timing mode.

        ``sanitize``: look for hazards the hardware would only show as rare corruption
        (gcnemu/sanitize: registers read before the s_waitcnt that covers their load, store
        data overwritten early, LDS and global races, uninitialised registers and LDS,
        out-of-bounds and misaligned accesses): ``report.findings`` lists them, each once
        with its count. The results are the same bits; not in timing mode, not sharded. In
        coherency-accurate mode the report has the sanitizer's findings and the mode's
        (stale-l1, missing-sync) together (gcnemu/coherency.py); without it, no stale-l1
        or missing-sync (they need the caches).
        """
        workers = _count("workers", workers)
        time_limit = self.time_limit if isinstance(time_limit, str) and time_limit == "gpu" \
            else _seconds("time_limit", time_limit)
        if not isinstance(kernel, Kernel):
            raise DispatchError(f"dispatch takes a Kernel (from gcnemu.load(...).kernel(name)), "
                                f"not {type(kernel).__name__}")
        # the code decoded for this GPU's generation (a gfx6 GPU: GCN 1.0 opcodes, semantics)
        try:
            kernel = kernel.for_gen(self._gen)
        except LoaderError as e:
            hint = " (build GCN 1.0 code for it: clang -mcpu=gfx600, or gcnemu.load(..., " \
                   "options=['-mcpu=gfx600']) for OpenCL C)" if self.config.isa == "gfx6" else ""
            raise DispatchError(f"kernel {kernel.name} cannot run on {self.config.name} "
                                f"({self.config.isa}): {e}{hint}") from None
        info = kernel.info
        try:
            grid, block = tuple(grid), tuple(block)
        except TypeError:
            pass                       # launch_shape says what is wrong
        ndim = len(grid) if isinstance(grid, tuple) and 1 <= len(grid) <= 3 else 3
        grid, block = launch_shape(grid, block, info, self.config)
        if offset is None:
            offset = (0, 0, 0)
        else:
            try:
                offset = tuple(operator.index(o) for o in offset)
            except TypeError:
                raise DispatchError(f"offset is a tuple of integers, one per grid dimension, "
                                    f"not {offset!r}") from None
            if len(offset) != ndim or any(o < 0 or o > 0xFFFFFFFF for o in offset):
                raise DispatchError(f"offset {offset} needs {ndim} integers in 0..2^32-1, one "
                                    f"per dimension of grid {grid[:ndim]}")
            offset = offset + (0,) * (3 - ndim)
        if implicit_args == "auto":
            implicit_args = "libclc" if getattr(kernel, "libclc", False) else "rocm"
        elif implicit_args not in ("rocm", "libclc"):
            raise DispatchError(f"implicit_args is 'auto', 'rocm' or 'libclc', not {implicit_args!r}")
        if sanitize and self.timing:
            raise DispatchError("sanitize=True runs functional dispatches: use a GPU without "
                                "timing (the sanitizer's trace replaces the timing model's)")
        t0 = time.perf_counter()

        # dynamic LDS for __local arguments goes after the static allocation
        lds_size = info.group_segment_fixed_size
        arg_values = []
        lds_shares = []     # (argument, first byte, bytes) of each Local, for fault messages
        params = info.explicit_args if info.has_metadata else []   # raw assembly: no types
        for i, a in enumerate(args):
            label = f"argument {i}"
            if i < len(params):     # a wrong count is the kernarg builder's to report
                p = params[i]
                label += " (" + (f"{p.name}: " if p.name else "") + f"{p.type_name or p.value_kind})"
                what = f"kernel {info.name} {label}"
                if p.value_kind == "dynamic_shared_pointer" and not isinstance(a, Local):
                    raise DispatchError(f"{what} is a __local pointer: pass gcnemu.Local(nbytes), "
                                        f"the LDS to give it per workgroup, not "
                                        f"{type(a).__name__} {a!r}")
                if isinstance(a, Local) and p.value_kind != "dynamic_shared_pointer":
                    raise DispatchError(f"{what} is not a __local pointer; gcnemu.Local is only "
                                        f"for those")
            if isinstance(a, Buffer):
                if a.gpu is not self:
                    raise DispatchError(f"kernel {info.name} argument {i}: buffer '{a.name}' "
                                        f"belongs to another GPU")
                if a.freed:
                    raise DispatchError(f"kernel {info.name} argument {i}: buffer '{a.name}' "
                                        f"was freed")
            if isinstance(a, Local):
                lds_size = (lds_size + 15) & ~15
                lds_shares.append((label, lds_size, int(a.nbytes)))
                arg_values.append(lds_size)
                lds_size += int(a.nbytes)
            else:
                arg_values.append(a)
        cal = getattr(info, "cal", None)
        if cal is not None:
            lds_size = max(lds_size, cal.lds_used)
        if lds_size > self.config.lds_per_cu:
            raise DispatchError(f"kernel {info.name} needs {lds_size} bytes of LDS per workgroup; "
                                f"a CU has {self.config.lds_per_cu}")
        ngroups = 1
        for g, b in zip(grid, block):
            ngroups *= -(-g // b)
        if workgroups is not None:
            if not isinstance(workgroups, range) or workgroups.step != 1 or \
                    not 0 <= workgroups.start < workgroups.stop <= ngroups:
                raise DispatchError(f"workgroups is a range of workgroup indices in 0..{ngroups - 1} "
                                    f"(step 1), not {workgroups!r}")
            if self.timing:
                raise DispatchError("timing mode runs whole dispatches: workgroups= is for "
                                    "functional dispatches")
        if client is not None:
            reason = self._shard_refusal(kernel, ngroups, workgroups) or \
                ("the sanitizer runs here (it needs every wave's accesses)" if sanitize else "")
            if not reason:
                return self._dispatch_sharded(client, shards, kernel, grid, block, ndim, ngroups,
                                              args, offset, implicit_args, time_limit, strict, t0)
        # everything that does not depend on the argument values is kept per launch shape
        # (see launch.Launch). The key holds the kernel's info and program as they are now
        # (the launch keeps both alive, so their ids stay theirs)
        key = (kernel, id(info), id(kernel.program), grid, block, lds_size, max(1, int(workers)),
               ndim, offset, implicit_args)
        timing = self.timing    # the plan's closure holds no reference to the GPU
        with CompileWatch(self.on_compile, lambda: compile_plan(timing)) as compiling:
            launch = self._launches.take(key) or Launch(self, kernel, grid, block, lds_size,
                                                        workers, ndim, offset, implicit_args)
            launch.ctx["lds_shares"] = lds_shares
            try:
                launch.write_segments(self.memory, launch.kernarg.build(arg_values))
                rep = self._run(launch, workers, time_limit, workgroups, sanitize)
            finally:
                self._launches.put(key, launch)
        if client is not None:
            rep.serial_reason = f"not sharded: {reason}"
        rep.compile_seconds = compiling.seconds
        rep.wall_seconds = time.perf_counter() - t0 - compiling.seconds
        self.dispatch_id += 1
        if strict and rep.faults:
            err = unmapped_access_error(rep, "dispatch(..., strict=False) returns the report "
                                             "instead.")
            err.report = rep       # with sanitize=True, its findings
            raise err
        return rep

    def _run(self, launch, workers, time_limit, workgroups, sanitize=False) -> DispatchReport:
        """Run a launch: directly, or in coherency-accurate mode through the caches, inside a
        queue's packet as it is, else with the runtime's synchronisation around it: every
        cache invalidated before (the L2 written back first), the L2 written back after."""
        if not self.coherent_caches:
            return launch.run(self, workers, time_limit, workgroups, sanitize)
        caches, packet = self.coherent, self._packet
        label = f"{launch.info.name} (dispatch {self.dispatch_id})"
        if packet is not None:
            rep, packet.written = caches.run_dispatch(self, launch, workers, time_limit,
                                                      workgroups, packet.label or label,
                                                      packet.pending, sanitize=sanitize)
            return rep
        caches.invalidate("all", self.memory)
        rep, _ = caches.run_dispatch(self, launch, workers, time_limit, workgroups, label,
                                     release=True, sanitize=sanitize)
        return rep

    # --- sharded dispatch (gcnemu/shards.py) ------------------------------------------------
    def _shard_refusal(self, kernel: Kernel, ngroups: int, workgroups) -> str:
        """Why a dispatch with client= runs here rather than in shards ('' if it need not)."""
        if self.timing:
            return ("timing mode is not sharded (the cycle model replays all the waves of a "
                    "dispatch together, on one GPU)")
        if workgroups is not None:
            return "workgroups= picks the workgroups of one shard"
        if self.coherent_caches:
            return "coherency-accurate mode keeps the caches' data in this process"
        if kernel.source is None:
            return "the kernel was not made by gcnemu.load: its code cannot be sent to workers"
        why, _gds = kernel.code_facts()
        if why:
            return f"the kernel {why}"
        if ngroups < 2:
            return "one workgroup"
        return ""

    def _dispatch_sharded(self, client, shards, kernel, grid, block, ndim, ngroups, args,
                          offset, implicit_args, time_limit, strict, t0) -> DispatchReport:
        """dispatch(..., client=): the workgroups in shards on the cluster (see dispatch)."""
        from .kernel import global_atomic_class
        from .shards import ShardJob, merge_reports, merge_writes, shard_ranges
        if shards is None:
            shards = 2 * max(1, sum(client.nthreads().values()))
        shards = _count("shards", shards)
        # the code image is mapped here first, so that the shards find it where it is here
        image = self.code_image_address(kernel)
        snap = self.memory.snapshot()
        job = ShardJob(self.config, self.step_limit, self.waves_per_batch, time_limit,
                       self.queue_address, self.gds.copy(), self.dispatch_id, kernel.source,
                       kernel.name, image, grid[:ndim], block[:ndim],
                       [a.address if isinstance(a, Buffer) else a for a in args],
                       offset[:ndim], implicit_args, snap)
        # the memory goes to each worker once, not with every shard
        [job_future] = client.scatter([job], broadcast=True, hash=False)
        ranges = shard_ranges(ngroups, shards)
        tag = uuid.uuid4().hex[:12]
        futures = [client.submit(run_shard, job_future, r.start, r.stop, pure=False,
                                 key=f"gcnemu-shard-{kernel.name}-{tag}-{i}")
                   for i, r in enumerate(ranges)]
        results = client.gather(futures)
        merge_writes(self.memory, snap, [w for w, _ in results],
                     global_atomic_class(kernel.program))
        rep = merge_reports([r for _, r in results], grid, block, ngroups)
        rep.wall_seconds = time.perf_counter() - t0
        self.dispatch_id += 1
        if strict and rep.faults:
            raise unmapped_access_error(rep, "dispatch(..., strict=False) returns the report "
                                             "instead.")
        return rep

    def code_image_address(self, kernel) -> int:
        """Where the kernel's code object image (code and read-only data) lies in GPU memory,
        mapped on first use, so that s_getpc-relative loads of constant tables find their data
        (0 for a kernel without a code object)."""
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


def run_shard(job, first: int, stop: int):
    """Workgroups first..stop-1 of a sharded dispatch (on a Dask worker): a GPU of the job's
    configuration whose memory is the client's snapshot runs them; returns (ShardWrites: the
    bytes they changed, their DispatchReport). Errors of the dispatch (ExecutionError, ...)
    propagate to the client."""
    from .kernel import load_cached
    from .shards import written_bytes
    gpu = GPU(job.config, step_limit=job.step_limit, waves_per_batch=job.waves_per_batch)
    gpu.memory = Memory.from_snapshot(job.memory)
    gpu._launches = LaunchCache(gpu.memory)
    gpu.queue_address = job.queue_address
    gpu.gds[:] = job.gds
    gpu.dispatch_id = job.dispatch_id
    kernel = load_cached(job.source).kernel(job.kernel)
    if job.image_address:
        gpu._images[id(kernel.code_object)] = (kernel.code_object, job.image_address)
    rep = gpu.dispatch(kernel, job.grid, job.block, job.args, strict=False,
                       time_limit=job.time_limit, offset=job.offset,
                       implicit_args=job.implicit_args, workgroups=range(first, stop))
    return written_bytes(job.memory, gpu.memory), rep


#: GPU(**overrides): keyword -> (what it overrides: the preset "gpu" (GPUConfig) or the
#: "timing" config (TimingConfig), the field, the kind of value)
OVERRIDES = {
    "num_cus": ("gpu", "compute_units", int),
    "clock_mhz": ("gpu", "clock_mhz", float),
    "dpfactor": ("gpu", "dpfactor", int),
    "l1_bytes": ("timing", "l1_bytes", int),
    "l2_bytes": ("timing", "l2_channel_bytes", int),
    "dram_gbps": ("timing", "dram_gbps", float),
    "esram_gbps": ("timing", "esram_gbps", float),
    "icache_bytes": ("timing", "icache_bytes", int),
    "icache_ways": ("timing", "icache_ways", int),
    "kcache_cus": ("timing", "kcache_cus", int),
}


def _override(name: str, v):
    """A preset override's value, checked: a positive number (an integer where it must be;
    dpfactor one of CLRX's 1, 2, 4, 8)."""
    kind = OVERRIDES[name][2]
    ok = not isinstance(v, bool) and isinstance(v, (int, np.integer) if kind is int else
                                                (int, float, np.integer, np.floating)) and v > 0
    if name == "dpfactor" and ok:
        ok = v in (1, 2, 4, 8)
    if not ok:
        need = "1, 2, 4 or 8 (CLRX's DPFACTOR)" if name == "dpfactor" else \
            f"a positive {'integer' if kind is int else 'number'}"
        raise GcnEmuError(f"GPU({name}={v!r}): {name} must be {need}")
    return kind(v)


def _count(what: str, v) -> int:
    """A positive integer argument (not a bool, not a float), or a DispatchError naming it."""
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
        raise DispatchError(f"{what} must be a positive integer, not {v!r}")
    return int(v)


def _seconds(what: str, v) -> float | None:
    """None or a positive number of seconds, or a DispatchError naming the argument."""
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or \
            not v > 0 or v != v:
        raise DispatchError(f"{what} must be a positive number of seconds or None, not {v!r}")
    return float(v)


def _host_array(array, what: str) -> np.ndarray:
    """``array`` as a C-contiguous numpy array of numbers, booleans or records (a copy when it
    is not contiguous); strings, objects, dates are a GcnEmuError naming ``what``."""
    a = np.ascontiguousarray(array)
    if a.dtype.kind in "OUSMm":
        raise GcnEmuError(f"{what} takes an array of numbers, booleans or records, not "
                          f"{type(array).__name__} of dtype {a.dtype}")
    return a
