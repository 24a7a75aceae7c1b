"""Dispatch API behaviour on bad input: clear errors, and the GPU stays usable afterwards."""
from pathlib import Path

import numpy as np
import pytest

import gcnemu
from gcnemu import DispatchError, ExecutionError, LoaderError, MemoryFault

ROOT = Path(__file__).resolve().parents[1]
SAXPY = ROOT / "kernels" / "saxpy" / "kernel.hsaco"


def _saxpy(gpu, n, nx=None):
    y = gpu.to_device(np.ones(n, np.float32), name="y")
    x = gpu.to_device(np.arange(nx or n, dtype=np.float32), name="x")
    return y, x


def test_wrong_argument_count_and_type():
    gpu = gcnemu.GPU()
    k = gcnemu.load(SAXPY).kernel("saxpy")
    y, x = _saxpy(gpu, 64)
    with pytest.raises(DispatchError, match="takes 4 arguments, got 3"):
        gpu.dispatch(k, grid=(64,), block=(64,), args=[y, x, np.float32(2)])
    with pytest.raises(DispatchError, match="argument 0"):
        gpu.dispatch(k, grid=(64,), block=(64,), args=[1.5, x, np.float32(2), np.uint32(64)])
    with pytest.raises(DispatchError, match="argument 3"):
        gpu.dispatch(k, grid=(64,), block=(64,), args=[y, x, np.float32(2), np.float64(64)])


def test_bad_launch_shapes():
    gpu = gcnemu.GPU()
    k = gcnemu.load(SAXPY).kernel("saxpy")
    y, x = _saxpy(gpu, 64)
    args = [y, x, np.float32(2), np.uint32(64)]
    with pytest.raises(DispatchError, match="exceeds"):
        gpu.dispatch(k, grid=(2048,), block=(2048,), args=args)
    with pytest.raises(DispatchError, match="positive"):
        gpu.dispatch(k, grid=(0,), block=(64,), args=args)
    with pytest.raises(DispatchError, match="dimensions"):
        gpu.dispatch(k, grid=(64, 1), block=(64,), args=args)


def test_out_of_bounds_access_names_buffer_kernel_pc_lane_and_gpu_stays_usable():
    gpu = gcnemu.GPU()
    k = gcnemu.load(SAXPY).kernel("saxpy")
    y, x = _saxpy(gpu, 1024, nx=64)           # x has 64 floats, the kernel reads 1024
    with pytest.raises(MemoryFault) as e:
        gpu.dispatch(k, grid=(1024,), block=(256,), args=[y, x, np.float32(2), np.uint32(1024)])
    msg = str(e.value)
    assert "buffer 'x'" in msg and "kernel saxpy" in msg and "lane" in msg and "pc 0x" in msg
    # the report mode returns the faults instead; loads past the end read 0
    rep = gpu.dispatch(k, grid=(1024,), block=(256,), args=[y, x, np.float32(2), np.uint32(1024)],
                       strict=False)
    assert rep.faults and all("load from" in f for f in rep.faults)
    # the same GPU runs a correct dispatch afterwards
    y2, x2 = _saxpy(gpu, 256)
    gpu.dispatch(k, grid=(256,), block=(64,), args=[y2, x2, np.float32(3), np.uint32(256)])
    assert np.array_equal(y2.to_numpy(np.float32), np.float32(3) * np.arange(256, dtype=np.float32) + 1)


def test_not_a_gfx7_code_object_and_missing_kernel():
    with pytest.raises(LoaderError, match="not an ELF"):
        gcnemu.load(b"definitely not an ELF file")
    wrong = ROOT / "tests" / "data" / "loader" / "wrong_target_gfx803.hsaco"
    with pytest.raises(LoaderError, match="gfx803"):
        gcnemu.load(wrong)
    with pytest.raises(LoaderError, match="saxpy"):
        gcnemu.load(SAXPY).kernel("saxpi")


def test_faulting_wave_reports_kernel_workgroup_wave_pc(tmp_path):
    src = tmp_path / "spin.s"
    src.write_text("""
        s_cmp_eq_u32 s2, 3          // workgroup 3 spins forever, the others end
        s_cbranch_scc0 done
    spin:
        s_branch spin
    done:
        s_endpgm
    """)
    gpu = gcnemu.GPU(step_limit=10_000)
    k = gcnemu.load(src).kernel("spin")
    with pytest.raises(ExecutionError) as e:
        gpu.dispatch(k, grid=(8 * 64,), block=(64,), args=[])
    msg = str(e.value)
    assert "step limit" in msg and "kernel spin" in msg and "workgroup (3, 0, 0)" in msg
    assert "s_branch" in msg and "pc 0x8" in msg


def test_local_argument_and_partial_workgroups_run():
    # 100 work-items in workgroups of 64: the second group has 36 items (partial EXEC)
    gpu = gcnemu.GPU()
    k = gcnemu.load(SAXPY).kernel("saxpy")
    y, x = _saxpy(gpu, 100)
    gpu.dispatch(k, grid=(100,), block=(64,), args=[y, x, np.float32(2), np.uint32(100)])
    assert np.array_equal(y.to_numpy(np.float32), np.float32(2) * np.arange(100, dtype=np.float32) + 1)


def test_report_counts_the_waves_that_ran():
    # 513 work-items in groups of 256: two full groups of 4 waves and one of a single wave
    gpu = gcnemu.GPU()
    k = gcnemu.load(SAXPY).kernel("saxpy")
    y, x = _saxpy(gpu, 513)
    rep = gpu.dispatch(k, grid=(513,), block=(256,), args=[y, x, np.float32(1), np.uint32(513)])
    assert rep.workgroups == 3 and rep.waves == 9
