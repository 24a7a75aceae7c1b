"""Tests of gcnemu.mem (space, atomics, descriptors): the address space against a Python dict-of-bytes model, unmapped
behaviour, atomics against Python integer/float semantics from the ISA pseudo-code, descriptor
decoding against words built bit by bit from CLRX GcnMemHandling.md, buffer addressing."""
from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from gcnemu.errors import GcnEmuError, MemoryFault
from gcnemu.mem import atomics as A
from gcnemu.mem import space as S
from gcnemu.mem.descriptors import (buffer_address, decode_ssharp, decode_tsharp, decode_vsharp,
                                    encode_vsharp, scratch_address)
from gcnemu.mem.space import BASE, PAGE_SIZE, Memory

U64 = np.uint64  # Python ints >= 2**63 cannot be passed to numba as int64: use uint64 like the engine


def mem_load(d, mp, base, addr, n):
    v, ok = S.mem_load(d, mp, base, addr if isinstance(addr, np.integer) else U64(addr), n)
    return int(v), bool(ok)


def mem_store(d, mp, base, addr, value, n):
    return bool(S.mem_store(d, mp, base, U64(addr), U64(value), n))


def mem_atomic(d, mp, base, addr, op, value, cmp, n):
    v, ok = A.mem_atomic(d, mp, base, U64(addr), op, U64(value), U64(cmp), n)
    return int(v), bool(ok)

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def pages(n):
    return -(-n // PAGE_SIZE) * PAGE_SIZE


class Model:
    """Independent model: a dict of bytes for every byte of every mapped 4 KiB page."""

    def __init__(self):
        self.bytes = {}

    def map(self, start, n):
        for a in range(start, start + pages(n)):
            self.bytes[a] = 0

    def unmap(self, start, n):
        for a in range(start, start + pages(n)):
            self.bytes.pop(a, None)

    def ok(self, addr, n):
        return all((addr + i) in self.bytes for i in range(n))

    def load(self, addr, n):
        if not self.ok(addr, n):
            return 0, False
        return int.from_bytes(bytes(self.bytes[addr + i] for i in range(n)), "little"), True

    def store(self, addr, value, n):
        if not self.ok(addr, n):
            return False
        for i, b in enumerate((value & ((1 << (8 * n)) - 1)).to_bytes(n, "little")):
            self.bytes[addr + i] = b
        return True


# --- allocation ---------------------------------------------------------------------------------

def test_allocations_are_aligned_disjoint_and_guarded():
    m = Memory(initial_bytes=4096)
    sizes = [1, 100, 4096, 4097, 10000, 256]
    addrs = [m.allocate(n) for n in sizes]
    d, mp = m.arrays()
    for a, n in zip(addrs, sizes):
        assert a >= BASE and a % 256 == 0
        assert mem_load(d, mp, BASE, a, 1) == (0, True)
        assert mem_load(d, mp, BASE, a + n - 1, 1) == (0, True)
        assert mem_load(d, mp, BASE, a - 1, 1) == (0, False)           # guard before
        assert mem_load(d, mp, BASE, a + pages(n), 1) == (0, False)    # guard after
    spans = sorted((a, a + pages(n)) for a, n in zip(addrs, sizes))
    for (s0, e0), (s1, e1) in zip(spans, spans[1:]):
        assert e0 + PAGE_SIZE <= s1


def test_large_alignment_and_growth_preserves_contents():
    m = Memory(initial_bytes=4096)
    a = m.allocate(64, name="small")
    m.write(a, b"hello")
    b = m.allocate(3 << 20, align=1 << 16, name="big")
    assert b % (1 << 16) == 0
    assert m.read(a, 5) == b"hello"
    assert m.size >= b - BASE + (3 << 20)
    m.write(b + (3 << 20) - 4, np.array([0xDEADBEEF], dtype=np.uint32))
    assert m.read_array(b + (3 << 20) - 4, np.uint32, 1)[0] == 0xDEADBEEF


def test_lock_forbids_growth():
    m = Memory(initial_bytes=1 << 16)
    m.lock()
    m.allocate(100)  # fits
    with pytest.raises(MemoryFault, match="grow"):
        m.allocate(1 << 20)
    m.unlock()
    m.allocate(1 << 20)


def test_free_unmaps_and_reuses():
    m = Memory()
    a = m.allocate(5000, name="A")
    b = m.allocate(100, name="B")
    m.free(a)
    d, mp = m.arrays()
    assert mem_load(d, mp, BASE, a, 4) == (0, False)
    assert "freed buffer 'A'" in m.describe(a + 8)
    with pytest.raises(MemoryFault, match="not the start"):
        m.free(a)
    assert "freed" not in m.describe(b) and m.read(b, 100) == bytes(100)  # B stays mapped
    c = m.allocate(10, name="C")
    assert c == a  # first fit reuses the hole
    assert m.read(c, 10) == bytes(10)  # zeroed on allocation


def test_high_water_marks_the_highest_page_ever_mapped():
    """high_water: from BASE to past the guard page after the highest allocation ever made;
    a free leaves it, and so does an allocation that reuses a hole."""
    m = Memory()
    assert m.high_water == 0
    a = m.allocate(5000, name="A")
    b = m.allocate(100, name="B")
    top = b + pages(100) + PAGE_SIZE - BASE
    assert m.high_water == top > a + pages(5000) - BASE
    m.free(b)
    m.free(a)
    assert m.high_water == top
    m.allocate(300)                      # first fit: A's hole
    assert m.high_water == top
    c = m.allocate(1 << 20)
    assert m.high_water == c + pages(1 << 20) + PAGE_SIZE - BASE <= m.size
    assert Memory.from_snapshot(m.snapshot()).high_water == m.high_water


def test_bad_allocation_arguments():
    m = Memory()
    for n, al in [(0, 256), (-5, 256), (10, 3), (10, 0)]:
        with pytest.raises(MemoryFault):
            m.allocate(n, align=al)
    assert issubclass(MemoryFault, GcnEmuError)


def test_describe():
    m = Memory()
    a = m.allocate(100, name="input")
    b = m.allocate(100, name="output")
    assert m.describe(a + 10) == f"buffer 'input' (0x{a:x}, 100 bytes) + 10"
    gap = PAGE_SIZE + 16   # past the buffer's last page, inside the guard page before 'output'
    assert b - a >= gap + 8
    assert m.describe(a + gap).startswith(f"unmapped, {gap - 100} bytes past buffer 'input'")
    assert "past the end of buffer 'input'" in m.describe(a + 200)
    assert m.describe(b - 8).startswith("unmapped, 8 bytes before buffer 'output'")
    assert "no buffers" in Memory().describe(BASE)


def test_host_access_outside_allocation_raises():
    m = Memory()
    a = m.allocate(16, name="x")
    with pytest.raises(MemoryFault, match="buffer 'x'"):
        m.read(a + 8, 16)
    with pytest.raises(MemoryFault):
        m.write(a - 4, b"1234")
    with pytest.raises(MemoryFault):
        m.read_array(12, np.float32, 1)


# --- loads and stores against the model ---------------------------------------------------------

@st.composite
def programs(draw):
    sizes = draw(st.lists(st.integers(1, 9000), min_size=1, max_size=4))
    ops = draw(st.lists(st.tuples(st.sampled_from(["load", "store"]), st.integers(0, len(sizes) - 1),
                                  st.integers(-70, 12300), st.sampled_from([1, 2, 4, 8]),
                                  st.integers(0, 2**64 - 1)), max_size=60))
    return sizes, ops


@SETTINGS
@given(programs())
def test_load_store_match_model(prog):
    sizes, ops = prog
    m, model = Memory(initial_bytes=4096), Model()
    addrs = []
    for n in sizes:
        a = m.allocate(n)
        model.map(a, n)
        addrs.append(a)
    for kind, which, off, n, val in ops:
        d, mp = m.arrays()
        addr = addrs[which] + off
        if kind == "store":
            assert mem_store(d, mp, BASE, addr, val, n) == model.store(addr, val, n)
        else:
            v, ok = mem_load(d, mp, BASE, addr, n)
            assert (int(v), bool(ok)) == model.load(addr, n)
    for a, n in zip(addrs, sizes):
        assert m.read(a, n) == bytes(model.bytes[a + i] for i in range(n))


def test_unmapped_edges():
    m = Memory()
    a = m.allocate(4096)
    d, mp = m.arrays()
    m.write(a + 4092, b"\x11\x22\x33\x44")
    # 8-byte access straddling the mapped page and the guard page: nothing happens.
    assert mem_store(d, mp, BASE, a + 4092, 0xFFFFFFFFFFFFFFFF, 8) is False
    assert m.read(a + 4092, 4) == b"\x11\x22\x33\x44"
    assert mem_load(d, mp, BASE, a + 4092, 8) == (0, False)
    assert mem_load(d, mp, BASE, a + 4092, 4) == (0x44332211, True)
    for bad in (0, 12, BASE - 1, BASE, BASE + m.size, 2**64 - 1, 2**64 - 4):
        assert mem_load(d, mp, BASE, bad, 4) == (0, False)
        assert mem_store(d, mp, BASE, bad, 1, 4) is False
        assert mem_atomic(d, mp, BASE, bad, A.ATOMIC_ADD, 1, 0, 4) == (0, False)
    # Negative addresses given as int64 wrap to huge unsigned values: unmapped.
    assert mem_load(d, mp, BASE, np.int64(-4), 4) == (0, False)


def test_unaligned_little_endian():
    m = Memory()
    a = m.allocate(64)
    d, mp = m.arrays()
    assert mem_store(d, mp, BASE, a + 3, 0x0102030405060708, 8)
    assert m.read(a + 3, 8) == struct.pack("<Q", 0x0102030405060708)
    assert mem_load(d, mp, BASE, a + 5, 2) == (0x0506, True)
    assert mem_load(d, mp, BASE, a + 4, 4) == (0x04050607, True)


# --- atomics ------------------------------------------------------------------------------------

def _s(v, bits):
    return v - (1 << bits) if v >> (bits - 1) else v


def ref_int_atomic(op, old, v, c, bits):
    """Python integer semantics from the CLRX GcnInstrsMubuf.md pseudo-code."""
    mask = (1 << bits) - 1
    return {
        A.ATOMIC_SWAP: v,
        A.ATOMIC_CMPSWAP: v if old == c else old,
        A.ATOMIC_ADD: (old + v) & mask,
        A.ATOMIC_SUB: (old - v) & mask,
        A.ATOMIC_SMIN: old if _s(old, bits) < _s(v, bits) else v,
        A.ATOMIC_UMIN: min(old, v),
        A.ATOMIC_SMAX: old if _s(old, bits) > _s(v, bits) else v,
        A.ATOMIC_UMAX: max(old, v),
        A.ATOMIC_AND: old & v,
        A.ATOMIC_OR: old | v,
        A.ATOMIC_XOR: old ^ v,
        A.ATOMIC_INC: (old + 1) & mask if old < v else 0,            # *VM < VDATA ? *VM+1 : 0
        A.ATOMIC_DEC: old - 1 if (old <= v and old != 0) else v,     # (*VM<=VDATA && *VM!=0)
    }[op]


INT_OPS = [A.ATOMIC_SWAP, A.ATOMIC_CMPSWAP, A.ATOMIC_ADD, A.ATOMIC_SUB, A.ATOMIC_SMIN, A.ATOMIC_UMIN,
           A.ATOMIC_SMAX, A.ATOMIC_UMAX, A.ATOMIC_AND, A.ATOMIC_OR, A.ATOMIC_XOR, A.ATOMIC_INC,
           A.ATOMIC_DEC]


def edge_ints(bits):
    top = (1 << bits) - 1
    return st.one_of(st.integers(0, top), st.sampled_from([0, 1, 2, top, top - 1, 1 << (bits - 1),
                                                          (1 << (bits - 1)) - 1]))


@SETTINGS
@given(st.sampled_from([4, 8]), st.sampled_from(INT_OPS), st.data())
def test_int_atomics_match_reference(nbytes, op, data):
    bits = nbytes * 8
    old = data.draw(edge_ints(bits))
    v = data.draw(edge_ints(bits))
    c = data.draw(st.one_of(edge_ints(bits), st.just(old)))
    m = Memory()
    a = m.allocate(64)
    m.write(a + 8, old.to_bytes(nbytes, "little"))
    d, mp = m.arrays()
    got_old, ok = mem_atomic(d, mp, BASE, a + 8, op, v, c, nbytes)
    assert ok and int(got_old) == old
    assert int.from_bytes(m.read(a + 8, nbytes), "little") == ref_int_atomic(op, old, v, c, bits)
    assert m.read(a, 8) == bytes(8) and m.read(a + 8 + nbytes, 8) == bytes(8)  # neighbours intact


def _bits(x, nbytes):
    return int(np.array([x], dtype=np.float32 if nbytes == 4 else np.float64).view(
        np.uint32 if nbytes == 4 else np.uint64)[0])


def _float(b, nbytes):
    return float(np.array([b], dtype=np.uint32 if nbytes == 4 else np.uint64).view(
        np.float32 if nbytes == 4 else np.float64)[0])


@SETTINGS
@given(st.sampled_from([4, 8]), st.sampled_from([A.ATOMIC_FMIN, A.ATOMIC_FMAX, A.ATOMIC_FCMPSWAP]),
       st.data())
def test_float_atomics(nbytes, op, data):
    fl = st.floats(width=32 if nbytes == 4 else 64, allow_nan=False)
    old, v = data.draw(fl), data.draw(fl)
    c = data.draw(st.one_of(fl, st.just(old)))
    m = Memory()
    a = m.allocate(16)
    m.write(a, _bits(old, nbytes).to_bytes(nbytes, "little"))
    d, mp = m.arrays()
    got, ok = mem_atomic(d, mp, BASE, a, op, _bits(v, nbytes), _bits(c, nbytes), nbytes)
    assert ok and int(got) == _bits(old, nbytes)
    new = int.from_bytes(m.read(a, nbytes), "little")
    if op == A.ATOMIC_FCMPSWAP:
        assert new == (_bits(v, nbytes) if old == c else _bits(old, nbytes))
    elif old == v == 0.0:  # signed zeros: -0 < +0
        want = (-0.0 if math.copysign(1, old) < 0 or math.copysign(1, v) < 0 else 0.0) \
            if op == A.ATOMIC_FMIN else \
            (0.0 if math.copysign(1, old) > 0 or math.copysign(1, v) > 0 else -0.0)
        assert new == _bits(want, nbytes)
    else:
        assert _float(new, nbytes) == (min(old, v) if op == A.ATOMIC_FMIN else max(old, v))


def test_float_atomic_nan_operand_is_ignored():
    m = Memory()
    a = m.allocate(16)
    d, mp = m.arrays()
    nan = 0x7FC00001
    m.write(a, struct.pack("<f", 3.0))
    assert mem_atomic(d, mp, BASE, a, A.ATOMIC_FMIN, nan, 0, 4)[1]
    assert struct.unpack("<f", m.read(a, 4))[0] == 3.0
    m.write(a, struct.pack("<I", nan))
    mem_atomic(d, mp, BASE, a, A.ATOMIC_FMAX, _bits(2.0, 4), 0, 4)
    assert struct.unpack("<f", m.read(a, 4))[0] == 2.0
    # NaN never compares equal: fcmpswap with NaN compare leaves memory alone.
    mem_atomic(d, mp, BASE, a, A.ATOMIC_FCMPSWAP, _bits(9.0, 4), nan, 4)
    assert struct.unpack("<f", m.read(a, 4))[0] == 2.0
    # -0.0 == +0.0 as floats.
    m.write(a, struct.pack("<f", -0.0))
    mem_atomic(d, mp, BASE, a, A.ATOMIC_FCMPSWAP, _bits(5.0, 4), _bits(0.0, 4), 4)
    assert struct.unpack("<f", m.read(a, 4))[0] == 5.0


def test_unknown_atomic_op_is_not_applied():
    m = Memory()
    a = m.allocate(16)
    d, mp = m.arrays()
    m.write(a, b"\x05\x00\x00\x00")
    assert mem_atomic(d, mp, BASE, a, 99, 7, 0, 4) == (5, False)
    assert m.read(a, 4) == b"\x05\x00\x00\x00"


# --- descriptors ----------------------------------------------------------------------------------

def words_from_fields(fields, ndwords):
    """Build descriptor dwords from (value, first bit, last bit) rows of GcnMemHandling.md."""
    v = 0
    for val, lo, hi in fields:
        assert 0 <= val < (1 << (hi - lo + 1))
        v |= val << lo
    return [(v >> (32 * i)) & 0xFFFFFFFF for i in range(ndwords)]


def test_decode_vsharp_documented_layout():
    w = words_from_fields([
        (0x1234_5678_9ABC, 0, 47), (0x2AB, 48, 61), (1, 62, 62), (1, 63, 63), (0xCAFEBABE, 64, 95),
        (4, 96, 98), (1, 99, 101), (7, 102, 104), (0, 105, 107), (7, 108, 110), (14, 111, 114),
        (2, 115, 116), (3, 117, 118), (1, 119, 119), (0, 126, 127)], 4)
    v = decode_vsharp(w)
    assert v.base_address == 0x1234_5678_9ABC and v.stride == 0x2AB
    assert (v.cache_swizzle, v.swizzle_enable, v.num_records) == (1, 1, 0xCAFEBABE)
    assert (v.dst_sel_x, v.dst_sel_y, v.dst_sel_z, v.dst_sel_w) == (4, 1, 7, 0)
    assert (v.num_format, v.data_format) == (7, 14)
    assert (v.element_size, v.index_stride) == (8, 64)   # 2 << 2, 8 << 3
    assert v.add_tid_enable == 1 and v.type == 0
    # Hand-checked dword 1: base[47:32]=0x1234, stride 0x2AB << 16, bits 30/31 set.
    assert w[1] == 0x1234 | 0x2AB << 16 | 3 << 30
    assert list(encode_vsharp(0x1234_5678_9ABC, 0xCAFEBABE, 0x2AB, swizzle_enable=1, cache_swizzle=1,
                              dst_sel=(4, 1, 7, 0), num_format=7, data_format=14, element_size_code=2,
                              index_stride_code=3, add_tid_enable=1)) == w


@SETTINGS
@given(st.integers(0, 2**48 - 1), st.integers(0, 2**32 - 1), st.integers(0, 2**14 - 1),
       st.integers(0, 1), st.integers(0, 3), st.integers(0, 3), st.integers(0, 1))
def test_vsharp_roundtrip(base, nrec, stride, swz, es, ist, tid):
    v = decode_vsharp(encode_vsharp(base, nrec, stride, swizzle_enable=swz, element_size_code=es,
                                    index_stride_code=ist, add_tid_enable=tid))
    assert (v.base_address, v.num_records, v.stride, v.swizzle_enable, v.element_size_code,
            v.index_stride_code, v.add_tid_enable) == (base, nrec, stride, swz, es, ist, tid)


def test_descriptor_input_errors():
    with pytest.raises(MemoryFault, match="4 dwords"):
        decode_vsharp([0, 0, 0])
    with pytest.raises(MemoryFault, match="32-bit"):
        decode_vsharp([0, 0, 0, 1 << 32])
    with pytest.raises(MemoryFault, match="stride"):
        encode_vsharp(0, 0, 1 << 14)


def test_decode_tsharp_documented_layout():
    w = words_from_fields([
        (0x12_3456_789A, 0, 39), (2 * 256 + 128, 40, 51), (10, 52, 57), (9, 58, 61),
        (639, 64, 77), (479, 78, 91), (0, 92, 94), (0, 95, 95), (4, 96, 98), (5, 99, 101),
        (6, 102, 104), (7, 105, 107), (1, 108, 111), (5, 112, 115), (8, 116, 120), (0, 121, 121),
        (13, 124, 127), (15, 128, 140), (1023, 141, 154), (2, 160, 172), (11, 173, 185)], 8)
    t = decode_tsharp(w)
    assert t.base_address == 0x12_3456_789A * 256 and t.min_lod == 2.5
    assert (t.data_format, t.num_format) == (10, 9)
    assert (t.width, t.height, t.depth, t.pitch) == (640, 480, 16, 1024)
    assert (t.dst_sel_x, t.dst_sel_y, t.dst_sel_z, t.dst_sel_w) == (4, 5, 6, 7)
    assert (t.base_level, t.last_level, t.mip_levels) == (1, 5, 5)
    assert t.tiling_index == 8 and t.type == 13 and t.type_name == "2d_array"
    assert (t.base_array, t.last_array) == (2, 11)
    short = decode_tsharp(w[:4])  # 128-bit form: upper dwords read as zero
    assert short.width == 640 and short.depth == 1 and short.type_name == "2d_array"


def test_decode_ssharp_documented_layout():
    w = words_from_fields([
        (2, 0, 2), (6, 3, 5), (1, 6, 8), (3, 12, 14), (1, 15, 15), (1, 19, 19), (0, 20, 20),
        (1, 27, 27), (0, 28, 28), (2, 29, 30), (1 * 256 + 64, 32, 43), (13 * 256, 44, 55),
        (3, 56, 59), (5, 60, 63), ((1 << 14) - 384, 64, 77), ((1 << 6) - 8, 78, 83), (1, 84, 85),
        (0, 86, 87), (2, 88, 89), (1, 90, 91), (0x7AB, 96, 107), (3, 126, 127)], 4)
    s = decode_ssharp(w)
    assert (s.clamp_x, s.clamp_y, s.clamp_z) == (2, 6, 1)
    assert s.depth_compare_func == 3 and s.force_unnormalized == 1 and s.normalized_coords is False
    assert (s.mc_coord_trunc, s.trunc_coord, s.filter_mode) == (1, 1, 2)
    assert (s.min_lod, s.max_lod) == (1.25, 13.0)
    assert (s.perf_mip, s.perf_z) == (3, 5)
    assert s.lod_bias == -1.5 and s.lod_bias_sec == -0.5
    assert (s.xy_mag_filter, s.xy_min_filter, s.z_filter, s.mip_filter) == (1, 0, 2, 1)
    assert s.border_color_ptr == 0x7AB and s.border_color_type == 3


# --- buffer addressing ------------------------------------------------------------------------------

def ba(base=0x1000, stride=0, nrec=1 << 20, swz=0, es=4, ist=64, tid=0, idxen=0, offen=0, addr64=0,
       vidx=0, voff=0, v64=0, ioff=0, soff=0, lane=0, extra=0):
    a, ok = buffer_address(base, stride, nrec, swz, es, ist, tid, idxen, offen, addr64, vidx, voff,
                           v64, ioff, soff, lane, extra)
    return int(a), bool(ok)


def test_buffer_address_hand_cases():
    # raw buffer, offen: base + soffset + voffset + inst_offset
    assert ba(offen=1, voff=100, ioff=8, soff=16) == (0x1000 + 16 + 108, True)
    # stride 0 range check: BUFOFFSET >= NUM_RECORDS - SOFFSET is out of range
    assert ba(nrec=124, offen=1, voff=100, ioff=8, soff=16)[1] is False
    assert ba(nrec=125, offen=1, voff=100, ioff=8, soff=16)[1] is True
    # structured: idxen + offen, stride 16
    assert ba(stride=16, nrec=10, idxen=1, offen=1, vidx=3, voff=4) == (0x1000 + 3 * 16 + 4, True)
    assert ba(stride=16, nrec=10, idxen=1, vidx=10)[1] is False        # index >= num_records
    assert ba(stride=16, nrec=10, idxen=1, vidx=2, ioff=16)[1] is False  # offset >= stride
    # addr64: base + vaddr + offset + soffset, never range checked
    assert ba(addr64=1, nrec=0, v64=0x1_0000_0000, ioff=4, soff=8) == (0x1000 + 0x1_0000_0000 + 12, True)
    # 32-bit wrap of AOFFSET
    assert ba(offen=1, voff=0xFFFFFFFF, ioff=2)[0] == 0x1000 + 1
    # swizzled scratch: dword 3 of lane 5 -> 3 * 256 + 5 * 4
    assert ba(swz=1, tid=1, lane=5, ioff=12, soff=0x4000) == (0x1000 + 0x4000 + 3 * 256 + 20, True)
    assert ba(swz=1, tid=1, lane=5, ioff=13) == (0x1000 + 3 * 256 + 20 + 1, True)
    assert ba(swz=1, tid=1, lane=5, ioff=8, extra=4) == ba(swz=1, tid=1, lane=5, ioff=12)


def py_buffer_offset(stride, swz, es, ist, tid, idxen, offen, vidx, voff, ioff, lane):
    """The GcnMemHandling.md formulas, transcribed with Python integers."""
    aoffset = (ioff + (voff if offen else 0)) % 2**32
    aindex = ((vidx if idxen else 0) + (lane if tid else 0)) % 2**32
    if not swz:
        return (aindex * stride) % 2**32 + aoffset, aindex, aoffset
    return (aoffset % es + es * (aindex % ist) + ist * ((aindex // ist) * stride + (aoffset // es) * es),
            aindex, aoffset)


@SETTINGS
@given(st.integers(0, 2**14 - 1), st.integers(0, 1), st.sampled_from([2, 4, 8, 16]),
       st.sampled_from([8, 16, 32, 64]), st.integers(0, 1), st.integers(0, 1), st.integers(0, 1),
       st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1), st.integers(0, 4095), st.integers(0, 63),
       st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1))
def test_buffer_address_matches_formulas(stride, swz, es, ist, tid, idxen, offen, vidx, voff, ioff,
                                         lane, soff, nrec):
    bufoff, aindex, aoffset = py_buffer_offset(stride, swz, es, ist, tid, idxen, offen, vidx, voff,
                                               ioff, lane)
    if stride == 0:
        in_range = bufoff < nrec - soff
    else:
        in_range = not (aindex >= nrec or ((idxen or tid) and aoffset >= stride))
    got = ba(base=0x7000_0000_0000, stride=stride, nrec=nrec, swz=swz, es=es, ist=ist, tid=tid,
             idxen=idxen, offen=offen, vidx=vidx, voff=voff, ioff=ioff, soff=soff, lane=lane)
    assert got == (0x7000_0000_0000 + soff + bufoff, in_range)


# --- scratch ----------------------------------------------------------------------------------------

def test_allocate_scratch_and_vsharp():
    m = Memory()
    s = m.allocate_scratch(bytes_per_lane=10, lanes=100)
    assert s.bytes_per_lane == 12 and s.waves == 2 and s.size == 12 * 64 * 2
    v = decode_vsharp(s.vsharp)
    assert v.base_address == s.address and v.num_records == s.size and v.stride == 0
    assert (v.swizzle_enable, v.element_size, v.index_stride, v.add_tid_enable) == (1, 4, 64, 1)
    assert s.wave_offset(1) == 64 * 12
    with pytest.raises(MemoryFault):
        s.wave_offset(2)
    # Every (wave, lane, private dword) maps to a distinct in-range address of the segment.
    seen = set()
    for w in range(s.waves):
        for lane in range(64):
            for off in range(0, s.bytes_per_lane, 4):
                a, ok = buffer_address(v.base_address, v.stride, v.num_records, v.swizzle_enable,
                                       v.element_size, v.index_stride, v.add_tid_enable, 0, 0, 0, 0, 0,
                                       0, off, s.wave_offset(w), lane, 0)
                assert ok and a == scratch_address(s.address, s.wave_offset(w), lane, off)
                assert s.address <= a < s.address + s.size
                seen.add(int(a))
    assert len(seen) == s.size // 4


def test_allocations_from_several_threads_never_overlap():
    """Two threads allocating and freeing on one Memory: every live range is disjoint from the
    others (the first-fit search and the table change as one step)."""
    import threading
    mem = Memory()
    live = {}
    errors = []

    def worker(k):
        try:
            mine = []
            for i in range(300):
                n = 1000 + 997 * ((i * 7 + k) % 13)
                a = mem.allocate(n, name=f"t{k}_{i}")
                mine.append((a, n))
                if i % 3 == 2:
                    a0, _ = mine.pop(0)
                    mem.free(a0)
            live[k] = mine
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    import sys
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)   # switch threads often, so that an unguarded search races
    try:
        threads = [threading.Thread(target=worker, args=(k,)) for k in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert not errors
    ranges = sorted(r for k in live for r in live[k])
    for (a, n), (b, _) in zip(ranges, ranges[1:]):
        assert a + n <= b, f"0x{a:x}+{n} overlaps 0x{b:x}"
