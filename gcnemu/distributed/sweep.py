"""Running a sweep: every run (a kernel on a configuration) as one Dask task, or one after
another in this process; the rows gathered into a SweepTable.

Each kernel's arrays and code go to the cluster once (a task that holds them) and every run
of it refers to them; a worker loads each code object once (gcnemu.kernel.load_cached) and keeps
its numba machine code between runs (a worker plugin, gcnemu/distributed/worker.py, loads the
engine when the worker starts). A run that fails is a row with the error; a worker that dies
takes no row with it: the scheduler runs its tasks again on another worker.
"""
from __future__ import annotations

import hashlib
import os
import sys
import time
import traceback

from ..errors import GcnEmuError
from .manifest import Manifest, Run
from .table import SweepTable

#: how a row's status reads: every golden output matched / one did not / the run failed /
#: it ran and had no golden output to compare
PASS, FAIL, ERROR, DONE = "pass", "fail", "error", "done"

INSTALL_HINT = "pip install 'gcnemu[dask]' (dask and distributed) to run sweeps on a cluster"


def run_one(kernel, config) -> tuple[dict, dict]:
    """Run ``kernel`` (a KernelSpec) on a new GPU of ``config``: (its row, {argument name:
    final contents} of the outputs to keep). Never raises for a failing run: the row's
    status is "error" with the error's text."""
    from ..device import Local
    from ..golden import assert_close_ulp
    from ..kernel import load_cached
    row = {"kernel": kernel.name, "entry": kernel.entry, **config.columns(),
           "grid": "x".join(map(str, kernel.grid)), "block": "x".join(map(str, kernel.block)),
           "status": ERROR, "error": ""}
    kept = {}
    t0 = time.perf_counter()
    try:
        gpu = config.make_gpu()
        k = load_cached(kernel.source).kernel(kernel.entry)
        args, back = [], []
        for i, a in enumerate(kernel.args):
            if a.kind in ("in", "inout"):
                buf = gpu.to_device(a.array, name=a.name or f"arg{i}")
            elif a.kind == "out":
                buf = gpu.empty(a.shape, a.dtype, name=a.name or f"arg{i}")
            elif a.kind == "local":
                args.append(Local(a.nbytes))
                continue
            else:
                args.append(a.value)
                continue
            args.append(buf)
            if a.kind != "in":
                back.append((a, buf))
        rep = gpu.dispatch(k, kernel.grid, kernel.block, args, workers=config.workers,
                           offset=kernel.offset)
        digests, mismatch, compared = [], "", 0
        for a, buf in back:
            whole = buf.to_numpy()
            digests.append(f"{a.name}:{hashlib.sha256(whole.tobytes()).hexdigest()[:16]}")
            if a.keep:
                kept[a.name] = whole
            if a.golden is not None:
                compared += 1
                want = a.golden
                got = buf.to_numpy(want.dtype, want.size).reshape(want.shape)
                try:
                    assert_close_ulp(got, want, ulp=a.ulp, atol=a.atol, what=a.name)
                except AssertionError as e:
                    mismatch = mismatch or str(e)
        row.update(status=FAIL if mismatch else PASS if compared else DONE, error=mismatch,
                   outputs=" ".join(digests), waves=rep.waves, workgroups=rep.workgroups,
                   cycles=rep.cycles, clock_mhz=gpu.config.clock_mhz,
                   time_us=None if rep.cycles is None else rep.cycles / gpu.config.clock_mhz,
                   wall_s=round(rep.wall_seconds, 6), compile_s=round(rep.compile_seconds, 3))
        row.update({k: v for k, v in sorted(rep.counters.items())})
    except Exception as e:     # any failure of one run is its row's, not the sweep's
        row["error"] = f"{type(e).__name__}: {' '.join(str(e).split())}"
        if not isinstance(e, GcnEmuError):
            row["error"] += " | " + " ".join(traceback.format_exc(limit=-2).split())
    row["run_s"] = round(time.perf_counter() - t0, 3)
    row["host"] = _where()
    return row, kept


def _hold(kernel):
    """The Dask task that holds a kernel's data on the cluster (see _on_cluster)."""
    return kernel


def _run_task(kernel, config):
    """The Dask task of one run (kernel: the scattered KernelSpec)."""
    return run_one(kernel, config)


def _where() -> str:
    try:
        from distributed import get_worker
        return get_worker().address
    except Exception:        # not on a Dask worker (a serial sweep), or no dask
        return f"pid {os.getpid()}"


def machine_workers() -> int:
    """The CPUs this process may use: a LocalCluster's default worker count."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def local_cluster(n_workers: int | None = None, **kw):
    """A LocalCluster for sweeps: ``n_workers`` processes (default: one per CPU) of one
    thread each (a dispatch's engine keeps its thread busy; the processes share nothing)."""
    from distributed import LocalCluster
    kw.setdefault("dashboard_address", None)
    return LocalCluster(n_workers=n_workers or machine_workers(), threads_per_worker=1,
                        processes=True, **kw)


def sweep(runs, client=None, *, progress=None, n_workers: int | None = None) -> SweepTable:
    """Run every run and return the results table (gcnemu.distributed.SweepTable, one row
    per run, in the order of ``runs``).

    ``runs``: a Manifest or a manifest's path (its kernels x configurations), or a list of
    Run(KernelSpec, Configuration). ``client``: a dask.distributed Client, a scheduler
    address ("tcp://host:8786"), None (a LocalCluster of ``n_workers`` processes, default
    one per CPU, for this call; in this process, one run after another, when dask is not
    installed) or "serial" (in this process). ``progress``: a bar on stderr (default: when
    stderr is a terminal).
    """
    from .manifest import load_manifest
    if isinstance(runs, (str, os.PathLike)):
        runs = load_manifest(runs)
    if isinstance(runs, Manifest):
        runs = runs.runs()
    runs = list(runs)
    for r in runs:
        if not isinstance(r, Run):
            raise GcnEmuError(f"sweep takes Runs (kernel, configuration), a Manifest or a "
                              f"manifest's path, not {type(r).__name__}")
    bar = _Progress(len(runs), sys.stderr if (progress is None and sys.stderr.isatty())
                    or progress else None)
    if isinstance(client, str) and client == "serial":
        return _serial(runs, bar)
    if client is None:
        try:
            import distributed
        except ImportError:
            print(f"gcnemu sweep: dask is not installed: running the {len(runs)} runs one "
                  f"after another in this process; {INSTALL_HINT}", file=sys.stderr)
            return _serial(runs, bar)
        with local_cluster(n_workers) as cluster, distributed.Client(cluster) as c:
            return _on_cluster(runs, c, bar)
    if isinstance(client, str):
        import distributed
        with distributed.Client(client) as c:
            return _on_cluster(runs, c, bar)
    return _on_cluster(runs, client, bar)


def _serial(runs, bar) -> SweepTable:
    table = SweepTable()
    for r in runs:
        row, kept = run_one(r.kernel, r.config)
        table.add(row, kept)
        bar.step(row["status"])
    bar.close()
    return table


def _on_cluster(runs, client, bar) -> SweepTable:
    from distributed import as_completed
    from .worker import install_worker_plugin
    install_worker_plugin(client)
    scattered, futures, index = {}, [], {}
    stamp = f"{os.getpid()}-{time.time_ns()}"
    for i, r in enumerate(runs):
        if id(r.kernel) not in scattered:
            # the kernel's arrays and code go to the cluster once, whatever its runs, as a
            # task's argument rather than scattered data: the scheduler keeps the task, so a
            # worker that dies holding its result takes nothing with it (it runs again). The
            # price: the scheduler holds the inputs too (Dask warns above 10 MB a kernel)
            scattered[id(r.kernel)] = client.submit(
                _hold, r.kernel, pure=False, key=f"gcnemu-kernel-{i}-{r.kernel.name}-{stamp}")
        f = client.submit(_run_task, scattered[id(r.kernel)], r.config, pure=False,
                          key=f"gcnemu-run-{i}-{r.kernel.name}-{r.config.name}-{stamp}")
        futures.append(f)
        index[f.key] = i
    rows = [None] * len(runs)
    for f in as_completed(futures):
        i = index[f.key]
        try:
            rows[i] = f.result()
        except Exception as e:
            # the task itself failed: workers died running it (KilledWorker, after the
            # scheduler's allowed failures) or its data could not be moved
            rows[i] = ({"kernel": runs[i].kernel.name, "entry": runs[i].kernel.entry,
                        **runs[i].config.columns(), "status": ERROR,
                        "error": f"{type(e).__name__}: {' '.join(str(e).split())}"}, {})
        bar.step(rows[i][0]["status"])
    bar.close()
    del futures, scattered
    table = SweepTable()
    for row, kept in rows:
        table.add(row, kept)
    return table


class _Progress:
    """A one-line progress bar on a terminal: runs done, failed, elapsed time."""

    def __init__(self, total: int, out):
        self.total, self.out, self.done, self.bad = total, out, 0, 0
        self.t0 = time.monotonic()
        self._draw()

    def step(self, status: str) -> None:
        self.done += 1
        self.bad += status in (FAIL, ERROR)
        self._draw()

    def _draw(self) -> None:
        if self.out is None:
            return
        width = 30
        filled = width * self.done // max(1, self.total)
        t = time.monotonic() - self.t0
        self.out.write(f"\rsweep [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
                       f"runs, {self.bad} failed, {int(t) // 60:02d}:{int(t) % 60:02d}")
        self.out.flush()

    def close(self) -> None:
        if self.out is not None:
            self.out.write("\n")
            self.out.flush()
