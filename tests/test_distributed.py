"""Sweeps (gcnemu.sweep, `gcnemu sweep`) and sharded dispatches (dispatch(..., client=)) on
Dask: one LocalCluster of two worker processes for the module (tests that need it skip
without dask); the manifest, the table and the merging of shards' writes are also tested
without a cluster. References: dispatches in this process (gcnemu.GPU, the corpus runner),
numpy, and hand-made shard writes."""
from __future__ import annotations

import csv
import functools
import operator
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
from gcnemu.errors import DispatchError, ExecutionError
from gcnemu.kernel import ProgramSource
from gcnemu.mem.space import BASE, Memory
from gcnemu.shards import ShardWrites, merge_writes, shard_ranges
from kernels import corpus

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "sweep" / "manifest.yaml"

#: small corpus kernels (each well under a second in timing mode), for the sweep of 20 x 3
SWEEP_KERNELS = ["saxpy", "bitops", "crc32_table", "bytes_shorts", "bitonic_sort", "atomics64",
                 "atomics_global", "asm_salu", "asm_smrd", "asm_flow", "asm_ds", "convert_sat",
                 "floatmath", "histogram", "matmul_tiled", "reduce_lds", "scan_lds",
                 "transpose_lds", "vec_select", "vload_store"]
#: (name, preset, timing_config): the three configurations of the sweep
CONFIGS = [("xbox-one", "xbox-one", {}), ("r9-290x", "r9-290x", {}),
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
    configs = [Configuration("xbox-one"), Configuration("r9-290x", "r9-290x"),
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


# --- test suites on several processes (pytest-xdist) ---------------------------------------------
USER_TESTS = '''
import numpy as np, pytest
from gcnemu.golden import In, InOut

@pytest.mark.parametrize("n", [256, 1000, 4096, 777])
def test_saxpy(run_kernel, assert_close_ulp, n):
    x = np.linspace(-3, 3, n, dtype=np.float32); y = np.ones(n, np.float32)
    outs = run_kernel({code!r}, "saxpy", (-(-n // 256) * 256,), (256,),
                      [InOut(y), In(x), np.float32(2.5), np.uint32(n)])
    assert_close_ulp(outs[0], (np.float32(2.5) * x).astype(np.float32) + y, ulp=0)
'''


def test_a_users_golden_tests_run_under_pytest_xdist(tmp_path):
    """A project's golden tests, written with the fixtures gcnemu installs, on two xdist
    workers (the project's own suite runs so in CI: `python -m pytest -n 2`)."""
    pytest.importorskip("xdist")
    (tmp_path / "test_user.py").write_text(USER_TESTS.format(code=str(corpus.hsaco_path("saxpy"))))
    r = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "-v", "-p", "no:cacheprovider",
                        "-p", "gcnemu.pytest_plugin", "--rootdir", str(tmp_path),
                        str(tmp_path / "test_user.py")], cwd=tmp_path, capture_output=True,
                       text=True, timeout=600, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0 and "4 passed" in r.stdout, r.stdout[-2000:] + r.stderr[-2000:]
    assert "[gw0]" in r.stdout and "[gw1]" in r.stdout          # two processes ran them


# --- manifests and the command line ------------------------------------------------------------
def test_example_manifest_reads():
    m = load_manifest(EXAMPLE)
    assert [c.name for c in m.configurations] == ["xbox-one", "r9-290x", "xbox-one-dram300"]
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
preset = "r9-290x"
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
configurations: [{{name: fast, preset: r9-290x, timing: false}}, {{name: timed}}]
kernels:
  - code: {code}
    kernel: saxpy
    grid: 512
    block: 128
    args: [{{inout: y.npy, golden: want.npy, keep: true}}, {{in: x.npy}}, {{f32: 2.0}},
           {{u32: 512}}]
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


def test_cli_sweep_without_dask_runs_serially_and_says_how_to_install_it(tmp_path):
    m = _write_saxpy_manifest(tmp_path)
    code = ("import sys; sys.modules['distributed'] = None; from gcnemu.cli import main; "
            f"sys.exit(main(['sweep', {str(m)!r}]))")          # `import distributed` fails
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                       text=True, timeout=600, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "dask is not installed: running the 2 runs one after another in this process; " \
           "pip install 'gcnemu[dask]'" in r.stderr
    assert "2 runs: 2 pass" in r.stdout


def test_cli_sweep_on_an_existing_scheduler(client, tmp_path):
    m = _write_saxpy_manifest(tmp_path)
    r = _cli("sweep", str(m), "--scheduler", client.scheduler.address, "--progress",
             cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2/2 runs, 0 failed" in r.stderr                  # the progress bar's last state
    rows = list(csv.DictReader(open(tmp_path / "tbl.csv")))
    assert all(x["host"].startswith("tcp://") for x in rows)


def test_table_columns_csv_and_parquet(tmp_path):
    from gcnemu.distributed import SweepTable
    t = SweepTable()
    t.add({"kernel": "k", "config": "a", "status": "pass", "cycles": 10, "SQ_INSTS": 5,
           "num_cus": 8, "error": ""})
    t.add({"kernel": "k", "config": "b", "status": "error", "error": "Boom: x", "cycles": None,
           "num_cus": "eight"})                  # mixed types: Parquet stores them as text
    assert t.columns == ["kernel", "config", "num_cus", "status", "error", "cycles", "SQ_INSTS"]
    rows = list(csv.DictReader(open(t.to_csv(tmp_path / "t.csv"))))
    assert rows[1] == {"kernel": "k", "config": "b", "num_cus": "eight", "status": "error",
                       "error": "Boom: x", "cycles": "", "SQ_INSTS": ""}
    assert t.summary() == "2 runs: 1 pass, 1 error" and t.failed() == [t[1]]
    pq = pytest.importorskip("pyarrow.parquet")
    back = pq.read_table(t.to_parquet(tmp_path / "t.parquet")).to_pylist()
    assert back[0] == {"kernel": "k", "config": "a", "num_cus": "8", "status": "pass",
                       "error": "", "cycles": 10, "SQ_INSTS": 5}
    assert back[1]["cycles"] is None and back[1]["SQ_INSTS"] is None
    assert [p.name for p in t.write(tmp_path / "w")] == ["w.csv", "w.parquet"]


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


# --- sharded dispatch ----------------------------------------------------------------------------
def _corpus_dispatch(name, client=None, shards=None, timing=False):
    """Corpus kernel ``name`` dispatched here or in shards: (bytes of its outputs, report)."""
    case = corpus.make_case(name, 0)
    gpu = gcnemu.GPU(timing=timing)
    prog = gcnemu.load(str(corpus.hsaco_path(name)))
    args, back = [], []
    for a in case.args:
        if isinstance(a, (corpus.In, corpus.Out)):
            b = gpu.to_device(a.array) if isinstance(a, corpus.In) else gpu.empty(a.nbytes)
            args.append(b)
            if type(a) is not corpus.In:
                back.append(b)
        elif isinstance(a, np.generic):
            args.append(a)
        else:
            args.append(gcnemu.Local(a.nbytes))
    rep = gpu.dispatch(prog.kernel(case.kernel), case.grid, case.block, args, client=client,
                       shards=shards)
    return [b.to_numpy().tobytes() for b in back], rep


@pytest.mark.parametrize("name", ["mandelbrot", "matmul_tiled", "histogram", "nu_spmv_csr"])
def test_sharded_dispatch_gives_the_bits_of_a_local_one(client, name):
    local, rep0 = _corpus_dispatch(name)
    sharded, rep = _corpus_dispatch(name, client, shards=5)
    assert sharded == local
    assert rep.shards == 5 and rep.serial_reason == ""
    assert rep.waves == rep0.waves and rep.counters == rep0.counters


def test_sharded_dispatch_of_a_larger_mandelbrot(client):
    """1,536 workgroups (a 512 x 384 image) in the default number of shards (2 per worker
    thread), against a local dispatch (which the corpus tests check against numpy)."""
    prog = gcnemu.load(str(corpus.hsaco_path("mandelbrot")))
    images = []
    for c in (None, client):
        gpu = gcnemu.GPU()
        out = gpu.empty((384, 512), np.uint32)
        rep = gpu.dispatch(prog.kernel("mandelbrot"), (512, 384), (16, 8),
                           [out, np.float32(-2.2), np.float32(-1.2), np.float32(3.0 / 512),
                            np.float32(2.4 / 384), np.uint32(64)], client=c)
        images.append(out.to_numpy())
    assert rep.shards == 4
    assert images[0].tobytes() == images[1].tobytes() and images[0].max() == 64


RACY = """
    s_load_dwordx2 s[4:5], s[0:1], 0x0
    s_waitcnt lgkmcnt(0)
    v_mov_b32 v1, s4
    v_mov_b32 v2, s5
    v_mov_b32 v3, s2
    flat_store_dword v[1:2], v3
    s_waitcnt vmcnt(0)
    s_endpgm
"""


def test_a_racy_kernel_is_refused_naming_buffer_and_offset(client, tmp_path):
    """Every workgroup stores its id to out[0]: shards leave different values there."""
    (tmp_path / "racy.s").write_text(RACY)
    gpu = gcnemu.GPU()
    k = gcnemu.load(str(tmp_path / "racy.s")).kernel("racy")
    gpu.to_device(np.ones(64, np.uint8), name="before")
    out = gpu.to_device(np.full(4, 0xEE, np.uint32), name="out")
    with pytest.raises(DispatchError) as e:
        gpu.dispatch(k, (64 * 8,), (64,), [out], client=client, shards=4)
    msg = str(e.value)
    assert "shards 0 and 1 wrote different values (0x01 and 0x03)" in msg, msg
    assert f"0x{out.address:x}, buffer 'out' (0x{out.address:x}, 16 bytes) + 0" in msg, msg
    assert np.array_equal(out.to_numpy(), np.full(4, 0xEE, np.uint32))   # nothing written
    # locally the last workgroup's store wins
    gpu.dispatch(k, (64 * 8,), (64,), [out])
    assert out.to_numpy()[0] == 7


def test_a_shard_that_fails_raises_its_error_here(client):
    gpu = gcnemu.GPU(step_limit=200)                      # the watchdog goes with the shards
    k = gcnemu.load(str(corpus.hsaco_path("mandelbrot"))).kernel("mandelbrot")
    out = gpu.empty((96, 128), np.uint32)
    with pytest.raises(ExecutionError, match=r"step limit of 200 instructions reached"):
        gpu.dispatch(k, (128, 96), (16, 8), [out, np.float32(-2.2), np.float32(-1.2),
                                             np.float32(0.02), np.float32(0.02),
                                             np.uint32(1000)], client=client)


def test_what_is_not_sharded_runs_here_and_says_why(client):
    _, rep = _corpus_dispatch("mandelbrot", client, timing=True)
    assert rep.shards == 0 and rep.cycles > 0
    assert rep.serial_reason.startswith("not sharded: timing mode is not sharded")
    _, rep = _corpus_dispatch("atomics_global", client)
    assert rep.shards == 0
    assert rep.serial_reason.startswith("not sharded: the kernel uses flat_atomic_")
    gpu = gcnemu.GPU()
    k = gcnemu.load(str(corpus.hsaco_path("saxpy"))).kernel("saxpy")
    y, x = gpu.to_device(np.ones(64, np.float32)), gpu.to_device(np.ones(64, np.float32))
    rep = gpu.dispatch(k, (64,), (64,), [y, x, np.float32(1), np.uint32(64)], client=client)
    assert rep.shards == 0 and rep.serial_reason == "not sharded: one workgroup"


# --- merging shards' writes (no cluster) ----------------------------------------------------
def _writes(mem, pairs):
    """ShardWrites of {address: bytes} written over what mem holds."""
    starts, lengths, values = [], [], []
    for addr, data in pairs:
        starts.append(addr - BASE)
        lengths.append(len(data))
        values.append(np.frombuffer(bytes(data), np.uint8))
    return ShardWrites(np.array(starts, np.int64), np.array(lengths, np.int64),
                       np.concatenate(values) if values else np.zeros(0, np.uint8))


@pytest.mark.parametrize("op, width, fold", [
    ("add", 4, lambda o, xs: (o + sum(xs)) % 2**32),
    ("umin", 4, lambda o, xs: min([o] + xs)),
    ("smax", 8, lambda o, xs: max([o] + xs, key=lambda v: v - 2**64 if v >> 63 else v)),
    ("or", 4, lambda o, xs: functools.reduce(operator.or_, xs, o)),
    ("xor", 8, lambda o, xs: functools.reduce(operator.xor, xs, o)),
])
def test_merge_of_commuting_atomics(op, width, fold):
    """Three shards each apply their own operands to the same words; the merge must give
    what applying all of them to the original gives (computed here with Python integers)."""
    rng = np.random.default_rng(5)
    mem = Memory()
    a = mem.allocate(8 * width, name="bins")
    orig = [int(v) for v in rng.integers(0, 2**(8 * width) - 1, 8, dtype=np.uint64,
                                         endpoint=True)]
    mem.write(a, b"".join(v.to_bytes(width, "little") for v in orig))
    before = mem.snapshot()
    operands = [[int(v) for v in rng.integers(0, 2**(8 * width) - 1, 8, dtype=np.uint64,
                                              endpoint=True)] for _ in range(3)]
    writes = []
    for ops in operands:
        pairs = []
        for w in range(8):
            v = fold(orig[w], [ops[w]]) if op != "add" else (orig[w] + ops[w]) % 2**(8 * width)
            pairs.append((a + w * width, int(v).to_bytes(width, "little")))
        writes.append(_writes(mem, pairs))
    merge_writes(mem, before, writes, (op, width))
    got = [int.from_bytes(mem.read(a + w * width, width), "little") for w in range(8)]
    assert got == [int(fold(orig[w], [o[w] for o in operands])) for w in range(8)]


def test_merge_refuses_different_values_and_keeps_equal_ones():
    mem = Memory()
    mem.allocate(300, name="pad")
    a = mem.allocate(64, name="out")
    before = mem.snapshot()
    merge_writes(mem, before, [_writes(mem, [(a, b"\x01\x02")]),
                               _writes(mem, [(a + 1, b"\x02\x03")])])
    assert mem.read(a, 3) == b"\x01\x02\x03"         # byte 1: the same value from both
    before = mem.snapshot()
    with pytest.raises(DispatchError, match=r"shards 0 and 2 wrote different values \(0x05 and "
                       r"0x06\) to the byte at 0x[0-9a-f]+, buffer 'out' "
                       r"\(0x[0-9a-f]+, 64 bytes\) \+ 40"):
        merge_writes(mem, before, [_writes(mem, [(a + 40, b"\x05")]), _writes(mem, []),
                                   _writes(mem, [(a + 40, b"\x06")])])
    assert mem.read(a + 40, 1) == b"\x00"


def test_shard_ranges_cover_every_workgroup_once():
    for n, k in [(10, 3), (7, 7), (3, 8), (1536, 4)]:
        rs = shard_ranges(n, k)
        assert [g for r in rs for g in r] == list(range(n))
        assert len(rs) == min(n, k) and max(map(len, rs)) - min(map(len, rs)) <= 1


def test_memory_snapshot_round_trip():
    mem = Memory()
    a = mem.allocate(1000, name="a")
    b = mem.allocate(10, name="b")
    c = mem.allocate(5000, name="c")
    mem.write(a, np.arange(250, dtype=np.uint32))
    mem.free(b)
    copy = Memory.from_snapshot(mem.snapshot())
    assert copy.read(a, 1000) == mem.read(a, 1000)
    assert copy.describe(c + 7) == mem.describe(c + 7) == f"buffer 'c' (0x{c:x}, 5000 bytes) + 7"
    assert not copy.is_mapped(b) and copy.allocate(10, name="d") == mem.allocate(10, name="d")
