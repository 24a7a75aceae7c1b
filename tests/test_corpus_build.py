"""The kernel corpus (kernels/): completeness, launch specs, independent sanity of the numpy
references, the comparison helpers, and that committed code objects match their sources.
Nothing here runs the emulator."""

import struct

import numpy as np
import pytest

from kernels import build
from kernels.corpus import (
    Case, In, InOut, Local, Out, compare_results, hsaco_path, kernel_dir, list_kernels,
    make_case, source_path, ulp_distance)

KERNELS = list_kernels()


# --------------------------------------------------------------------------- completeness
def test_corpus_size():
    cl = [k for k in KERNELS if source_path(k).suffix == ".cl"]
    asm = [k for k in KERNELS if source_path(k).suffix == ".s"]
    assert len(cl) >= 25, cl
    assert len(asm) >= 5, asm


def test_no_stray_folders():
    for p in kernel_dir("x").parent.iterdir():
        if p.is_dir() and not p.name.startswith(("_", ".")):
            assert (p / "spec.py").is_file(), f"{p} has no spec.py"


@pytest.mark.parametrize("name", KERNELS)
def test_folder_complete(name):
    src = source_path(name)
    assert hsaco_path(name).is_file()
    assert (kernel_dir(name) / "spec.py").is_file()
    if src.suffix == ".cl":
        assert (kernel_dir(name) / "kernel.lst").is_file(), "compiler listing missing"


# --------------------------------------------------------------------------- code objects
def _metadata(name):
    import msgpack
    note = build.elf_sections(hsaco_path(name))[".note"]
    off = 0
    while off < len(note):
        namesz, descsz, ntype = struct.unpack_from("<III", note, off)
        off += 12
        owner = note[off: off + namesz].rstrip(b"\0")
        off += (namesz + 3) & ~3
        desc = note[off: off + descsz]
        off += (descsz + 3) & ~3
        if owner == b"AMDGPU" and ntype == 32:  # NT_AMDGPU_METADATA
            return msgpack.unpackb(desc, raw=False)
    raise AssertionError(f"{name}: no NT_AMDGPU_METADATA note")


def _arg_size(a):
    if isinstance(a, (In, Out)):
        return 8
    if isinstance(a, Local) or type(a).__name__ == "Local":
        return 4
    return a.dtype.itemsize


@pytest.mark.parametrize("name", KERNELS)
def test_code_object_matches_spec(name):
    case = make_case(name)
    secs = build.elf_sections(hsaco_path(name))
    assert secs[".text"], "empty .text"
    assert f"{case.kernel}.kd".encode() in secs[".dynstr"], "kernel descriptor symbol missing"
    meta = _metadata(name)
    kern = {k[".name"]: k for k in meta["amdhsa.kernels"]}[case.kernel]
    explicit = [a for a in kern[".args"] if not a[".value_kind"].startswith("hidden")]
    assert len(explicit) == len(case.args), "argument count differs from the metadata"
    for i, (a, m) in enumerate(zip(case.args, explicit)):
        assert m[".size"] == _arg_size(a), f"argument {i}: size"
        kind = m[".value_kind"]
        if isinstance(a, (In, Out)):
            assert kind == "global_buffer", f"argument {i}: {kind}"
        elif isinstance(a, Local):
            assert kind == "dynamic_shared_pointer", f"argument {i}: {kind}"
        else:
            assert kind == "by_value", f"argument {i}: {kind}"
    assert kern[".wavefront_size"] == 64
    assert int(np.prod(case.block)) <= kern[".max_flat_workgroup_size"]


# --------------------------------------------------------------------------- specs
@pytest.mark.parametrize("name", KERNELS)
def test_case_well_formed(name):
    case = make_case(name, seed=0)
    assert isinstance(case, Case)
    assert len(case.grid) == len(case.block) and 1 <= len(case.grid) <= 3
    for g, b in zip(case.grid, case.block):
        assert b > 0 and g % b == 0, "grid must be a multiple of block (OpenCL 1.2)"
    assert int(np.prod(case.block)) <= 256
    assert int(np.prod(case.grid)) <= 65536, "keep cases small"
    assert case.expected, "nothing is compared"
    for idx, want in case.expected.items():
        arg = case.args[idx]
        assert isinstance(arg, (Out, InOut)), f"expected[{idx}] is not an output buffer"
        n = arg.count if isinstance(arg, Out) else arg.array.size
        assert want.dtype == arg.dtype, f"expected[{idx}] dtype {want.dtype} != {arg.dtype}"
        assert want.size == n, f"expected[{idx}] has {want.size} elements, buffer {n}"
    if case.ulp:
        assert case.note, "ulp > 0 needs a reason in note"
    for a in case.args:
        assert isinstance(a, (In, Out, Local, np.generic)) or type(a).__name__ == "Local"


@pytest.mark.parametrize("name", KERNELS)
def test_case_deterministic(name):
    a, b = make_case(name, seed=3), make_case(name, seed=3)
    for k in a.expected:
        np.testing.assert_array_equal(a.expected[k], b.expected[k])


@pytest.mark.parametrize("name", KERNELS)
def test_expected_passes_its_own_comparison(name):
    case = make_case(name)
    compare_results(case, {k: v.copy() for k, v in case.expected.items()})


# --------------------------------------------------------------------------- independent checks
def _arr(case, i):
    return case.args[i].array


def test_saxpy_reference():
    c = make_case("saxpy")
    y, x, a, n = _arr(c, 0), _arr(c, 1), c.args[2], int(c.args[3])
    ref = a.astype(np.float64) * x[:n] + y[:n]
    assert np.max(np.abs(c.expected[0][:n] - ref)) <= 1e-6 * np.max(np.abs(ref))


def test_reduce_reference():
    c = make_case("reduce_lds")
    x = _arr(c, 0)
    got = [sum(int(v) for v in x[i * 256:(i + 1) * 256]) % 2**32 for i in range(x.size // 256)]
    assert c.expected[1].tolist() == got


def test_scan_reference():
    c = make_case("scan_lds")
    x, s = _arr(c, 0).reshape(-1, 256), c.expected[1].reshape(-1, 256)
    np.testing.assert_array_equal(s[:, 0], x[:, 0])
    np.testing.assert_array_equal((s[:, 1:] - s[:, :-1]).astype(np.uint32), x[:, 1:])


def test_bitonic_reference():
    c = make_case("bitonic_sort")
    x, s = _arr(c, 0).reshape(-1, 512), c.expected[0].reshape(-1, 512)
    assert (np.diff(s.astype(np.int64), axis=1) >= 0).all()
    for row_in, row_out in zip(x, s):
        assert sorted(row_in.tolist()) == row_out.tolist()


def test_histogram_reference():
    c = make_case("histogram")
    data, h = _arr(c, 0), c.expected[2]
    assert int(h.sum()) == data.size
    assert all(h[v] == (data == v).sum() for v in range(0, 256, 17))


def test_transpose_reference():
    c = make_case("transpose_lds")
    w, hgt = int(c.args[2]), int(c.args[3])
    a = _arr(c, 0).reshape(hgt, w)
    t = c.expected[1].reshape(w, hgt)
    assert all(t[j, i] == a[i, j] for i in range(0, hgt, 7) for j in range(0, w, 5))


def test_matmul_reference():
    c = make_case("matmul_tiled")
    m, n, k = (int(v) for v in c.args[3:6])
    a, b = _arr(c, 0).astype(np.float64), _arr(c, 1).astype(np.float64)
    ref = a @ b
    assert np.max(np.abs(c.expected[2].reshape(m, n) - ref)) < 1e-4


def test_conv2d_reference():
    c = make_case("conv2d")
    img, w = _arr(c, 0).astype(np.float64), _arr(c, 1).astype(np.float64)
    hgt, wid = img.shape
    p = np.pad(img, 2, mode="edge")
    ref = sum(w[dy, dx] * p[dy:dy + hgt, dx:dx + wid] for dy in range(5) for dx in range(5))
    assert np.max(np.abs(c.expected[2].reshape(hgt, wid) - ref)) < 1e-5


def test_mandelbrot_reference():
    c = make_case("mandelbrot")
    it = c.expected[0].reshape(96, 128)
    maxit = int(c.args[5])
    x0, y0, dx, dy = (float(v) for v in c.args[1:5])
    px, py = round((0.0 - x0) / dx), round((0.0 - y0) / dy)  # c ~ 0: in the set
    assert it[py, px] == maxit
    assert it[0, 0] < 3  # far outside
    # float64 escape counts agree for most points
    ys, xs = np.mgrid[0:96, 0:128]
    cc = (x0 + dx * xs) + 1j * (y0 + dy * ys)
    z = np.zeros_like(cc)
    n = np.zeros(cc.shape, int)
    alive = np.ones(cc.shape, bool)
    for _ in range(maxit):
        alive &= np.abs(z) <= 2
        z = np.where(alive, z * z + cc, z)
        n += alive
    assert (n == it).mean() > 0.97


def test_nbody_reference():
    c = make_case("nbody")
    pos = _arr(c, 0).astype(np.float64)
    i = 5
    d = pos[:, :3] - pos[i, :3]
    r = np.sqrt((d * d).sum(1) + float(c.args[4]))
    assert np.isclose(c.expected[2][i], (pos[:, 3] / r).sum(), rtol=1e-6)
    acc = ((pos[:, 3] / r ** 3)[:, None] * d).sum(0)
    assert np.allclose(c.expected[1].reshape(-1, 4)[i, :3], acc, rtol=1e-5, atol=1e-4)


def test_intdiv_reference():
    c = make_case("intdiv")
    for ia, ib, io, bits in ((0, 1, 2, 32), (3, 4, 5, 64)):
        a, b = _arr(c, ia).astype(object), _arr(c, ib).astype(object)
        o = c.expected[io].reshape(-1, 4).astype(object)
        assert all(q * y + r == x for q, r, x, y in zip(o[:, 0], o[:, 1], a, b))
        assert all(abs(r) < abs(y) and (r == 0 or (r < 0) == (x < 0))
                   for r, x, y in zip(o[:, 1], a, b))
        m = 2**bits
        assert all((q % m) * (y % m) + (r % m) == x % m
                   for q, r, x, y in zip(o[:, 2], o[:, 3], a, b))


def test_int64_reference():
    c = make_case("int64_math")
    a, b = _arr(c, 0), _arr(c, 1)
    o = c.expected[2].reshape(-1, 12)
    np.testing.assert_array_equal(o[:, 0] - b, a)  # uint64 wraps
    np.testing.assert_array_equal(o[:, 1] + b, a)
    np.testing.assert_array_equal(o[:, 2], a * b)


def test_fp64_arith_reference():
    c = make_case("fp64_arith")
    a, b = _arr(c, 0), _arr(c, 1)
    q = c.expected[4]
    fin = np.isfinite(q) & (np.abs(q) > 1e-300)
    assert np.allclose(q[fin] * b[fin], a[fin], rtol=1e-15)
    assert np.allclose(c.expected[5] ** 2, np.abs(a), rtol=1e-15)


def test_half_reference():
    from kernels.half_conv.spec import to_half_ieee
    c = make_case("half_conv")
    f = _arr(c, 0)
    with np.errstate(over="ignore"):
        h = f.astype(np.float16)
        np.testing.assert_array_equal(c.expected[2].view(np.uint16), h.view(np.uint16))
        for idx, mode in ((4, "rtz"), (5, "rtp"), (6, "rtn")):
            ieee = to_half_ieee(f, mode)
            differ = c.expected[idx].view(np.uint16) != ieee.view(np.uint16)
            # libclc's directed rounding is IEEE except for tiny |x| < 2**-25 (rtp/rtn)
            assert (np.abs(f[differ]) < 2.0 ** -25).all(), (mode, f[differ])
    fin = np.isfinite(f) & (np.abs(f) < 60000) & (np.abs(f) >= 2.0 ** -25)
    lo, hi = c.expected[6][fin].astype(np.float64), c.expected[5][fin].astype(np.float64)
    assert (lo <= f[fin]).all() and (hi >= f[fin]).all()  # rtn <= x <= rtp
    z = c.expected[4][fin].astype(np.float64)
    assert (np.abs(z) <= np.abs(f[fin])).all()  # rtz shrinks


def test_convert_reference():
    from kernels.convert_sat.spec import int_to_f32
    c = make_case("convert_sat")
    # libclc quirk at the top of the range (saturating float->int check)
    assert int_to_f32(2**31 - 1, "rtz") == np.float32(2.0 ** 31)
    assert int_to_f32(2**32 - 1, "rtz", False) == np.float32(2.0 ** 32)
    assert int_to_f32(2**31 - 1, "rtp") == np.float32(2.0 ** 31)
    assert int_to_f32(16777217, "rtz") == np.float32(16777216)
    assert int_to_f32(16777217, "rtp") == np.float32(16777218)
    assert int_to_f32(-16777217, "rtz") == np.float32(-16777216)
    f = _arr(c, 0)
    o = c.expected[2].reshape(-1, 10)
    fin = np.isfinite(f) & (np.abs(f) < 2e9)
    np.testing.assert_array_equal(o[fin, 0], np.rint(f[fin]).astype(np.int64))
    np.testing.assert_array_equal(o[fin, 1], np.trunc(f[fin]).astype(np.int64))
    assert (o[np.isnan(f)] [:, [0, 1, 2, 3, 5, 6, 8]] == 0).all()
    k = _arr(c, 1)
    np.testing.assert_array_equal(c.expected[3].reshape(-1, 6)[:, 3], k.astype(np.float32))


def test_floatmath_reference():
    c = make_case("floatmath")
    a, b = _arr(c, 0), _arr(c, 1)
    o = c.expected[2].reshape(-1, 17)
    np.testing.assert_array_equal(o[:, 7], np.fmod(a, b))  # numpy's fmod is exact too
    np.testing.assert_array_equal(o[:, 3], np.sign(a) * np.floor(np.abs(a) + np.float32(0.5)))


def test_bitops_reference():
    c = make_case("bitops")
    a, b = _arr(c, 0), _arr(c, 1)
    o = c.expected[2].reshape(-1, 20)
    np.testing.assert_array_equal(o[:, 0], [bin(int(v)).count("1") for v in a])
    np.testing.assert_array_equal(o[:, 4], ((a.astype(np.uint64) * b) >> np.uint64(32)))
    np.testing.assert_array_equal(o[:, 9], ((a.astype(np.uint64) + b) >> np.uint64(1)))


def test_tail_waves_reference():
    c = make_case("tail_waves")
    assert c.block == (100,) and c.grid == (1000,)
    np.testing.assert_array_equal(c.expected[2], _arr(c, 0).reshape(10, 100).sum(1))


def test_grid3d_reference():
    c = make_case("grid3d")
    o = c.expected[0].reshape(-1, 16)
    assert len(c.grid) == 3
    assert (o[:, 10] == 0).all()  # libclc work_dim quirk, see the spec
    np.testing.assert_array_equal(o[:, 14], np.arange(o.shape[0]))
    assert (o[:, 15] < np.prod(c.block)).all()


def test_atomics_reference():
    c = make_case("atomics_global")
    v = _arr(c, 0)
    assert c.expected[1][0] == v.min() and c.expected[1][1] == v.max()
    assert c.expected[2][6] == 5 + v.size


def test_asm_crosslane_reference():
    c = make_case("asm_crosslane")
    o = c.expected[1].reshape(-1, 64, 10)
    np.testing.assert_array_equal(o[:, :, 4], np.tile(np.arange(64), (o.shape[0], 1)))
    assert (o[1, :, 7] == 0).all() and (o[2, :, 7] == 64).all()


def test_asm_mimg_reference():
    c = make_case("asm_mimg")
    img = _arr(c, 0)
    np.testing.assert_array_equal(c.expected[2].reshape(img.shape), img[:, ::-1])


# --------------------------------------------------------------------------- comparison helpers
def test_ulp_distance():
    for dt in (np.float16, np.float32, np.float64):
        one = dt(1)
        nxt = np.nextafter(one, dt(2))
        assert ulp_distance(np.array([one]), np.array([nxt]))[0] == 1
        assert ulp_distance(np.array([dt(0)]), np.array([-dt(0)]))[0] == 0
        tiny = np.nextafter(dt(0), dt(1))
        assert ulp_distance(np.array([tiny]), np.array([-tiny]))[0] == 2
        assert ulp_distance(np.array([np.nan], dt), np.array([np.nan], dt))[0] == 0
        assert ulp_distance(np.array([np.nan], dt), np.array([one]))[0] > 2**15
        big = np.finfo(dt).max
        assert ulp_distance(np.array([big]), np.array([dt(np.inf)]))[0] == 1
        assert ulp_distance(np.array([-big]), np.array([big]))[0] > 0


def test_compare_results_detects_differences():
    want = np.array([1.0, 2.0, np.nan], np.float32)
    c = Case("k", (64,), (64,), [Out(np.float32, 3)], {0: want})
    compare_results(c, {0: want.copy()})
    bad = want.copy()
    bad[1] = np.nextafter(bad[1], np.float32(3))
    with pytest.raises(AssertionError):
        compare_results(c, {0: bad})
    c.ulp, c.note = 1, "test"
    compare_results(c, {0: bad})
    ci = Case("k", (64,), (64,), [Out(np.int32, 2)], {0: np.array([1, 2], np.int32)})
    with pytest.raises(AssertionError):
        compare_results(ci, {0: np.array([1, 3], np.int32)})


# --------------------------------------------------------------------------- rebuild check
def test_committed_binaries_match_sources():
    missing = build.tools_missing()
    if missing:
        pytest.skip(f"toolchain not available: {missing}")
    bad = build.check()
    assert not bad, f"committed code objects differ from a rebuild: {bad}"
