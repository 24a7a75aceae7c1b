"""The pixel-shader microcode printed in the seed (cu-whitepaper.txt) runs as a wave.

The code is taken from the seed document itself, assembled by gcnemu, and run with
barycentrics in v0/v1, interpolation parameters in LDS and a constant buffer behind a V#.
The reference is the seed's HLSL, evaluated in numpy in the microcode's operation order
(float32, unfused mad, RTZ f16 packing); the exported colour must match within 1 f16 ulp
(v_rsq/v_log/v_exp are approximate on the hardware; gcnemu's are within 1 f32 ulp).
"""
from pathlib import Path

import numpy as np
import pytest

import gcnemu
from gcnemu.golden import ulp_distance
from gcnemu.mem.descriptors import encode_vsharp
from gcnemu.mem.space import Memory

SEED = Path(__file__).resolve().parents[1].parent / "shared" / "seeds" / "cu-whitepaper.txt"


def seed_microcode() -> str:
    if not SEED.exists():
        pytest.skip("../shared/seeds/cu-whitepaper.txt is not present")
    text = SEED.read_text()
    start = text.index("s_mov_b32     m0, s4")
    end = text.index("s_endpgm", start) + len("s_endpgm")
    return text[start:end]


def f32(x):
    return np.float32(x)


def test_seed_pixel_shader_exports_the_hlsl_colour():
    src = seed_microcode()
    assert src.count("v_interp_p1_f32") == 9 and "exp           mrt0" in src
    rng = np.random.default_rng(7)
    # attributes: 0 = colour v, 1 = normal n, 2 = toPixel; one primitive: 12 dwords per attr
    p0 = rng.uniform(0.2, 1.0, (3, 4)).astype(np.float32)
    p10 = rng.uniform(-0.3, 0.3, (3, 4)).astype(np.float32)
    p20 = rng.uniform(-0.3, 0.3, (3, 4)).astype(np.float32)
    lds = np.zeros((3, 12), np.float32)
    for a in range(3):
        lds[a, 0:8:2] = p0[a]
        lds[a, 1:8:2] = p10[a]
        lds[a, 8:12] = p20[a]
    cbuf = np.zeros(12, np.float32)
    cbuf[0:3] = [0.3, 0.5, 0.8]          # c0: dirToLight
    cbuf[4:7] = [0.9, 0.7, 0.4]          # c1: sunColor
    cbuf[8] = 8.0                        # c2.x: specPower
    mem = Memory()
    cb = mem.allocate(cbuf.nbytes, name="cbuffer")
    mem.write(cb, cbuf)
    vs = mem.allocate(16, name="v#")
    mem.write(vs, encode_vsharp(cb, cbuf.nbytes))
    i_bary = rng.uniform(0, 1, 64).astype(np.float32)
    j_bary = (rng.uniform(0, 1, 64) * (1 - i_bary)).astype(np.float32)
    st = gcnemu.run_snippet(src, sgpr={2: vs & 0xFFFFFFFF, 3: vs >> 32, 4: 0},
                            vgpr={0: i_bary, 1: j_bary}, memory=mem, lds=lds, mode=0x0F0 | 0x300)
    assert len(st.exports) == 1
    ex = st.exports[0]
    assert ex["target"] == 0 and ex["compr"] and ex["done"] and ex["vm"]

    def interp(a, c):
        return (p0[a, c] + i_bary * p10[a, c]) + j_bary * p20[a, c]   # two f32 roundings each

    color = [interp(0, c) for c in range(3)]
    n = [interp(1, c) for c in range(3)]
    tp = [interp(2, c) for c in range(3)]
    c0 = cbuf[0:3]
    c1 = cbuf[4:7]
    spec = cbuf[8]

    def rsq(x):
        return (1.0 / np.sqrt(x.astype(np.float64))).astype(np.float32)

    # the microcode's order: normalize(toPixel), + dirToLight, normalize, dot with n ...
    d = tp[2] * tp[2]
    d = d + tp[1] * tp[1]
    d = d + tp[0] * tp[0]
    r = rsq(d)
    h = [tp[i] * r + c0[i] for i in range(3)]
    d2 = h[2] * h[2]
    d2 = d2 + h[1] * h[1]
    d2 = d2 + h[0] * h[0]
    r2 = rsq(d2)
    h = [h[i] * r2 for i in range(3)]
    nh = np.clip(h[2] * n[2] + h[1] * n[1] + h[0] * n[0], 0, 1).astype(np.float32)
    nl = np.clip(c0[2] * n[2] + c0[1] * n[1] + c0[0] * n[0], 0, 1).astype(np.float32)
    spec_term = np.exp2((np.log2(nh.astype(np.float64)) * np.float64(spec))).astype(np.float32)
    out = [color[i] * c1[i] * nl + spec_term for i in range(3)] + [np.ones(64, np.float32)]
    want = np.stack(out).astype(np.float16)   # nearest; the shader truncates (RTZ): allow 1 ulp

    # compr: VSRC0 holds (r, g) and VSRC1 (b, a) as f16 pairs; the capture gives each
    # component's f16 bits
    got = (ex["data"] & 0xFFFF).astype(np.uint16).view(np.float16)
    assert int(ulp_distance(got, want).max()) <= 1
