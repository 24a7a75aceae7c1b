"""CAL ELF binaries of AMD's Catalyst OpenCL driver (gcnemu/loader/cal.py): loading, the CAL
launch ABI and the AMD APP SDK 2.5 samples (kernels/_cal) run against numpy references
written from each sample's OpenCL source (not from the emulator's output)."""
import os
import struct

import numpy as np
import pytest

import gcnemu
from gcnemu.errors import LoaderError

SAMPLES = {"BinarySearch": ["binarySearch"], "BinomialOption": ["binomial_options"],
           "BlackScholes": ["blackScholes"], "DCT": ["DCT"], "DwtHaar1D": ["dwtHaar1D"],
           "EigenValue": ["calNumEigenValueInterval", "recalculateEigenIntervals"],
           "FloydWarshall": ["floydWarshallPass"],
           "MatrixMultiplication": ["mmmKernel", "mmmKernel_local", "mmmKernel_local2"],
           "MatrixTranspose": ["matrixTranspose"], "RadixSort": ["histogram", "permute"],
           "SimpleConvolution": ["simpleConvolution"], "URNG": ["noise_uniform"]}


#: the samples' binaries, committed with AMD's license (kernels/_cal/README.md); the same bytes
#: as ../shared/reference/amd-app-sdk-2.5
CORPUS = os.path.join(os.path.dirname(__file__), "..", "kernels", "_cal")


def binary(sample):
    return os.path.join(CORPUS, f"{sample}_Kernels.bin")


def kernel(sample, name):
    return gcnemu.load(binary(sample)).kernel(name)


@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_cal_loads_every_sample(sample):
    prog = gcnemu.load(binary(sample))
    assert prog.kernel_names == sorted(SAMPLES[sample])
    for n in prog.kernel_names:
        k = prog.kernel(n)
        cal = k.info.cal
        # every sample's kernels take the UAV table in s[2:3], CB0 in s[4:7], CB1 in s[8:11]
        assert cal.user_elements[:3] == [("PTR_UAV_TABLE", 0, 2, 2), ("IMM_CONST_BUFFER", 0, 4, 4),
                                         ("IMM_CONST_BUFFER", 1, 8, 4)]
        assert k.info.mode_register == cal.float_mode | cal.ieee_mode << 9
        assert k.program.instructions[-1].name == "s_endpgm" or any(
            i.name == "s_endpgm" for i in k.program.instructions)


def test_cal_binary_search_args_and_proginfo():
    k = kernel("BinarySearch", "binarySearch")
    cal = k.info.cal
    assert [(a.name, a.kind, a.cb1_offset) for a in cal.args] == [
        ("outputArray", "uav", 0), ("sortedArray", "uav", 16), ("findMe", "value", 32),
        ("globalLowerBound", "value", 48), ("globalUpperBound", "value", 64), ("subdivSize", "value", 80)]
    # ProgInfo of this kernel as readelf/od shows it: rsrc2 0x98 (12 user SGPRs, TGID_X),
    # 7 VGPRs, 16 SGPRs, FloatMode 0xc0, IeeeMode 0
    assert (k.info.compute_pgm_rsrc2, k.info.user_sgpr_count, k.info.enable_sgpr_workgroup_id_x) == (0x98, 12, 1)
    assert (k.info.vgpr_count, k.info.sgpr_count, k.info.mode_register) == (7, 16, 0xC0)
    assert cal.datareqd is False


def test_cal_datareqd():
    assert kernel("BlackScholes", "blackScholes").info.cal.datareqd is True


# --- malformed input ------------------------------------------------------------------------

def test_cal_malformed_truncated():
    raw = open(binary("BinarySearch"), "rb").read()
    with pytest.raises(LoaderError, match="runs past the end"):
        gcnemu.load(raw[:len(raw) // 2])


def test_cal_malformed_inner_and_metadata():
    raw = bytearray(open(binary("BinarySearch"), "rb").read())
    # break the encoding dictionary of the inner ELF: machine 26 -> 27
    bad = bytearray(raw)
    inner = raw.find(b"\x7fELF", 4)
    phoff, = struct.unpack_from("<I", raw, inner + 28)
    phnum, = struct.unpack_from("<H", raw, inner + 44)
    for p in range(phnum):
        ptype, off = struct.unpack_from("<II", raw, inner + phoff + 32 * p)
        if ptype == 0x70000002:
            for e in range(2):
                if struct.unpack_from("<I", raw, inner + off + 20 * e)[0] == 26:
                    struct.pack_into("<I", bad, inner + off + 20 * e, 27)
    with pytest.raises(LoaderError, match="machine 26"):
        gcnemu.load(bytes(bad))
    bad = bytes(raw).replace(b";pointer:sortedArray:u32:1:1:16:uav:11:", b";pointer:sortedArray:u32:1:1:16:uav:99:")
    with pytest.raises(LoaderError, match="UAV id 99"):
        gcnemu.load(bad)
    bad = bytes(raw).replace(b";value:findMe:u32:1:1:32", b";value:findMe:q32:1:1:32")
    with pytest.raises(LoaderError, match="findMe: value type 'q32'"):
        gcnemu.load(bad)


#: (field of tools/fuzz.cal_fields, value written, what the LoaderError must name)
FIELD_MUTANTS = [
    ("outer ELF e_shentsize", 0, "section header table entry size 0, expected 40"),
    ("inner ELF of binarySearch e_phoff", 0xFFFFFF, r"program header table 0xffffff\+0xa0 runs past"),
    ("inner ELF of binarySearch encoding entry 1 d_machine", 27, "0 entries for machine 26"),
    ("inner ELF of binarySearch encoding entry 1 d_size", 0xFFFFFFF, r"\(d_offset/d_size\)"),
    ("inner ELF of binarySearch ProgInfo 0x80001041 value", 0, "NUM_VGPRS 0 outside 1..256"),
    ("inner ELF of binarySearch ProgInfo 0x80001042 value", 500, "NUM_SGPRS 500 outside 1..104"),
    ("inner ELF of binarySearch ProgInfo 0x80001003 value", 40, "AMU_ABI_USER_ELEMENTS_0_DWORD2"),
    ("inner ELF of binarySearch ProgInfo 0x00002e13 value", 0, "COMPUTE_PGM_RSRC2.USER_SGPR is 0"),
]


def test_cal_loader_errors_name_the_field():
    """Fields located by the fuzzer's own ELF32 walk (tools/fuzz.py, written apart from the
    loader), set to a bad value: the LoaderError names that field."""
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
    import fuzz
    raw = open(binary("BinarySearch"), "rb").read()
    fields = {name: (at, size) for _g, name, at, size in fuzz.cal_fields(raw)}
    for name, value, msg in FIELD_MUTANTS:
        at, size = fields[name]
        bad = bytearray(raw)
        bad[at:at + size] = value.to_bytes(size, "little")
        with pytest.raises(LoaderError, match=msg):
            gcnemu.load(bytes(bad))


def test_cal_not_cal():
    from gcnemu.loader.cal import load_cal
    with pytest.raises(LoaderError, match="not an ELF"):
        load_cal(b"\x7fELX" + bytes(60))
    hdr = bytearray(b"\x7fELF\x01\x01\x01" + bytes(45))
    struct.pack_into("<H", hdr, 18, 0x3FD)
    with pytest.raises(LoaderError, match="no .symtab"):
        load_cal(bytes(hdr))


# --- running the samples ----------------------------------------------------------------------

@pytest.fixture(params=["xbox-one", "tahiti"])
def gpu(request):
    """Each sample runs on a gfx7 GPU and on the gfx6 (Southern Islands) one it was built for."""
    return gcnemu.GPU(request.param)


def test_cal_binary_search(gpu):
    n, sub = 1024, 8
    arr = np.arange(3, 3 + 3 * n, 3, dtype=np.uint32)
    for idx in (0, 77, 1023):
        find = arr[idx]
        out = gpu.to_device(np.zeros(4, np.uint32))
        sa = gpu.to_device(arr)
        gpu.dispatch(kernel("BinarySearch", "binarySearch"), grid=(n // sub,), block=(64,),
                     args=[out, sa, np.uint32(find), np.uint32(0), np.uint32(n - 1), np.uint32(sub)])
        lo = (idx // sub) * sub            # the one segment [lo, lo+sub-1] holding arr[idx]
        assert out.to_numpy().tolist() == [lo, lo + sub - 1, 0, 1]


def test_cal_floyd_warshall(gpu):
    w = 32
    rng = np.random.default_rng(5)
    dist = rng.integers(1, 200, (w, w)).astype(np.uint32)
    np.fill_diagonal(dist, 0)
    d = gpu.to_device(dist.ravel().copy())
    path = gpu.to_device(np.zeros(w * w, np.uint32))
    k = kernel("FloydWarshall", "floydWarshallPass")
    ref = dist.astype(np.int64).copy()
    refp = np.zeros((w, w), np.int64)
    for p in range(w):
        gpu.dispatch(k, grid=(w * w,), block=(w,), args=[d, path, np.uint32(w), np.uint32(p)])
        cand = ref[:, p:p + 1] + ref[p:p + 1, :]
        refp = np.where(cand < ref, p, refp)
        ref = np.minimum(ref, cand)
    assert (d.to_numpy().reshape(w, w) == ref).all()
    assert (path.to_numpy().reshape(w, w) == refp).all()


def test_cal_matrix_transpose(gpu):
    wid, hei, bs = 64, 32, 16
    a = np.random.default_rng(1).standard_normal((hei, wid)).astype(np.float32)
    out = gpu.to_device(np.zeros(wid * hei, np.float32))
    gpu.dispatch(kernel("MatrixTranspose", "matrixTranspose"), grid=(wid, hei), block=(bs, bs),
                 args=[out, gpu.to_device(a.ravel().copy()), gcnemu.Local(bs * bs * 4),
                       np.uint32(wid), np.uint32(hei), np.uint32(bs)])
    assert (out.to_numpy().reshape(wid, hei) == a.T).all()


def test_cal_simple_convolution(gpu):
    wid, hei, mw, mh = 32, 16, 3, 3
    rng = np.random.default_rng(2)
    inp = rng.integers(0, 256, (hei, wid)).astype(np.uint32)
    mask = (rng.integers(1, 8, (mh, mw)) / 8).astype(np.float32)    # exact in binary: sums exact
    out = gpu.to_device(np.zeros(wid * hei, np.uint32))
    gpu.dispatch(kernel("SimpleConvolution", "simpleConvolution"), grid=(wid * hei,), block=(64,),
                 args=[out, gpu.to_device(inp.ravel().copy()), gpu.to_device(mask.ravel().copy()),
                       np.array([wid, hei], np.uint32), np.array([mw, mh], np.uint32)])
    ref = np.zeros((hei, wid), np.uint32)
    vs, hs = (mw - 1) // 2, (mh - 1) // 2
    for y in range(hei):
        for x in range(wid):
            s = 0.0
            for i in range(max(0, x - vs), min(wid - 1, x + vs) + 1):
                for j in range(max(0, y - hs), min(hei - 1, y + hs) + 1):
                    s += float(inp[j, i]) * float(mask[j - (y - hs), i - (x - vs)])
            ref[y, x] = int(s + 0.5)
    assert (out.to_numpy().reshape(hei, wid) == ref).all()


def test_cal_radix_histogram_and_permute(gpu):
    radices, group, ngroups = 256, 64, 2
    # each work-item reads RADICES elements
    data = np.random.default_rng(3).integers(0, 1 << 32, group * ngroups * radices, dtype=np.uint64).astype(np.uint32)
    shift = 8
    buckets = gpu.to_device(np.zeros(group * ngroups * radices, np.uint32))
    gpu.dispatch(kernel("RadixSort", "histogram"), grid=(group * ngroups,), block=(group,),
                 args=[gpu.to_device(data), buckets, np.uint32(shift), gcnemu.Local(group * radices * 2)])
    vals = ((data >> shift) & 0xFF).reshape(group * ngroups, radices)
    ref = np.stack([np.bincount(v, minlength=radices) for v in vals]).astype(np.uint32)
    assert (buckets.to_numpy().reshape(group * ngroups, radices) == ref).all()


def test_cal_matrix_multiply(gpu):
    # mmmKernel: C (float4 tiles) = A x B; widths in float4 units as the host passes them
    n = 64
    rng = np.random.default_rng(4)
    a = rng.integers(-4, 5, (n, n)).astype(np.float32)
    b = rng.integers(-4, 5, (n, n)).astype(np.float32)
    c = gpu.to_device(np.zeros(n * n, np.float32))
    gpu.dispatch(kernel("MatrixMultiplication", "mmmKernel"), grid=(n // 4, n // 4), block=(8, 8),
                 args=[gpu.to_device(a.ravel().copy()), gpu.to_device(b.ravel().copy()), c,
                       np.uint32(n), np.uint32(n)])
    assert (c.to_numpy().reshape(n, n) == a @ b).all()    # small integers: every sum is exact


@pytest.mark.parametrize("name", ["mmmKernel_local", "mmmKernel_local2"])
def test_cal_matrix_multiply_local(gpu, name):
    n, bs = 64, 4
    rng = np.random.default_rng(6)
    a = rng.integers(-4, 5, (n, n)).astype(np.float32)
    b = rng.integers(-4, 5, (n, n)).astype(np.float32)
    c = gpu.to_device(np.zeros(n * n, np.float32))
    tile = gcnemu.Local(bs * 4 * bs * 16)     # blockSize x (TILEY * blockSize) float4s
    extra = [tile] if name == "mmmKernel_local" else [tile, gcnemu.Local(bs * 4 * bs * 16)]
    gpu.dispatch(kernel("MatrixMultiplication", name), grid=(n // 4, n // 4), block=(bs, bs),
                 args=[gpu.to_device(a.ravel().copy()), gpu.to_device(b.ravel().copy()), c,
                       np.int32(n)] + extra)
    assert (c.to_numpy().reshape(n, n) == a @ b).all()


def test_cal_radix_permute(gpu):
    radices, group, ngroups, shift = 256, 64, 2, 0
    rng = np.random.default_rng(7)
    data = rng.integers(0, 1 << 32, group * ngroups * radices, dtype=np.uint64).astype(np.uint32)
    digit = (data >> shift) & 0xFF
    counts = np.stack([np.bincount(v, minlength=radices) for v in digit.reshape(-1, radices)])
    # the host's scan: for radix r and work-item t, the elements of smaller radices plus those of
    # radix r of the work-items before t
    before_r = np.concatenate(([0], np.cumsum(counts.sum(0))[:-1]))
    scanned = (before_r[None, :] + np.cumsum(counts, 0) - counts).astype(np.uint32)
    out = gpu.to_device(np.zeros_like(data))
    gpu.dispatch(kernel("RadixSort", "permute"), grid=(group * ngroups,), block=(group,),
                 args=[gpu.to_device(data), gpu.to_device(scanned.ravel().copy()), np.uint32(shift),
                       gcnemu.Local(group * radices * 2), out])
    assert (out.to_numpy() == data[np.argsort(digit, kind="stable")]).all()


def test_cal_dct(gpu):
    bw, width = 8, 32
    rng = np.random.default_rng(8)
    x = rng.standard_normal((width, width)).astype(np.float32)
    n = np.arange(bw)
    d = np.sqrt(np.where(n[:, None] == 0, 1 / bw, 2 / bw)) * np.cos((2 * n[None, :] + 1) * n[:, None] * np.pi / (2 * bw))
    d = d.astype(np.float32)
    out = gpu.to_device(np.zeros(width * width, np.float32))
    gpu.dispatch(kernel("DCT", "DCT"), grid=(width, width), block=(bw, bw),
                 args=[out, gpu.to_device(x.ravel().copy()), gpu.to_device(d.ravel().copy()),
                       gcnemu.Local(bw * bw * 4), np.uint32(width), np.uint32(bw), np.uint32(0)])
    ref = np.zeros((width, width))
    D = d.astype(np.float64)
    for gy in range(width // bw):
        for gx in range(width // bw):
            xb = x[gy * bw:(gy + 1) * bw, gx * bw:(gx + 1) * bw].astype(np.float64)
            t = np.einsum("ki,kj->ji", D, xb)          # inter[j][i] = sum_k D[k][i] X[k][j]
            ref[gy * bw:(gy + 1) * bw, gx * bw:(gx + 1) * bw] = np.einsum("ik,kj->ji", t, D)
    np.testing.assert_allclose(out.to_numpy().reshape(width, width), ref, rtol=1e-5, atol=1e-5)


def test_cal_dwt_haar_1d(gpu):
    local, groups = 32, 2
    length = 2 * local * groups
    levels = int(np.log2(2 * local))
    rng = np.random.default_rng(9)
    sig = rng.standard_normal(length).astype(np.float32)
    coefs = gpu.to_device(np.zeros(length, np.float32))
    avg = gpu.to_device(np.zeros(groups, np.float32))
    gpu.dispatch(kernel("DwtHaar1D", "dwtHaar1D"), grid=(local * groups,), block=(local,),
                 args=[gpu.to_device(sig), coefs, avg, gcnemu.Local(2 * local * 4), np.uint32(levels),
                       np.uint32(length), np.uint32(0), np.uint32(levels)])
    ref_c, ref_a = np.zeros(length), np.zeros(groups)
    for g in range(groups):
        s = sig[g * 2 * local:(g + 1) * 2 * local].astype(np.float64) / np.sqrt(length)
        active, mid = (1 << levels) // 2, length // 2
        for _ in range(levels):
            d0, d1 = s[0:2 * active:2].copy(), s[1:2 * active:2].copy()
            s[:active] = (d0 + d1) / np.sqrt(2)
            ref_c[mid + g * active: mid + g * active + active] = (d0 - d1) / np.sqrt(2)
            mid >>= 1
            active >>= 1
        ref_a[g] = s[0]
    np.testing.assert_allclose(coefs.to_numpy(), ref_c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(avg.to_numpy(), ref_a, rtol=1e-5, atol=1e-6)


def _phi(x):
    c = (0.319381530, -0.356563782, 1.781477937, -1.821255978, 1.330274429)
    t = 1.0 / (1.0 + 0.2316419 * np.abs(x))
    y = 1.0 - 0.398942280 * np.exp(-x * x / 2) * t * (c[0] + t * (c[1] + t * (c[2] + t * (c[3] + t * c[4]))))
    return np.where(x < 0, 1.0 - y, y)


def test_cal_black_scholes(gpu):
    # datareqd: the kernel reads the compiler's constant buffer 2 (the inner .data)
    width, height = 16, 8          # in float4s
    r = np.random.default_rng(10).random((height, width * 4)).astype(np.float32)
    call = gpu.to_device(np.zeros(height * width * 4, np.float32))
    put = gpu.to_device(np.zeros(height * width * 4, np.float32))
    gpu.dispatch(kernel("BlackScholes", "blackScholes"), grid=(width, height), block=(8, 8),
                 args=[gpu.to_device(r.ravel().copy()), np.int32(width), call, put])
    x = r.astype(np.float64)
    S, K, T = 10 * x + 100 * (1 - x), 10 * x + 100 * (1 - x), 1 * x + 10 * (1 - x)
    R, sig = 0.01 * x + 0.05 * (1 - x), 0.01 * x + 0.10 * (1 - x)
    sst = sig * np.sqrt(T)
    d1 = (np.log(S / K) + (R + sig * sig / 2) * T) / sst
    d2 = d1 - sst
    kexp = K * np.exp(-R * T)
    ref_call = S * _phi(d1) - kexp * _phi(d2)
    ref_put = kexp * _phi(-d2) - S * _phi(-d1)
    # the host program's check: within 1e-4 (float32 exp/log/sqrt of the hardware)
    np.testing.assert_allclose(call.to_numpy().reshape(height, -1), ref_call, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(put.to_numpy().reshape(height, -1), ref_put, rtol=1e-4, atol=1e-3)


def _tridiagonal(n, seed):
    rng = np.random.default_rng(seed)
    diag = rng.uniform(-4, 4, n).astype(np.float32)
    off = rng.uniform(-1, 1, n - 1).astype(np.float32)
    m = np.diag(diag.astype(np.float64)) + np.diag(off.astype(np.float64), 1) + np.diag(off.astype(np.float64), -1)
    return diag, off, np.sort(np.linalg.eigvalsh(m))


def test_cal_eigen_num_intervals(gpu):
    n = 16
    diag, off, ev = _tridiagonal(n, 11)
    # interval bounds halfway between eigenvalues (far from any, so the Sturm counts are exact)
    cuts = np.concatenate(([ev[0] - 1], (ev[1:] + ev[:-1]) / 2, [ev[-1] + 1]))
    lo_idx = np.array([0, 0, 3, 5, 8, 15, 2, 10])
    hi_idx = np.array([16, 1, 7, 6, 12, 16, 2, 11])
    intervals = np.stack([cuts[lo_idx], cuts[hi_idx]], 1).astype(np.float32)
    out = gpu.to_device(np.zeros(len(lo_idx), np.uint32))
    gpu.dispatch(kernel("EigenValue", "calNumEigenValueInterval"), grid=(len(lo_idx),), block=(len(lo_idx),),
                 args=[out, gpu.to_device(intervals.ravel().copy()), gpu.to_device(diag),
                       gpu.to_device(off), np.uint32(n)])
    assert out.to_numpy().tolist() == (hi_idx - lo_idx).tolist()


def test_cal_eigen_recalculate(gpu):
    n = 16
    diag, off, ev = _tridiagonal(n, 12)
    cuts = np.concatenate(([ev[0] - 1], (ev[1:] + ev[:-1]) / 2, [ev[-1] + 1]))
    # interval 0 holds 3 eigenvalues (split in 3), intervals 1 and 2 one each (bisected), interval 3
    # one but narrower than the tolerance (kept)
    iv = np.array([[cuts[0], cuts[3]], [cuts[3], cuts[4]], [cuts[5], cuts[6]], [ev[8] - 1e-4, ev[8] + 1e-4]],
                  np.float32)
    counts = np.array([3, 1, 1, 1], np.uint32)
    new = gpu.to_device(np.zeros(2 * 6, np.float32))
    gpu.dispatch(kernel("EigenValue", "recalculateEigenIntervals"), grid=(6,), block=(6,),
                 args=[new, gpu.to_device(iv.ravel().copy()), gpu.to_device(counts), gpu.to_device(diag),
                       gpu.to_device(off), np.uint32(n), np.float32(1e-3)])
    got = new.to_numpy().reshape(6, 2)
    w = (iv[0, 1] - iv[0, 0]) / np.float32(3)
    for t in range(3):
        np.testing.assert_allclose(got[t], [iv[0, 0] + w * t, iv[0, 0] + w * t + w], rtol=1e-6)
    for t, k, e in ((3, 1, ev[3]), (4, 2, ev[5])):     # e: the one eigenvalue inside interval k
        mid = (iv[k, 0] + iv[k, 1]) / np.float32(2)
        assert got[t].tolist() == ([mid, iv[k, 1]] if e > mid else [iv[k, 0], mid])
    assert got[5].tolist() == iv[3].tolist()


def test_cal_binomial_options(gpu):
    steps, groups = 64, 4          # even, as the host program's 254: the loop takes two steps a turn
    r = np.random.default_rng(13).random((groups, 4)).astype(np.float32)
    out = gpu.to_device(np.zeros(groups * 4, np.float32))
    gpu.dispatch(kernel("BinomialOption", "binomial_options"), grid=((steps + 1) * groups,), block=(steps + 1,),
                 args=[np.int32(steps), gpu.to_device(r.ravel().copy()), out,
                       gcnemu.Local((steps + 1) * 16), gcnemu.Local((steps + 1) * 16)])
    x = r.astype(np.float64)
    s, k, years = (1 - x) * 5 + x * 30, (1 - x) * 1 + x * 100, (1 - x) * 0.25 + x * 10
    dt = years / steps
    vsdt, rr = 0.30 * np.sqrt(dt), np.exp(0.02 * dt)
    u = np.exp(vsdt)
    d = 1 / u
    pu = (rr - d) / (u - d)
    pub, pdb = pu / rr, (1 - pu) / rr
    tid = np.arange(steps + 1)[:, None, None]
    call = np.maximum(s * np.exp(vsdt * (2.0 * tid - steps)) - k, 0)      # (steps+1, groups, 4)
    for _ in range(steps):
        call = pub * call[:-1] + pdb * call[1:]
    np.testing.assert_allclose(out.to_numpy().reshape(groups, 4), call[0], rtol=1e-4, atol=1e-4)


def _ran1_ref(idum):
    """URNG's ran1 with C integer semantics (division truncates toward zero)."""
    IA, IM, IQ, IR, NTAB = 16807, 2147483647, 127773, 2836, 16
    ndiv = 1 + (IM - 1) // NTAB
    cdiv = lambda a, b: int(a / b) if abs(a) < 2 ** 52 else -(-a // b) if a < 0 else a // b
    iv = [0] * NTAB
    for j in range(NTAB, -1, -1):
        k = cdiv(idum, IQ)
        idum = IA * (idum - k * IQ) - IR * k
        if idum < 0:
            idum += IM
        if j < NTAB:
            iv[j] = idum
    iy = iv[0]
    return iv[iy // ndiv] / IM


def test_cal_urng_noise_uniform(gpu):
    w, h, factor = 64, 2, 20
    img = np.random.default_rng(14).integers(0, 256, (h, w, 4)).astype(np.uint8)
    out = gpu.to_device(np.zeros(h * w * 4, np.uint8))
    gpu.dispatch(kernel("URNG", "noise_uniform"), grid=(w, h), block=(64, 1),
                 args=[gpu.to_device(img.ravel().copy()), out, np.int32(factor)])
    t = img.reshape(-1, 4).astype(np.float64)
    avg = (t[:, 0] + t[:, 1] + t[:, 2] + t[:, 1]) / 4
    dev = np.array([(_ran1_ref(int(-a)) - 0.55) * factor for a in avg])
    ref = np.clip(t + dev[:, None], 0, 255)
    # convert_uchar4_sat rounds toward zero; float32 arithmetic may land within 1 of the ideal
    got = out.to_numpy().reshape(-1, 4).astype(np.float64)
    assert np.abs(got - np.trunc(ref)).max() <= 1
    assert (got == np.trunc(ref)).mean() > 0.95


@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_cal_disassembly_is_text_and_round_trips(sample):
    prog = gcnemu.load(binary(sample))
    for n in prog.kernel_names:
        info = prog.kernel(n).info
        code = info.code
        assert (info.cal.device, info.cal.isa) == ("tahiti", "gfx6")
        for target in ("gfx7", "gfx6"):
            text = gcnemu.disassemble(code, target=target)
            assert ".long" not in text
            assert gcnemu.assemble(text, target=target) == code


def test_vop3_unused_src2_field_round_trips():
    # v_mul_lo_i32 v1, v2, v3 with src2 = 0x80, as AMD's compiler writes it (words from the
    # VOP3 layout: 0xd2d60001 | src0 0x102, src1 0x103, src2 0x80)
    word1 = 0x102 | 0x103 << 9 | 0x80 << 18
    code = struct.pack("<II", 0xD2D60001, word1)
    text = gcnemu.disassemble(code).strip()
    assert text.startswith("v_mul_lo_i32 v1, v2, v3") and "src2:0x80" in text
    assert gcnemu.assemble(text) == code
    assert gcnemu.assemble("v_mul_lo_i32 v1, v2, v3") == struct.pack("<II", 0xD2D60001, 0x102 | 0x103 << 9)


def test_cal_cli_disasm(capsys):
    from gcnemu.cli import main
    assert main(["disasm", binary("RadixSort")]) == 0
    text = capsys.readouterr().out
    assert text.startswith("histogram:\n") and "\npermute:\n" in text and ".long" not in text
    body = text.split("permute:\n")[1]
    assert gcnemu.assemble(body) == kernel("RadixSort", "permute").info.code


def test_cal_private_memory_is_refused_only_where_used():
    """MonteCarloAsian declares private memory per work-item (;memory:uavprivate:384,
    ;privateid:8) but never loads UAV 8's descriptor, so it loads
    (and runs: tests/test_cal_m2s.py). Pointing its first UAV-table load at entry 8 (byte 256
    of the table: SMRD offset 64 dwords) makes it a kernel that would use private memory, which
    the loader refuses instead of letting the accesses land at the start of GPU memory."""
    from gcnemu.isa.decoder import decode
    raw = open(binary("MonteCarloAsian"), "rb").read()
    k = gcnemu.load(raw).kernel("calPriceVega")
    text = bytes(k.info.code)
    load = next(i for i in decode(text) if i.name == "s_load_dwordx4" and i.fields["sbase"] == 1)
    assert load.fields["imm"] == 1 and load.fields["offset"] != 64
    at = raw.find(text)
    assert at > 0 and raw.find(text, at + 1) < 0       # the inner ELF's .text, once
    bad = bytearray(raw)
    bad[at + load.offset] = 64                          # SMRD: offset in bits 7:0
    import re
    size = re.search(rb";memory:uavprivate:(\d+)", raw).group(1).decode()
    assert int(size) > 0
    with pytest.raises(LoaderError, match=rf"calPriceVega: .* {size} bytes of private memory.*UAV 8"):
        gcnemu.load(bytes(bad))
