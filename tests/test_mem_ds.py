"""DS (LDS/GDS) instructions against a bytearray model written from GcnInstrsDs.md's listings.

Every lane's operation is applied in lane order to the model (the engine serialises lanes);
the final LDS (run_snippet's ``lds``) and the returned registers must match.
"""
from __future__ import annotations

import struct

import numpy as np
import pytest

from gcnemu.errors import ExecutionError
from test_mem_helpers import LANES, run

RNG = np.random.default_rng(77)
LDS_WORDS = 512  # the part of LDS the tests model and read back (2 KiB)


def _lds_from(r, nwords=LDS_WORDS):
    """The modelled part of the LDS after the run (run_snippet's ``lds``)."""
    return bytearray(r.lds[:4 * nwords].tobytes())


def _init_code(init_words, first=160):
    """Code writing init_words (<= 512) into LDS from v[first..] (set in vgpr)."""
    lines = ["s_mov_b32 m0, -1", "v_lshlrev_b32 v99, 2, v98"]
    vg = {}
    for k in range(len(init_words) // 64):
        lines.append(f"ds_write_b32 v99, v{first + k} offset:{256 * k}")
        vg[first + k] = np.asarray(init_words[64 * k:64 * k + 64], np.uint32)
    return "\n".join(lines), vg


def _run_ds(body, init, vgpr, m0=0xFFFFFFFF, exec_mask=0xFFFF_FFFF_FFFF_FFFF, **kw):
    code, vg = _init_code(init)
    vg.update(vgpr)
    vg[98] = LANES
    ex = f"s_mov_b32 exec_lo, {exec_mask & 0xFFFFFFFF}\ns_mov_b32 exec_hi, {exec_mask >> 32}"
    src = f"{code}\ns_mov_b32 m0, {m0}\n{ex}\n{body}"
    return run(src, vgpr=vg, **kw)


def _rd(m, a, n):
    return int.from_bytes(m[a:a + n], "little")


def _wr(m, a, v, n):
    m[a:a + n] = (v & ((1 << (8 * n)) - 1)).to_bytes(n, "little")


def _init_words():
    w = RNG.integers(0, 1 << 32, LDS_WORDS, dtype=np.uint64).astype(np.uint32)
    return w


# --- plain reads and writes ---------------------------------------------------------------
def test_reads_all_sizes_with_alignment_and_sign():
    init = _init_words()
    m = bytearray(init.tobytes())
    addr = (LANES * 13 + 3) % 1800
    r = _run_ds("""
ds_read_u8 v1, v0 offset:1
ds_read_i8 v2, v0 offset:2
ds_read_u16 v3, v0 offset:1
ds_read_i16 v4, v0
ds_read_b32 v5, v0 offset:2
ds_read_b64 v[6:7], v0 offset:4
ds_read_b96 v[8:10], v0
ds_read_b128 v[12:15], v0 offset:16
""", init, {0: addr})
    for lane in range(64):
        a = int(addr[lane])
        assert r.vgpr[1, lane] == m[a + 1]
        assert r.vgpr[2, lane] == (m[a + 2] - 256 * (m[a + 2] >> 7)) & 0xFFFFFFFF
        assert r.vgpr[3, lane] == _rd(m, (a + 1) & ~1, 2)
        v = _rd(m, a & ~1, 2)
        assert r.vgpr[4, lane] == (v - (v >> 15) * 65536) & 0xFFFFFFFF
        assert r.vgpr[5, lane] == _rd(m, (a + 2) & ~3, 4)
        b = (a + 4) & ~7
        assert list(r.vgpr[6:8, lane]) == [_rd(m, b, 4), _rd(m, b + 4, 4)]
        b = a & ~15
        assert list(r.vgpr[8:11, lane]) == [_rd(m, b + 4 * i, 4) for i in range(3)]
        b = (a + 16) & ~15
        assert list(r.vgpr[12:16, lane]) == [_rd(m, b + 4 * i, 4) for i in range(4)]


def test_writes_all_sizes_lane_order():
    init = _init_words()
    m = bytearray(init.tobytes())
    addr = (LANES * 29 + 1) % 1900
    d = [RNG.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32) for _ in range(4)]
    body = """
ds_write_b8 v0, v1 offset:3
ds_write_b16 v0, v2 offset:1
ds_write_b32 v0, v3 offset:2
ds_write_b64 v0, v[1:2] offset:8
ds_write_b96 v0, v[1:3]
ds_write_b128 v0, v[1:4] offset:32
"""
    r = _run_ds(body, init, {0: addr, 1: d[0], 2: d[1], 3: d[2], 4: d[3]})
    for a_off, n, align, regs in ((3, 1, 1, [0]), (1, 2, 2, [1]), (2, 4, 4, [2]), (8, 8, 8, [0, 1]),
                                  (0, 12, 16, [0, 1, 2]), (32, 16, 16, [0, 1, 2, 3])):
        for lane in range(64):
            a = (int(addr[lane]) + a_off) & ~(align - 1)
            if n <= 4:
                _wr(m, a, int(d[regs[0]][lane]), n)
            else:
                for i, rg in enumerate(regs):
                    _wr(m, a + 4 * i, int(d[rg][lane]), 4)
    assert _lds_from(r) == m


@pytest.mark.parametrize("st64", [False, True])
@pytest.mark.parametrize("b64", [False, True])
def test_read2_write2_wrxchg2(st64, b64):
    init = _init_words()
    m = bytearray(init.tobytes())
    n = 8 if b64 else 4
    scale = n * (64 if st64 else 1)
    o0, o1 = (1, 3) if st64 else (5, 17)
    addr = (LANES * 8 + 4) % (1024 if st64 else 1600)
    d0 = [RNG.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32) for _ in range(2)]
    d1 = [RNG.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32) for _ in range(2)]
    sfx = ("st64" if st64 else "") + ("_b64" if b64 else "_b32")
    if b64:
        body = f"""
ds_read2{sfx} v[10:13], v0 offset0:{o0} offset1:{o1}
ds_write2{sfx} v0, v[1:2], v[3:4] offset0:{o1} offset1:{o0}
ds_wrxchg2{sfx.replace('_b', '_rtn_b')} v[20:23], v0, v[3:4], v[1:2] offset0:{o0} offset1:{o1}
"""
    else:
        body = f"""
ds_read2{sfx} v[10:11], v0 offset0:{o0} offset1:{o1}
ds_write2{sfx} v0, v1, v3 offset0:{o1} offset1:{o0}
ds_wrxchg2{sfx.replace('_b', '_rtn_b')} v[20:21], v0, v3, v1 offset0:{o0} offset1:{o1}
"""
    r = _run_ds(body, init, {0: addr, 1: d0[0], 2: d0[1], 3: d1[0], 4: d1[1]})
    k = n // 4
    for lane in range(64):
        a0 = (int(addr[lane]) + o0 * scale) & ~(n - 1)
        a1 = (int(addr[lane]) + o1 * scale) & ~(n - 1)
        want = [_rd(m, a0 + 4 * i, 4) for i in range(k)] + [_rd(m, a1 + 4 * i, 4) for i in range(k)]
        assert list(r.vgpr[10:10 + 2 * k, lane]) == want
    for lane in range(64):   # write2: data0 at offset1 (as written), data1 at offset0
        a0 = (int(addr[lane]) + o1 * scale) & ~(n - 1)
        a1 = (int(addr[lane]) + o0 * scale) & ~(n - 1)
        for i in range(k):
            _wr(m, a0 + 4 * i, int(d0[i][lane]), 4)
            _wr(m, a1 + 4 * i, int(d1[i][lane]), 4)
    for lane in range(64):
        a0 = (int(addr[lane]) + o0 * scale) & ~(n - 1)
        a1 = (int(addr[lane]) + o1 * scale) & ~(n - 1)
        old = [_rd(m, a0 + 4 * i, 4) for i in range(k)] + [_rd(m, a1 + 4 * i, 4) for i in range(k)]
        assert list(r.vgpr[20:20 + 2 * k, lane]) == old
        for i in range(k):
            _wr(m, a0 + 4 * i, int(d1[i][lane]), 4)
            _wr(m, a1 + 4 * i, int(d0[i][lane]), 4)
    assert _lds_from(r) == m


# --- atomics -------------------------------------------------------------------------------
def _f(bits, n):
    return struct.unpack("<f" if n == 4 else "<d", bits.to_bytes(n, "little"))[0]


def _minmax(a, b, n, want_min):
    """IEEE minNum/maxNum on bit patterns: a NaN operand yields the other; -0 < +0."""
    fa, fb = _f(a, n), _f(b, n)
    if fa != fa:
        return b
    if fb != fb:
        return a
    if fa == fb:
        neg_a = a >> (8 * n - 1)
        if want_min:
            return a if neg_a else b
        return b if neg_a else a
    return (a if fa < fb else b) if want_min else (a if fa > fb else b)


def _ds_op(op, old, d0, d1, n):
    """GcnInstrsDs.md operation listings; returns the new memory value."""
    bits = 8 * n
    m = (1 << bits) - 1
    s = lambda x: x - (1 << bits) if x >> (bits - 1) else x  # noqa: E731
    if op == "add":
        return (old + d0) & m
    if op == "sub":
        return (old - d0) & m
    if op == "rsub":
        return (d0 - old) & m
    if op == "inc":
        return old + 1 if d0 > old else 0
    if op == "dec":
        return old - 1 if (d0 >= old and old != 0) else d0
    if op in ("min_i", "max_i"):
        lo = s(old) <= s(d0)
        return (old if lo else d0) if op == "min_i" else (old if not lo or s(old) == s(d0) else d0)
    if op == "min_u":
        return min(old, d0)
    if op == "max_u":
        return max(old, d0)
    if op == "and":
        return old & d0
    if op == "or":
        return old | d0
    if op == "xor":
        return old ^ d0
    if op == "mskor":
        return (old & ~d0 & m) | d1
    if op == "wrxchg":
        return d0
    if op == "cmpst_b":
        return d1 if old == d0 else old
    if op == "cmpst_f":
        return d1 if _f(old, n) == _f(d0, n) else old
    if op == "min_f":
        return _minmax(old, d0, n, True)
    if op == "max_f":
        return _minmax(old, d0, n, False)
    if op == "wrap":
        return old - d0 if old >= d0 else (old + d1) & m
    raise ValueError(op)


_OPS = {  # mnemonic stem -> (model op, two data operands, rtn-only)
    "add_rtn_u": ("add", False), "sub_rtn_u": ("sub", False), "rsub_rtn_u": ("rsub", False),
    "inc_rtn_u": ("inc", False), "dec_rtn_u": ("dec", False), "min_rtn_i": ("min_i", False),
    "max_rtn_i": ("max_i", False), "min_rtn_u": ("min_u", False), "max_rtn_u": ("max_u", False),
    "and_rtn_b": ("and", False), "or_rtn_b": ("or", False), "xor_rtn_b": ("xor", False),
    "mskor_rtn_b": ("mskor", True), "wrxchg_rtn_b": ("wrxchg", False),
    "cmpst_rtn_b": ("cmpst_b", True), "cmpst_rtn_f": ("cmpst_f", True),
    "min_rtn_f": ("min_f", False), "max_rtn_f": ("max_f", False), "wrap_rtn_b": ("wrap", True),
}


def _special_floats(n, count):
    if n == 4:
        sp = np.array([0.0, -0.0, 1.0, -1.0, np.nan, np.inf, -np.inf, 2.5], np.float32).view(np.uint32)
        vals = RNG.standard_normal(count).astype(np.float32).view(np.uint32)
    else:
        sp = np.array([0.0, -0.0, 1.0, -1.0, np.nan, np.inf, -np.inf, 2.5], np.float64).view(np.uint64)
        vals = RNG.standard_normal(count).view(np.uint64)
    vals = vals.copy()
    vals[:: 3] = sp[RNG.integers(0, len(sp), len(vals[::3]))]
    return [int(x) for x in vals]


_ATOMIC_CASES = [(stem, bits, rtn) for stem in sorted(_OPS) for bits in (32, 64) for rtn in (True, False)
                 if not (stem == "wrap_rtn_b" and (bits == 64 or not rtn))   # only ds_wrap_rtn_b32
                 and not (stem == "wrxchg_rtn_b" and not rtn)]               # return-only


@pytest.mark.parametrize("stem,bits,rtn", _ATOMIC_CASES)
def test_atomics(stem, bits, rtn):
    op, two = _OPS[stem]
    n = bits // 8
    name = "ds_" + (stem if rtn else stem.replace("_rtn", "")) + str(bits)
    nslots = 6
    init = _init_words()
    if op in ("cmpst_f", "min_f", "max_f"):
        fl = _special_floats(n, 2 * nslots)
        for i in range(nslots):
            if n == 4:
                init[i] = fl[i]
            else:
                init[2 * i] = fl[i] & 0xFFFFFFFF
                init[2 * i + 1] = fl[i] >> 32
    if op in ("inc", "dec", "wrap"):
        init[:2 * nslots] %= 7
    m = bytearray(init.tobytes())
    slot = (LANES * 7) % nslots
    addr = slot * n
    if op in ("cmpst_f", "min_f", "max_f"):
        d0 = _special_floats(n, 64)
        d1 = _special_floats(n, 64)
        if op == "cmpst_f":  # compare against current values sometimes
            for lane in range(0, 64, 4):
                d0[lane] = _rd(m, int(addr[lane]), n)
    else:
        d0 = [int(x) for x in RNG.integers(0, 1 << 62, 64, dtype=np.uint64) >> np.uint64(RNG.integers(0, 60))]
        d1 = [int(x) for x in RNG.integers(0, 1 << 62, 64, dtype=np.uint64)]
        d0 = [x & ((1 << bits) - 1) for x in d0]
        d1 = [x & ((1 << bits) - 1) for x in d1]
        if op in ("inc", "dec", "wrap"):
            d0 = [x % 9 for x in d0]
        if op == "cmpst_b":
            for lane in range(0, 64, 3):
                d0[lane] = _rd(m, int(addr[lane]), n)
    k = n // 4

    def regs(vals):
        out = [np.array([v & 0xFFFFFFFF for v in vals], np.uint32)]
        if k == 2:
            out.append(np.array([v >> 32 for v in vals], np.uint32))
        return out

    vg = {0: addr}
    for i, a in enumerate(regs(d0)):
        vg[2 + i] = a
    for i, a in enumerate(regs(d1)):
        vg[4 + i] = a
    rr = lambda b: f"v{b}" if k == 1 else f"v[{b}:{b + 1}]"  # noqa: E731
    ops = [rr(10)] if rtn else []
    ops += ["v0", rr(2)] + ([rr(4)] if two else [])
    r = _run_ds(f"{name} {', '.join(ops)}", init, vg)
    for lane in range(64):
        a = int(addr[lane])
        old = _rd(m, a, n)
        _wr(m, a, _ds_op(op, old, d0[lane], d1[lane], n), n)
        if rtn:
            got = int(r.vgpr[10, lane]) | ((int(r.vgpr[11, lane]) << 32) if k == 2 else 0)
            assert got == old, (name, lane, hex(got), hex(old))
    assert _lds_from(r) == m, name


def test_condxchg32_rtn_b64():
    init = _init_words()
    m = bytearray(init.tobytes())
    d = [RNG.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32) for _ in range(2)]
    addr = (LANES % 8) * 8
    r = _run_ds("ds_condxchg32_rtn_b64 v[10:11], v0, v[2:3]", init, {0: addr, 2: d[0], 3: d[1]})
    for lane in range(64):
        a = int(addr[lane])
        old = _rd(m, a, 8)
        assert int(r.vgpr[10, lane]) | int(r.vgpr[11, lane]) << 32 == old
        for h in range(2):
            v = int(d[h][lane])
            if v >> 31:
                _wr(m, a + 4 * h, v & 0x7FFFFFFF, 4)
    assert _lds_from(r) == m


# --- src2 ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name,op,n", [("ds_add_src2_u32", "add", 4), ("ds_min_src2_u32", "min_u", 4),
                                       ("ds_max_src2_i32", "max_i", 4), ("ds_write_src2_b32", "wrxchg", 4),
                                       ("ds_xor_src2_b64", "xor", 8), ("ds_write_src2_b64", "wrxchg", 8),
                                       ("ds_min_src2_f32", "min_f", 4)])
@pytest.mark.parametrize("offset", [0x0010, 0x7FF0, 0x8000])
def test_src2(name, op, n, offset):
    init = _init_words()
    m = bytearray(init.tobytes())
    if offset & 0x8000:
        # B delta from ADDR[31:17]: keep A inside the model by using high address bits
        deltas = (LANES % 5).astype(np.int64) - 2
        lo = 64 + (LANES * 8) % 512
        addr = ((deltas & 0xFFFF) << 17 | lo).astype(np.uint64).astype(np.uint32)
    else:
        addr = (1024 + (LANES * 8) % 512).astype(np.uint32) | 3
    r = _run_ds(f"{name} v0 offset:{offset}", init, {0: addr})
    for lane in range(64):
        a32 = int(addr[lane])
        if offset & 0x8000:
            a = a32 & (0x1FFFC if n == 4 else 0x1FFF8)
            d = (a32 >> 17) | ((a32 >> 16) & 0x8000)
        else:
            a = a32 & ~(n - 1)
            d = (offset & 0x7FFF) | ((offset << 1) & 0x8000)
        d = d - 0x10000 if d & 0x8000 else d
        b = (a + 4 * d) & ~(n - 1)
        _wr(m, a, _ds_op(op, _rd(m, a, n), _rd(m, b, n), 0, n), n)
    assert _lds_from(r) == m


# --- swizzle, append/consume, gds, ranges ----------------------------------------------------
@pytest.mark.parametrize("offset", [0x8000 | 0b00011011, 0x8000 | 0b10010011, 0x001F, 0x041F,
                                    0x03E0 | 0x10, (0x15 << 10) | 0x1C, 0x7FFF])
def test_swizzle(offset):
    src = RNG.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)
    ex = 0xF0FF_FFFF_FFFF_FF7F
    r = run(f"ds_swizzle_b32 v1, v2 offset:{offset}", vgpr={1: 0xBAD, 2: src}, exec_mask=ex)
    for lane in range(64):
        if not (ex >> lane) & 1:
            assert r.vgpr[1, lane] == 0xBAD
            continue
        if offset & 0x8000:
            s = (lane & 0x3C) + ((offset >> (2 * (lane & 3))) & 3)
        else:
            s = (lane & 32) + ((((lane & 31) & (offset & 31)) | ((offset >> 5) & 31)) ^ (offset >> 10))
        assert int(r.vgpr[1, lane]) == (int(src[s]) if (ex >> s) & 1 else 0)


def test_append_consume():
    init = _init_words()
    init[5] = 100
    m = bytearray(init.tobytes())
    ex = 0x0000_0F0F_0000_00FF   # 16 lanes
    r = _run_ds("ds_append v1 offset:4\nds_append v2 offset:4\nds_consume v3 offset:4",
                init, {}, m0=16, exec_mask=ex)
    on = [lane for lane in range(64) if (ex >> lane) & 1]
    assert all(r.vgpr[1, lane] == 100 for lane in on)
    assert all(r.vgpr[2, lane] == 116 for lane in on)
    assert all(r.vgpr[3, lane] == 132 for lane in on)
    _wr(m, 20, 116, 4)
    assert _lds_from(r) == m


def test_gds_uses_m0_base_and_size_and_is_separate_from_lds():
    r = run("""
s_mov_b32 m0, 0x01000040
ds_write_b32 v0, v1 gds
ds_read_b32 v2, v0 gds
s_mov_b32 m0, -1
ds_read_b32 v3, v0
""", vgpr={0: LANES * 4, 1: LANES + 1000})
    for lane in range(64):
        inr = lane * 4 + 4 <= 0x40
        assert int(r.vgpr[2, lane]) == (lane + 1000 if inr else 0)
        assert int(r.vgpr[3, lane]) == 0      # LDS untouched
    r = run("""
s_mov_b32 m0, 0x01000040
ds_write_b32 v0, v1 gds
s_mov_b32 m0, 0x01040040
ds_read_b32 v2, v0 gds
""", vgpr={0: LANES * 4, 1: LANES + 1000})
    for lane in range(64):   # base moved by 4 bytes: lane l reads what lane l+1 wrote
        want = lane + 1001 if (lane + 1) * 4 + 4 <= 0x40 and lane * 4 + 4 <= 0x40 else 0
        assert int(r.vgpr[2, lane]) == want


def test_lds_range_m0_and_allocation():
    r = run("""
s_mov_b32 m0, -1
ds_write_b32 v0, v1
s_mov_b32 m0, 0x80
ds_read_b32 v2, v0
ds_write_b32 v0, v3
s_mov_b32 m0, -1
ds_read_b32 v4, v0
""", vgpr={0: LANES * 4, 1: LANES + 1, 3: 7}, lds_bytes=0xF8)
    for lane in range(64):
        a = lane * 4
        assert int(r.vgpr[2, lane]) == (lane + 1 if a + 4 <= 0x80 else 0)
        assert int(r.vgpr[4, lane]) == (7 if a + 4 <= 0x80 else (lane + 1 if a + 4 <= 0xF8 else 0))


@pytest.mark.parametrize("text", ["ds_gws_init v1 offset:0 gds", "ds_gws_barrier v1 gds",
                                  "ds_ordered_count v1, v2 offset:4 gds", "ds_gws_sema_v gds"])
def test_gws_and_ordered_count_fail_loudly(text):
    with pytest.raises(ExecutionError, match="not implemented"):
        run(text)
