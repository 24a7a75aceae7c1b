"""MUBUF/MTBUF: formats, byte/short/dword access, range rules, atomics, lds bit, tfe.

References: GcnMemHandling.md (format tables, addressing and range formulas) and
GcnInstrsMubuf.md, modelled in tests/test_mem_helpers.py with exact arithmetic.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from gcnemu.errors import ExecutionError
from test_mem_helpers import (
    ALL, FLOAT, LANES, SINT, SNORM, SNORM_OGL, SSCALED, UINT, UNORM, USCALED, Memory,
    apply_dst_sel, decode_element, encode_ref, encode_vsharp, f32_bits_of, float_ok, layout, run,
    sgprs_from,
)

RNG = np.random.default_rng(1234)
READ_NFMTS = (UNORM, SNORM, USCALED, SSCALED, UINT, SINT, SNORM_OGL, FLOAT)


def _format_buffer(dfmt, nfmt, data):
    mem = Memory()
    _, esize = layout(dfmt)
    buf = mem.allocate(max(64 * esize, len(data), 4096))
    mem.write(buf, data)
    return mem, buf, esize


@pytest.mark.parametrize("dfmt", range(1, 15))
def test_buffer_load_format_all_formats(dfmt):
    _, esize = layout(dfmt)
    data = RNG.integers(0, 256, 64 * esize, dtype=np.uint8)
    # keep a few exact special values in the first lanes: zero, all ones, sign bit patterns
    data[:esize] = 0
    data[esize:2 * esize] = 0xFF
    for nfmt in READ_NFMTS:
        if nfmt == FLOAT and not float_ok(dfmt):
            continue
        mem, buf, esize = _format_buffer(dfmt, nfmt, data)
        vs = encode_vsharp(buf, 64, esize, data_format=dfmt, num_format=nfmt)
        r = run("buffer_load_format_xyzw v[1:4], v0, s[4:7], 0 idxen",
                sgpr=sgprs_from(vs, 4), vgpr={0: LANES}, mem=mem)
        for lane in range(64):
            want = decode_element(data[lane * esize:(lane + 1) * esize].tobytes(), dfmt, nfmt)
            got = [int(r.vgpr[1 + i, lane]) for i in range(4)]
            assert got == want, (dfmt, nfmt, lane, [hex(x) for x in got], [hex(x) for x in want])


def test_buffer_load_format_dst_sel_and_count():
    dfmt, nfmt = 10, UNORM   # 8_8_8_8
    data = RNG.integers(0, 256, 256, dtype=np.uint8)
    mem, buf, esize = _format_buffer(dfmt, nfmt, data)
    for sels in [(7, 6, 5, 4), (0, 1, 4, 4), (5, 0, 1, 7), (6, 7, 4, 5)]:
        vs = encode_vsharp(buf, 64, esize, data_format=dfmt, num_format=nfmt, dst_sel=sels)
        r = run("buffer_load_format_xyz v[1:3], v0, s[4:7], 0 idxen\nv_mov_b32 v4, 0x1234",
                sgpr=sgprs_from(vs, 4), vgpr={0: LANES}, mem=mem)
        for lane in (0, 7, 63):
            vals = decode_element(data[lane * 4:lane * 4 + 4].tobytes(), dfmt, nfmt)
            want = apply_dst_sel(vals, sels, nfmt)[:3]
            assert [int(r.vgpr[1 + i, lane]) for i in range(3)] == want
        assert (r.vgpr[4] == 0x1234).all()      # xyz writes three registers only


def test_buffer_load_format_missing_components_and_uint_one():
    data = np.arange(256, dtype=np.uint8)
    mem, buf, esize = _format_buffer(3, UINT, data)    # 8_8: z = 0, w = 1
    vs = encode_vsharp(buf, 64, esize, data_format=3, num_format=UINT)
    r = run("buffer_load_format_xyzw v[1:4], v0, s[4:7], 0 idxen", sgpr=sgprs_from(vs, 4),
            vgpr={0: LANES}, mem=mem)
    assert list(r.vgpr[1:5, 5]) == [10, 11, 0, 1]
    vs = encode_vsharp(buf, 64, esize, data_format=3, num_format=UNORM)
    r = run("buffer_load_format_xyzw v[1:4], v0, s[4:7], 0 idxen", sgpr=sgprs_from(vs, 4),
            vgpr={0: LANES}, mem=mem)
    assert list(r.vgpr[1:5, 5]) == [f32_bits_of(Fraction(10, 255)), f32_bits_of(Fraction(11, 255)),
                                    0, 0x3F800000]


def _store_values(nfmt, n):
    if nfmt in (UINT, SINT):
        return RNG.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    special = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 1.5, -1.5, np.inf, -np.inf, np.nan,
                        0.5 / 255, 1.5 / 255, 2.5 / 255, 0.5 / 127, 65504.0, 65520.0, 1e-5,
                        6.1e-5, 5.96e-8, 1e-8], np.float32)
    vals = RNG.uniform(-1.25, 1.25, n).astype(np.float32)
    if nfmt == FLOAT:
        vals = (RNG.standard_normal(n) * np.exp2(RNG.integers(-20, 18, n))).astype(np.float32)
    vals[:len(special)] = special
    return vals.view(np.uint32)


@pytest.mark.parametrize("dfmt", range(1, 15))
def test_buffer_store_format_all_formats(dfmt):
    comps, esize = layout(dfmt)
    for nfmt in (UNORM, SNORM, UINT, SINT, FLOAT):
        if nfmt == FLOAT and not float_ok(dfmt):
            continue
        vals = [_store_values(nfmt, 64) for _ in range(4)]
        for v in vals:
            RNG.shuffle(v)
        mem = Memory()
        buf = mem.allocate(64 * esize + 64)
        vs = encode_vsharp(buf, 64, esize, data_format=dfmt, num_format=nfmt)
        run("buffer_store_format_xyzw v[1:4], v0, s[4:7], 0 idxen", sgpr=sgprs_from(vs, 4),
            vgpr={0: LANES, 1: vals[0], 2: vals[1], 3: vals[2], 4: vals[3]}, mem=mem)
        got = mem.read(buf, 64 * esize)
        for lane in range(64):
            e = 0
            for k, (s, n) in enumerate(comps):
                e |= encode_ref(int(vals[k][lane]), n, nfmt) << s
            want = e.to_bytes(esize, "little")
            assert got[lane * esize:(lane + 1) * esize] == want, \
                (dfmt, nfmt, lane, [hex(int(vals[k][lane])) for k in range(4)])


def test_buffer_store_format_x_keeps_other_components():
    # 8_8_8_8: store_format_x writes X only; 2_10_10_10 (packed): read-modify-write
    for dfmt in (10, 9):
        mem = Memory()
        buf = mem.allocate(4096)
        mem.write(buf, np.full(256, 0xA5, np.uint8))
        vs = encode_vsharp(buf, 64, 4, data_format=dfmt, num_format=UINT)
        run("buffer_store_format_x v1, v0, s[4:7], 0 idxen", sgpr=sgprs_from(vs, 4),
            vgpr={0: LANES, 1: LANES + 0x100}, mem=mem)
        got = mem.read_array(buf, np.uint32, 64)
        comps, _ = layout(dfmt)
        s, n = comps[0]
        m = ((1 << n) - 1) << s
        for lane in range(64):
            assert int(got[lane]) == (0xA5A5A5A5 & ~m) | (((lane + 0x100) << s) & m)


def test_invalid_store_number_format_fails():
    mem = Memory()
    buf = mem.allocate(4096)
    for dfmt, nfmt in ((10, USCALED), (1, FLOAT), (4, SNORM_OGL)):
        vs = encode_vsharp(buf, 64, 4, data_format=dfmt, num_format=nfmt)
        with pytest.raises(ExecutionError):
            run("buffer_store_format_x v1, v0, s[4:7], 0 idxen", sgpr=sgprs_from(vs, 4),
                vgpr={0: LANES}, mem=mem)


def test_tbuffer_uses_instruction_format_and_identity_sel():
    data = RNG.integers(0, 256, 256, dtype=np.uint8)
    mem, buf, esize = _format_buffer(5, UNORM, data)
    # the V# says 32/UINT with a reversed dst_sel: tbuffer ignores both
    vs = encode_vsharp(buf, 64, 4, data_format=4, num_format=UINT, dst_sel=(7, 6, 5, 4))
    r = run("tbuffer_load_format_xy v[1:2], v0, s[4:7], dfmt:5, nfmt:0, 0 idxen",
            sgpr=sgprs_from(vs, 4), vgpr={0: LANES}, mem=mem)
    for lane in range(64):
        want = decode_element(data[lane * 4:lane * 4 + 4].tobytes(), 5, UNORM)[:2]
        assert [int(r.vgpr[1, lane]), int(r.vgpr[2, lane])] == want
    vals = [_store_values(SNORM, 64) for _ in range(2)]
    run("tbuffer_store_format_xy v[1:2], v0, s[4:7], dfmt:12, nfmt:1, 0 idxen",
        sgpr=sgprs_from(encode_vsharp(buf, 64, 8), 4), vgpr={0: LANES, 1: vals[0], 2: vals[1]},
        mem=mem)
    got = mem.read_array(buf, np.uint16, 256).reshape(64, 4)
    before = np.zeros(2048, np.uint16)
    before[:128] = data.view(np.uint16)
    for lane in range(64):
        assert int(got[lane, 0]) == encode_ref(int(vals[0][lane]), 16, SNORM)
        assert int(got[lane, 1]) == encode_ref(int(vals[1][lane]), 16, SNORM)
        # z and w are not supplied by an _xy store: those bytes keep their old data
        assert [int(got[lane, 2]), int(got[lane, 3])] == [int(before[lane * 4 + 2]), int(before[lane * 4 + 3])]


# --- byte/short/dword ---------------------------------------------------------------------
def test_byte_short_dword_loads_and_stores():
    mem = Memory()
    buf = mem.allocate(4096)
    data = RNG.integers(0, 256, 1024, dtype=np.uint8)
    mem.write(buf, data)
    vs = encode_vsharp(buf, 1024)
    r = run("""
buffer_load_ubyte v1, v0, s[4:7], 0 offen
buffer_load_sbyte v2, v0, s[4:7], 0 offen offset:1
buffer_load_ushort v3, v10, s[4:7], 0 offen
buffer_load_sshort v4, v10, s[4:7], 0 offen offset:2
buffer_load_dwordx4 v[5:8], v11, s[4:7], 0 offen
buffer_load_dwordx3 v[12:14], v11, s[4:7], s1 offen
""", sgpr={**sgprs_from(vs, 4), 1: 16}, vgpr={0: LANES * 3, 10: LANES * 4, 11: LANES * 16}, mem=mem)
    d = data.astype(np.int64)
    for lane in range(64):
        o = lane * 3
        assert r.vgpr[1, lane] == d[o]
        assert r.vgpr[2, lane] == np.uint32(np.int8(data[o + 1]))
        o = lane * 4
        assert r.vgpr[3, lane] == d[o] | d[o + 1] << 8
        assert r.vgpr[4, lane] == (int(data[o + 2]) | int(data[o + 3]) << 8) - (0x10000 if data[o + 3] & 0x80 else 0) & 0xFFFFFFFF
        o = lane * 16
        words = data[o:o + 16].view(np.uint32)
        assert list(r.vgpr[5:9, lane]) == list(words)
        o2 = o + 16
        # range rule with soffset 16: dword i in range when offset < num_records - soffset
        exp = [int(data[o2 + 4 * i:o2 + 4 * i + 4].view(np.uint32)[0]) if o + 4 * i < 1024 - 16 else 0
               for i in range(3)]
        assert list(r.vgpr[12:15, lane]) == exp
    r = run("""
buffer_store_byte v1, v0, s[4:7], 0 offen
buffer_store_short v1, v0, s[4:7], 0 offen offset:200
buffer_store_dwordx2 v[1:2], v0, s[4:7], 0 offen offset:400
""", sgpr=sgprs_from(encode_vsharp(buf, 4096), 4),
        vgpr={0: LANES * 4, 1: LANES * 0x01010101 + 0x0A0B0C0D, 2: ~LANES}, mem=mem)
    got = np.frombuffer(mem.read(buf, 1024), np.uint8)
    for lane in range(50):
        v = (lane * 0x01010101 + 0x0A0B0C0D) & 0xFFFFFFFF
        assert got[lane * 4] == v & 0xFF
    for lane in range(50):
        v = (lane * 0x01010101 + 0x0A0B0C0D) & 0xFFFFFFFF
        assert int(got[200 + lane * 4]) | int(got[201 + lane * 4]) << 8 == v & 0xFFFF
    words = mem.read_array(buf + 400, np.uint32, 128)
    # lanes overlap (stride 4, 8-byte stores): the last lane writing a dword wins
    for i in range(65):
        if i < 64:
            assert int(words[i]) == (i * 0x01010101 + 0x0A0B0C0D) & 0xFFFFFFFF
        elif i == 64:
            assert int(words[i]) == (~63) & 0xFFFFFFFF


def _doc_range(offset, index, stride, num_records, soffset, idxen):
    """GcnMemHandling.md's range rule."""
    if stride == 0:
        return offset < num_records - soffset
    return index < num_records and not (idxen and offset >= stride)


def test_range_rules_raw_and_structured():
    mem = Memory()
    buf = mem.allocate(8192)
    data = RNG.integers(0, 1 << 32, 2048, dtype=np.uint64).astype(np.uint32)
    mem.write(buf, data)
    words = data
    # raw buffer: num_records 100 bytes, soffset 8
    r = run("buffer_load_dword v1, v0, s[4:7], s1 offen offset:4",
            sgpr={**sgprs_from(encode_vsharp(buf, 100), 4), 1: 8}, vgpr={0: LANES * 4}, mem=mem)
    for lane in range(64):
        off = lane * 4 + 4
        want = int(words[(8 + off) // 4]) if _doc_range(off, 0, 0, 100, 8, 0) else 0
        assert int(r.vgpr[1, lane]) == want
    # structured: stride 12, 20 records, idxen + offen, offsets 0..15
    voff = (LANES % 4) * 4
    r = run("buffer_load_dword v1, v[2:3], s[4:7], 0 idxen offen",
            sgpr=sgprs_from(encode_vsharp(buf, 20, 12), 4), vgpr={2: LANES, 3: voff}, mem=mem)
    for lane in range(64):
        off, idx = int(voff[lane]), lane
        want = int(words[(idx * 12 + off) // 4]) if _doc_range(off, idx, 12, 20, 0, 1) else 0
        assert int(r.vgpr[1, lane]) == want
    # out-of-range stores are dropped
    mem2 = Memory()
    b2 = mem2.allocate(4096)
    run("buffer_store_dword v1, v0, s[4:7], 0 offen", sgpr=sgprs_from(encode_vsharp(b2, 40), 4),
        vgpr={0: LANES * 4, 1: LANES + 1}, mem=mem2)
    got = mem2.read_array(b2, np.uint32, 64)
    assert list(got[:10]) == list(range(1, 11)) and not got[10:].any()


def test_swizzled_buffer_addressing():
    mem = Memory()
    buf = mem.allocate(1 << 16)
    data = np.arange(1 << 14, dtype=np.uint32) * 7 + 3
    mem.write(buf, data)
    es, ist, stride = 4, 16, 8          # element_size_code 1, index_stride_code 1
    vs = encode_vsharp(buf, 1000, stride, swizzle_enable=1, element_size_code=1,
                       index_stride_code=1)
    idx = (LANES * 5) % 97
    off = (LANES % 2) * 4
    r = run("buffer_load_dwordx2 v[1:2], v[4:5], s[4:7], 0 idxen offen offset:0",
            sgpr=sgprs_from(vs, 4), vgpr={4: idx, 5: off}, mem=mem)
    for lane in range(64):
        for i in range(2):
            aoff = int(off[lane]) + 4 * i
            ai = int(idx[lane])
            bo = aoff % es + es * (ai % ist) + ist * ((ai // ist) * stride + (aoff // es) * es)
            want = int(data[bo // 4]) if aoff < stride else 0
            assert int(r.vgpr[1 + i, lane]) == want, (lane, i)


def _doc_swizzled_offset(aoffset, aindex, stride, element_size, index_stride):
    """GcnMemHandling.md's swizzle-mode BUFOFFSET."""
    return (aoffset % element_size + element_size * (aindex % index_stride)
            + index_stride * ((aindex // index_stride) * stride + (aoffset // element_size) * element_size))


def test_scratch_vsharp_range_is_relative_to_soffset_not_a_moved_base():
    """The ABI's scratch V# (stride 0, swizzle, element size 4, index stride 64, add_tid,
    num_records = the whole scratch in bytes, as ROCr's InitScratchSRD builds it) under
    GcnMemHandling.md's rule for STRIDE == 0: out of range iff BUFOFFSET >= NUM_RECORDS -
    SGPR_OFFSET. Two waves of 8 private bytes per lane (1024 bytes); the test reads wave 1's
    private dwords 0..3 (dwords 2 and 3 lie past its 8 bytes, i.e. past the scratch).
    With the wave offset in SOFFSET the overflow is out of range (reads 0, stores dropped).
    With the wave offset added to the V# base instead, as LLVM's gfx7 kernel prologue does
    (s_add_u32 s0, s0, s_wave_offset; soffset 0), NUM_RECORDS still counts from the moved
    base: the last wave's overflow is in range and reaches the bytes after the scratch, so no
    range check catches it on the hardware either."""
    bpl, waves = 8, 2
    size = bpl * 64 * waves
    wave_off = bpl * 64                          # wave 1
    mem = Memory()
    buf = mem.allocate(4 * size)                 # the scratch, then bytes that are not scratch
    words = (np.arange(size, dtype=np.uint32) * 2654435761) & np.uint32(0xFFFFFFFF)
    mem.write(buf, words)
    o = (LANES % 4) * 4                          # private byte offset of each lane's dword
    bo = [_doc_swizzled_offset(int(o[l]), l, 0, 4, 64) for l in range(64)]

    def vsharp(base):
        return sgprs_from(encode_vsharp(base, size, 0, swizzle_enable=1, element_size_code=1,
                                        index_stride_code=3, add_tid_enable=1), 4)

    # wave offset in SOFFSET
    r = run("buffer_load_dword v1, v0, s[4:7], s1 offen", sgpr={**vsharp(buf), 1: wave_off},
            vgpr={0: o}, mem=mem)
    for lane in range(64):
        inr = _doc_range(bo[lane], 0, 0, size, wave_off, 0)
        assert inr == (o[lane] < bpl), lane
        want = int(words[(wave_off + bo[lane]) // 4]) if inr else 0
        assert int(r.vgpr[1, lane]) == want, lane
    run("buffer_store_dword v1, v0, s[4:7], s1 offen", sgpr={**vsharp(buf), 1: wave_off},
        vgpr={0: o, 1: 0xDEAD0000 + LANES}, mem=mem)
    got = mem.read_array(buf, np.uint32, size)
    for lane in range(64):
        a = (wave_off + bo[lane]) // 4
        assert int(got[a]) == (0xDEAD0000 + lane if o[lane] < bpl else int(words[a])), lane
    mem.write(buf, words)
    # wave offset added to the base (LLVM's prologue): every lane in range, overflow read
    r = run("buffer_load_dword v1, v0, s[4:7], 0 offen", sgpr=vsharp(buf + wave_off),
            vgpr={0: o}, mem=mem)
    for lane in range(64):
        assert _doc_range(bo[lane], 0, 0, size, 0, 0)
        assert int(r.vgpr[1, lane]) == int(words[(wave_off + bo[lane]) // 4]), lane
    assert max(wave_off + b for b in bo) >= size           # some of it past the scratch


# --- atomics -------------------------------------------------------------------------------
def _ref_atomic(op, old, v, c, bits):
    m = (1 << bits) - 1
    s = lambda x: x - (1 << bits) if x >> (bits - 1) else x  # noqa: E731
    return {"swap": v, "cmpswap": v if old == c else old, "add": (old + v) & m,
            "sub": (old - v) & m, "smin": old if s(old) <= s(v) else v,
            "umin": min(old, v), "smax": old if s(old) >= s(v) else v, "umax": max(old, v),
            "and": old & v, "or": old | v, "xor": old ^ v,
            "inc": 0 if old >= v else old + 1,
            "dec": v if old == 0 or old > v else old - 1}[op]


@pytest.mark.parametrize("op", ["swap", "cmpswap", "add", "sub", "smin", "umin", "smax", "umax",
                                "and", "or", "xor", "inc", "dec"])
@pytest.mark.parametrize("x2", [False, True])
def test_buffer_atomics_glc_returns_pre_op(op, x2):
    bits = 64 if x2 else 32
    nd = (2 if x2 else 1) * (2 if op == "cmpswap" else 1)
    mem = Memory()
    buf = mem.allocate(4096)
    init = RNG.integers(0, 1 << 63, 4, dtype=np.uint64)
    init[1] = 5
    mem.write(buf, init if x2 else init.astype(np.uint32))
    vals = RNG.integers(0, 1 << 63, 64, dtype=np.uint64) >> np.uint64(RNG.integers(0, 62))
    vals[::5] = 7
    cmps = RNG.integers(0, 3, 64, dtype=np.uint64)
    m = (1 << bits) - 1
    vals &= np.uint64(m)
    addr_idx = LANES % 4
    vg = {0: addr_idx * (bits // 8)}
    regs = [vals & np.uint64(0xFFFFFFFF), vals >> np.uint64(32)] if x2 else [vals]
    if op == "cmpswap":
        # compare with the old value sometimes
        regs += [cmps & np.uint64(0xFFFFFFFF), cmps >> np.uint64(32)] if x2 else [cmps]
    for i, rg in enumerate(regs):
        vg[1 + i] = rg.astype(np.uint32)
    name = f"buffer_atomic_{op}{'_x2' if x2 else ''}"
    dst = f"v[1:{nd}]" if nd > 1 else "v1"
    r = run(f"{name} {dst}, v0, s[4:7], 0 offen glc", sgpr=sgprs_from(encode_vsharp(buf, 4096), 4),
            vgpr=vg, mem=mem)
    mem_model = [int(x) & m for x in init]
    for lane in range(64):
        a = lane % 4
        old = mem_model[a]
        mem_model[a] = _ref_atomic(op, old, int(vals[lane]), int(cmps[lane]), bits)
        got = int(r.vgpr[1, lane]) | ((int(r.vgpr[2, lane]) << 32) if x2 else 0)
        assert got == old, (lane, hex(got), hex(old))
    final = mem.read_array(buf, np.uint64 if x2 else np.uint32, 4)
    assert [int(x) for x in final] == mem_model


def test_buffer_atomic_without_glc_keeps_vdata():
    mem = Memory()
    buf = mem.allocate(4096)
    r = run("buffer_atomic_add v1, v0, s[4:7], 0 offen", sgpr=sgprs_from(encode_vsharp(buf, 4096), 4),
            vgpr={0: 0, 1: 3}, mem=mem)
    assert (r.vgpr[1] == 3).all()
    assert mem.read_array(buf, np.uint32, 1)[0] == 192


# --- lds bit, tfe, cache ops ----------------------------------------------------------------
def test_lds_bit_writes_lds_at_m0_plus_offset_plus_lane():
    mem = Memory()
    buf = mem.allocate(4096)
    data = RNG.integers(0, 1 << 32, 1024, dtype=np.uint64).astype(np.uint32)
    data[:64] |= 0x80   # negative sbyte values
    mem.write(buf, data)
    vs = encode_vsharp(buf, 4096)
    r = run("""
s_mov_b32 m0, 0x100
buffer_load_dword v9, v0, s[4:7], 0 offen offset:8 lds
buffer_load_sbyte v9, v0, s[4:7], 0 offen offset:0 lds
s_mov_b32 m0, -1
ds_read_b32 v1, v2
ds_read_b32 v3, v4
""", sgpr=sgprs_from(vs, 4), vgpr={0: LANES * 4, 2: 0x100 + 8 + LANES * 4, 4: 0x100 + LANES * 4,
                                     9: 0x5555},
        mem=mem)
    # the final LDS model, the two loads applied in order
    lds = {}
    for lane in range(64):
        lds[0x100 + 8 + 4 * lane] = int(data[(lane * 4 + 8) // 4])
    for lane in range(64):
        lds[0x100 + 4 * lane] = int(data[lane]) & 0xFF   # zero-extended (GcnMemHandling.md)
    for lane in range(64):
        assert int(r.vgpr[1, lane]) == lds[0x108 + 4 * lane]
        assert int(r.vgpr[3, lane]) == lds[0x100 + 4 * lane]
    assert (r.vgpr[9] == 0x5555).all()   # no VGPR written


def test_tfe_status_register():
    mem = Memory()
    buf = mem.allocate(4096)
    mem.write(buf, np.arange(1024, dtype=np.uint32))
    r = run("v_mov_b32 v2, 77\nbuffer_load_dword v1, v0, s[4:7], 0 offen tfe",
            sgpr=sgprs_from(encode_vsharp(buf, 4096), 4), vgpr={0: LANES * 4}, mem=mem)
    assert list(r.vgpr[1]) == list(range(64)) and not r.vgpr[2].any()
    # unmapped: V# base past the buffer and its guard page
    r = run("v_mov_b32 v2, 77\nbuffer_load_dword v1, v0, s[4:7], 0 offen tfe",
            sgpr=sgprs_from(encode_vsharp(buf + 8192 * 16, 4096), 4), vgpr={0: LANES * 4}, mem=mem)
    assert not r.vgpr[1].any() and (r.vgpr[2] == 1).all() and len(r.faults) > 0


def test_wbinvl1_is_a_noop():
    r = run("buffer_wbinvl1\nbuffer_wbinvl1_vol\nv_mov_b32 v1, 5")
    assert (r.vgpr[1] == 5).all()


def test_exec_masked_lanes_untouched():
    mem = Memory()
    buf = mem.allocate(4096)
    mem.write(buf, np.arange(1024, dtype=np.uint32) + 1)
    r = run("buffer_load_format_x v1, v0, s[4:7], 0 idxen",
            sgpr=sgprs_from(encode_vsharp(buf, 64, 4), 4), vgpr={0: LANES, 1: 0xDEAD},
            exec_mask=0x00000000FFFF0000, mem=mem)
    for lane in range(64):
        assert int(r.vgpr[1, lane]) == (lane + 1 if 16 <= lane < 32 else 0xDEAD)
    assert ALL


def test_addr64_has_no_range_check():
    mem = Memory()
    buf = mem.allocate(8192)
    mem.write(buf, np.arange(2048, dtype=np.uint32))
    offs = (LANES * 8).astype(np.uint64)
    vs = encode_vsharp(buf, 4)     # num_records 4 would cut everything off in the 32-bit modes
    r = run("buffer_load_dword v1, v[2:3], s[4:7], s1 addr64 offset:4", sgpr={**sgprs_from(vs, 4), 1: 8},
            vgpr={2: (offs & 0xFFFFFFFF).astype(np.uint32), 3: (offs >> 32).astype(np.uint32)}, mem=mem)
    assert list(r.vgpr[1]) == [(8 * lane + 4 + 8) // 4 for lane in range(64)]


@pytest.mark.parametrize("op", ["fmin", "fmax", "fcmpswap"])
def test_buffer_float_atomics(op):
    from test_mem_ds import _minmax
    init = np.array([1.0, -0.0, np.nan, 3.0], np.float32)
    mem = Memory()
    buf = mem.allocate(4096)
    mem.write(buf, init)
    vals = np.array(RNG.choice([0.0, -0.0, 1.0, -3.0, np.nan, 3.0], 64), np.float32).view(np.uint32)
    cmps = np.array(RNG.choice([0.0, -0.0, 1.0, 3.0], 64), np.float32).view(np.uint32)
    vg = {0: (LANES % 4) * 4, 1: vals, 2: cmps}
    dst = "v[1:2]" if op == "fcmpswap" else "v1"
    r = run(f"buffer_atomic_{op} {dst}, v0, s[4:7], 0 offen glc",
            sgpr=sgprs_from(encode_vsharp(buf, 4096), 4), vgpr=vg, mem=mem)
    model = [int(x) for x in init.view(np.uint32)]
    f = lambda b: float(np.uint32(b).view(np.float32))  # noqa: E731
    for lane in range(64):
        i = lane % 4
        old = model[i]
        if op == "fcmpswap":   # VDATA[0] is the new value, VDATA[1] the compare value
            model[i] = int(vals[lane]) if f(old) == f(cmps[lane]) else old
        else:
            model[i] = _minmax(old, int(vals[lane]), 4, op == "fmin")
        assert int(r.vgpr[1, lane]) == old
    assert [int(x) for x in mem.read_array(buf, np.uint32, 4)] == model


def test_flat_global_and_lds_aperture():
    mem = Memory()
    buf = mem.allocate(4096)
    mem.write(buf, np.arange(1024, dtype=np.uint32))
    addr = buf + LANES.astype(np.uint64) * 4
    lds_addr = (np.uint64(0x10000000) << np.uint64(32)) + LANES.astype(np.uint64) * 4
    r = run("""
flat_load_dword v1, v[2:3]
flat_store_dword v[4:5], v1
flat_atomic_add v6, v[4:5], v7 glc
s_waitcnt 0
ds_read_b32 v8, v9
""", vgpr={2: (addr & 0xFFFFFFFF).astype(np.uint32), 3: (addr >> 32).astype(np.uint32),
           4: (lds_addr & 0xFFFFFFFF).astype(np.uint32), 5: (lds_addr >> 32).astype(np.uint32),
           7: 100, 9: LANES * 4}, mem=mem)
    assert list(r.vgpr[1]) == list(range(64))
    assert list(r.vgpr[6]) == list(range(64))
    assert list(r.vgpr[8]) == [x + 100 for x in range(64)]


def test_unaligned_addresses_are_aligned_to_the_access_size():
    """CLRX GcnMemHandling.md (buffer addressing): "For 32-bit and wider operations, an address
    are aligned to 4 bytes. For 16-bit operations, an address are aligned to 2 bytes." Bytes
    keep their address; format components align to their container (4 bytes for 32-bit)."""
    mem = Memory()
    buf = mem.allocate(4096)
    data = RNG.integers(0, 256, 2048, dtype=np.uint8)
    mem.write(buf, data)
    vs = encode_vsharp(buf, 2048)
    offs = LANES * 16 + (LANES % 4)            # lane l: byte offset 16*l + (l % 4)
    r = run("""
buffer_load_dword v1, v0, s[4:7], 0 offen
buffer_load_ushort v2, v0, s[4:7], 0 offen
buffer_load_ubyte v3, v0, s[4:7], 0 offen
buffer_load_dwordx2 v[4:5], v0, s[4:7], 0 offen
tbuffer_load_format_x v6, v0, s[4:7], dfmt:4, nfmt:4, 0 offen
""", sgpr=sgprs_from(vs, 4), vgpr={0: offs}, mem=mem)
    for lane in range(64):
        o = int(offs[lane])
        d4, d2 = o & ~3, o & ~1
        word = int(data[d4:d4 + 4].view(np.uint32)[0])
        assert r.vgpr[1, lane] == word, lane
        assert r.vgpr[2, lane] == int(data[d2]) | int(data[d2 + 1]) << 8, lane
        assert r.vgpr[3, lane] == data[o], lane
        assert list(r.vgpr[4:6, lane]) == list(data[d4:d4 + 8].view(np.uint32)), lane
        assert r.vgpr[6, lane] == word, lane
    # stores and atomics: the dword at the aligned address changes, its neighbours do not
    mem.write(buf, np.zeros(2048, np.uint8))
    run("""
buffer_store_dword v1, v0, s[4:7], 0 offen
buffer_atomic_add v2, v0, s[4:7], 0 offen offset:8
""", sgpr=sgprs_from(vs, 4), vgpr={0: offs, 1: LANES + 1000, 2: LANES + 7}, mem=mem)
    got = mem.read_array(buf, np.uint32, 256).reshape(64, 4)      # lane l: dwords 4l..4l+3
    assert got[:, 0].tolist() == (LANES + 1000).tolist()
    assert got[:, 2].tolist() == (LANES + 7).tolist()
    assert not got[:, 1].any() and not got[:, 3].any()


def test_scalar_loads_round_the_offset_not_the_base():
    """CLRX GcnInstrsSmrd.md: S_LOAD_DWORD and S_BUFFER_LOAD_DWORD both read
    *(UINT32*)(SMRD + (OFFSET & ~3)): the byte offset loses its low two bits, the base (the
    SGPR pair, or the V#'s base) is used as it is."""
    mem = Memory()
    buf = mem.allocate(256)
    data = np.arange(256, dtype=np.uint8)
    mem.write(buf, data)
    vs = encode_vsharp(buf + 2, 64)
    r = run("""
s_load_dword s10, s[0:1], s2
s_load_dword s11, s[12:13], s2
s_buffer_load_dword s14, s[4:7], s2
s_load_dwordx2 s[16:17], s[12:13], 0x1
""", sgpr={0: buf & 0xFFFFFFFF, 1: buf >> 32, 2: 7, **sgprs_from(vs, 4),
           12: (buf + 2) & 0xFFFFFFFF, 13: (buf + 2) >> 32}, mem=mem)
    le = lambda o: int.from_bytes(bytes(data[o:o + 4]), "little")   # noqa: E731
    assert int(r.sgpr[10]) == le(4)          # base + (7 & ~3)
    assert int(r.sgpr[11]) == le(2 + 4)      # unaligned base kept: bytes 6..9
    assert int(r.sgpr[14]) == le(2 + 4)      # the same through a V# at buf + 2
    assert [int(r.sgpr[16]), int(r.sgpr[17])] == [le(2 + 4), le(2 + 8)]   # dword offset 1
