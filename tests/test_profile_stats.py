"""`gcnemu stats` through the CLI entry point: RGA's columns checked against the code object's
kernel descriptor and metadata decoded here independently (pyelftools, msgpack and the
AMDGPUUsage descriptor layout), occupancy against the CLRX table, and `--livereg` against
hand-counted tiny assembly kernels."""
from __future__ import annotations

import csv
import io
import shutil
import struct
from pathlib import Path

import msgpack
import pytest
from elftools.elf.elffile import ELFFile

from gcnemu.cli import main

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "profile"
#: clrx-gcn-timings (seed): waves per SIMD -> SGPRs a wave may hold
SGPR_TABLE = {1: 128, 2: 128, 3: 128, 4: 128, 5: 96, 6: 80, 7: 72, 8: 64, 9: 56, 10: 48}


def _stats_csv(capsys, path, *extra):
    assert main(["stats", str(path), "--csv", *extra]) == 0
    return list(csv.DictReader(io.StringIO(capsys.readouterr().out)))


def _descriptor(path, kernel):
    """(fields of NAME.kd by the AMDGPUUsage v3 layout, the kernel symbol's size, metadata)."""
    with open(path, "rb") as f:
        elf = ELFFile(f)
        syms = {s.name: s for s in elf.get_section_by_name(".symtab").iter_symbols()}
        kd = syms[f"{kernel}.kd"]
        sec = elf.get_section(kd["st_shndx"])
        off = kd["st_value"] - sec["sh_addr"]
        raw = sec.data()[off:off + 64]
        meta = None
        for s in elf.iter_sections():
            if s["sh_type"] == "SHT_NOTE":
                for note in s.iter_notes():
                    if note["n_name"] == "AMDGPU" and note["n_type"] == 32:
                        desc = note["n_desc"]
                        meta = msgpack.unpackb(desc if isinstance(desc, bytes) else desc.encode("latin1"))
        size = syms[kernel]["st_size"]
    group, private = struct.unpack_from("<II", raw, 0)
    rsrc1, = struct.unpack_from("<I", raw, 48)
    km = next(k for k in meta["amdhsa.kernels"] if k[".name"] == kernel)
    return {"group": group, "private": private, "vgpr_alloc": ((rsrc1 & 0x3F) + 1) * 4,
            "sgpr_alloc": (((rsrc1 >> 6) & 0xF) + 1) * 8}, size, km


@pytest.mark.parametrize("name,kernel", [("matmul_tiled", "matmul"), ("conv2d", "conv2d_5x5"),
                                         ("scratch_spill", "scratch_spill")])
def test_columns_match_the_descriptor(capsys, name, kernel):
    path = ROOT / "kernels" / name / "kernel.hsaco"
    d, size, km = _descriptor(path, kernel)
    row, = _stats_csv(capsys, path)
    assert list(row)[:14] == ["KERNEL", "DEVICE", "SCRATCH_MEM", "THREADS_PER_WORKGROUP",
                              "WAVEFRONT_SIZE", "AVAILABLE_LDS_BYTES", "USED_LDS_BYTES",
                              "AVAILABLE_SGPRs", "USED_SGPRs", "SGPR_SPILLS", "AVAILABLE_VGPRs",
                              "USED_VGPRs", "VGPR_SPILLS", "ISA_SIZE"]
    assert row["KERNEL"] == kernel and row["DEVICE"] == "gfx700"
    assert int(row["USED_LDS_BYTES"]) == d["group"] == km[".group_segment_fixed_size"]
    assert int(row["SCRATCH_MEM"]) == d["private"] == km[".private_segment_fixed_size"]
    assert int(row["USED_VGPRs"]) == km[".vgpr_count"]
    assert d["vgpr_alloc"] - 4 < km[".vgpr_count"] <= d["vgpr_alloc"]
    assert int(row["USED_SGPRs"]) == km[".sgpr_count"] <= d["sgpr_alloc"]
    assert int(row["VGPR_SPILLS"]) == km.get(".vgpr_spill_count", 0)
    assert int(row["SGPR_SPILLS"]) == km.get(".sgpr_spill_count", 0)
    assert int(row["ISA_SIZE"]) == size
    assert int(row["THREADS_PER_WORKGROUP"]) == km[".max_flat_workgroup_size"]
    assert int(row["WAVEFRONT_SIZE"]) == km[".wavefront_size"] == 64
    # occupancy: the CLRX table from the descriptor's allocation (256 VGPRs and 512 SGPRs a SIMD)
    by_v = 256 // d["vgpr_alloc"]
    by_s = max(n for n, lim in SGPR_TABLE.items() if d["sgpr_alloc"] <= lim)
    want = min(10, by_v, by_s)
    assert int(row["WAVES_PER_SIMD"]) == want
    assert row["OCCUPANCY_LIMITER"] == ("waves" if want == 10 else "VGPRs" if want == by_v else "SGPRs")


def test_scratch_spill_reports_scratch(capsys):
    row, = _stats_csv(capsys, ROOT / "kernels" / "scratch_spill" / "kernel.hsaco")
    assert int(row["SCRATCH_MEM"]) > 0


def test_terminal_table_and_errors(capsys):
    assert main(["stats", str(ROOT / "kernels" / "conv2d" / "kernel.hsaco")]) == 0
    out = capsys.readouterr().out
    assert "USED_VGPRs" in out and "conv2d_5x5" in out and "OCCUPANCY_LIMITER" in out
    assert main(["stats", str(ROOT / "kernels" / "conv2d" / "kernel.hsaco"), "--kernel", "nope"]) == 1
    assert "no kernel named 'nope'" in capsys.readouterr().err
    assert main(["stats", str(ROOT / "kernels" / "conv2d" / "kernel.hsaco"), "--gpu", "gtx"]) == 1
    assert "unknown GPU preset 'gtx'" in capsys.readouterr().err


def _livereg(capsys, path):
    assert main(["stats", str(path), "--livereg"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [ln.split() for ln in lines[2:] if ln.strip()]
    return lines[0], [int(r[0]) for r in rows], [int(r[1]) for r in rows]


def test_livereg_loop_hand_counted(capsys):
    # live = registers live into the instruction plus those it writes; the loop keeps v0, v1,
    # v4, v5 and s2 live around the back edge; vcc counts as two SGPRs
    head, v, s = _livereg(capsys, DATA / "livereg_loop.s")
    assert v == [2, 3, 3, 4, 4, 4, 4, 4, 3, 0]
    assert s == [2, 1, 1, 1, 3, 1, 1, 1, 0, 0]
    assert "peak 4 VGPRs, 3 SGPRs" in head


def test_livereg_exec_skip_branch_hand_counted(capsys):
    # s_cbranch_execz has both edges: v1 = 0 of the first instruction reaches the store past
    # the masked v_mov when EXEC is empty, so it is live through the compare and saveexec
    head, v, s = _livereg(capsys, DATA / "livereg_execz.s")
    assert v == [4, 4, 3, 3, 3, 3, 3, 0]
    assert s == [0, 2, 4, 2, 2, 2, 0, 0]
    assert "peak 4 VGPRs, 4 SGPRs" in head


def test_livereg_peak_never_exceeds_the_allocation(capsys):
    for name, kernel in (("matmul_tiled", "matmul"), ("nbody", "nbody_acc")):
        path = ROOT / "kernels" / name / "kernel.hsaco"
        _, v, _ = _livereg(capsys, path)
        _, _, km = _descriptor(path, kernel)
        assert 0 < max(v) <= km[".vgpr_count"]


@pytest.mark.skipif(not shutil.which("clang-14"), reason="needs clang-14, lld-14, libclc-14")
def test_opencl_source(capsys):
    row, = _stats_csv(capsys, ROOT / "benchmarks" / "kernels" / "matmul_naive.cl")
    assert row["KERNEL"] == "matmul" and int(row["USED_LDS_BYTES"]) == 0
    assert 0 < int(row["USED_VGPRs"]) <= 256 and int(row["ISA_SIZE"]) > 0


CAL = ROOT / "kernels" / "_cal" / "MatrixMultiplication_Kernels.bin"


def test_cal_binary(capsys):
    rows = _stats_csv(capsys, CAL)
    assert [r["KERNEL"] for r in rows] == ["mmmKernel", "mmmKernel_local", "mmmKernel_local2"]
    assert main(["stats", str(CAL), "--kernel", "mmmKernel", "--livereg"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    peak = int(head.split("peak ")[1].split()[0])
    assert 0 < peak <= int(rows[0]["USED_VGPRs"])
