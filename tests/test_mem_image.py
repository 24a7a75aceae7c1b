"""MIMG on linear images: load/store (+mip), atomics, get_resinfo, sample (point, bilinear).

T# and S# words come from tests/test_mem_helpers.py (written from GcnMemHandling.md's bit
tables, cross-checked against gcnemu.mem.descriptors.decode_tsharp below). Texel addresses follow
gcnemu's documented linear layout (mem.image.image_instruction / _img_level docstrings):
level l of the mip chain has rows of max(1, pitch >> l) texels, max(1, height >> l) rows,
max(1, depth >> l) slices (arrays keep all slices), levels stored one after another.
"""
from __future__ import annotations

import numpy as np
import pytest

from gcnemu.errors import ExecutionError
from gcnemu.mem.descriptors import decode_ssharp, decode_tsharp
from test_mem_helpers import (
    FLOAT, LANES, SINT, SNORM, UINT, UNORM, Memory, apply_dst_sel, decode_element, encode_ref,
    encode_ssharp, encode_tsharp, layout, run, sgprs_from,
)

RNG = np.random.default_rng(99)
T1D, T2D, T3D, T1DA, T2DA = 8, 9, 10, 12, 13


def level_dims(t_type, width, height, depth, pitch, level):
    h0 = 1 if t_type in (T1D, T1DA) else height
    arr = t_type in (T1DA, T2DA)
    d0 = depth if (arr or t_type == T3D) else 1
    off = 0
    for lv in range(level + 1):
        p, w, h = max(1, pitch >> lv), max(1, width >> lv), max(1, h0 >> lv)
        d = d0 if arr else max(1, d0 >> lv)
        if lv == level:
            return off, p, w, h, d
        off += p * h * d


class Image:
    def __init__(self, t_type, width, height=1, depth=1, *, dfmt=10, nfmt=UNORM, pitch=None,
                 levels=1, dst_sel=(4, 5, 6, 7), data=None):
        self.t_type, self.w, self.h, self.d = t_type, width, height, depth
        self.pitch = pitch or width
        self.dfmt, self.nfmt, self.levels = dfmt, nfmt, levels
        self.bpe = layout(dfmt)[1]
        end = level_dims(t_type, width, height, depth, self.pitch, levels - 1)
        total = (end[0] + end[1] * end[3] * end[4]) * self.bpe
        self.mem = Memory()
        self.base = self.mem.allocate(total + 256)
        self.bytes = RNG.integers(0, 256, total, dtype=np.uint8) if data is None else data
        self.mem.write(self.base, self.bytes)
        self.tsharp = encode_tsharp(self.base, width, height, depth, dfmt=dfmt, nfmt=nfmt,
                                    t_type=t_type, pitch=self.pitch, dst_sel=dst_sel,
                                    last_level=levels - 1)

    def texel_offset(self, x, y, z, level=0):
        off, p, w, h, d = level_dims(self.t_type, self.w, self.h, self.d, self.pitch, level)
        if not (0 <= x < w and 0 <= y < h and 0 <= z < d and level < self.levels):
            return None
        return (off + (z * h + y) * p + x) * self.bpe

    def texel(self, x, y, z, level=0):
        o = self.texel_offset(x, y, z, level)
        if o is None:
            return None
        return decode_element(self.bytes[o:o + self.bpe].tobytes(), self.dfmt, self.nfmt)


def _coords_regs(cols):
    return {20 + i: np.asarray(c, np.uint32) for i, c in enumerate(cols)}


def test_tsharp_helper_matches_documented_layout():
    t = encode_tsharp(0x12345600, 100, 37, 9, dfmt=12, nfmt=7, t_type=T2DA, pitch=128,
                      dst_sel=(7, 0, 1, 4), base_level=1, last_level=3, base_array=2, last_array=6)
    d = decode_tsharp(t)
    assert (d.base_address, d.width, d.height, d.depth, d.pitch, d.data_format, d.num_format) == \
        (0x12345600, 100, 37, 9, 128, 12, 7)
    assert (d.dst_sel_x, d.dst_sel_y, d.dst_sel_z, d.dst_sel_w, d.base_level, d.last_level,
            d.tiling_index, d.type, d.base_array, d.last_array) == (7, 0, 1, 4, 1, 3, 8, T2DA, 2, 6)
    s = decode_ssharp(encode_ssharp((1, 2, 3), force_unnorm=1, mag=1, minf=1, mip=2, min_lod=256,
                                    max_lod=512, lod_bias=-128, border_type=2))
    assert (s.clamp_x, s.clamp_y, s.clamp_z, s.force_unnormalized, s.xy_mag_filter, s.xy_min_filter,
            s.mip_filter, s.min_lod, s.max_lod, s.lod_bias, s.border_color_type) == \
        (1, 2, 3, 1, 1, 1, 2, 1.0, 2.0, -0.5, 2)


CASES = [(T1D, 50, 1, 1), (T2D, 13, 7, 1), (T3D, 5, 4, 3), (T1DA, 17, 1, 4), (T2DA, 6, 5, 3)]


@pytest.mark.parametrize("t_type,w,h,d", CASES)
@pytest.mark.parametrize("dfmt,nfmt", [(10, UNORM), (1, SNORM), (5, UINT), (12, SINT), (14, FLOAT),
                                       (2, FLOAT), (9, UNORM)])
def test_image_load_types_and_formats(t_type, w, h, d, dfmt, nfmt):
    img = Image(t_type, w, h, d, dfmt=dfmt, nfmt=nfmt, pitch=w + 3)
    xs = RNG.integers(0, w + 2, 64)
    ys = RNG.integers(0, h + 1, 64)
    zs = RNG.integers(0, d + 1, 64)
    if t_type == T1D:
        cols = [xs]
    elif t_type == T1DA:
        cols = [xs, zs]
    elif t_type in (T2D,):
        cols = [xs, ys]
    else:
        cols = [xs, ys, zs]
    da = " da" if t_type in (T1DA, T2DA) else ""
    r = run(f"image_load v[1:4], v[20:23], s[8:15] dmask:0xf unorm{da}",
            sgpr=sgprs_from(img.tsharp, 8), vgpr=_coords_regs(cols), mem=img.mem)
    for lane in range(64):
        x, y, z = int(xs[lane]), int(ys[lane]), int(zs[lane])
        if t_type in (T1D, T1DA):
            y = 0
        if t_type in (T1D, T2D):
            z = 0
        want = img.texel(x, y, z) or [0, 0, 0, 0]
        assert [int(v) for v in r.vgpr[1:5, lane]] == want, (lane, x, y, z)


def test_image_load_dmask_packing_and_dst_sel():
    sels = (6, 1, 4, 0)
    img = Image(T2D, 8, 8, dfmt=10, nfmt=UINT, dst_sel=sels)
    xs, ys = LANES % 8, LANES // 8
    for dmask in (0x1, 0x5, 0xA, 0xE, 0xF):
        n = bin(dmask).count("1")
        dst = "v1" if n == 1 else f"v[1:{n}]"
        r = run(f"image_load {dst}, v[20:21], s[8:15] dmask:{dmask:#x} unorm\nv_mov_b32 v{n + 1}, 0x77",
                sgpr=sgprs_from(img.tsharp, 8), vgpr=_coords_regs([xs, ys]), mem=img.mem)
        for lane in range(64):
            full = apply_dst_sel(img.texel(int(xs[lane]), int(ys[lane]), 0), sels, UINT)
            want = [full[i] for i in range(4) if (dmask >> i) & 1]
            assert [int(v) for v in r.vgpr[1:1 + n, lane]] == want
        assert (r.vgpr[n + 1] == 0x77).all()


def test_image_load_mip_and_out_of_range_level():
    img = Image(T2D, 16, 8, dfmt=4, nfmt=UINT, levels=3, pitch=16)
    xs, ys = LANES % 9, LANES // 9
    mips = LANES % 4   # level 3 does not exist
    r = run("image_load_mip v1, v[20:22], s[8:15] dmask:0x1 unorm",
            sgpr=sgprs_from(img.tsharp, 8), vgpr=_coords_regs([xs, ys, mips]), mem=img.mem)
    for lane in range(64):
        t = img.texel(int(xs[lane]), int(ys[lane]), 0, int(mips[lane]))
        assert int(r.vgpr[1, lane]) == (t[0] if t else 0)


@pytest.mark.parametrize("dfmt,nfmt", [(10, UNORM), (12, SNORM), (4, FLOAT), (3, UINT), (8, UNORM)])
def test_image_store_dmask(dfmt, nfmt):
    img = Image(T2DA, 7, 5, 3, dfmt=dfmt, nfmt=nfmt)
    before = img.bytes.copy()
    xs, ys, zs = LANES % 8, (LANES // 8) % 6, LANES % 4
    dmask = 0xB
    vals = [RNG.uniform(-1.2, 1.2, 64).astype(np.float32).view(np.uint32) if nfmt != UINT
            else RNG.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32) for _ in range(3)]
    vg = _coords_regs([xs, ys, zs])
    for i in range(3):
        vg[1 + i] = vals[i]
    run(f"image_store v[1:3], v[20:22], s[8:15] dmask:{dmask:#x} unorm da",
        sgpr=sgprs_from(img.tsharp, 8), vgpr=vg, mem=img.mem)
    got = np.frombuffer(img.mem.read(img.base, len(before)), np.uint8)
    model = bytearray(before.tobytes())
    comps, esize = layout(dfmt)
    for lane in range(64):
        o = img.texel_offset(int(xs[lane]), int(ys[lane]), int(zs[lane]))
        if o is None:
            continue
        e = int.from_bytes(model[o:o + esize], "little")
        j = 0
        for k in range(4):
            if not (dmask >> k) & 1:
                continue
            v = int(vals[j][lane])
            j += 1
            if k >= len(comps):
                continue
            s, n = comps[k]
            m = ((1 << n) - 1) << s
            e = (e & ~m) | ((encode_ref(v, n, nfmt) << s) & m)
        model[o:o + esize] = e.to_bytes(esize, "little")
    assert got.tobytes() == bytes(model)


@pytest.mark.parametrize("op", ["swap", "cmpswap", "add", "sub", "smin", "umin", "smax", "umax",
                                "and", "or", "xor", "inc", "dec"])
def test_image_atomics(op):
    from test_mem_buffer import _ref_atomic
    img = Image(T2D, 4, 2, dfmt=4, nfmt=UINT, data=np.arange(32, dtype=np.uint8))
    xs, ys = LANES % 5, (LANES // 5) % 3     # some lanes out of range
    vals = RNG.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)
    vals[::3] %= 5
    cmps = RNG.integers(0, 3, 64, dtype=np.uint64).astype(np.uint32)
    vg = _coords_regs([xs, ys])
    vg[1] = vals
    if op == "cmpswap":
        vg[2] = cmps
        text = "image_atomic_cmpswap v[1:2], v[20:21], s[8:15] dmask:0x3 unorm glc"
    else:
        text = f"image_atomic_{op} v1, v[20:21], s[8:15] dmask:0x1 unorm glc"
    r = run(text, sgpr=sgprs_from(img.tsharp, 8), vgpr=vg, mem=img.mem)
    model = [int(x) for x in np.arange(32, dtype=np.uint8).view(np.uint32)]
    for lane in range(64):
        x, y = int(xs[lane]), int(ys[lane])
        if x >= 4 or y >= 2:
            assert int(r.vgpr[1, lane]) == 0
            continue
        i = y * 4 + x
        old = model[i]
        model[i] = _ref_atomic(op, old, int(vals[lane]), int(cmps[lane]), 32)
        assert int(r.vgpr[1, lane]) == old
    assert [int(v) for v in img.mem.read_array(img.base, np.uint32, 8)] == model


def test_get_resinfo():
    for t_type, w, h, d in CASES:
        img = Image(t_type, w, h, d, dfmt=4, nfmt=UINT, levels=2)
        da = " da" if t_type in (T1DA, T2DA) else ""
        r = run(f"image_get_resinfo v[1:4], v20, s[8:15] dmask:0xf{da}",
                sgpr=sgprs_from(img.tsharp, 8), vgpr={20: LANES % 3}, mem=img.mem)
        for m in range(3):
            if m >= 2:
                want = [0, 0, 0, 0]
            else:
                hh = 1 if t_type in (T1D, T1DA) else max(1, h >> m)
                want = [max(1, w >> m), d if t_type == T1DA else hh,
                        d if t_type == T2DA else (max(1, d >> m) if t_type == T3D else 1), 2]
            assert [int(v) for v in r.vgpr[1:5, m]] == want, (t_type, m)


def test_tiled_and_unsupported_types_fail():
    img = Image(T2D, 4, 4, dfmt=4, nfmt=UINT)
    t = encode_tsharp(img.base, 4, 4, dfmt=4, nfmt=UINT, tiling=14)
    with pytest.raises(ExecutionError, match="tiling_index 14"):
        run("image_load v1, v[20:21], s[8:15] dmask:0x1 unorm", sgpr=sgprs_from(t, 8), mem=img.mem)
    t = encode_tsharp(img.base, 4, 4, dfmt=4, nfmt=UINT, t_type=11)
    with pytest.raises(ExecutionError, match="type 11"):
        run("image_load v1, v[20:21], s[8:15] dmask:0x1 unorm", sgpr=sgprs_from(t, 8), mem=img.mem)


# --- sampling -------------------------------------------------------------------------------
def _wrap(i, n, mode):
    if mode == 0:
        return i % n
    if mode == 1:
        p = i % (2 * n)
        return p if p < n else 2 * n - 1 - p
    if mode in (3, 5, 7):
        if i < 0:
            i = -i - 1
        return min(i, n - 1) if mode == 3 else (i if i < n else None)
    if mode == 2:
        return min(max(i, 0), n - 1)
    return i if 0 <= i < n else None


def _border(btype, nfmt):
    one = 1 if nfmt in (UINT, SINT) else 0x3F800000
    return {0: [0, 0, 0, 0], 1: [0, 0, 0, one], 2: [one] * 4, 3: [0, 0, 0, 0]}[btype]


def sample_ref(img, coords, *, unnorm, bilinear, clamp, btype=0, level=0, slice_=None):
    """The documented sampling model with numpy float32 arithmetic."""
    _, _, w, h, d = level_dims(img.t_type, img.w, img.h, img.d, img.pitch, level)
    sizes = [w, h, d]
    nsp = len(coords)
    idx, wts = [], []
    for dim, u in enumerate(coords):
        t = float(u) if unnorm else float(u) * sizes[dim]
        if bilinear:
            t -= 0.5
            i0 = int(np.floor(t))
            a = np.floor((t - i0) * 256.0) / 256.0
            idx.append([_wrap(i0, sizes[dim], clamp[dim]), _wrap(i0 + 1, sizes[dim], clamp[dim])])
            wts.append([np.float32(1 - a), np.float32(a)])
        else:
            idx.append([_wrap(int(np.floor(t)), sizes[dim], clamp[dim])])
    while len(idx) < 3:
        idx.append([0])

    def fetch(ix, iy, iz):
        if ix is None or iy is None or iz is None:
            return _border(btype, img.nfmt)
        z = slice_ if slice_ is not None else iz
        return img.texel(ix, iy, z, level)

    if not bilinear:
        return fetch(idx[0][0], idx[1][0], idx[2][0])
    f = lambda v: np.uint32(v).view(np.float32)  # noqa: E731

    def lerp_x(iy, iz):
        t0, t1 = fetch(idx[0][0], iy, iz), fetch(idx[0][1], iy, iz)
        return [wts[0][0] * f(a) + wts[0][1] * f(b) for a, b in zip(t0, t1)]

    if nsp == 1:
        res = lerp_x(idx[1][0], idx[2][0])
    elif nsp == 2:
        r0, r1 = lerp_x(idx[1][0], idx[2][0]), lerp_x(idx[1][1], idx[2][0])
        res = [wts[1][0] * a + wts[1][1] * b for a, b in zip(r0, r1)]
    else:
        planes = []
        for kz in range(2):
            r0, r1 = lerp_x(idx[1][0], idx[2][kz]), lerp_x(idx[1][1], idx[2][kz])
            planes.append([wts[1][0] * a + wts[1][1] * b for a, b in zip(r0, r1)])
        res = [wts[2][0] * a + wts[2][1] * b for a, b in zip(*planes)]
    return [int(np.float32(v).view(np.uint32)) for v in res]


@pytest.mark.parametrize("t_type,w,h,d", [(T1D, 9, 1, 1), (T2D, 7, 5, 1), (T3D, 4, 3, 5)])
@pytest.mark.parametrize("bilinear", [False, True])
@pytest.mark.parametrize("clamp", [0, 1, 2, 3, 6])
@pytest.mark.parametrize("unnorm", [False, True])
def test_image_sample(t_type, w, h, d, bilinear, clamp, unnorm):
    img = Image(t_type, w, h, d, dfmt=10, nfmt=UNORM, pitch=w + 1)
    nsp = {T1D: 1, T2D: 2, T3D: 3}[t_type]
    sizes = [w, h, d]
    coords = []
    for dim in range(nsp):
        c = RNG.uniform(-1.5, 2.5, 64).astype(np.float32)
        if unnorm:
            c = (c * sizes[dim]).astype(np.float32)
        c[:4] = np.float32([0.0, 0.5, 1.0, -0.25])[: 4]
        coords.append(c)
    samp = encode_ssharp((clamp, clamp, clamp), mag=int(bilinear), minf=int(bilinear),
                         border_type=2)
    vg = {20 + i: coords[i] for i in range(nsp)}
    dst = f"v[20:{19 + nsp}]" if nsp > 1 else "v20"
    r = run(f"image_sample v[1:4], {dst}, s[8:15], s[16:19] dmask:0xf{' unorm' if unnorm else ''}",
            sgpr={**sgprs_from(img.tsharp, 8), **sgprs_from(samp, 16)}, vgpr=vg, mem=img.mem)
    for lane in range(64):
        want = sample_ref(img, [coords[i][lane] for i in range(nsp)], unnorm=unnorm,
                          bilinear=bilinear, clamp=[clamp] * 3, btype=2)
        assert [int(v) for v in r.vgpr[1:5, lane]] == want, (lane, [coords[i][lane] for i in range(nsp)])


def test_image_sample_array_slice_and_force_unnormalized():
    img = Image(T2DA, 6, 4, 3, dfmt=14, nfmt=FLOAT,
                data=RNG.uniform(-4, 4, 6 * 4 * 3 * 4).astype(np.float32).view(np.uint8))
    xs = RNG.uniform(0, 6, 64).astype(np.float32)
    ys = RNG.uniform(0, 4, 64).astype(np.float32)
    ss = RNG.uniform(-1, 3.6, 64).astype(np.float32)
    ss[:4] = [0.5, 1.5, 2.5, -0.7]
    samp = encode_ssharp((2, 2, 2), force_unnorm=1, mag=1, minf=1)
    r = run("image_sample v[1:4], v[20:22], s[8:15], s[16:19] dmask:0xf da",
            sgpr={**sgprs_from(img.tsharp, 8), **sgprs_from(samp, 16)},
            vgpr={20: xs, 21: ys, 22: ss}, mem=img.mem)
    for lane in range(64):
        sl = int(np.clip(np.rint(float(ss[lane])), 0, 2))   # round half to even, clamp
        want = sample_ref(img, [xs[lane], ys[lane]], unnorm=True, bilinear=True, clamp=[2, 2, 2],
                          slice_=sl)
        assert [int(v) for v in r.vgpr[1:5, lane]] == want, lane


def test_image_sample_l_lz_pick_levels():
    img = Image(T2D, 16, 16, dfmt=4, nfmt=UINT, levels=4, pitch=16)
    us = RNG.uniform(0, 1, 64).astype(np.float32)
    vs = RNG.uniform(0, 1, 64).astype(np.float32)
    lods = RNG.uniform(-1, 5, 64).astype(np.float32)
    samp = encode_ssharp((0, 0, 0), mip=1)     # point mip filter: nearest level
    r = run("image_sample_l v1, v[20:22], s[8:15], s[16:19] dmask:0x1\n"
            "image_sample_lz v2, v[20:21], s[8:15], s[16:19] dmask:0x1",
            sgpr={**sgprs_from(img.tsharp, 8), **sgprs_from(samp, 16)},
            vgpr={20: us, 21: vs, 22: lods}, mem=img.mem)
    for lane in range(64):
        lod = min(max(float(lods[lane]), 0.0), 15.0)
        level = min(int(np.floor(lod + 0.5)), 3)
        want = sample_ref(img, [us[lane], vs[lane]], unnorm=False, bilinear=False, clamp=[0, 0, 0],
                          level=level)
        assert int(r.vgpr[1, lane]) == want[0], (lane, lods[lane])
        want0 = sample_ref(img, [us[lane], vs[lane]], unnorm=False, bilinear=False, clamp=[0, 0, 0])
        assert int(r.vgpr[2, lane]) == want0[0]


# --- float atomics, sample variants, gather4, get_lod --------------------------------------
@pytest.mark.parametrize("op", ["fmin", "fmax", "fcmpswap"])
def test_image_float_atomics(op):
    from test_mem_ds import _minmax
    init = np.array([1.0, -0.0, np.nan, 3.0, -2.0, 0.0, np.inf, 0.5], np.float32)
    img = Image(T2D, 4, 2, dfmt=4, nfmt=FLOAT, data=init.view(np.uint8))
    xs, ys = LANES % 4, (LANES // 4) % 2
    vals = np.array(RNG.choice([0.0, -0.0, 1.0, -3.0, np.nan, 3.0, 0.5], 64), np.float32).view(np.uint32)
    cmps = np.array(RNG.choice([0.0, -0.0, 1.0, 3.0, 0.5], 64), np.float32).view(np.uint32)
    vg = _coords_regs([xs, ys])
    vg[1] = vals
    if op == "fcmpswap":
        vg[2] = cmps
        text = "image_atomic_fcmpswap v[1:2], v[20:21], s[8:15] dmask:0x3 unorm glc"
    else:
        text = f"image_atomic_{op} v1, v[20:21], s[8:15] dmask:0x1 unorm glc"
    r = run(text, sgpr=sgprs_from(img.tsharp, 8), vgpr=vg, mem=img.mem)
    model = [int(x) for x in init.view(np.uint32)]
    for lane in range(64):
        i = int(ys[lane]) * 4 + int(xs[lane])
        old = model[i]
        v = int(vals[lane])
        if op == "fcmpswap":
            eq = f32_value(old) == f32_value(int(cmps[lane]))
            model[i] = v if eq else old
        else:
            model[i] = _minmax(old, v, 4, op == "fmin")
        assert int(r.vgpr[1, lane]) == old
    assert [int(v) for v in img.mem.read_array(img.base, np.uint32, 8)] == model


def f32_value(b):
    return float(np.uint32(b).view(np.float32))


def _lod_ref(dx, dy, sizes):
    gx = sum((float(a) * s) ** 2 for a, s in zip(dx, sizes))
    gy = sum((float(a) * s) ** 2 for a, s in zip(dy, sizes))
    rho2 = max(gx, gy)
    return 0.5 * np.log2(rho2) if rho2 > 0 else -1e30


def test_image_sample_d_implicit_derivatives_cl_b_and_get_lod():
    img = Image(T2D, 32, 16, dfmt=4, nfmt=UINT, levels=5, pitch=32)
    # quads with growing footprints: implicit (coarse) derivatives pick growing levels
    us = np.zeros(64, np.float32)
    vs = np.zeros(64, np.float32)
    for q in range(16):
        step = np.float32(2.0 ** (q % 6 - 5))
        base_u, base_v = np.float32(RNG.uniform(0, 1)), np.float32(RNG.uniform(0, 1))
        us[4 * q:4 * q + 4] = [base_u, base_u + step, base_u, base_u + step]
        vs[4 * q:4 * q + 4] = [base_v, base_v, base_v + step / 2, base_v + step / 2]
    dxu = RNG.uniform(0, 0.3, 64).astype(np.float32)
    dyv = RNG.uniform(0, 0.3, 64).astype(np.float32)
    zero = np.zeros(64, np.float32)
    bias = RNG.uniform(-2, 2, 64).astype(np.float32)
    clampv = RNG.uniform(0, 4, 64).astype(np.float32)
    samp = encode_ssharp((0, 0, 0), mip=1, lod_bias=64, min_lod=0, max_lod=3 * 256 + 128)
    sg = {**sgprs_from(img.tsharp, 8), **sgprs_from(samp, 16)}
    r = run("""
image_sample v1, v[20:21], s[8:15], s[16:19] dmask:0x1
image_sample_d v2, v[30:35], s[8:15], s[16:19] dmask:0x1
image_sample_b_cl v3, v[40:43], s[8:15], s[16:19] dmask:0x1
image_get_lod v[4:5], v[20:21], s[8:15], s[16:19] dmask:0x3
""", sgpr=sg, vgpr={20: us, 21: vs, 30: dxu, 31: zero, 32: zero, 33: dyv, 34: us, 35: vs,
                     40: bias, 41: us, 42: vs, 43: clampv}, mem=img.mem)

    def level_of(lod):
        lod = min(max(lod, 0.0), 3.5)
        return min(int(np.floor(lod + 0.5)) if lod > 0 else 0, 4), lod

    for lane in range(64):
        q = lane & ~3
        dx = [us[q + 1] - np.float64(us[q]), vs[q + 1] - np.float64(vs[q])]
        dy = [us[q + 2] - np.float64(us[q]), vs[q + 2] - np.float64(vs[q])]
        raw = _lod_ref(dx, dy, (32, 16))
        lv, lod = level_of(raw + 0.25)
        want = sample_ref(img, [us[lane], vs[lane]], unnorm=False, bilinear=False,
                          clamp=[0, 0, 0], level=lv)
        assert int(r.vgpr[1, lane]) == want[0], lane
        assert f32_value(r.vgpr[4, lane]) == np.float32(lod)
        assert f32_value(r.vgpr[5, lane]) == np.float32(max(raw, -3e38))
        lv, _ = level_of(_lod_ref([dxu[lane], 0.0], [0.0, dyv[lane]], (32, 16)) + 0.25)
        want = sample_ref(img, [us[lane], vs[lane]], unnorm=False, bilinear=False,
                          clamp=[0, 0, 0], level=lv)
        assert int(r.vgpr[2, lane]) == want[0], lane
        lod = min(max(raw + float(bias[lane]) + 0.25, 0.0), 3.5)
        lod = min(lod, float(clampv[lane]))
        lv = min(int(np.floor(lod + 0.5)) if lod > 0 else 0, 4)
        want = sample_ref(img, [us[lane], vs[lane]], unnorm=False, bilinear=False,
                          clamp=[0, 0, 0], level=lv)
        assert int(r.vgpr[3, lane]) == want[0], lane


def test_image_sample_lz_o_offsets():
    img = Image(T2D, 8, 8, dfmt=10, nfmt=UNORM)
    xs = RNG.uniform(0, 8, 64).astype(np.float32)
    ys = RNG.uniform(0, 8, 64).astype(np.float32)
    ox = RNG.integers(-32, 32, 64)
    oy = RNG.integers(-32, 32, 64)
    offs = ((ox & 0x3F) | ((oy & 0x3F) << 8)).astype(np.uint32)
    samp = encode_ssharp((0, 1, 0), mag=1, minf=1)
    r = run("image_sample_lz_o v[1:4], v[20:22], s[8:15], s[16:19] dmask:0xf unorm",
            sgpr={**sgprs_from(img.tsharp, 8), **sgprs_from(samp, 16)},
            vgpr={20: offs, 21: xs, 22: ys}, mem=img.mem)
    for lane in range(64):
        # an integer offset moves the footprint by whole texels: same as shifting the coordinate
        want = sample_ref(img, [np.float32(xs[lane]) + int(ox[lane]), np.float32(ys[lane]) + int(oy[lane])],
                          unnorm=True, bilinear=True, clamp=[0, 1, 0])
        assert [int(v) for v in r.vgpr[1:5, lane]] == want, lane


def test_image_gather4_and_sample_c():
    data = RNG.uniform(0, 1, 6 * 5 * 4).astype(np.float32)
    img = Image(T2D, 6, 5, dfmt=14, nfmt=FLOAT, data=data.view(np.uint8), dst_sel=(5, 4, 6, 7))
    us = RNG.uniform(-0.2, 1.2, 64).astype(np.float32)
    vs = RNG.uniform(-0.2, 1.2, 64).astype(np.float32)
    zc = RNG.uniform(0, 1, 64).astype(np.float32)
    samp = encode_ssharp((2, 2, 2), mag=1, minf=1)
    samp[0] |= 1 << 12      # DEPTH_COMPARE_FUNC LESS: 1 if z-compare < texel
    r = run("""
image_gather4_lz v[1:4], v[20:21], s[8:15], s[16:19] dmask:0x2
image_sample_c_lz v5, v[22:24], s[8:15], s[16:19] dmask:0x1
""", sgpr={**sgprs_from(img.tsharp, 8), **sgprs_from(samp, 16)},
        vgpr={20: us, 21: vs, 22: zc, 23: us, 24: vs}, mem=img.mem)
    for lane in range(64):
        tx, ty = float(us[lane]) * 6 - 0.5, float(vs[lane]) * 5 - 0.5
        i0, j0 = int(np.floor(tx)), int(np.floor(ty))
        cl = lambda i, n: min(max(i, 0), n - 1)  # noqa: E731
        i1, j1 = cl(i0 + 1, 6), cl(j0 + 1, 5)
        i0, j0 = cl(i0, 6), cl(j0, 5)
        # dmask 0x2 -> component 1 after dst_sel (5, 4, ...) -> texel component 0 (R)
        comp = lambda i, j: img.texel(i, j, 0)[0]  # noqa: E731
        assert [int(v) for v in r.vgpr[1:5, lane]] == [comp(i0, j1), comp(i1, j1), comp(i1, j0), comp(i0, j0)]
        # PCF: compare each texel's R, then bilinear-filter the 0/1 results
        ax = np.floor((tx - np.floor(tx)) * 256) / 256
        ay = np.floor((ty - np.floor(ty)) * 256) / 256
        res = lambda i, j: np.float32(1.0 if zc[lane] < f32_value(comp(i, j)) else 0.0)  # noqa: E731
        wx0, wx1, wy0, wy1 = (np.float32(1 - ax), np.float32(ax), np.float32(1 - ay), np.float32(ay))
        top = wx0 * res(i0, j0) + wx1 * res(i1, j0)
        bot = wx0 * res(i0, j1) + wx1 * res(i1, j1)
        want = np.float32(wy0 * top + wy1 * bot)
        # dst_sel x = G(5): the compare result replicated in all four components
        assert int(r.vgpr[5, lane]) == int(want.view(np.uint32)), lane


def test_image_load_tfe_register():
    img = Image(T2D, 4, 4, dfmt=4, nfmt=UINT)
    r = run("v_mov_b32 v2, 9\nimage_load v[1:2], v[20:21], s[8:15] dmask:0x1 unorm tfe",
            sgpr=sgprs_from(img.tsharp, 8), vgpr=_coords_regs([LANES % 4, (LANES // 4) % 4]), mem=img.mem)
    assert not r.vgpr[2].any()
    for lane in range(64):
        assert int(r.vgpr[1, lane]) == img.texel(lane % 4, (lane // 4) % 4, 0)[0]


def test_image_sample_l_trilinear():
    img = Image(T2D, 16, 16, dfmt=14, nfmt=FLOAT, levels=3, pitch=16,
                data=RNG.uniform(-2, 2, (256 + 64 + 16) * 4).astype(np.float32).view(np.uint8))
    us = RNG.uniform(0, 1, 64).astype(np.float32)
    vs = RNG.uniform(0, 1, 64).astype(np.float32)
    lods = RNG.uniform(-0.5, 3, 64).astype(np.float32)
    samp = encode_ssharp((0, 0, 0), mag=1, minf=1, mip=2)
    r = run("image_sample_l v[1:4], v[20:22], s[8:15], s[16:19] dmask:0xf",
            sgpr={**sgprs_from(img.tsharp, 8), **sgprs_from(samp, 16)},
            vgpr={20: us, 21: vs, 22: lods}, mem=img.mem)
    f = lambda b: np.uint32(b).view(np.float32)  # noqa: E731
    for lane in range(64):
        lod = max(float(lods[lane]), 0.0)
        lv = int(np.floor(lod))
        fr = np.floor((lod - lv) * 256) / 256
        if lv >= 2:
            lv, fr = 2, 0.0
        r0 = sample_ref(img, [us[lane], vs[lane]], unnorm=False, bilinear=True, clamp=[0, 0, 0], level=lv)
        if fr > 0:
            r1 = sample_ref(img, [us[lane], vs[lane]], unnorm=False, bilinear=True, clamp=[0, 0, 0],
                            level=lv + 1)
            want = [int((np.float32(1 - fr) * f(a) + np.float32(fr) * f(b)).view(np.uint32))
                    for a, b in zip(r0, r1)]
        else:
            want = r0
        assert [int(v) for v in r.vgpr[1:5, lane]] == want, (lane, lods[lane])
