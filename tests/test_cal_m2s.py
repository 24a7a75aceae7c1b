"""The CAL binaries of Multi2Sim's m2s-bench-amdsdk-2.5 collection beyond the samples of
tests/test_cal.py (the AMD APP SDK 2.5 samples built by AMD's Catalyst driver for Tahiti), from
kernels/_cal (see its README for their provenance and license), or from the folder
$GCNEMU_AMDSDK_BINARIES names (``<Sample>_Kernels.bin`` files). Each reference is numpy
written from the sample's OpenCL source, launched as the sample's host program launches it,
scaled down."""
import os
from pathlib import Path

import numpy as np
import pytest

import gcnemu

BINARIES = os.environ.get("GCNEMU_AMDSDK_BINARIES") or \
    str(Path(__file__).resolve().parents[1] / "kernels" / "_cal")


def kernel(sample, name):
    path = os.path.join(BINARIES, f"{sample}_Kernels.bin")
    assert os.path.exists(path), f"{path} is absent"
    return gcnemu.load(path).kernel(name)


@pytest.fixture(scope="module", params=["tahiti", "xbox-one"])
def gpu(request):
    """The gfx6 GPU the binaries were built for, and a gfx7 one."""
    return gcnemu.GPU(request.param)


def test_fast_walsh_transform(gpu):
    # IMM_UAV in s[4:7]; the host loops step = 1, 2, .. < length over length/2 work-items
    k = kernel("FastWalshTransform", "fastWalshTransform")
    n = 256
    x = np.random.default_rng(1).integers(-50, 50, n).astype(np.float32)
    buf = gpu.to_device(x)
    ref = x.copy()
    step = 1
    while step < n:
        gpu.dispatch(k, grid=(n // 2,), block=(64,), args=[buf, np.int32(step)])
        tid = np.arange(n // 2)
        pair = 2 * step * (tid // step) + tid % step
        t1, t2 = ref[pair].copy(), ref[pair + step].copy()
        ref[pair], ref[pair + step] = t1 + t2, t1 - t2
        step *= 2
    np.testing.assert_array_equal(buf.to_numpy(), ref)


def test_bitonic_sort(gpu):
    k = kernel("BitonicSort", "bitonicSort")
    n = 512
    x = np.random.default_rng(2).integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    buf = gpu.to_device(x)
    stages = n.bit_length() - 1
    for stage in range(stages):
        for pas in range(stage + 1):
            gpu.dispatch(k, grid=(n // 2,), block=(64,),
                         args=[buf, np.uint32(stage), np.uint32(pas), np.uint32(n), np.uint32(1)])
    np.testing.assert_array_equal(buf.to_numpy(), np.sort(x))


@pytest.mark.parametrize("sample", ["PrefixSum", "ScanLargeArrays"])
def test_prefix_sum(gpu, sample):
    # IMM_UAV for both pointers; the exclusive scan of one work-group, in LDS
    k = kernel(sample, "prefixSum")
    n = 128
    x = np.random.default_rng(3).integers(0, 100, n).astype(np.float32)
    out = gpu.to_device(np.zeros(n, np.float32))
    gpu.dispatch(k, grid=(n // 2,), block=(n // 2,),
                 args=[out, gpu.to_device(x), gcnemu.Local(4 * n), np.uint32(n)])
    np.testing.assert_array_equal(out.to_numpy(), np.concatenate(([0], np.cumsum(x)[:-1])).astype(np.float32))


def test_quasi_random_sequence(gpu):
    # PTR_CONST_BUFFER_TABLE in s[2:3] (the compiler reads CB0/CB1 through it), IMM_UAV for
    # both buffers; one work-group per dimension, nVectors/4 work-items, 32 direction numbers each
    k = kernel("QuasiRandomSequence", "QuasiRandomSequence")
    ndim, nvec = 2, 256
    dirs = np.random.default_rng(4).integers(0, 1 << 32, (ndim, 32), dtype=np.uint64).astype(np.uint32)
    out = gpu.to_device(np.zeros(ndim * nvec, np.float32))
    gpu.dispatch(k, grid=(ndim * nvec // 4,), block=(nvec // 4,),
                 args=[out, gpu.to_device(dirs), gcnemu.Local(32 * 4)])
    # output[d][v] = (XOR of the direction numbers of the bits set in v) / 2^32
    v = np.arange(nvec, dtype=np.uint32)
    ref = np.zeros((ndim, nvec), np.uint32)
    for bit in range(32):
        ref ^= np.where((v >> np.uint32(bit)) & 1, dirs[:, bit:bit + 1], np.uint32(0))
    np.testing.assert_array_equal(out.to_numpy(), (ref.astype(np.float32) / np.float32(2 ** 32)).ravel())


def test_histogram_atomics_reduce(gpu):
    # the reduction of the per-group histograms (NBINS 256) into the first, one work-item a bin
    k = kernel("HistogramAtomics", "reduceKernel")
    nsub = 5
    h = np.random.default_rng(5).integers(0, 1 << 20, (nsub, 256)).astype(np.uint32)
    buf = gpu.to_device(h)
    gpu.dispatch(k, grid=(256,), block=(64,), args=[buf, np.uint32(nsub)])
    np.testing.assert_array_equal(buf.to_numpy()[0], h.sum(axis=0, dtype=np.uint32))


def _sat_pass(src, i, r, axis):
    """One pass of horizontalSAT/verticalSAT: out[y, x] = sum over j < r of src at x - j*r^i
    (along ``axis``), stopping at the image edge."""
    c = r ** i
    out = np.zeros_like(src)
    n = src.shape[axis]
    for j in range(r):
        if j * c >= n:
            break
        shifted = np.zeros_like(src)
        if axis == 1:
            shifted[:, j * c:] = src[:, :n - j * c]
        else:
            shifted[j * c:, :] = src[:n - j * c, :]
        out += shifted
    return out


def test_box_filter_sat(gpu):
    # BoxFilterSAT's passes (horizontalSAT0, horizontalSAT, verticalSAT: each with the constant
    # buffer table) build the summed-area table; box_filter (UAV table) reads four corners of it
    prog_k = {n: kernel("BoxFilter", n) for n in ("horizontalSAT0", "horizontalSAT", "verticalSAT", "box_filter")}
    w = h = 32
    r, passes, nfilter = 2, 5, 5                  # r^passes == width, as the host computes them
    img = np.random.default_rng(6).integers(0, 256, (h, w, 4)).astype(np.uint8)
    bufs = [gpu.to_device(np.zeros((h, w, 4), np.uint32)) for _ in range(2)]
    ins = gpu.to_device(img)
    run = lambda name, a, b, i: gpu.dispatch(prog_k[name], grid=(w, h), block=(8, 8),
                                              args=[a, b, np.int32(i), np.int32(r), np.int32(w)])
    run("horizontalSAT0", ins, bufs[0], 0)
    ref = _sat_pass(img.astype(np.uint32), 0, r, 1)
    src, dst = 0, 1
    for i in range(1, passes):
        run("horizontalSAT", bufs[src], bufs[dst], i)
        ref = _sat_pass(ref, i, r, 1)
        src, dst = dst, src
    for i in range(passes):
        run("verticalSAT", bufs[src], bufs[dst], i)
        ref = _sat_pass(ref, i, r, 0)
        src, dst = dst, src
    sat = bufs[src].to_numpy().reshape(h, w, 4)
    np.testing.assert_array_equal(sat, ref)
    # ... which is the summed-area table
    np.testing.assert_array_equal(ref, img.astype(np.uint32).cumsum(0).cumsum(1))
    out = gpu.to_device(np.zeros((h, w, 4), np.uint8))
    gpu.dispatch(prog_k["box_filter"], grid=(w, h), block=(8, 8), args=[bufs[src], out, np.uint32(nfilter)])
    t = nfilter // 2
    want = np.zeros((h, w, 4), np.uint8)
    for y in range(t, h - t):
        for x in range(t, w - t):
            want[y, x] = img[y - t:y + t + 1, x - t:x + t + 1].astype(np.int64).sum((0, 1)) // nfilter ** 2
    np.testing.assert_array_equal(out.to_numpy().reshape(h, w, 4), want)


def test_histogram_atomics(gpu):
    # 256 bins per work-group from LDS atomics (ds_inc) over 16 banks; each work-item reads
    # n4 uint4 strided by the global size
    k = kernel("HistogramAtomics", "histogramKernel")
    groups, n4 = 2, 3
    stride = 256 * groups
    img = np.random.default_rng(15).integers(0, 1 << 32, (stride * n4, 4), dtype=np.uint64).astype(np.uint32)
    hist = gpu.to_device(np.zeros((groups, 256), np.uint32))
    gpu.dispatch(k, grid=(stride,), block=(256,), args=[gpu.to_device(img), hist, np.uint32(n4)])
    tid = np.arange(stride)
    for g in range(groups):
        vecs = img[(tid[g * 256:(g + 1) * 256, None] + stride * np.arange(n4)[None, :]).ravel()]
        want = np.bincount(vecs.view(np.uint8).ravel(), minlength=256)
        np.testing.assert_array_equal(hist.to_numpy()[g], want)


def _box_1d(img, k, axis):
    """BoxFilterSeparable's one pass: the mean (integer division) of the 2k+1 pixels along
    ``axis``, 0 in the apron."""
    n = img.shape[axis]
    acc = np.zeros(img.shape, np.int64)
    out = np.zeros(img.shape, np.uint8)
    for d in range(-k, k + 1):
        acc += np.roll(img.astype(np.int64), -d, axis)
    inner = [slice(None)] * img.ndim
    inner[axis] = slice(k, n - k)
    out[tuple(inner)] = (acc // (2 * k + 1))[tuple(inner)]
    return out


def test_box_filter_separable(gpu):
    k_h, k_v = kernel("BoxFilter", "box_filter_horizontal"), kernel("BoxFilter", "box_filter_vertical")
    w, h, fw = 32, 16, 5
    img = np.random.default_rng(12).integers(0, 256, (h, w, 4)).astype(np.uint8)
    tmp = gpu.to_device(np.zeros_like(img))
    out = gpu.to_device(np.zeros_like(img))
    gpu.dispatch(k_h, grid=(w, h), block=(8, 8), args=[gpu.to_device(img), tmp, np.int32(fw)])
    want_h = _box_1d(img, fw // 2, 1)
    np.testing.assert_array_equal(tmp.to_numpy().reshape(h, w, 4), want_h)
    gpu.dispatch(k_v, grid=(w, h), block=(8, 8), args=[tmp, out, np.int32(fw)])
    np.testing.assert_array_equal(out.to_numpy().reshape(h, w, 4), _box_1d(want_h, fw // 2, 0))


def test_box_filter_horizontal_local(gpu):
    # rows of GROUP_SIZE (256) work-items stage their pixels and a k-pixel margin each side in
    # LDS; the margins of the image's first and last pixel lie outside it, so the input is
    # given k pixels of padding each side (the apron's outputs do not depend on them)
    k = kernel("BoxFilter", "box_filter_horizontal_local")
    w, h, fw = 256, 3, 7
    img = np.random.default_rng(13).integers(0, 256, (h, w, 4)).astype(np.uint8)
    pad = np.zeros((h * w + 2 * (fw // 2), 4), np.uint8)
    pad[fw // 2:fw // 2 + h * w] = img.reshape(-1, 4)
    src = gpu.to_device(pad)
    out = gpu.to_device(np.zeros_like(img))
    gpu.dispatch(k, grid=(w, h), block=(256, 1),
                 args=[src.address + 4 * (fw // 2), out, np.int32(fw), gcnemu.Local(4 * (256 + fw - 1))])
    got = out.to_numpy().reshape(h, w, 4)
    np.testing.assert_array_equal(got, _box_1d(img, fw // 2, 1))


def test_scan_large_arrays(gpu):
    # the sample's three passes: per-block exclusive scans with block sums (ScanLargeArrays),
    # the scan of the sums (prefixSum), the sums added back (blockAddition)
    scan, psum, add = (kernel("ScanLargeArrays", n) for n in ("ScanLargeArrays", "prefixSum", "blockAddition"))
    bs, nblocks = 64, 4
    n = bs * nblocks
    x = np.random.default_rng(14).integers(0, 100, n).astype(np.float32)
    out = gpu.to_device(np.zeros(n, np.float32))
    sums = gpu.to_device(np.zeros(nblocks, np.float32))
    gpu.dispatch(scan, grid=(n // 2,), block=(bs // 2,),
                 args=[out, gpu.to_device(x), gcnemu.Local(4 * bs), np.uint32(bs), np.uint32(n), sums])
    blocks = x.reshape(nblocks, bs)
    np.testing.assert_array_equal(sums.to_numpy(), blocks.sum(1))
    np.testing.assert_array_equal(out.to_numpy().reshape(nblocks, bs), np.cumsum(blocks, 1) - blocks)
    scanned = gpu.to_device(np.zeros(nblocks, np.float32))
    gpu.dispatch(psum, grid=(nblocks // 2,), block=(nblocks // 2,),
                 args=[scanned, sums, gcnemu.Local(4 * nblocks), np.uint32(nblocks)])
    gpu.dispatch(add, grid=(n,), block=(bs,), args=[scanned, out])
    np.testing.assert_array_equal(out.to_numpy(), np.cumsum(x) - x)


def test_reduction(gpu):
    # (loads before this work too: one of the collection's samples outside ../shared)
    k = kernel("Reduction", "reduce")
    groups, gs = 3, 64
    x = np.random.default_rng(16).integers(0, 1 << 32, (groups * gs, 4), dtype=np.uint64).astype(np.uint32)
    out = gpu.to_device(np.zeros((groups, 4), np.uint32))
    gpu.dispatch(k, grid=(groups * gs,), block=(gs,), args=[gpu.to_device(x), out, gcnemu.Local(16 * gs)])
    np.testing.assert_array_equal(out.to_numpy().reshape(groups, 4), x.reshape(groups, gs, 4).sum(1, dtype=np.uint32))


def test_histogram(gpu):
    # per-work-item byte counters in LDS (LINEAR_MEM_ACCESS, BIN_SIZE 256), one 256-bin
    # histogram per work-group
    k = kernel("Histogram", "histogram256")
    groups, gs = 2, 64
    data = np.random.default_rng(17).integers(0, 256, groups * gs * 256).astype(np.uint32)
    out = gpu.to_device(np.zeros((groups, 256), np.uint32))
    gpu.dispatch(k, grid=(groups * gs,), block=(gs,), args=[gpu.to_device(data), gcnemu.Local(gs * 256), out])
    want = [np.bincount(data.reshape(groups, -1)[g], minlength=256) for g in range(groups)]
    np.testing.assert_array_equal(out.to_numpy(), np.array(want))


def _copied(name, gid, lid):
    """The indices a copy kernel of DeviceFission / MemoryOptimizations writes (each output[i]
    = input[i]), from its source."""
    if name == "NoCoal":
        return np.where((lid & 0xF) == 0, gid - 1 + 16, gid - 1)
    if name == "Split":           # (gid & !63): !63 is 0 in C
        return np.where((gid & 1) == 0, 62 - lid, gid)
    return gid


@pytest.mark.parametrize("sample,name,grid,block,vec", [
    ("DeviceFission", "copy", (256,), (64,), 1),
    ("MemoryOptimizations", "copy1DFastPath", (256,), (64,), 1),
    ("MemoryOptimizations", "copy1DCompletePath", (256,), (64,), 1),
    ("MemoryOptimizations", "copy1Dfloat4", (256,), (64,), 4),
    ("MemoryOptimizations", "copy2Dfloat", (1024, 2), (64, 1), 1),     # rows of WIDTH 1024
    ("MemoryOptimizations", "copy2Dfloat4", (1024, 2), (64, 1), 4),
    ("MemoryOptimizations", "NoCoal", (256,), (64,), 1),
    ("MemoryOptimizations", "Split", (256,), (64,), 1)])
def test_copy_kernels(gpu, sample, name, grid, block, vec):
    k = kernel(sample, name)
    n = int(np.prod(grid))
    x = np.random.default_rng(18).standard_normal((n, vec)).astype(np.float32)
    out = gpu.to_device(np.zeros((n, vec), np.float32))
    gpu.dispatch(k, grid=grid, block=block, args=[gpu.to_device(x), out])
    gid = np.arange(n)
    idx = _copied(name, gid, gid % block[0])
    want = np.zeros_like(x)
    want[idx] = x[idx]
    np.testing.assert_array_equal(out.to_numpy().reshape(n, vec), want)


def test_sobel_filter(gpu):
    # pixels below 64 keep hypot(Gx, Gy) / 2 inside uchar (convert_uchar4 truncates; out of
    # range it is implementation-defined)
    k = kernel("SobelFilter", "sobel_filter")
    w, h = 32, 16
    img = np.random.default_rng(19).integers(0, 64, (h, w, 4)).astype(np.uint8)
    out = gpu.to_device(np.zeros_like(img))
    gpu.dispatch(k, grid=(w, h), block=(8, 8), args=[gpu.to_device(img), out])
    p = np.pad(img.astype(np.float64), ((1, 1), (1, 1), (0, 0)))
    s = lambda dy, dx: p[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]
    gx = s(-1, -1) + 2 * s(-1, 0) + s(-1, 1) - s(1, -1) - 2 * s(1, 0) - s(1, 1)
    gy = s(-1, -1) - s(-1, 1) + 2 * s(0, -1) - 2 * s(0, 1) + s(1, -1) - s(1, 1)
    val = np.hypot(gx, gy) / 2
    want = np.zeros_like(img)
    want[1:-1, 1:-1] = np.trunc(val)[1:-1, 1:-1]
    got = out.to_numpy().reshape(h, w, 4)
    # the kernel's hypot is float32 (a few ulp): where hypot/2 lies within 1e-4 of an integer
    # the truncation may land on either side
    near = np.abs(val - np.round(val)) < 1e-4
    assert (np.abs(got.astype(int) - want) <= 1).all()
    np.testing.assert_array_equal(got[~near], want[~near])


def test_recursive_gaussian_transpose(gpu):
    k = kernel("RecursiveGaussian", "transpose_kernel")
    w, h, bs = 32, 16, 8
    img = np.random.default_rng(20).integers(0, 256, (h, w, 4)).astype(np.uint8)
    out = gpu.to_device(np.zeros((w, h, 4), np.uint8))
    gpu.dispatch(k, grid=(w, h), block=(bs, bs),
                 args=[out, gpu.to_device(img), gcnemu.Local(4 * bs * bs), np.uint32(w), np.uint32(h), np.uint32(bs)])
    np.testing.assert_array_equal(out.to_numpy().reshape(w, h, 4), img.transpose(1, 0, 2))


def test_recursive_gaussian(gpu):
    # the column pass of the Deriche filter (order 0, sigma 10, the host's parameters): a
    # causal then an anticausal float32 recurrence, each output truncated to uchar
    k = kernel("RecursiveGaussian", "RecursiveGaussian_kernel")
    f = np.float32
    w, h = 64, 24
    alpha = f(1.695) / f(10.0)
    ema, ema2 = f(np.exp(-alpha)), f(np.exp(f(-2.0) * alpha))
    b1, b2 = f(-2.0) * ema, ema2
    kk = (f(1) - ema) * (f(1) - ema) / (f(1) + f(2) * alpha * ema - ema2)
    a0, a1, a2, a3 = kk, kk * (alpha - f(1)) * ema, kk * (alpha + f(1)) * ema, -kk * ema2
    coefp, coefn = (a0 + a1) / (f(1) + b1 + b2), (a2 + a3) / (f(1) + b1 + b2)
    img = np.random.default_rng(21).integers(0, 256, (h, w, 4)).astype(np.uint8)
    out = gpu.to_device(np.zeros_like(img))
    gpu.dispatch(k, grid=(w,), block=(64,), args=[gpu.to_device(img), out, np.int32(w), np.int32(h),
                                                  a0, a1, a2, a3, b1, b2, coefp, coefn])
    x = img.astype(f)
    want = np.zeros_like(img)
    xp = yp = yb = np.zeros((w, 4), f)
    for y in range(h):
        yc = a0 * x[y] + a1 * xp - b1 * yp - b2 * yb
        want[y] = yc.astype(np.uint8)
        xp, yb, yp = x[y], yp, yc
    xn = xa = yn = ya = np.zeros((w, 4), f)
    for y in range(h - 1, -1, -1):
        yc = a2 * xn + a3 * xa - b1 * yn - b2 * ya
        xa, xn, ya, yn = xn, x[y], yn, yc
        want[y] = (want[y].astype(f) + yc).astype(np.uint8)
    got = out.to_numpy().reshape(h, w, 4).astype(int)
    # the compiler's multiply-adds round differently from numpy's separate float32 steps: a
    # value a hair from an integer may truncate to its neighbour, nothing more
    assert np.abs(got - want).max() <= 1
    assert (got != want).mean() < 0.02


def test_fft(gpu):
    # the sample's one work-group 1024-point complex FFT, in place (real and imaginary arrays)
    k = kernel("FFT", "kfft")
    rng = np.random.default_rng(22)
    xr, xi = rng.standard_normal(1024).astype(np.float32), rng.standard_normal(1024).astype(np.float32)
    gr, gi = gpu.to_device(xr), gpu.to_device(xi)
    gpu.dispatch(k, grid=(64,), block=(64,), args=[gr, gi])
    ref = np.fft.fft(xr.astype(np.float64) + 1j * xi)
    got = gr.to_numpy() + 1j * gi.to_numpy().astype(np.float64)
    assert np.abs(got - ref).max() < 1e-6 * np.abs(ref).max()    # measured 1.5e-7: float32 twiddles


def _mt_temps(seed, n):
    """The ``n`` uint4 values (each (lanes, 4) uint32) the samples' SIMD Mersenne-twister
    step makes from ``seed`` (MersenneTwister's gaussianRand, MonteCarloAsian's generateRand)."""
    u = np.uint32
    st = [seed]
    for k in range(1, 5):
        st.append(u(1812433253) * (st[-1] ^ (st[-1] >> u(30))) + u(k))
    masks = np.array([0xfdff37ff, 0xef7f3f7d, 0xff777b7d, 0x7ff7fb2f], np.uint32)

    def lshift(a):              # lshift128(a, 24)
        e = a << u(24)
        e[:, 1:] |= a[:, :-1] >> u(8)
        return e

    def rshift(a):              # rshift128(a, 24)
        f = a >> u(24)
        f[:, :-1] |= a[:, 1:] << u(8)
        return f
    temp = []
    r1, r2 = st[3], st[4]
    for i in range(n):
        a, b = [(st[0], st[2]), (st[1], st[3]), (st[2], st[4]), (st[3], st[0]), (st[4], st[1]),
                (None, None), (None, None), (None, None)][i]
        if i >= 5:
            a, b = temp[i - 5], temp[i - 3]
        if i:
            r1, r2 = r2, temp[i - 1]
        temp.append(a ^ lshift(a) ^ ((b >> u(13)) & masks) ^ rshift(r1) ^ (r2 << u(15)))
    return temp


def _box_muller(t1, t2, dtype=np.float32):
    """r cos(phi), r sin(phi) of two uint4 as the samples compute them: uniform numbers and
    PI in ``dtype`` (float32, or float64 for the DP sample), the math here in float64."""
    u1 = (t1.astype(dtype) / dtype(4294967296.0)).astype(np.float64)
    u2 = (t2.astype(dtype) / dtype(4294967296.0)).astype(np.float64)
    r = np.sqrt(-2.0 * np.log(u1))
    phi = 2.0 * np.float64(dtype(3.14159265358979)) * u2
    return r * np.cos(phi), r * np.sin(phi)


@pytest.mark.parametrize("mul", [4, 8])
def test_mersenne_twister_gaussian(gpu, mul):
    # PTR_CONST_BUFFER_TABLE and IMM_UAV; CB2 holds the compiler's log/sin/cos tables
    k = kernel("MersenneTwister", "gaussianRand")
    w, h = 8, 8
    seeds = np.random.default_rng(11).integers(1, 1 << 32, (h * w, 4), dtype=np.uint64).astype(np.uint32)
    out = gpu.to_device(np.zeros((h * w * mul, 4), np.float32))
    gpu.dispatch(k, grid=(w, h), block=(8, 8), args=[gpu.to_device(seeds), np.uint32(w), np.uint32(mul), out])
    t = _mt_temps(seeds, mul)
    want = np.empty((h * w, mul, 4))
    for i in range(mul // 2):
        want[:, 2 * i], want[:, 2 * i + 1] = _box_muller(t[i], t[i + 1])
    # the kernel's log/sqrt/sin/cos are the compiler's float32 ones
    np.testing.assert_allclose(out.to_numpy().reshape(h * w, mul, 4), want, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("sample,ft,tol", [("MonteCarloAsian", np.float32, 1e-4),
                                           ("MonteCarloAsianDP", np.float64, 1e-12)])
def test_monte_carlo_asian_struct_argument(gpu, sample, ft, tol):
    # a struct by value (;value:attrib:struct:112:1:0, 224 for DP): seven float4 (double4)
    # in CB1 at offset 0
    k = kernel(sample, "calPriceVega")
    w, h, nsum = 16, 4, 12
    interest, maturity, sigma, init, strike = 0.06, 1.0, 0.2, 50.0, 55.0
    dt = maturity / (nsum - 1)
    c1, c2, c3 = (interest - 0.5 * sigma ** 2) * dt, sigma * np.sqrt(dt), interest + 0.5 * sigma ** 2
    attrib_t = np.dtype([(n, ft, 4) for n in ("strikePrice", "c1", "c2", "c3", "initPrice",
                                                      "sigma", "timeStep")])
    attrib = np.zeros((), attrib_t)
    for n, v in zip(attrib_t.names, (strike, c1, c2, c3, init, sigma, dt)):
        attrib[n] = v
    seeds = np.random.default_rng(7).integers(1, 1 << 32, (h * w, 4), dtype=np.uint64).astype(np.uint32)
    price = gpu.to_device(np.zeros((h * w * 2, 4), ft))
    deriv = gpu.to_device(np.zeros((h * w * 2, 4), ft))
    gpu.dispatch(k, grid=(w, h), block=(16, 4),
                 args=[attrib, np.int32(nsum), np.int32(w), gpu.to_device(seeds), price, deriv])
    f = lambda x: np.float64(ft(x))
    traj, sums, derivs = [np.full((h * w, 4), f(init)) for _ in range(2)], [np.full((h * w, 4), f(init)) for _ in range(2)], \
        [np.zeros((h * w, 4)) for _ in range(2)]
    nxt = seeds
    for i in range(1, nsum):
        t3 = _mt_temps(nxt, 3)
        (g1, g2), nxt = _box_muller(t3[0], t3[1], ft), t3[2]
        t = f(c3) * f(dt) * i
        for j, g in enumerate((g1, g2)):
            traj[j] = traj[j] * np.exp(f(c1) + f(c2) * g)
            sums[j] = sums[j] + traj[j]
            derivs[j] = derivs[j] + traj[j] * ((np.log(traj[j] / f(init)) - t) / f(sigma))
    want_p = np.empty((h * w, 2, 4))
    want_d = np.empty((h * w, 2, 4))
    for j in range(2):
        diff = sums[j] / nsum - f(strike)
        want_p[:, j] = np.where(diff > 0, diff, 0.0)
        want_d[:, j] = np.where(diff > 0, derivs[j] / nsum, 0.0)
    # the kernel's exp/log/sin/cos are the compiler's (a few ulp), summed over the path
    np.testing.assert_allclose(price.to_numpy().reshape(h * w, 2, 4), want_p, rtol=tol, atol=10 * tol)
    np.testing.assert_allclose(deriv.to_numpy().reshape(h * w, 2, 4), want_d, rtol=tol, atol=10 * tol)
    assert (want_p > 0).sum() > 50                # the options in the money are compared too


def _image(gpu, pixels, ctype):
    """gcnemu's image object (T# + size + format) over a device copy of ``pixels``, RGBA
    texels as (height, width, 4) for a 2D image or (depth, height, width, 4) for a 3D one:
    what gcnemu.cl.Image's gcnemu_object holds."""
    from gcnemu.loader.climage import CHANNEL_ORDERS, CHANNEL_TYPES, image_object_words
    buf = gpu.to_device(np.ascontiguousarray(pixels))
    shape = tuple(d for d in pixels.shape[:-1][::-1])
    words = image_object_words(buf.address, CHANNEL_ORDERS["RGBA"], CHANNEL_TYPES[ctype], shape)
    return buf, gpu.to_device(np.array(words, np.uint32))


def test_simple_image_2d_copy(gpu):
    # PTR_RESOURCE_TABLE (the read image's T#), IMM_SAMPLER (the source's constant sampler),
    # the written image's T# in UAV table entry 0
    k = kernel("SimpleImage", "image2dCopy")
    w, h = 24, 16
    px = np.random.default_rng(8).integers(0, 256, (h, w, 4)).astype(np.uint8)
    _src, src = _image(gpu, px, "UNSIGNED_INT8")
    dst_buf, dst = _image(gpu, np.zeros_like(px), "UNSIGNED_INT8")
    gpu.dispatch(k, grid=(w, h), block=(8, 8), args=[src, dst])
    np.testing.assert_array_equal(dst_buf.to_numpy().reshape(h, w, 4), px)


def test_simple_image_3d_copy(gpu):
    # slice 0 into the lower half, slice 1 into the upper; the reads that fall outside the
    # 3D image's height return CLAMP's border, 0 for RGBA
    k = kernel("SimpleImage", "image3dCopy")
    w, h = 16, 16
    px = np.random.default_rng(9).integers(0, 256, (2, h // 2, w, 4)).astype(np.uint8)
    _src, src = _image(gpu, px, "UNSIGNED_INT8")
    dst_buf, dst = _image(gpu, np.zeros((h, w, 4), np.uint8), "UNSIGNED_INT8")
    gpu.dispatch(k, grid=(w, h), block=(8, 8), args=[src, dst])
    np.testing.assert_array_equal(dst_buf.to_numpy().reshape(h, w, 4), np.concatenate([px[0], px[1]]))


@pytest.mark.parametrize("name,tiley", [("mmmKernel", 4), ("mmmKernel2", 8), ("mmmKernel3", 8)])
def test_matrix_mul_image(gpu, name, tiley):
    # float RGBA images: a texel is 4 consecutive matrix elements of a row; each work-item
    # computes a 4 x TILEY block of C; the widths come through the constant-buffer table
    k = kernel("MatrixMulImage", name)
    ha, wa, wb = 32, 16, 32
    rng = np.random.default_rng(10)
    a = rng.integers(-8, 8, (ha, wa)).astype(np.float32)
    b = rng.integers(-8, 8, (wa, wb)).astype(np.float32)
    _a, ia = _image(gpu, a.reshape(ha, wa // 4, 4), "FLOAT")
    _b, ib = _image(gpu, b.reshape(wa, wb // 4, 4), "FLOAT")
    c_buf, ic = _image(gpu, np.zeros((ha, wb // 4, 4), np.float32), "FLOAT")
    args = [ia, ib, ic, np.uint32(wa), np.uint32(wb)]
    gpu.dispatch(k, grid=(wb // 4, ha // tiley), block=(8, 4), args=args)
    np.testing.assert_array_equal(c_buf.to_numpy().reshape(ha, wb), a @ b)   # small integers: exact


# --- the launch ABI elements, without the binaries ------------------------------------------

def _layout(elements, data=b"", args=()):
    from types import SimpleNamespace
    from gcnemu.loader.cal import CalKernel, CalLaunchLayout
    cal = CalKernel(list(elements), list(args), False, data, 0, 0, 0, 0)
    return CalLaunchLayout(SimpleNamespace(name="k", cal=cal), (256,), (64,), 1)


def _words(v, n):
    return [(v >> (32 * i)) & 0xFFFFFFFF for i in range(n)]


def test_imm_uav_is_the_uav_table_entry():
    # Multi2Sim Wavefront::setSRegWithUAV: the 4 SGPRs hold the 16-byte V# of UAV table
    # entry apiSlot (entries of 32 bytes); gcnemu's UAVs are all of memory from its base
    from gcnemu.mem.descriptors import decode_vsharp
    from gcnemu.mem.space import BASE
    lay = _layout([("IMM_UAV", 10, 4, 4), ("IMM_CONST_BUFFER", 1, 8, 4)])
    blob = lay.relocate(lay.template, 0x10000)
    (what, first, n, v), cb1 = lay.user_sgprs(0x10000)
    assert (what, first, n) == ("cal_uav10", 4, 4)
    w = _words(v, 4)
    assert w == list(np.frombuffer(blob[10 * 32:10 * 32 + 16], np.uint32))
    d = decode_vsharp(w)
    assert d.base_address == BASE and d.num_records == 0xFFFFFFFF


def test_const_buffer_table_holds_each_constant_buffer():
    # Multi2Sim Wavefront::setSRegWithConstantBufferTable: 2 SGPRs, the table's address; the
    # table has 16-byte entries (NDRange::ConstBufTableEntrySize), entry n the V# of CB n
    from gcnemu.loader.cal import CB_TABLE_OFFSET
    from gcnemu.mem.descriptors import decode_vsharp
    data = bytes(range(48))
    lay = _layout([("PTR_CONST_BUFFER_TABLE", 0, 2, 2), ("IMM_UAV", 10, 4, 4)], data=data)
    at = 0x200000
    blob = lay.relocate(lay.template, at)
    table = lay.user_sgprs(at)[0]
    assert table[:3] == ("cal_cb_table", 2, 2) and table[3] == at + CB_TABLE_OFFSET
    cbs = [decode_vsharp(np.frombuffer(blob, np.uint32, 4, CB_TABLE_OFFSET + 16 * i)) for i in range(3)]
    # CB0: global size 256, 1 dimension, local size 64, 4 groups; CB2: the binary's .data
    cb0 = np.frombuffer(blob, np.uint32, 12, cbs[0].base_address - at)
    assert cb0[[0, 3, 4, 8]].tolist() == [256, 1, 64, 4]
    assert cbs[0].num_records == 160
    assert blob[cbs[2].base_address - at:][:48] == data and cbs[2].num_records == 48
    assert cbs[1].base_address == at + lay.cb_range(1)[0]
    assert all(c.stride == 16 for c in cbs)       # float4 records: idxen table loads index by 16 bytes


def test_struct_argument_bytes_go_to_cb1():
    from gcnemu.errors import DispatchError
    from gcnemu.loader.cal import CB1_OFFSET, parse_metadata
    args, *_ = parse_metadata(";value:attrib:struct:20:1:0\n;value:n:i32:1:1:32\n", "test")
    assert [(a.name, a.kind, a.size, a.cb1_offset) for a in args] == [("attrib", "struct", 20, 0), ("n", "value", 4, 32)]
    lay = _layout([("IMM_CONST_BUFFER", 1, 4, 4)], args=args)
    st = np.zeros((), np.dtype([("a", np.float32, 4), ("b", np.int32)]))
    st["a"], st["b"] = (1.5, -2, 3, 4), 7
    blob = lay.build([st, np.int32(9)])
    assert blob[CB1_OFFSET:CB1_OFFSET + 20] == st.tobytes()
    assert blob[CB1_OFFSET + 32:CB1_OFFSET + 36] == (9).to_bytes(4, "little")
    assert lay.build([bytes(range(20)), 1])[CB1_OFFSET:CB1_OFFSET + 20] == bytes(range(20))
    with pytest.raises(DispatchError, match="struct of 20 bytes, got 16"):
        lay.build([bytes(16), 1])
    with pytest.raises(DispatchError, match="struct of 20 bytes: pass bytes"):
        lay.build([3.0, 1])


def test_image_arguments_and_sampler_layout():
    # read-only image n: its T# in resource table entry n (PTR_RESOURCE_TABLE, 32-byte
    # entries); write-only image n: its T# in UAV table entry n; CB1 at the image's offset:
    # width, height, depth, channel data type, channel order; IMM_SAMPLER: the S# of the
    # source's sampler (22: unnormalized, CLAMP, NEAREST)
    from gcnemu.errors import LoaderError
    from gcnemu.loader.cal import CB1_OFFSET, RESOURCE_TABLE_OFFSET, parse_metadata, sampler_ssharp
    from gcnemu.loader.climage import CHANNEL_ORDERS, CHANNEL_TYPES
    from gcnemu.mem.descriptors import decode_ssharp, decode_tsharp
    meta = ";image:a:2D:RO:3:1:0\n;image:c:2D:WO:1:1:32\n;value:n:u32:1:1:64\n;sampler:s:0:1:22\n"
    args, _d, _h, _dev, samplers = parse_metadata(meta, "test")
    assert [(a.name, a.kind, a.uav, a.access, a.cb1_offset) for a in args] == \
        [("a", "image", 3, "RO", 0), ("c", "image", 1, "WO", 32), ("n", "value", -1, "", 64)]
    assert samplers == {0: 22}
    from types import SimpleNamespace
    from gcnemu.loader.cal import CalKernel, CalLaunchLayout
    cal = CalKernel([("PTR_RESOURCE_TABLE", 0, 2, 2), ("IMM_SAMPLER", 0, 4, 4), ("PTR_UAV_TABLE", 0, 8, 2)],
                    args, False, b"", 0, 0, 0, 0, samplers=samplers)
    lay = CalLaunchLayout(SimpleNamespace(name="k", cal=cal), (8, 8), (8, 8), 2)
    g = gcnemu.GPU("tahiti")
    abuf, a = _image(g, np.zeros((6, 5, 4), np.float32), "FLOAT")
    cbuf, c = _image(g, np.zeros((2, 3, 4), np.uint8), "UNSIGNED_INT8")
    blob = lay.build([a, c, 9])
    ta = decode_tsharp(np.frombuffer(blob, np.uint32, 8, RESOURCE_TABLE_OFFSET + 32 * 3))
    tc = decode_tsharp(np.frombuffer(blob, np.uint32, 8, 32 * 1))
    assert (ta.base_address, ta.width, ta.height) == (abuf.address, 5, 6)
    assert (tc.base_address, tc.width, tc.height) == (cbuf.address, 3, 2)
    info = np.frombuffer(blob, np.uint32, 13, CB1_OFFSET)
    assert info[:5].tolist() == [5, 6, 0, CHANNEL_TYPES["FLOAT"], CHANNEL_ORDERS["RGBA"]]
    assert info[8:13].tolist() == [3, 2, 0, CHANNEL_TYPES["UNSIGNED_INT8"], CHANNEL_ORDERS["RGBA"]]
    els = {what: (first, v) for what, first, _n, v in lay.user_sgprs(0x4000)}
    assert els["cal_resource_table"] == (2, 0x4000 + RESOURCE_TABLE_OFFSET)
    s = decode_ssharp(_words(els["cal_sampler0"][1], 4))
    assert (s.clamp_x, s.clamp_y, s.force_unnormalized, s.xy_mag_filter, s.xy_min_filter) == (6, 6, 1, 0, 0)
    with pytest.raises(LoaderError, match="sampler value 23"):
        sampler_ssharp(23, "k")
    with pytest.raises(LoaderError, match="share UAV 1"):
        parse_metadata(";image:c:2D:WO:1:1:0\n;pointer:p:u32:1:1:32:uav:1:4:RW:0:0\n", "test")
