"""`gcnemu profile`, `run --trace` and `gcnemu compare` through the CLI entry point: rocprof's
results.csv header and a counter counted here from the program's text, the hotspot listing
summing to the dispatch's wave-cycles (and to CLRX issue costs where nothing stalls), and the
trace file checked against the trace-event format."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from gcnemu.cli import main

ROOT = Path(__file__).resolve().parents[1]
VALU5 = ROOT / "tests" / "data" / "profile" / "valu5.s"
SAXPY = ROOT / "kernels" / "saxpy" / "kernel.hsaco"
ROCPROF_HEAD = ["Index", "KernelName", "gpu-id", "grd", "wgr", "lds", "scr", "vgpr", "sgpr"]


def _valu_lines(path) -> int:
    return sum(1 for ln in Path(path).read_text().splitlines() if ln.strip().startswith("v_"))


def test_results_csv_and_json(tmp_path, capsys):
    out_csv, out_json = tmp_path / "results.csv", tmp_path / "results.json"
    code = main(["profile", str(VALU5), "--kernel", "valu5", "--grid", "320", "--block", "64",
                 "--pmc", "SQ_WAVES,SQ_INSTS_VALU", "--pmc", "VALUBusy,Wavefronts",
                 "-o", str(out_csv), "--json", str(out_json)])
    assert code == 0, capsys.readouterr().err
    rows = list(csv.DictReader(out_csv.open()))
    assert list(rows[0]) == ROCPROF_HEAD + ["SQ_WAVES", "SQ_INSTS_VALU", "VALUBusy", "Wavefronts"]
    r = rows[0]
    waves = 320 // 64
    assert r["KernelName"] == "valu5" and int(r["grd"]) == 320 and int(r["wgr"]) == 64
    assert int(r["SQ_WAVES"]) == int(r["Wavefronts"]) == waves
    assert int(r["SQ_INSTS_VALU"]) == _valu_lines(VALU5) * waves == 25
    assert int(r["vgpr"]) == 256 and int(r["sgpr"]) == 104     # a bare .s allocates all
    js = json.loads(out_json.read_text())
    assert [{k: str(v) for k, v in js[0].items()}] == rows


def test_list_counters(capsys):
    assert main(["profile", "--list-counters"]) == 0
    names = capsys.readouterr().out.split()
    for n in ("SQ_WAVES", "SQ_INSTS_VALU", "GRBM_GUI_ACTIVE", "TCC_HIT", "VALUUtilization",
              "VALUBusy", "SALUBusy", "MemUnitBusy", "L2CacheHit", "Wavefronts", "occupancy"):
        assert n in names
    assert len(names) == len(set(names))


def test_unknown_counter_is_named(capsys):
    code = main(["profile", str(VALU5), "--kernel", "valu5", "--grid", "64", "--pmc", "SQ_NOPE"])
    assert code == 1
    err = capsys.readouterr().err
    assert "unknown counter(s) SQ_NOPE" in err and "SQ_INSTS_VALU" in err


def _hotspots(capsys, *argv):
    assert main(["profile", *argv, "--hotspots", "program"]) == 0
    out = capsys.readouterr().out.splitlines()
    i = next(k for k, ln in enumerate(out) if "wave-cycles over" in ln)
    head, rows, total = out[i], out[i + 2:], None
    body = []
    for ln in rows:
        if ln.strip().endswith("total"):
            total = int(ln.split()[0])
            break
        body.append(ln)
    return head, body, total


def test_hotspots_one_wave_issue_costs(capsys):
    # one wave, no memory: every cycle is an instruction's CLRX issue cost (4 for full-rate
    # VALU/SALU, 16 for the quarter-rate v_mul_lo_u32), summed to the dispatch's cycles
    head, body, total = _hotspots(capsys, str(VALU5), "--kernel", "valu5", "--grid", "64")
    cycles = [int(ln.split()[0]) for ln in body]
    assert sum(cycles) == total
    assert f"SQ_WAVE_CYCLES {total})" in head
    issue = {ln.split()[7]: int(ln.split()[2]) for ln in body}
    assert all(float(ln.split()[5]) == int(ln.split()[0]) for ln in body)   # one execution
    assert issue["v_mul_lo_u32"] == 16 and issue["v_add_f32_e32"] == 4
    assert issue["v_mov_b32_e32"] == 4 and issue["s_add_u32"] == 4
    # 6 instructions at 4 (s_endpgm included) and one at 16, and before the first the
    # fetch of the program's one line (32 bytes) into a new GPU's cold I$: an L2 and DRAM
    # miss (l2_latency + dram_latency, gcnemu/timing/icache.py), then SIMD 0's next turn (+2)
    from gcnemu.timing import TimingConfig
    tc = TimingConfig()
    fetch = tc.l2_latency + tc.dram_latency
    assert total == 6 * 4 + 16 + fetch + 2 and f"dispatch {total} cycles" in head
    assert f"[fetch {fetch}, arbiter 2]" in body[0]


def test_hotspots_sum_to_wave_cycles_of_a_dispatch(tmp_path, capsys):
    n = 4096
    np.save(tmp_path / "x.npy", np.ones(n, np.float32))
    np.save(tmp_path / "y.npy", np.ones(n, np.float32))
    head, body, total = _hotspots(capsys, str(SAXPY), "--kernel", "saxpy", "--grid", str(n),
                                  "--block", "256", "--arg", f"inout:{tmp_path / 'y.npy'}",
                                  "--arg", f"in:{tmp_path / 'x.npy'}", "--arg", "f32:2",
                                  "--arg", f"u32:{n}")
    assert sum(int(ln.split()[0]) for ln in body) == total
    assert f"SQ_WAVE_CYCLES {total})" in head
    assert any("waitcnt" in ln and "[" in ln for ln in body)   # the loads' waits are stalls
    shares = [float(ln.split()[1].rstrip("%")) for ln in body]
    assert abs(sum(shares) - 100.0) < 0.1 * len(shares)


def _check_trace(path, level):
    doc = json.loads(Path(path).read_text())
    events = doc["traceEvents"]
    assert events
    stacks, last = {}, -1.0
    names = {}
    for e in events:
        assert {"name", "ph", "pid"} <= set(e)
        if e["ph"] == "M":
            names[(e["pid"], e.get("tid"), e["name"])] = e["args"]["name" if "name" in e["args"]
                                                                  else "sort_index"]
            continue
        assert isinstance(e["ts"], (int, float)) and e["ts"] >= last   # monotonic
        last = e["ts"]
        if e["ph"] == "C":
            assert e["args"] and all(isinstance(v, (int, float)) for v in e["args"].values())
            continue
        assert e["ph"] in ("B", "E") and "tid" in e
        st = stacks.setdefault((e["pid"], e["tid"]), [])
        if e["ph"] == "B":
            st.append(e["name"])
        else:
            assert st and st.pop() == e["name"]       # matched begin/end, properly nested
    assert all(not st for st in stacks.values())
    assert any(k[2] == "process_name" and v.startswith("CU ") for k, v in names.items())
    assert any(k[2] == "thread_name" and v.startswith("SIMD ") for k, v in names.items())
    return doc, events


def test_trace_waves(tmp_path, capsys):
    path = tmp_path / "t.json"
    code = main(["run", str(VALU5), "--kernel", "valu5", "--grid", "1024", "--block", "128",
                 "--trace", str(path)])
    assert code == 0, capsys.readouterr().err
    doc, events = _check_trace(path, "waves")
    waves = [e for e in events if e.get("cat") == "wave" and e["ph"] == "B"]
    assert len(waves) == 1024 // 64
    assert all(w["args"]["workgroup_index"] == w["args"]["wave"] // 2 for w in waves)
    mhz = doc["otherData"]["clock_mhz"]
    ends = [e["ts"] for e in events if e.get("cat") == "wave" and e["ph"] == "E"]
    assert max(ends) == pytest.approx(max(w["args"]["end_cycle"] for w in waves) / mhz)
    assert {e["name"] for e in events if e["ph"] == "C"} == {"resident waves",
                                                             "memory traffic (GB/s)"}


def test_trace_instructions(tmp_path, capsys):
    path = tmp_path / "t.json"
    code = main(["profile", str(VALU5), "--kernel", "valu5", "--grid", "128", "--pmc",
                 "SQ_WAVES", "--trace", str(path), "--trace-level", "instructions"])
    assert code == 0, capsys.readouterr().err
    _, events = _check_trace(path, "instructions")
    ins = [e for e in events if e.get("cat") == "instruction" and e["ph"] == "B"]
    assert len(ins) == 2 * 7 and ins[0]["name"] == "v_mov_b32_e32"


def test_compare_two_variants(capsys):
    code = main(["compare", f"{VALU5}:valu5", f"{VALU5}:valu5", "--grid", "256", "--pmc",
                 "SQ_INSTS_VALU"])
    assert code == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("SQ_INSTS_VALU"))
    assert line.split()[1:] == ["20", "20", "1.000"]
    assert "GRBM_GUI_ACTIVE" in out and "time_us" in out


def test_hotspots_use_the_models_table_when_there_is_one():
    # a report with the cycle model's per-instruction table (DispatchReport.pc_cycles: pc,
    # count, issue and one field per stall reason) is listed as it is, nothing apportioned
    import gcnemu
    from gcnemu.profile.hotspots import format_hotspots, pc_cycles

    kernel = gcnemu.load(str(VALU5)).kernel("valu5")
    functional = gcnemu.GPU().dispatch(kernel, grid=(64,), block=(64,))
    with pytest.raises(gcnemu.GcnEmuError, match="timing-mode"):
        pc_cycles(functional, kernel, None)
    gpu = gcnemu.GPU(timing=True)
    rep = gpu.dispatch(kernel, grid=(64,), block=(64,))
    n = len(kernel.program.instructions)
    table = np.zeros(n, [("pc", np.int64), ("count", np.int64), ("issue", np.int64),
                         ("vmcnt", np.int64), ("arbiter", np.int64)])
    table["pc"] = [i.offset for i in kernel.program.instructions]
    table["count"] = 1
    table["issue"] = np.arange(n) + 10
    table["arbiter"][2] = 7
    rep.pc_cycles = table
    pcs = pc_cycles(rep, kernel, gpu)
    assert [p.issue for p in pcs] == list(range(10, 10 + n))
    assert pcs[2].stalls == {"arbiter": 7} and pcs[2].cycles == 19
    text = format_hotspots(pcs, rep, "program")
    assert text.splitlines()[-1].split()[0] == str(sum(range(10, 10 + n)) + 7)
    assert "[arbiter 7]" in text


def test_derived_metrics_follow_rocprofs_formulas(tmp_path, capsys):
    # rocprof's formulas (cycles, not quad-cycles) over the raw counters of the same row; the
    # xbox-one preset has 12 CUs of 4 SIMDs (seed gpu-overview)
    n = 2048
    np.save(tmp_path / "x.npy", np.ones(n, np.float32))
    np.save(tmp_path / "y.npy", np.ones(n, np.float32))
    out = tmp_path / "r.csv"
    assert main(["profile", str(SAXPY), "--kernel", "saxpy", "--grid", str(n), "--block", "256",
                 "--arg", f"inout:{tmp_path / 'y.npy'}", "--arg", f"in:{tmp_path / 'x.npy'}",
                 "--arg", "f32:2", "--arg", f"u32:{n}", "-o", str(out), "--pmc",
                 "GRBM_GUI_ACTIVE,SQ_WAVES,SQ_WAVE_CYCLES,SQ_ACTIVE_INST_VALU,SQ_ACTIVE_INST_SCA,"
                 "TCC_HIT,TCC_MISS,SQ_INSTS_VALU,VALUBusy,SALUBusy,L2CacheHit,VALUInsts,"
                 "MeanOccupancyPerCU,occupancy,VALUUtilization"]) == 0
    r = {k: float(v) for k, v in next(csv.DictReader(out.open())).items() if k != "KernelName"}
    cyc = r["GRBM_GUI_ACTIVE"]
    assert r["VALUBusy"] == pytest.approx(100 * r["SQ_ACTIVE_INST_VALU"] / (48 * cyc), abs=1e-4)
    assert r["SALUBusy"] == pytest.approx(100 * r["SQ_ACTIVE_INST_SCA"] / (12 * cyc), abs=1e-4)
    assert r["L2CacheHit"] == pytest.approx(100 * r["TCC_HIT"] / (r["TCC_HIT"] + r["TCC_MISS"]),
                                            abs=1e-4)
    assert r["VALUInsts"] == r["SQ_INSTS_VALU"] / r["SQ_WAVES"]
    assert r["MeanOccupancyPerCU"] == pytest.approx(r["SQ_WAVE_CYCLES"] / (cyc * 12), abs=1e-4)
    # saxpy's waves are full (2048 work-items, 32 waves): every lane of a VALU op works
    assert r["VALUUtilization"] == 100.0
    assert 0 < r["occupancy"] <= 1


DIVERGENT = ROOT / "tests" / "data" / "profile" / "divergent.s"
#: divergent.s's VALU instructions and the lanes EXEC leaves on for each, by the ISA's rules
#: for a wave of ``n`` launched lanes (v0 = the lane's work-item id): v_cmp under all n, the
#: three after s_and_saveexec under lanes 0-15 (v_readfirstlane counts too: it is a VALU op
#: issued under EXEC), v_cmpx under those 16 (it issues before it narrows EXEC), v_mov under
#: lanes 0-3, and the last v_mov after s_or_b64 restores the n
DIVERGENT_VALU = 7


def _divergent_lanes(n):
    return n + 16 * 4 + 4 + n


def test_valu_lanes_follow_exec(tmp_path):
    import gcnemu
    prog = gcnemu.load(DIVERGENT)
    gpu = gcnemu.GPU()
    # two workgroups: a full wave, and one of 40 work-items (a partial wave)
    rep = gpu.dispatch(prog.kernel("divergent"), grid=(104,), block=(64,))
    assert rep.counters["SQ_INSTS_VALU"] == 2 * DIVERGENT_VALU
    assert rep.valu_lanes == _divergent_lanes(64) + _divergent_lanes(40)


def test_valu_utilization_counts_active_lanes(tmp_path, capsys):
    out = tmp_path / "r.csv"
    assert main(["profile", str(DIVERGENT), "--kernel", "divergent", "--grid", "64",
                 "--block", "64", "-o", str(out), "--pmc",
                 "SQ_INSTS_VALU,SQ_ACTIVE_INST_VALU,SQ_THREAD_CYCLES_VALU,VALUUtilization"]) == 0
    r = {k: float(v) for k, v in next(csv.DictReader(out.open())).items() if k != "KernelName"}
    assert r["SQ_INSTS_VALU"] == DIVERGENT_VALU
    # 196 of the 7 x 64 lane slots: 43.75 %
    assert r["VALUUtilization"] == pytest.approx(
        100 * _divergent_lanes(64) / (64 * DIVERGENT_VALU), abs=0.01)
    assert r["SQ_THREAD_CYCLES_VALU"] <= r["SQ_ACTIVE_INST_VALU"] * 64
