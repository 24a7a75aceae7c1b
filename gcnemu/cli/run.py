"""`gcnemu run`: dispatch a kernel from the command line, with .npy files as buffers.

    gcnemu run k.hsaco --kernel saxpy --grid 1024 --block 256 \\
        --arg inout:y.npy --arg in:x.npy --arg f32:2.0 --arg u32:1024
    gcnemu run k.cl --build-option=-DN=4 ...   # OpenCL C, compiled with clang-14 (cached)
    gcnemu run Sample_Kernels.bin --kernel k ... # an AMD Catalyst (CAL ELF) binary: buffers are
                                    # UAVs, scalars go to constant buffer 1, local:N works
    gcnemu run --example            # the built-in saxpy example, checked against numpy
    gcnemu run ... --timing         # also print simulated cycles and timing counters
    gcnemu run ... --sanitize       # look for hazards (unwaited loads, races, uninitialised
                                    # reads, out-of-bounds, misaligned); exit status 1 if any
    gcnemu run ... --coherent       # coherency-accurate mode (GPU(coherent_caches=True)):
                                    # memory through the L1s, K$s and L2; prints its findings
                                    # (stale reads); exit status 1 if any. Combines with
                                    # --sanitize, not with --timing or --trace

Argument forms (in kernel argument order):
  in:PATH.npy          input buffer
  inout:PATH.npy       copied in; the final contents are written back to PATH
  out:PATH.npy:DTYPE:SHAPE  output buffer of SHAPE (N, NxM or NxMxK) elements of DTYPE
                       (u32, f32, ... or a numpy name), zero-filled, written to PATH
  local:NBYTES         a __local pointer argument
  i8|i16|i32|i64|u8|u16|u32|u64|f16|f32|f64:VALUE   a by-value scalar
  u32:V0,V1,...        a by-value vector (uint2, float4, ...: as many values as it has)
"""
from __future__ import annotations

import argparse
import sys
from importlib import resources

import numpy as np

from ..dtypes import SCALAR_TYPES, element_dtype
from ..errors import GcnEmuError



def _dims(text: str, most: int = 3) -> tuple:
    try:
        dims = tuple(int(x) for x in text.replace("x", ",").split(","))
    except ValueError:
        raise GcnEmuError(f"bad size {text!r}: give N, or NxM, or NxMxK") from None
    if not 1 <= len(dims) <= most or min(dims) <= 0:
        raise GcnEmuError(f"bad size {text!r}: 1 to {most} positive dimensions")
    return dims


def _dtype(text: str, spec: str) -> np.dtype:
    dt = element_dtype(text)
    if dt is None:
        raise GcnEmuError(f"--arg {spec!r}: unknown dtype {text!r}; use one of "
                          f"{', '.join(SCALAR_TYPES)} or a numpy name such as float32")
    return dt


def parse_args(specs, gpu):
    """Turn --arg specs into dispatch arguments; returns (args, [(buffer, path)]): the buffers
    to write back, each keeping the dtype and shape of its array."""
    import gcnemu

    args, writeback = [], []
    for i, spec in enumerate(specs):
        kind, _, rest = spec.partition(":")
        if not rest:
            raise GcnEmuError(f"--arg {spec!r}: expected KIND:VALUE (see gcnemu run --help)")
        if kind in ("in", "inout"):
            try:
                arr = np.load(rest)
            except (OSError, ValueError) as e:
                raise GcnEmuError(f"--arg {spec!r}: cannot read {rest}: {e}") from None
            buf = gpu.to_device(arr, name=rest)
            args.append(buf)
            if kind == "inout":
                writeback.append((buf, rest))
        elif kind == "out":
            parts = rest.split(":")
            if len(parts) != 3:
                raise GcnEmuError(f"--arg {spec!r}: expected out:PATH:DTYPE:SHAPE, e.g. "
                                  f"out:img.npy:u32:256x192")
            path, dt, shape = parts
            buf = gpu.empty(_dims(shape, most=8), _dtype(dt, spec), name=path)
            args.append(buf)
            writeback.append((buf, path))
        elif kind == "local":
            args.append(gcnemu.Local(int(rest, 0)))
        elif kind in SCALAR_TYPES:
            t = SCALAR_TYPES[kind]
            try:
                vals = [t(float(x)) if kind.startswith("f") else t(int(x, 0)) for x in rest.split(",")]
            except (ValueError, OverflowError):
                raise GcnEmuError(f"--arg {spec!r}: {rest!r} is not a valid {kind}"
                                  f"{' vector' if ',' in rest else ''}") from None
            args.append(vals[0] if len(vals) == 1 else np.array(vals, t))
        else:
            raise GcnEmuError(f"--arg {spec!r}: unknown kind {kind!r}; kinds: in, inout, out, local, "
                              f"{', '.join(SCALAR_TYPES)}")
    return args, writeback


def timing_summary(rep) -> str:
    """Cycles and the main timing counters of a timing-mode DispatchReport, as text."""
    c = rep.counters
    lines = [f"timing: {rep.cycles} cycles ({rep.waves} waves)"]
    for name in ("SQ_WAVE_CYCLES", "SQ_BUSY_CYCLES", "SQ_WAIT_ANY", "SQ_WAIT_INST_ANY",
                 "SQ_ACTIVE_INST_VALU", "SQ_ACTIVE_INST_SCA", "SQ_ACTIVE_INST_VMEM",
                 "SQ_ACTIVE_INST_LDS", "SQ_LDS_BANK_CONFLICT", "TCP_TOTAL_CACHE_ACCESSES",
                 "TCP_HIT", "TCP_TCC_READ_REQ", "TCC_HIT", "TCC_MISS", "TCC_EA_RDREQ",
                 "SQC_DCACHE_HITS", "SQC_DCACHE_MISSES"):
        lines.append(f"  {name:26s} {c.get(name, 0)}")
    return "\n".join(lines)


class CompileProgress:
    """The command line's on_compile (exec.jit.CompileWatch's notice): while numba compiles,
    "gcnemu: compiling the engine, first run only: N of M (function)" on ``out`` (default
    stderr). On a terminal the line is redrawn in place; elsewhere (a pipe, a log file) it is
    printed as plain lines: for the first function, at each further tenth of M and for the
    last one, about a dozen lines. ``finish()`` ends a redrawn line."""

    def __init__(self, out=None):
        self.out = out if out is not None else sys.stderr
        isatty = getattr(self.out, "isatty", None)
        self.tty = bool(isatty and isatty())
        self._tenth = -1
        self._width = 0

    def __call__(self, name: str, n: int, m: int) -> None:
        text = f"gcnemu: compiling the engine, first run only: {n} of {m} ({name})"
        if self.tty:
            print("\r" + text.ljust(self._width), end="", file=self.out, flush=True)
            self._width = max(self._width, len(text))
        elif n * 10 // m > self._tenth or n == 1 or n == m:
            self._tenth = n * 10 // m
            print(text, file=self.out, flush=True)

    def finish(self) -> None:
        if self.tty and self._width:
            print(file=self.out, flush=True)
            self._width = 0


def _watch_compiles(timing: bool):
    """A CompileWatch over a whole command (loading the kernel compiles its op kernels, the
    dispatch the engine) that shows its progress: (watch, progress)."""
    from ..exec.jit import CompileWatch
    from ..launch import compile_plan
    progress = CompileProgress()
    return CompileWatch(progress, lambda: compile_plan(timing)), progress


def run_example(out=None, timing: bool = False, coherent: bool = False,
                sanitize: bool = False) -> int:
    """Run the built-in saxpy example and check it against numpy (printing to ``out``,
    default the current sys.stdout); ``coherent``: in coherency-accurate mode; ``sanitize``:
    with the sanitizer. Either prints the findings line; the exit status is 1 on a mismatch or
    a finding."""
    import gcnemu

    out = out if out is not None else sys.stdout

    code = resources.files("gcnemu.examples").joinpath("saxpy.hsaco").read_bytes()
    n = 1 << 16
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    gpu = gcnemu.GPU(timing=timing, coherent_caches=coherent)
    yb, xb = gpu.to_device(y, name="y"), gpu.to_device(x, name="x")
    watch, progress = _watch_compiles(timing)
    try:
        with watch:
            rep = gpu.dispatch(gcnemu.load(code).kernel("saxpy"), grid=(n,), block=(256,),
                               args=[yb, xb, np.float32(2.0), np.uint32(n)],
                               **({"sanitize": True} if sanitize else {}))
    finally:
        progress.finish()
    got = yb.to_numpy(np.float32)
    want = np.float32(2.0) * x + y      # v_mac_f32: product rounded, then the sum
    ok = np.array_equal(got.view(np.uint32), want.view(np.uint32))
    print(rep.summary(), file=out)
    if sanitize or coherent:
        print(sanitizer_summary(rep, sanitize, coherent), file=out)
    if timing:
        print(timing_summary(rep), file=out)
    print(f"saxpy y = 2*x + y over {n} floats: {'matches numpy bit for bit' if ok else 'MISMATCH'}",
          file=out)
    return 0 if ok and not ((sanitize or coherent) and rep.findings) else 1


def default_block(grid: tuple, kernel) -> tuple:
    """The workgroup size when --block is not given: the kernel's required size if its
    metadata has one (reqd_work_group_size), else up to 64 work-items (one wave) along x."""
    if kernel.info.reqd_workgroup_size:
        return tuple(kernel.info.reqd_workgroup_size[:len(grid)])
    return (min(grid[0], 64),) + (1,) * (len(grid) - 1)


def dispatch_from_args(args, timing: bool):
    """Load the kernel and buffers that ``gcnemu run``'s arguments name and dispatch it:
    (report, kernel, gpu, [(buffer, path)] to write back). Shared by run, profile, compare."""
    import gcnemu

    if not args.file or not args.kernel or not args.grid:
        raise GcnEmuError(f"gcnemu {args.command} needs FILE, --kernel and --grid"
                          + (" (or --example)" if args.command == "run" else ""))
    coherent = bool(getattr(args, "coherent", False))
    gpu = gcnemu.GPU(args.gpu, timing=timing, coherent_caches=coherent)
    # the trace writer reads each wave's rows and lines back from the traces (gcnemu/profile)
    gpu.summarize_traces = bool(getattr(args, "trace", None))
    if args.build_option and not args.file.endswith(".cl"):
        raise GcnEmuError("--build-option is for OpenCL C files (.cl)")
    from ..profile.progress import dispatch_with_progress
    watch, progress = _watch_compiles(timing)
    try:
        with watch:
            kernel = gcnemu.load(args.file, options=args.build_option).kernel(args.kernel)
            grid = _dims(args.grid)
            block = _dims(args.block) if args.block else default_block(grid, kernel)
            dargs, writeback = parse_args(args.arg or [], gpu)
            options = {"sanitize": True} if getattr(args, "sanitize", False) else {}
            rep = dispatch_with_progress(gpu, kernel, grid, block, dargs, **options)
    finally:
        progress.finish()
    return rep, kernel, gpu, writeback


def check_faults(rep, args) -> None:
    """Fail on unmapped accesses unless --allow-faults."""
    from ..device import unmapped_access_error
    if rep.faults and not args.allow_faults:
        raise unmapped_access_error(rep, "--allow-faults reports them instead.")


def _check_modes(args) -> None:
    """--coherent is a functional mode: the timing mode (--timing, --trace) models the
    caches' tags instead of their data (gcnemu.GPU), so the two do not combine."""
    if args.coherent and (args.timing or args.trace):
        flag = "--timing" if args.timing else "--trace"
        raise GcnEmuError(f"--coherent does not combine with {flag}: coherency-accurate mode is "
                          f"a functional mode, and the timing mode models the caches' tags, not "
                          f"their data; run the two separately")


def cmd_run(args) -> int:
    _check_modes(args)
    if args.example:
        return run_example(timing=args.timing, coherent=args.coherent, sanitize=args.sanitize)
    timing = args.timing or bool(args.trace)
    rep, kernel, gpu, writeback = dispatch_from_args(args, timing)
    report_findings = args.sanitize or args.coherent
    if report_findings and rep.faults and not args.allow_faults:
        # check_faults ends the command: the findings first
        print(sanitizer_summary(rep, args.sanitize, args.coherent))
    check_faults(rep, args)
    for buf, path in writeback:
        np.save(path, buf.to_numpy())
    print(rep.summary())
    if report_findings:
        print(sanitizer_summary(rep, args.sanitize, args.coherent))
    if args.timing:
        print(timing_summary(rep))
    if args.trace:
        from ..profile.trace import write_trace
        print(write_trace(args.trace, rep, kernel, gpu.config, args.trace_level, gpu))
    for f in rep.faults[:10]:
        print("fault:", f)
    return 1 if report_findings and rep.findings else 0


def sanitizer_summary(rep, sanitize: bool = True, coherent: bool = False) -> str:
    """The findings of a report (the sanitizer's, and in coherency-accurate mode its stale
    reads), one line each, after a count headed by what looked: "sanitizer", "coherency" or
    "sanitizer+coherency"."""
    n = len(rep.findings)
    looked = [("sanitizer", sanitize), ("coherency", coherent)]
    who = "+".join(name for name, on in looked if on)
    head = f"{who}: {n} finding{'s' if n != 1 else ''}" + (":" if n else " (no hazard seen)")
    return "\n".join([head] + [f"  {f}" for f in rep.findings])


def add_dispatch_arguments(r, with_file: bool = True) -> None:
    """The arguments that name a dispatch (file, kernel, grid, block, args, preset)."""
    if with_file:
        r.add_argument("file", nargs="?", help="code object (.hsaco), AMD Catalyst CAL ELF "
                       "binary (.bin), OpenCL C (.cl: compiled with clang-14, cached) or "
                       "assembly (.s)")
        r.add_argument("--kernel", help="kernel name")
    r.add_argument("--build-option", action="append", metavar="OPT",
                   help="a clang option for a .cl file, e.g. --build-option=-DN=4 (repeatable)")
    r.add_argument("--grid", help="global size in work-items: N, NxM or NxMxK")
    r.add_argument("--block", help="workgroup size: N, NxM or NxMxK (default: the kernel's "
                   "reqd_work_group_size, else up to 64 along x and 1 in the other dimensions)")
    r.add_argument("--arg", action="append", help="kernel argument, in order (see above)")
    r.add_argument("--gpu", default="xbox-one", help="GPU preset (default xbox-one)")
    r.add_argument("--allow-faults", action="store_true",
                   help="report unmapped accesses instead of failing")


def add_trace_arguments(r) -> None:
    """--trace and --trace-level (run and profile)."""
    r.add_argument("--trace", metavar="OUT.json",
                   help="write a Chrome trace-event file (Perfetto, chrome://tracing); "
                        "implies timing mode")
    r.add_argument("--trace-level", choices=("waves", "instructions"), default="waves",
                   help="one slice per wave (default), or also one per instruction")


def add_parser(sub) -> None:
    r = sub.add_parser("run", help="dispatch a kernel of a code object or CAL binary on .npy buffers",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_dispatch_arguments(r)
    r.add_argument("--timing", action="store_true",
                   help="timing mode: also print simulated cycles and timing counters")
    r.add_argument("--sanitize", action="store_true",
                   help="look for hazards (gcnemu.sanitize) and print the findings; exit "
                        "status 1 when there are any")
    r.add_argument("--coherent", action="store_true",
                   help="coherency-accurate mode (GPU(coherent_caches=True)): memory accesses "
                        "go through each CU's L1, the K$s and the L2, and stale reads are "
                        "findings (printed; exit status 1 when there are any); combines with "
                        "--sanitize, not with --timing or --trace")
    add_trace_arguments(r)
    r.add_argument("--example", action="store_true", help="run the built-in saxpy example")
    r.set_defaults(func=cmd_run)
