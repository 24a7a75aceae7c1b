"""A GPU keeps the set-up of recent launches (gcnemu.launch.Launch: state arrays, scratch, the
memory of the kernarg segment, descriptor and AQL packet) between dispatches. Every dispatch
must still behave as on fresh state: nothing a previous dispatch left (LDS, scratch, kernarg
bytes, faults, a failed wave) may show, and per-dispatch values (dispatch id, kernarg address)
must be the current ones. Expected values come from numpy / the arguments, never from a run."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import gcnemu
from gcnemu import ExecutionError, Local
from gcnemu import launch as launch_mod
from gcnemu.kernel import LoadedProgram, assembly_kernel_info
from gcnemu.isa.assembler import assemble
from gcnemu.loader.metadata import KernelArg

ROOT = Path(__file__).resolve().parents[1]
SAXPY = ROOT / "kernels" / "saxpy" / "kernel.hsaco"

# out[workgroup * 64 + lane] = LDS dword at lane * 4 before this wave writes it; then the wave
# writes a marker there (assembly launch state: s[0:1] kernarg, s2 workgroup id, v0 lane)
LDS_PEEK = """
    s_load_dwordx2 s[4:5], s[0:1], 0x0
    s_mov_b32 m0, -1
    v_lshlrev_b32 v1, 2, v0
    ds_read_b32 v2, v1
    s_lshl_b32 s6, s2, 8
    v_add_i32 v3, vcc, s6, v1
    s_waitcnt lgkmcnt(0)
    v_mov_b32 v5, s5
    v_add_i32 v4, vcc, s4, v3
    v_addc_u32 v5, vcc, 0, v5, vcc
    flat_store_dword v[4:5], v2
    v_or_b32 v6, 0xabc00000, v3
    ds_write_b32 v1, v6
    s_waitcnt vmcnt(0) lgkmcnt(0)
    s_endpgm
"""

# out[0] = kernarg dword at byte 32 (past the arguments); if the flag (kernarg byte 8) is set,
# then store 0xdead there
KERNARG_SCRIBBLE = """
    s_load_dwordx2 s[4:5], s[0:1], 0x0
    s_load_dword s7, s[0:1], 0x8
    s_load_dword s8, s[0:1], 0x2
    s_waitcnt lgkmcnt(0)
    v_mov_b32 v2, s7
    v_mov_b32 v4, s4
    v_mov_b32 v5, s5
    flat_store_dword v[4:5], v2
    s_waitcnt vmcnt(0)
    s_cmp_eq_u32 s8, 0
    s_cbranch_scc1 done
    v_mov_b32 v4, s0
    v_mov_b32 v5, s1
    v_add_i32 v4, vcc, 32, v4
    v_addc_u32 v5, vcc, 0, v5, vcc
    v_mov_b32 v2, 0xdead
    flat_store_dword v[4:5], v2
done:
    s_waitcnt vmcnt(0)
    s_endpgm
"""

# out[workgroup] = value + workgroup, value = kernarg dword 2; value 0 spins forever
STORE_OR_SPIN = """
    s_load_dwordx2 s[4:5], s[0:1], 0x0
    s_load_dword s6, s[0:1], 0x2
    s_lshl_b32 s7, s2, 2
    s_waitcnt lgkmcnt(0)
    s_cmp_eq_u32 s6, 0
    s_cbranch_scc0 work
spin:
    s_branch spin
work:
    s_add_u32 s6, s6, s2
    s_add_u32 s4, s4, s7
    s_addc_u32 s5, s5, 0
    v_mov_b32 v2, s6
    v_mov_b32 v4, s4
    v_mov_b32 v5, s5
    flat_store_dword v[4:5], v2
    s_waitcnt vmcnt(0)
    s_endpgm
"""

# an AMDHSA-style launch state (see _abi_kernel): s[0:3] private segment buffer, s[4:5] kernarg,
# s[6:7] dispatch id, s8 workgroup id x, s9 private segment wave offset.
# out[2 * gid] = private dword 0 of the lane before the wave writes it, out[2 * gid + 1] = the
# low dword of the dispatch id
SCRATCH_AND_ID = """
    s_load_dwordx2 s[10:11], s[4:5], 0x0
    buffer_load_dword v2, off, s[0:3], s9 offset:0
    s_waitcnt vmcnt(0) lgkmcnt(0)
    v_mov_b32 v3, 0x5555
    buffer_store_dword v3, off, s[0:3], s9 offset:0
    s_lshl_b32 s12, s8, 6
    v_add_i32 v1, vcc, s12, v0
    v_lshlrev_b32 v1, 3, v1
    v_mov_b32 v6, v2
    v_mov_b32 v7, s6
    v_mov_b32 v5, s11
    v_add_i32 v4, vcc, s10, v1
    v_addc_u32 v5, vcc, 0, v5, vcc
    flat_store_dwordx2 v[4:5], v[6:7]
    s_waitcnt vmcnt(0)
    s_endpgm
"""


# s[0:1] dispatch packet, s[2:3] kernarg: out[0:16] = the AQL packet's dwords, out[16:18] = the
# kernarg segment address (work-item i writes out[i])
PACKET_PEEK = """
    s_load_dwordx2 s[6:7], s[2:3], 0x0
    s_load_dwordx16 s[8:23], s[0:1], 0x0
    s_waitcnt lgkmcnt(0)
    v_mov_b32 v1, 0
""" + "".join(f"    v_writelane_b32 v1, s{8 + i}, {i}\n" for i in range(16)) + """
    v_writelane_b32 v1, s2, 16
    v_writelane_b32 v1, s3, 17
    v_lshlrev_b32 v2, 2, v0
    v_mov_b32 v5, s7
    v_add_i32 v4, vcc, s6, v2
    v_addc_u32 v5, vcc, 0, v5, vcc
    flat_store_dword v[4:5], v1
    s_waitcnt vmcnt(0)
    s_endpgm
"""


def _asm_kernel(tmp_path, name, src):
    p = tmp_path / f"{name}.s"
    p.write_text(src)
    return gcnemu.load(p).kernel(name)


def _abi_kernel(name, src, **fields):
    """A code-object-v3 style kernel with one pointer argument; by default SCRATCH_AND_ID's
    launch state (16 private bytes per lane, the dispatch id enabled)."""
    launch = dict(user_sgpr_count=8, enable_sgpr_private_segment_buffer=1,
                  enable_sgpr_kernarg_segment_ptr=1, enable_sgpr_dispatch_id=1,
                  enable_sgpr_workgroup_id_x=1, enable_sgpr_workgroup_id_y=0,
                  enable_sgpr_workgroup_id_z=0, enable_private_segment=1, private_segment_fixed_size=16)
    launch.update(fields)
    info = dataclasses.replace(
        assembly_kernel_info(name, assemble(src)), code_object_version=3, enable_vgpr_workitem_id=0,
        has_metadata=True, kernarg_segment_size=8,
        args=[KernelArg(offset=0, size=8, value_kind="global_buffer", name="out")], **launch)
    return LoadedProgram(None, {name: info}).kernel(name)


def _saxpy_check(gpu, k, n, block, a=np.float32(2.5)):
    rng = np.random.default_rng(n)
    x = rng.uniform(-4, 4, n).astype(np.float32)
    y0 = rng.uniform(-4, 4, n).astype(np.float32)
    y = gpu.to_device(y0)
    xb = gpu.to_device(x)
    grid = -(-n // block) * block
    gpu.dispatch(k, grid=(grid,), block=(block,), args=[y, xb, a, np.uint32(n)])
    assert np.array_equal(y.to_numpy(np.float32), a * x + y0), (n, block)


@pytest.mark.parametrize("waves_per_batch", [128, 2])
def test_lds_reads_zero_in_every_dispatch(tmp_path, waves_per_batch):
    gpu = gcnemu.GPU(waves_per_batch=waves_per_batch)
    k = _asm_kernel(tmp_path, "lds_peek", LDS_PEEK)
    for _ in range(3):
        out = gpu.to_device(np.full(8 * 64, 7, np.uint32))
        gpu.dispatch(k, grid=(8 * 64,), block=(64,), args=[out, Local(256)])
        assert np.array_equal(out.to_numpy(np.uint32), np.zeros(8 * 64, np.uint32))


def test_kernarg_bytes_a_kernel_wrote_do_not_reach_the_next_dispatch(tmp_path):
    gpu = gcnemu.GPU()
    k = _asm_kernel(tmp_path, "scribble", KERNARG_SCRIBBLE)
    out = gpu.to_device(np.full(4, 7, np.uint32))
    for flag in (1, 1, 0):
        gpu.dispatch(k, grid=(64,), block=(64,), args=[out, np.uint32(flag)])
        assert out.to_numpy(np.uint32)[0] == 0


def test_kernarg_segment_of_another_size_is_the_one_the_waves_see(tmp_path):
    # several batches: all but the first take their launch state from the first one's copy;
    # a longer raw kernarg segment (2 pages) needs new memory at another address
    gpu = gcnemu.GPU(waves_per_batch=2)
    k = _asm_kernel(tmp_path, "store_or_spin", STORE_OR_SPIN)
    for value, pad in ((7, 0), (900, 40), (11, 0), (12, 40)):
        out = gpu.to_device(np.zeros(8, np.uint32))
        gpu.dispatch(k, grid=(8 * 64,), block=(64,), args=[out, np.uint32(value)] + [np.uint64(0)] * pad)
        assert np.array_equal(out.to_numpy(np.uint32), value + np.arange(8, dtype=np.uint32)), value


def test_failed_dispatch_then_good_one_of_the_same_launch(tmp_path):
    gpu = gcnemu.GPU(step_limit=5_000, waves_per_batch=4)
    k = _asm_kernel(tmp_path, "store_or_spin", STORE_OR_SPIN)
    out = gpu.to_device(np.zeros(8, np.uint32))
    with pytest.raises(ExecutionError, match="step limit"):
        gpu.dispatch(k, grid=(8 * 64,), block=(64,), args=[out, np.uint32(0)])
    rep = gpu.dispatch(k, grid=(8 * 64,), block=(64,), args=[out, np.uint32(40)])
    assert rep.faults == [] and rep.waves == 8
    assert np.array_equal(out.to_numpy(np.uint32), 40 + np.arange(8, dtype=np.uint32))


def test_faults_belong_to_their_dispatch():
    gpu = gcnemu.GPU()
    k = gcnemu.load(SAXPY).kernel("saxpy")
    n = 1024
    y = gpu.to_device(np.ones(n, np.float32))
    short_x = gpu.to_device(np.arange(64, dtype=np.float32))
    rep = gpu.dispatch(k, grid=(n,), block=(256,), args=[y, short_x, np.float32(2), np.uint32(n)],
                       strict=False)
    assert rep.faults
    x = gpu.to_device(np.arange(n, dtype=np.float32))
    y = gpu.to_device(np.ones(n, np.float32))
    rep = gpu.dispatch(k, grid=(n,), block=(256,), args=[y, x, np.float32(2), np.uint32(n)])
    assert rep.faults == []
    assert np.array_equal(y.to_numpy(np.float32), np.float32(2) * np.arange(n, dtype=np.float32) + 1)


def test_freed_and_reallocated_buffer_reads_zero(tmp_path):
    gpu = gcnemu.GPU()
    k = _asm_kernel(tmp_path, "store_or_spin", STORE_OR_SPIN)
    out = gpu.to_device(np.zeros(4, np.uint32))
    gpu.dispatch(k, grid=(4 * 64,), block=(64,), args=[out, np.uint32(5)])
    gpu.memory.free(out.address)
    again = gpu.empty(64)
    assert np.array_equal(again.to_numpy(np.uint32), np.zeros(16, np.uint32))
    gpu.dispatch(k, grid=(2 * 64,), block=(64,), args=[again, np.uint32(9)])
    assert np.array_equal(again.to_numpy(np.uint32)[:4], [9, 10, 0, 0])


@pytest.mark.parametrize("waves_per_batch", [128, 1])
def test_scratch_starts_zero_and_dispatch_ids_count(waves_per_batch):
    gpu = gcnemu.GPU(waves_per_batch=waves_per_batch)
    k = _abi_kernel("scratch_and_id", SCRATCH_AND_ID)
    groups = 4
    for i in range(3):
        out = gpu.to_device(np.full(2 * 64 * groups, 3, np.uint32))
        gpu.dispatch(k, grid=(64 * groups,), block=(64,), args=[out])
        got = out.to_numpy(np.uint32).reshape(-1, 2)
        assert np.array_equal(got[:, 1], np.full(64 * groups, i, np.uint32))
        if waves_per_batch >= groups:
            # one batch per dispatch (batches of one dispatch share a worker's scratch)
            assert np.array_equal(got[:, 0], np.zeros(64 * groups, np.uint32))


def test_shapes_and_kernels_alternating_beyond_the_cache(tmp_path):
    gpu = gcnemu.GPU(waves_per_batch=8)
    saxpy = gcnemu.load(SAXPY).kernel("saxpy")
    other = _asm_kernel(tmp_path, "store_or_spin", STORE_OR_SPIN)
    shapes = [(64, 64), (100, 64), (513, 256), (1000, 128), (4096, 256), (77, 32), (3000, 192),
              (129, 64), (2048, 64), (5, 256), (640, 64)]
    assert len(shapes) > launch_mod.KEEP_LAUNCHES
    for rnd in range(2):
        for j, (n, block) in enumerate(shapes):
            _saxpy_check(gpu, saxpy, n, block)
            groups = j + 1
            out = gpu.to_device(np.zeros(groups, np.uint32))
            gpu.dispatch(other, grid=(groups * 64,), block=(64,), args=[out, np.uint32(1000 + rnd)])
            assert np.array_equal(out.to_numpy(np.uint32), 1000 + rnd + np.arange(groups, dtype=np.uint32))
    # released launches unmapped their memory
    kept = [name for name in gpu.memory.alloc_names if name.endswith(".kernarg")]
    assert len(kept) <= launch_mod.KEEP_LAUNCHES


def test_launch_too_big_to_keep_is_released(monkeypatch):
    monkeypatch.setattr(launch_mod, "KEEP_LAUNCH_BYTES", 0)
    gpu = gcnemu.GPU()
    k = _abi_kernel("scratch_and_id", SCRATCH_AND_ID)
    before = list(gpu.memory.alloc_names)
    for i in range(2):
        out = gpu.to_device(np.full(2 * 64 * 2, 3, np.uint32), name=f"out{i}")
        gpu.dispatch(k, grid=(128,), block=(64,), args=[out])
        got = out.to_numpy(np.uint32).reshape(-1, 2)
        assert np.array_equal(got, np.stack([np.zeros(128), np.full(128, i)], 1).astype(np.uint32))
    assert gpu.memory.alloc_names == before + ["out0", "out1"]


def test_one_and_two_workers_alternating():
    gpu = gcnemu.GPU(waves_per_batch=4)
    k = gcnemu.load(SAXPY).kernel("saxpy")
    n = 64 * 40
    x = np.arange(n, dtype=np.float32)
    xb = gpu.to_device(x)
    for rnd, workers in enumerate((2, 1, 2, 1)):
        y = gpu.to_device(np.full(n, rnd, np.float32))
        rep = gpu.dispatch(k, grid=(n,), block=(64,), args=[y, xb, np.float32(3), np.uint32(n)],
                           workers=workers)
        assert rep.workers == workers
        assert np.array_equal(y.to_numpy(np.float32), np.float32(3) * x + np.float32(rnd))


def test_timing_mode_repeats_a_fresh_gpus_report():
    k = gcnemu.load(SAXPY).kernel("saxpy")
    n = 1000

    def run(gpu):
        y = gpu.to_device(np.ones(n, np.float32))
        x = gpu.to_device(np.arange(n, dtype=np.float32))
        return gpu.dispatch(k, grid=(1024,), block=(256,), args=[y, x, np.float32(2), np.uint32(n)])

    fresh = run(gcnemu.GPU(timing=True))
    gpu = gcnemu.GPU(timing=True)
    reps = []
    for _ in range(3):
        gpu.caches.flush("all")   # the caches outlive dispatches: start each run cold
        reps.append(run(gpu))
    for rep in reps:
        assert rep.cycles == fresh.cycles and rep.counters == fresh.counters
        assert np.array_equal(rep.wave_cycles, fresh.wave_cycles)


def test_kernel_info_replaced_after_a_dispatch_takes_effect(tmp_path):
    # assembly kernels claim 256 VGPRs (one wave per SIMD); with 8 the limit is 10 waves
    gpu = gcnemu.GPU()
    k = _asm_kernel(tmp_path, "store_or_spin", STORE_OR_SPIN)
    out = gpu.to_device(np.zeros(2, np.uint32))
    rep = gpu.dispatch(k, grid=(128,), block=(64,), args=[out, np.uint32(3)])
    assert rep.occupancy.waves_per_simd == 1
    k.info = dataclasses.replace(k.info, vgpr_count=8, sgpr_count=16)
    rep = gpu.dispatch(k, grid=(128,), block=(64,), args=[out, np.uint32(4)])
    assert rep.occupancy.waves_per_simd == 10
    assert np.array_equal(out.to_numpy(np.uint32), [4, 5])


def test_dispatch_packet_is_the_current_launchs():
    # hsa_kernel_dispatch_packet_t (HSA runtime spec): header u16, setup u16 (dimensions),
    # workgroup_size_x/y/z u16, reserved u16, grid_size_x/y/z u32, private and group segment
    # sizes u32, kernel_object u64, kernarg_address u64, reserved u64, completion_signal u64
    gpu = gcnemu.GPU(waves_per_batch=1)
    k = _abi_kernel("packet_peek", PACKET_PEEK, user_sgpr_count=4, enable_sgpr_private_segment_buffer=0,
                    enable_sgpr_dispatch_ptr=1, enable_sgpr_dispatch_id=0, enable_private_segment=0,
                    private_segment_fixed_size=0)
    header = 2 | 2 << 9 | 2 << 11     # kernel dispatch, system-scope acquire and release fences
    for grid, block in ((64, 64), (256, 128), (64, 64), (320, 64)):
        out = gpu.to_device(np.full(block, 7, np.uint32))    # every workgroup writes the same
        gpu.dispatch(k, grid=(grid,), block=(block,), args=[out])
        got = out.to_numpy(np.uint32)
        assert got[0] & 0xFFFF == header   # (setup: the dispatcher passes the grid padded to 3-D)
        assert got[1] == block | 1 << 16 and got[2] == 1
        assert got[3:6].tolist() == [grid, 1, 1] and got[6:8].tolist() == [0, 0]
        assert got[8] | got[9] and got[12:16].tolist() == [0, 0, 0, 0]
        assert got[10:12].tolist() == got[16:18].tolist()   # kernarg_address: the SGPRs' segment
