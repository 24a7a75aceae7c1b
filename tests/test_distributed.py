"""Sweeps (gcnemu.sweep, `gcnemu sweep`) on Dask: one LocalCluster of two worker processes
for the module (tests that need it skip without dask); manifests and the command line are
also tested without a cluster. References: dispatches in this process (gcnemu.GPU, the
corpus runner) and numpy."""
from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import gcnemu
from gcnemu.distributed import (Configuration, KernelSpec, ManifestError, Run, corpus_kernel,
                                load_manifest, sweep)
from gcnemu.distributed.manifest import Argument
from gcnemu.kernel import ProgramSource
from kernels import corpus

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "sweep" / "manifest.yaml"

#: small corpus kernels (each well under a second in timing mode), for the sweep of 20 x 3
SWEEP_KERNELS = ["saxpy", "bitops", "crc32_table", "bytes_shorts", "bitonic_sort", "atomics64",
                 "atomics_global", "asm_salu", "asm_smrd", "asm_flow", "asm_ds", "convert_sat",
                 "floatmath", "histogram", "matmul_tiled", "reduce_lds", "scan_lds",
                 "transpose_lds", "vec_select", "vload_store"]
#: (name, preset, timing_config): the three configurations of the sweep
CONFIGS = [("xbox-one", "xbox-one", {}), ("hd7970", "hd7970", {}),
           ("dram300", "xbox-one", {"dram_latency": 300})]


@pytest.fixture(scope="module")
def client():
    """A LocalCluster of 2 worker processes, 1 thread each, shut down after the module."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        yield c


def _local(name, preset, timing_config):
    """A corpus kernel run here on a GPU of that configuration: (results, report)."""
    from gcnemu.timing.config import TimingConfig
    gpu = gcnemu.GPU(preset, timing=True,
                     timing_config=TimingConfig(**timing_config) if timing_config else None)
    reports = []
    dispatch = gpu.dispatch
    gpu.dispatch = lambda *a, **k: reports.append(dispatch(*a, **k)) or reports[-1]
    results, _case = corpus.run_case(name, gpu=gpu)
    return results, reports[0]


# --- a sweep on the cluster against runs in this process --------------------------------------
def test_sweep_of_20_kernels_x_3_configurations_matches_local_runs(client):
    kernels = [corpus_kernel(n, keep=True) for n in SWEEP_KERNELS]
    configs = [Configuration(n, p, timing_config=tc) for n, p, tc in CONFIGS]
    table = sweep([Run(k, c) for k in kernels for c in configs], client=client)
    assert len(table) == 60
    assert table.counts() == {"pass": 60}, table.failed()
    hosts = {r["host"] for r in table}
    assert len(hosts) == 2 and all(h.startswith("tcp://") for h in hosts)    # both workers
    for i, row in enumerate(table):
        name, (cname, preset, tc) = SWEEP_KERNELS[i // 3], CONFIGS[i % 3]
        assert (row["kernel"], row["config"], row["preset"]) == (name, cname, preset)
        results, rep = _local(name, preset, tc)
        assert row["cycles"] == rep.cycles > 0, (name, cname)
        assert row["time_us"] == pytest.approx(rep.cycles / gcnemu.PRESETS[preset].clock_mhz)
        assert row["SQ_INSTS"] == rep.counters["SQ_INSTS"]
        assert row["SQ_WAVE_CYCLES"] == rep.counters["SQ_WAVE_CYCLES"]
        kept = table.outputs_kept[i]
        assert sorted(kept) == [f"arg{j}" for j in sorted(results)]
        for j, want in results.items():
            got = kept[f"arg{j}"].tobytes()
            assert got[:want.nbytes] == want.tobytes(), (name, cname, j)
    # the timing parameters matter where a kernel waits on DRAM
    by = {(r["kernel"], r["config"]): r["cycles"] for r in table}
    assert by[("saxpy", "dram300")] > by[("saxpy", "xbox-one")]


def _saxpy_spec(n=4096, golden_scale=2.0, name="saxpy", y_len=None, **kw):
    rng = np.random.default_rng(1)
    x = rng.uniform(-4, 4, n).astype(np.float32)
    y = rng.uniform(-4, 4, y_len or n).astype(np.float32)
    golden = None if y_len else (np.float32(golden_scale) * x).astype(np.float32) + y
    code = corpus.hsaco_path("saxpy").read_bytes()
    return KernelSpec(name, ProgramSource("binary", code), "saxpy", (n,), (256,),
                      [Argument("inout", "y", array=y, golden=golden),
                       Argument("in", "x", array=x), Argument("scalar", "a", value=np.float32(2)),
                       Argument("scalar", "n", value=np.uint32(n))], **kw)


def test_failing_runs_are_rows_and_the_sweep_goes_on(client):
    ok = _saxpy_spec()
    wrong = _saxpy_spec(golden_scale=3.0, name="saxpy-wrong-golden")
    short = _saxpy_spec(y_len=1000, name="saxpy-short-buffer")     # stores past y: faults
    loops = corpus_kernel("crc32_table")
    leash = Configuration("leash", options={"step_limit": 500})        # the watchdog
    plain = Configuration("plain")
    runs = [Run(ok, plain), Run(wrong, plain), Run(short, plain), Run(loops, leash),
            Run(loops, plain), Run(ok, leash)]
    table = sweep(runs, client=client)
    status = [(r["kernel"], r["config"], r["status"]) for r in table]
    assert status == [("saxpy", "plain", "pass"), ("saxpy-wrong-golden", "plain", "fail"),
                      ("saxpy-short-buffer", "plain", "error"), ("crc32_table", "leash", "error"),
                      ("crc32_table", "plain", "pass"), ("saxpy", "leash", "pass")]
    assert "y: " in table[1]["error"] and "elements differ" in table[1]["error"]
    assert table[2]["error"].startswith("MemoryFault:") and "buffer 'y'" in table[2]["error"]
    assert table[3]["error"].startswith("ExecutionError: step limit of 500")
    assert table[3]["step_limit"] == 500 and table[0].get("step_limit") is None
    assert table.summary() == "6 runs: 3 pass, 1 fail, 2 error"


def test_a_worker_killed_mid_sweep_loses_nothing(client):
    pids = client.run(os.getpid)                       # {worker address: pid}
    kernels = [corpus_kernel(n) for n in ("mandelbrot", "matmul_tiled", "scan_lds", "nbody")]
    configs = [Configuration("xbox-one"), Configuration("hd7970", "hd7970"),
               Configuration("r9", "r9-290x")]
    runs = [Run(k, c) for k in kernels for c in configs]
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("table", sweep(runs, client=client)))
    t.start()
    victim = None
    deadline = time.monotonic() + 120
    while victim is None and time.monotonic() < deadline:
        busy = {w: ks for w, ks in client.processing().items() if ks}
        for w, ks in busy.items():
            if w in pids and any(str(k).startswith("gcnemu-run-") for k in ks):
                victim = w
                break
        time.sleep(0.05)
    assert victim is not None, "no run started on a worker"
    os.kill(pids[victim], signal.SIGKILL)               # the worker dies mid-run
    assert t.is_alive()                                 # ... mid-sweep
    t.join(timeout=600)
    table = out["table"]
    assert len(table) == len(runs)
    assert table.counts() == {"pass": len(runs)}, table.failed()
    assert [(r["kernel"], r["config"]) for r in table] == \
        [(k.name, c.name) for k in kernels for c in configs]
    client.wait_for_workers(2, timeout=120)             # the nanny restarted it


# --- manifests and the command line ------------------------------------------------------------
def test_example_manifest_reads():
    m = load_manifest(EXAMPLE)
    assert [c.name for c in m.configurations] == ["xbox-one", "hd7970", "xbox-one-dram300"]
    assert m.configurations[2].timing_config == {"dram_latency": 300}
    assert m.configurations[0].options == {"time_limit": 120}
    assert [k.name for k in m.kernels][:3] == ["saxpy", "mandelbrot", "matmul_tiled"]
    assert len(m.runs()) == 3 * len(m.kernels)
    saxpy = m.kernels[0]
    assert saxpy.grid == (4096,) and saxpy.block == (256,) and saxpy.args[0].keep
    assert saxpy.args[2].value == np.float32(2.0) and saxpy.args[3].value.dtype == np.uint32
    assert m.output == str(EXAMPLE.parent / "results")


def _write_saxpy_manifest(tmp, golden_scale=2.0, toml=False):
    rng = np.random.default_rng(3)
    x = rng.uniform(-4, 4, 512).astype(np.float32)
    y = rng.uniform(-4, 4, 512).astype(np.float32)
    np.save(tmp / "x.npy", x)
    np.save(tmp / "y.npy", y)
    np.save(tmp / "want.npy", (np.float32(golden_scale) * x).astype(np.float32) + y)
    code = corpus.hsaco_path("saxpy")
    if toml:
        text = f'''output = "tbl"
[[configurations]]
name = "fast"
preset = "hd7970"
timing = false
[[kernels]]
code = "{code}"
kernel = "saxpy"
grid = 512
block = 128
args = [{{inout = "y.npy", golden = "want.npy", keep = true}}, {{in = "x.npy"}},
        {{f32 = 2.0}}, {{u32 = 512}}]
'''
        (tmp / "m.toml").write_text(text)
        return tmp / "m.toml"
    (tmp / "m.yaml").write_text(f"""output: tbl
configurations: [{{name: fast, preset: hd7970, timing: false}}, {{name: timed}}]
kernels:
  - code: {code}
    kernel: saxpy
    grid: 512
    block: 128
    args: [{{inout: y.npy, golden: want.npy, keep: true}}, {{in: x.npy}}, {{f32: 2.0}}, {{u32: 512}}]
""")
    return tmp / "m.yaml"


def _cli(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "gcnemu", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_cli_sweep_serial_writes_the_table_and_kept_outputs(tmp_path):
    m = _write_saxpy_manifest(tmp_path)
    r = _cli("sweep", str(m), "--serial", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 runs: 2 pass; table: " in r.stdout
    rows = list(csv.DictReader(open(tmp_path / "tbl.csv")))
    assert [(x["kernel"], x["config"], x["status"]) for x in rows] == \
        [("saxpy", "fast", "pass"), ("saxpy", "timed", "pass")]
    assert rows[0]["cycles"] == "" and int(rows[1]["cycles"]) > 0
    assert float(rows[1]["time_us"]) == pytest.approx(int(rows[1]["cycles"]) / 853)
    assert rows[0]["SQ_INSTS"] == rows[1]["SQ_INSTS"] and int(rows[0]["SQ_INSTS"]) > 0
    assert rows[0]["outputs"] == rows[1]["outputs"]          # the same bits on both GPUs
    x, y = np.load(tmp_path / "x.npy"), np.load(tmp_path / "y.npy")
    kept = np.load(tmp_path / "tbl-outputs" / "saxpy" / "timed" / "y.npy")
    assert np.array_equal(kept, (np.float32(2) * x).astype(np.float32) + y)


def test_cli_sweep_reports_a_wrong_golden_with_status_1(tmp_path):
    m = _write_saxpy_manifest(tmp_path, golden_scale=2.5, toml=True)
    r = _cli("sweep", str(m), "--serial", cwd=tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "fail: saxpy on fast: y: " in r.stdout and "1 runs: 1 fail" in r.stdout


def test_cli_sweep_on_an_existing_scheduler(client, tmp_path):
    m = _write_saxpy_manifest(tmp_path)
    r = _cli("sweep", str(m), "--scheduler", client.scheduler.address, "--progress",
             cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2/2 runs, 0 failed" in r.stderr                  # the progress bar's last state
    rows = list(csv.DictReader(open(tmp_path / "tbl.csv")))
    assert all(x["host"].startswith("tcp://") for x in rows)


@pytest.mark.parametrize("text, message", [
    ("kernels: [{corpus: saxpy}]\nconfigurations: [{preset: nope}]", "unknown preset 'nope'"),
    ("kernels: [{corpus: saxpy}]\nconfigurations: [{bogus_option: 1}]",
     "configurations[0]: GPU(...) does not take these options"),
    ("kernels: [{corpus: saxpy}]\nconfigurations: [{timing_config: {dram_latncy: 3}}]",
     "configurations[0]: timing_config:"),
    ("kernels: [{corpus: saxpy}]\nconfigurations: [{}, {}]", "'xbox-one' is used twice"),
    ("kernels: [{code: k.hsaco, grid: 4, args: []}]", "kernels[0]: cannot read"),
    ("kernels: [{corpus: saxpy, extra: 1}]", "kernels[0]: unknown key(s) ['extra']"),
    ("kernels: [{corpus: no_such_kernel}]", "no corpus kernel 'no_such_kernel'"),
    ("kernelz: []", "unknown key(s) ['kernelz']"),
])
def test_manifest_errors_name_the_entry(tmp_path, text, message):
    p = tmp_path / "m.yaml"
    p.write_text(text)
    with pytest.raises(ManifestError) as e:
        load_manifest(p)
    assert message in str(e.value) and str(p) in str(e.value)


def test_manifest_argument_errors(tmp_path):
    np.save(tmp_path / "x.npy", np.zeros(4, np.float32))
    code = corpus.hsaco_path("saxpy")
    for args, message in [("[{u32: -1}]", "-1 is not a valid u32"),
                          ("[{out: o, dtype: f32}]", "needs dtype and shape"),
                          ("[{in: x.npy, golden: x.npy}]", "unknown key(s) ['golden']"),
                          ("[{in: x.npy, u32: 3}]", "one of in, inout, out"),
                          ("[{out: o, dtype: str, shape: 4}]", "unknown dtype")]:
        p = tmp_path / "m.yaml"
        p.write_text(f"kernels: [{{code: {code}, kernel: saxpy, grid: 64, args: {args}}}]")
        with pytest.raises(ManifestError) as e:
            load_manifest(p)
        assert message in str(e.value) and "kernels[0].args[0]" in str(e.value), str(e.value)
