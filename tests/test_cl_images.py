"""gcnemu.cl images and samplers (gcnemu.loader.climage, clc_image.cl) against numpy: every
supported format read and written as OpenCL 1.2 (section 8.3) converts it, the addressing
modes and filters of section 8.2 in 1D, 2D and 3D, samplers from the host and from kernel
source, the image queries, and the errors for what is not supported."""
import os
import shutil

import numpy as np
import pytest

needs_clang = pytest.mark.skipif(shutil.which("clang-14") is None or not os.path.isfile(
    "/usr/lib/clc/amdgcn--amdhsa.bc"), reason="needs clang-14, lld-14 and libclc-14")
pytestmark = needs_clang

SRC = """
__constant sampler_t near_px = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;
__constant sampler_t rep_norm = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_NEAREST;

kernel void readf(read_only image2d_t a, global float4 *out) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    out[p.y * get_image_width(a) + p.x] = read_imagef(a, near_px, p);
}
kernel void readui(read_only image2d_t a, global uint4 *out) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    out[p.y * get_image_width(a) + p.x] = read_imageui(a, near_px, p);
}
kernel void readi(read_only image2d_t a, global int4 *out) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    out[p.y * get_image_width(a) + p.x] = read_imagei(a, p);        /* no sampler: image_load */
}
kernel void writef(write_only image2d_t a, global const float4 *in) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    write_imagef(a, p, in[p.y * get_image_width(a) + p.x]);
}
kernel void writeui(write_only image2d_t a, global const uint4 *in) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    write_imageui(a, p, in[p.y * get_image_width(a) + p.x]);
}
kernel void sample1d(read_only image1d_t a, sampler_t s, global const float *u, global float4 *out) {
    int i = get_global_id(0);
    out[i] = read_imagef(a, s, u[i]);
}
kernel void sample1d_inline(read_only image1d_t a, global const float *u, global float4 *out) {
    int i = get_global_id(0);
    out[i] = read_imagef(a, rep_norm, u[i]);
}
kernel void sample3d(read_only image3d_t a, sampler_t s, global const float4 *c, global float4 *out) {
    int i = get_global_id(0);
    out[i] = read_imagef(a, s, c[i]);
}
kernel void queries(read_only image3d_t a, write_only image2d_t b, global int *out) {
    int4 d = get_image_dim(a);
    int2 e = get_image_dim(b);
    out[0] = get_image_width(a); out[1] = get_image_height(a); out[2] = get_image_depth(a);
    out[3] = d.x; out[4] = d.y; out[5] = d.z; out[6] = e.x; out[7] = e.y;
    out[8] = get_image_channel_order(a); out[9] = get_image_channel_data_type(a);
    out[10] = get_image_channel_order(b); out[11] = get_image_channel_data_type(b);
}
"""


@pytest.fixture(scope="module")
def env():
    import gcnemu.cl as cl
    ctx = cl.create_some_context()
    return cl, ctx, cl.CommandQueue(ctx), cl.Program(ctx, SRC).build()


def _decode(cl, order, ctype, raw):
    """OpenCL's reads of texels ``raw`` (h, w, channels) as float4/int4 (section 8.3.1.1)."""
    t = cl.channel_type
    x = raw.astype(np.float64)
    if ctype == t.UNORM_INT8:
        x = x / 255
    elif ctype == t.UNORM_INT16:
        x = x / 65535
    elif ctype == t.SNORM_INT8:
        x = np.maximum(x / 127, -1)
    elif ctype == t.SNORM_INT16:
        x = np.maximum(x / 32767, -1)
    o = cl.channel_order
    one = 1 if ctype in (t.UNSIGNED_INT8, t.UNSIGNED_INT16, t.UNSIGNED_INT32, t.SIGNED_INT8,
                         t.SIGNED_INT16, t.SIGNED_INT32) else 1.0
    z = np.zeros(x.shape[:2])
    c = [x[..., i] for i in range(x.shape[2])]
    pick = {o.R: lambda: (c[0], z, z, z + one), o.A: lambda: (z, z, z, c[0]),
            o.RG: lambda: (c[0], c[1], z, z + one), o.RGBA: lambda: tuple(c),
            o.BGRA: lambda: (c[2], c[1], c[0], c[3])}
    return np.stack(pick[order](), axis=-1)


FORMATS = [("RGBA", "UNORM_INT8", np.uint8), ("BGRA", "UNORM_INT8", np.uint8),
           ("R", "FLOAT", np.float32), ("RG", "HALF_FLOAT", np.float16),
           ("RGBA", "SNORM_INT16", np.int16), ("A", "UNORM_INT16", np.uint16),
           ("RG", "SNORM_INT8", np.int8), ("R", "UNSIGNED_INT16", np.uint16),
           ("RGBA", "SIGNED_INT32", np.int32), ("RG", "UNSIGNED_INT8", np.uint8),
           ("RGBA", "SIGNED_INT8", np.int8), ("R", "UNSIGNED_INT32", np.uint32)]


@pytest.mark.parametrize("order, ctype, dtype", FORMATS, ids=[f"{o}-{t}" for o, t, _ in FORMATS])
def test_read_as_opencl_converts(env, order, ctype, dtype):
    cl, ctx, q, prg = env
    o, t = getattr(cl.channel_order, order), getattr(cl.channel_type, ctype)
    n = {"R": 1, "A": 1, "RG": 2}.get(order, 4)
    h, w = 5, 7
    rng = np.random.default_rng(hash((order, ctype)) % 2**32)
    if np.dtype(dtype).kind == "f":
        raw = (rng.standard_normal((h, w, n)) * 100).astype(dtype)
    else:
        info = np.iinfo(dtype)
        raw = rng.integers(info.min, info.max, (h, w, n), dtype=dtype, endpoint=True)
    img = cl.Image(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR,
                   cl.ImageFormat(o, t), hostbuf=raw if n > 1 else raw[..., 0])
    want = _decode(cl, o, t, raw)
    integer = "_INT" in ctype and "NORM" not in ctype
    kind = ("readi" if ctype.startswith("SIGNED") else "readui") if integer else "readf"
    out = np.zeros((h, w, 4), {"readf": np.float32, "readi": np.int32, "readui": np.uint32}[kind])
    ob = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, out.nbytes)
    getattr(prg, kind)(q, (w, h), None, img, ob)
    cl.enqueue_copy(q, out, ob)
    if integer:
        assert np.array_equal(out.astype(np.int64), want.astype(np.int64))
    else:
        # one rounding to f32 of the exact quotient
        assert np.array_equal(out, want.astype(np.float32))
    back = np.zeros_like(raw)                      # the host copy reads the bytes back
    cl.enqueue_copy(q, back, img, origin=(0, 0), region=(w, h))
    assert back.tobytes() == raw.tobytes()


def test_writes_convert_as_opencl(env):
    cl, ctx, q, prg = env
    h, w = 3, 8
    v = np.linspace(-0.6, 1.4, h * w * 4).astype(np.float32).reshape(h, w, 4)
    v[0, 0] = [np.nan, 0.5 / 255, 1.5 / 255, 254.5 / 255]        # NaN -> 0; ties to even
    src = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=v)
    for order in ("RGBA", "BGRA"):
        img = cl.Image(ctx, cl.mem_flags.WRITE_ONLY, cl.ImageFormat(
            getattr(cl.channel_order, order), cl.channel_type.UNORM_INT8), shape=(w, h))
        prg.writef(q, (w, h), None, img, src)
        got = np.zeros((h, w, 4), np.uint8)
        cl.enqueue_copy(q, got, img, origin=(0, 0), region=(w, h))
        want = np.rint(np.clip(np.nan_to_num(v.astype(np.float64), nan=0), 0, 1) * 255)
        if order == "BGRA":
            want = want[..., [2, 1, 0, 3]]                       # stored B, G, R, A
        assert np.array_equal(got, want.astype(np.uint8)), order
    u = np.arange(h * w * 4, dtype=np.uint32).reshape(h, w, 4) * 4099
    ub = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=u)
    img = cl.Image(ctx, cl.mem_flags.WRITE_ONLY, cl.ImageFormat(
        cl.channel_order.RG, cl.channel_type.UNSIGNED_INT16), shape=(w, h))
    prg.writeui(q, (w, h), None, img, ub)
    got = np.zeros((h, w, 2), np.uint16)
    cl.enqueue_copy(q, got, img, origin=(0, 0), region=(w, h))
    assert np.array_equal(got, (u[..., :2] & 0xFFFF).astype(np.uint16))   # the low 16 bits


def _nearest_1d(u, w, mode, normalized):
    """OpenCL 1.2 section 8.2 nearest filtering: the texel index, None for the border."""
    if not normalized:
        u = u / w
    if mode == "REPEAT":
        s = (u - np.floor(u)) * w
        return min(int(np.floor(s)), w - 1)
    if mode == "MIRRORED_REPEAT":
        s = 2 * np.rint(0.5 * u)
        s = abs(u - s) * w
        return min(int(np.floor(s)), w - 1)
    i = int(np.floor(u * w))
    if mode == "CLAMP":
        return i if 0 <= i < w else None
    return min(max(i, 0), w - 1)


# OpenCL allows REPEAT and MIRRORED_REPEAT with normalized coordinates only
@pytest.mark.parametrize("mode, normalized", [
    ("CLAMP_TO_EDGE", True), ("CLAMP", True), ("REPEAT", True), ("MIRRORED_REPEAT", True),
    ("CLAMP_TO_EDGE", False), ("CLAMP", False)])
def test_addressing_modes_nearest_1d(env, mode, normalized):
    cl, ctx, q, prg = env
    w = 10
    texels = (np.arange(w, dtype=np.float32) + 1) * 10
    img = cl.Image(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR,
                   cl.ImageFormat(cl.channel_order.R, cl.channel_type.FLOAT), hostbuf=texels)
    # positions a quarter texel off the centres, inside and outside the image
    idx = np.arange(-23, 33)
    u = ((idx + 0.25) / w if normalized else idx + 0.25).astype(np.float32)
    smp = cl.Sampler(ctx, normalized, getattr(cl.addressing_mode, mode), cl.filter_mode.NEAREST)
    ub = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=u)
    out = np.zeros((len(u), 4), np.float32)
    ob = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, out.nbytes)
    prg.sample1d(q, (len(u),), None, img, smp, ub, ob)
    cl.enqueue_copy(q, out, ob)
    for k, uk in enumerate(u):
        i = _nearest_1d(float(uk), w, mode, normalized)
        want = [0, 0, 0, 1] if i is None else [texels[i], 0, 0, 1]   # R has no alpha: border a=1
        assert list(out[k]) == want, (uk, out[k], want)
    if normalized and mode == "REPEAT":       # the same sampler written in the kernel source
        out2 = np.zeros_like(out)
        prg.sample1d_inline(q, (len(u),), None, img, ub, ob)
        cl.enqueue_copy(q, out2, ob)
        assert np.array_equal(out, out2)


def test_linear_filter_3d(env):
    cl, ctx, q, prg = env
    d, h, w = 3, 4, 5
    vol = np.arange(d * h * w, dtype=np.float32).reshape(d, h, w) ** 1.5
    img = cl.Image(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR,
                   cl.ImageFormat(cl.channel_order.R, cl.channel_type.FLOAT), hostbuf=vol)
    assert img.shape == (w, h, d)
    smp = cl.Sampler(ctx, False, cl.addressing_mode.CLAMP_TO_EDGE, cl.filter_mode.LINEAR)
    rng = np.random.default_rng(3)
    # unnormalized coordinates on quarter-texel steps: bilinear weights exact in 1/256
    c = np.zeros((40, 4), np.float32)
    c[:, :3] = rng.integers(0, 4 * np.array([w, h, d]), (40, 3)) / 4
    cb = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=c)
    out = np.zeros((40, 4), np.float32)
    ob = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, out.nbytes)
    prg.sample3d(q, (40,), None, img, smp, cb, ob)
    cl.enqueue_copy(q, out, ob)
    for k in range(40):
        want = 0.0
        lo = [np.floor(c[k, a] - 0.5) for a in range(3)]
        f = [c[k, a] - 0.5 - lo[a] for a in range(3)]
        for corner in range(8):
            idx, wt = [], 1.0
            for a in range(3):
                bit = corner >> a & 1
                idx.append(int(min(max(lo[a] + bit, 0), (w, h, d)[a] - 1)))
                wt *= f[a] if bit else 1 - f[a]
            want += wt * vol[idx[2], idx[1], idx[0]]
        assert out[k, 0] == pytest.approx(want, rel=1e-5, abs=1e-4), c[k]
        assert list(out[k, 1:]) == [0, 0, 1]


def test_queries(env):
    cl, ctx, q, prg = env
    a = cl.Image(ctx, cl.mem_flags.READ_ONLY, cl.ImageFormat(cl.channel_order.RG,
                 cl.channel_type.HALF_FLOAT), shape=(6, 5, 4))
    b = cl.Image(ctx, cl.mem_flags.WRITE_ONLY, cl.ImageFormat(cl.channel_order.BGRA,
                 cl.channel_type.UNORM_INT8), shape=(9, 2))
    out = np.zeros(12, np.int32)
    ob = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, out.nbytes)
    prg.queries(q, (1,), None, a, b, ob)
    cl.enqueue_copy(q, out, ob)
    assert list(out) == [6, 5, 4, 6, 5, 4, 9, 2, 0x10B2, 0x10DD, 0x10B6, 0x10D2]


def test_what_is_not_supported_is_a_clear_error(env):
    cl, ctx, q, prg = env
    with pytest.raises(cl.LogicError, match="channel order RGB is not emulated"):
        cl.Image(ctx, cl.mem_flags.READ_ONLY,
                 cl.ImageFormat(cl.channel_order.RGB, cl.channel_type.FLOAT), shape=(4, 4))
    with pytest.raises(cl.LogicError, match="BGRA images take UNORM_INT8"):
        cl.Image(ctx, cl.mem_flags.READ_ONLY,
                 cl.ImageFormat(cl.channel_order.BGRA, cl.channel_type.FLOAT), shape=(4, 4))
    with pytest.raises(cl.LogicError, match="1..16384"):
        cl.Image(ctx, cl.mem_flags.READ_ONLY,
                 cl.ImageFormat(cl.channel_order.R, cl.channel_type.FLOAT), shape=(20000, 4))
    with pytest.raises(cl.NotEmulatedError, match="image arrays"):
        cl.Image(ctx, cl.mem_flags.READ_ONLY, cl.ImageFormat(cl.channel_order.R,
                 cl.channel_type.FLOAT), shape=(4, 4), is_array=True)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)
    with pytest.raises(cl.LogicError, match="an image argument takes a cl.Image"):
        prg.readf(q, (1, 1), None, buf, buf)
    assert all(f.channel_order in range(0x10B0, 0x10BD) for f in
               cl.get_supported_image_formats(ctx, cl.mem_flags.READ_ONLY, cl.mem_object_type.IMAGE2D))


def test_use_host_ptr_and_image_from_array(env):
    cl, ctx, q, prg = env
    h, w = 4, 6
    a = np.arange(h * w * 4, dtype=np.uint8).reshape(h, w, 4)
    img = cl.image_from_array(ctx, a, num_channels=4, norm_int=True)
    assert img.format == cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.UNORM_INT8)
    assert img.shape == (w, h)
    host = np.zeros((h, w, 4), np.float32)
    out = cl.Image(ctx, cl.mem_flags.WRITE_ONLY | cl.mem_flags.USE_HOST_PTR,
                   cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT), hostbuf=host)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, h * w * 16)
    prg.readf(q, (w, h), None, img, buf)
    vals = np.zeros((h, w, 4), np.float32)
    cl.enqueue_copy(q, vals, buf)
    prg.writef(q, (w, h), None, out, buf)
    # USE_HOST_PTR: the host array holds what the kernel wrote when the kernel returns
    assert np.array_equal(host, (a / np.float64(255)).astype(np.float32))
    assert np.array_equal(host, vals)
    sub = np.zeros((2, 3, 4), np.uint8)               # a region of the image, read back
    cl.enqueue_copy(q, sub, img, origin=(2, 1), region=(3, 2))
    assert np.array_equal(sub, a[1:3, 2:5])
