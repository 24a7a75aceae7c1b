"""Name the emulator's numba-compiled functions in Linux ``perf`` profiles, down to their
instructions.

numba's machine code lives in memory its JIT allocated, so ``perf report`` shows it as bare
addresses. perf reads ``/tmp/perf-<pid>.map`` for such code: ``run`` dispatches a launch of
benchmarks/bench_dispatch.py in this process (once to compile or load everything, then
``-n`` times), having written that map for every function numba's engine holds (compiled
now or loaded from numba's disk cache), and saves the machine code of the functions named
by ``--dump``; ``annotate`` then attributes a profile's samples in such a function to its
instructions (perf's own annotate cannot: the code is gone when the process ends).

    perf record -F 4000 -o perf.data -- python tools/numba_perf.py run histogram --timing \\
        -n 20 --dump _replay --dump _fast_run
    perf report -i perf.data --sort sym          # e.g. simulate's helpers, the engine's
    python tools/numba_perf.py annotate perf.data _replay      # its hottest instructions

The map stays in /tmp after the run (``perf report`` reads it then): delete it when done.
A symbol's extent is taken to run to the next symbol's address (the engine keeps no sizes),
so code without a symbol of its own counts to the symbol below it (samples on a
".const.missing Environment" symbol are such code). The blocks of exec/blockjit.py, loaded as
object files that numba's engine does not list, are named from blockjit.LOADED
(``gcnemu_block_<key>_<j>``: block j of a program; before, their samples went to the numba
function below them: a third of functional matmul_tiled's to ``sem.fp.round_pack``). The
machine has no hardware performance counters in a VM: perf samples on the cpu-clock, and a
sample lands on the instruction after one that waited (a load that missed shows on its
first user).
"""
from __future__ import annotations

import argparse
import collections
import ctypes
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: extent given to the symbol with the highest address, and the most any symbol gets
LAST_EXTENT = 1 << 16
MAX_EXTENT = 1 << 20


def jit_symbols() -> list:
    """(address, extent, name) of every function numba's JIT engine holds in this process,
    and of every block function of exec/blockjit.py loaded into it, sorted by address
    (extent: to the next symbol, see the module docstring)."""
    from numba.core.registry import cpu_target

    from gcnemu.exec import blockjit

    engine = cpu_target.target_context.codegen()._engine
    found = set()
    for name in list(engine._defined_symbols):
        addr = engine.get_function_address(name)
        if addr:
            found.add((addr, name))
    found.update((addr, name) for name, addr in list(blockjit.LOADED.items()) if addr)
    ordered = sorted(found)
    out = []
    for i, (addr, name) in enumerate(ordered):
        nxt = ordered[i + 1][0] if i + 1 < len(ordered) else addr + LAST_EXTENT
        out.append((addr, min(max(nxt - addr, 1), MAX_EXTENT), name))
    return out


def write_perf_map(path=None) -> int:
    """Write perf's map of JIT code (default ``/tmp/perf-<this pid>.map``) listing
    jit_symbols(); returns how many. Symbols at one address (numba's aliases) are listed
    once."""
    path = path or f"/tmp/perf-{os.getpid()}.map"
    seen = set()
    lines = []
    for addr, extent, name in jit_symbols():
        if addr not in seen:
            seen.add(addr)
            lines.append(f"{addr:x} {extent:x} {name}\n")
    Path(path).write_text("".join(lines))
    return len(lines)


def numba_name_matches(symbol: str, function: str) -> bool:
    """Whether the mangled numba symbol is of the Python function ``function`` (numba
    mangles a function f as ...<len(f)>f followed by B<generation> or E)."""
    return re.search(rf"(?<!\d){len(function)}{re.escape(function)}[BE]", symbol) is not None


def dump_code(function: str, out_dir) -> list:
    """Save the machine code of every compiled function of that Python name (one per
    specialisation) as ``<out_dir>/<function>.<i>.bin`` with its address in ``.addr``;
    returns the files written."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    syms = [s for s in jit_symbols() if numba_name_matches(s[2], function)
            and not s[2].startswith(("_ZN08NumbaEnv", "_ZN7cpython", "cfunc."))]
    for i, (addr, extent, _name) in enumerate(syms):
        b = out_dir / f"{function}.{i}.bin"
        b.write_bytes(ctypes.string_at(addr, extent))
        (out_dir / f"{function}.{i}.addr").write_text(f"{addr:#x}\n")
        written.append(b)
    return written


def hot_instructions(samples, listing, top=30):
    """The instructions of a disassembly with the most samples: ``samples`` an iterable of
    sampled addresses (ints), ``listing`` objdump's lines ("  addr:\\tinstruction"); returns
    (total samples in the listing, [(address, samples, instruction)], hottest first)."""
    count = collections.Counter(samples)
    rows = []
    for line in listing:
        m = re.match(r"\s*([0-9a-f]+):\s+(.*)", line)
        if m:
            rows.append((int(m.group(1), 16), m.group(2).strip()))
    total = sum(count.get(a, 0) for a, _ in rows)
    hot = sorted(((a, count.get(a, 0), text) for a, text in rows if count.get(a, 0)),
                 key=lambda r: -r[1])
    return total, hot[:top]


def annotate(perf_data: str, function: str, dump_dir, top=30) -> str:
    """Report the hottest instructions of ``function`` (dumped by ``run --dump``) in the
    profile ``perf_data`` recorded of that run."""
    script = subprocess.run(["perf", "script", "-i", perf_data, "-F", "ip,sym"],
                            capture_output=True, text=True, check=True).stdout
    ips = []
    for line in script.splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2 and numba_name_matches(parts[1], function):
            ips.append(int(parts[0], 16))
    report = []
    for b in sorted(Path(dump_dir).glob(f"{function}.*.bin")):
        addr = int(b.with_suffix(".addr").read_text(), 16)
        listing = subprocess.run(
            ["objdump", "-D", "-b", "binary", "-m", "i386:x86-64", "--no-show-raw-insn",
             f"--adjust-vma={addr:#x}", str(b)], capture_output=True, text=True,
            check=True).stdout.splitlines()
        total, hot = hot_instructions(ips, listing, top)
        report.append(f"{b.name}: {total} samples")
        for a, n, text in hot:
            report.append(f"  +{a - addr:6x} {n:6d} {100 * n / max(total, 1):5.1f}%  {text}")
    return "\n".join(report) if report else f"no dump of {function} in {dump_dir}"


def run(label: str, timing: bool, n: int, dumps, dump_dir) -> None:
    """Dispatch the bench_dispatch launch whose label contains ``label`` once (compiling or
    loading), write the perf map and the dumps, then ``n`` more times (what to profile)."""
    sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]
    import bench_dispatch
    import gcnbench

    import gcnemu
    from kernels import corpus

    launches = [ln for ln in bench_dispatch.LAUNCHES if label in ln.label]
    if not launches:
        raise SystemExit(f"no launch of bench_dispatch matches {label!r}; launches: "
                         + "; ".join(ln.label for ln in bench_dispatch.LAUNCHES))
    ln = launches[0]
    gpu = gcnemu.GPU(timing=timing)
    k = gcnemu.load(str(corpus.hsaco_path(ln.corpus_name))).kernel(ln.symbol)
    args, _bufs = gcnbench.device_args(gpu, ln.args)
    gpu.dispatch(k, grid=ln.grid, block=ln.block, args=args)
    print(f"{write_perf_map()} symbols in /tmp/perf-{os.getpid()}.map", flush=True)
    for f in dumps:
        if not dump_code(f, dump_dir):
            raise SystemExit(f"no compiled function named {f!r}")
    t0 = time.thread_time()
    for _ in range(n):
        gpu.dispatch(k, grid=ln.grid, block=ln.block, args=args)
    print(f"{ln.label}: {(time.thread_time() - t0) / max(n, 1) * 1e3:.2f} ms thread CPU per "
          f"dispatch ({'timing' if timing else 'functional'})")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="dispatch a bench_dispatch launch under perf")
    r.add_argument("launch", help="part of the launch's label, e.g. histogram")
    r.add_argument("--timing", action="store_true", help="on GPU(timing=True)")
    r.add_argument("-n", type=int, default=10, help="dispatches after the first")
    r.add_argument("--dump", action="append", default=[], help="a function to dump")
    r.add_argument("--dump-dir", default="numba_perf", help="where dumps go")
    a = sub.add_parser("annotate", help="hottest instructions of a dumped function")
    a.add_argument("perf_data")
    a.add_argument("function")
    a.add_argument("--dump-dir", default="numba_perf")
    a.add_argument("--top", type=int, default=30)
    o = ap.parse_args(argv)
    if o.cmd == "run":
        run(o.launch, o.timing, o.n, o.dump, o.dump_dir)
    else:
        print(annotate(o.perf_data, o.function, o.dump_dir, o.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
