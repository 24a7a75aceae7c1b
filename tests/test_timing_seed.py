"""The seed's pixel shader in timing mode: 62 cycles per wave (cu-whitepaper).

The seed: "The Xbox One shader is ALU bound and takes 62 cycles (28 vector instructions, 4
transcendental instructions, and 18 interpolation instructions). There are 12 CUs, so 1000
shader waves means 83 waves per SIMD [per CU] or 83*62=5166 clock cycles." In CU cycles per
wave: 28 x 1 + 4 x 4 (quarter rate) + 18 x 1 = 62, i.e. 248 cycles of one SIMD's VALU.

The microcode is the seed's own (tests/test_seed_pixel_shader.py), behind a 3-instruction
scalar prologue that fetches the V# pointer from the kernel arguments (the seed's s[2:3]) and
sets s4 (M0): scalar work that other waves' VALU work hides.
"""
import numpy as np
import pytest

import gcnemu
from gcnemu.mem.descriptors import encode_vsharp

from test_seed_pixel_shader import seed_microcode
from test_timing import asm_kernel, warm

PROLOGUE = """
s_load_dwordx2 s[2:3], s[0:1], 0x0
s_mov_b32 s4, 0
s_waitcnt lgkmcnt(0)
"""


@pytest.fixture(scope="module")
def shader(tmp_path_factory):
    return asm_kernel(tmp_path_factory.mktemp("ps"), "pixel_shader", PROLOGUE + seed_microcode() + "\n")


def run(kernel, waves):
    gpu = gcnemu.GPU(timing=True)
    cb = gpu.to_device(np.ones(12, np.float32))
    vs = gpu.to_device(encode_vsharp(cb.address, 48))
    ptr = gpu.to_device(np.array([vs.address], np.uint64))
    # (the code in the I$, the data caches cold: see test_timing.warm)
    return warm(gpu, kernel, grid=(64 * waves,), block=(64,), args=[ptr])


def test_seed_counts():
    src = seed_microcode()
    lines = [l.split()[0] for l in src.splitlines() if l.strip()]
    interp = sum(1 for n in lines if n.startswith("v_interp"))
    transc = sum(1 for n in lines if n in ("v_rsq_f32", "v_log_f32", "v_exp_f32"))
    vector = sum(1 for n in lines if n.startswith("v_")) - interp - transc
    assert (vector, transc, interp) == (28, 4, 18)


def test_pixel_shader_is_248_valu_cycles_per_wave(shader):
    rep = run(shader, 12)
    assert rep.counters["SQ_ACTIVE_INST_VALU"] == 12 * 4 * 62


def test_pixel_shader_62_cycles_per_wave_per_cu(shader):
    """84 more waves per CU (21 more per SIMD) cost 84 x 62 = 5208 more cycles: the seed's
    per-wave figure, measured as a difference so that the start-up latency of the first
    (cold) scalar loads cancels. Multiples of 4 waves per CU keep the 4 SIMDs equally loaded."""
    a = run(shader, 12 * 84)
    b = run(shader, 12 * 168)
    assert b.cycles - a.cycles == 84 * 62


def test_pixel_shader_1000_waves_5166_cycles(shader):
    """The seed's total for 1000 waves on 12 CUs: 83 waves per CU x 62 = 5166 cycles, the ideal
    with every SIMD busy from the first cycle. The model adds what the seed leaves out: CUs 0-3
    run 84 waves (1000 = 12 x 83 + 4: 21 per SIMD, +62), and the first waves wait for a chain
    of three dependent cold scalar loads (kernel argument -> V# -> constants: at most
    3 x (K$ 20 + L2 50 + DRAM 100) = 510 cycles, partly overlapped with interpolation)."""
    rep = run(shader, 1000)
    assert rep.waves == 1000
    assert 5166 <= rep.cycles <= 5166 + 62 + 3 * (20 + 50 + 100)
