"""The dword DS loads/stores (ds_read/write_b32..b128, ds_read2/write2(st64)_b32/b64), which
mem.ds.ds_instruction runs in a dedicated fast loop, against a numpy/bytes model of LDS
written from GcnInstrsDs.md: lanes in order, address = (ADDR + offset) mod 2^32 aligned down
(b32 &~3, b64 &~7, b96/b128 &~15), out of range (a + nbytes > min(M0, LDS size)) reads 0 and
drops writes; ds_read2/write2 use offset0/offset1 scaled by the element size (x64 for st64).

Cases: random addresses incl. out of range and 32-bit wrap, partial EXEC, a destination that
overlaps the address register, an M0 limit below the allocation, GDS with an aligned (fast
loop) and an unaligned (general loop) M0 base. Stores are read back with ds_read_u8, which
takes the general byte path, so the check does not depend on the code under test.
"""
from __future__ import annotations

import zlib

import numpy as np
import pytest

from test_mem_helpers import run

LDS_BYTES = 1024
M32 = 0xFFFFFFFF


def _addrs(rng):
    a = rng.integers(0, LDS_BYTES + 64, 64).astype(np.int64)
    a[::7] = (-rng.integers(1, 64, a[::7].size)) & M32        # wraps with a positive offset
    a[3::11] = rng.integers(LDS_BYTES - 16, LDS_BYTES + 8, a[3::11].size)   # at the limit
    return a.astype(np.uint32)


def _edge(addr, end, nb, step):
    """Lane 5's access ends exactly at `end` (in range), lane 6's one step later (out)."""
    addr[5] = (end - nb) & M32
    addr[6] = (end - nb + step) & M32


def _exec(rng, kind):
    if kind == "full":
        return (1 << 64) - 1
    if kind == "none":
        return 0
    return int(rng.integers(0, 1 << 63)) | (1 << 63) | 0x61   # lanes 0, 5, 6 on


def _rd(mem, a, limit, nb):
    """nb bytes at a as dwords, or zeros when out of range."""
    if a + nb > limit:
        return [0] * (nb // 4)
    return [int.from_bytes(mem[a + 4 * i:a + 4 * i + 4], "little") for i in range(nb // 4)]


def _wr(mem, a, limit, words):
    if a + 4 * len(words) <= limit:
        for i, v in enumerate(words):
            mem[a + 4 * i:a + 4 * i + 4] = int(v).to_bytes(4, "little")


def _check_store(rng, op, count, addr, ex, init, lim, off, align, label, lds_bytes=LDS_BYTES,
                 m0=None):
    """Store random data with ``op`` from lanes at ``addr`` + ``off`` under EXEC ``ex`` into
    an LDS of ``lds_bytes`` holding ``init`` (M0 ``m0``, default ``lim``, the limit it
    amounts to), and compare the whole LDS with the store done lane by lane in lane order
    (the later lane wins) on the addresses aligned down to ``align``."""
    data = rng.integers(0, 1 << 32, (4, 64), dtype=np.uint64).astype(np.uint32)
    vg = {10 + i: data[i] for i in range(count)}
    vg[1] = addr
    d = f"v[10:{9 + count}]" if count > 1 else "v10"
    r = run(f"{op} v1, {d} offset:{off}", vgpr=vg, lds=bytes(init), lds_bytes=lds_bytes,
            m0=lim if m0 is None else m0, exec_mask=ex)
    mem = bytearray(init)
    for l in range(64):
        if ex >> l & 1:
            _wr(mem, ((int(addr[l]) + off) & M32) & ~(align - 1), lim,
                [data[i][l] for i in range(count)])
    assert r.lds.tobytes() == bytes(mem), label


LOADS = [("ds_read_b32", 1), ("ds_read_b64", 2), ("ds_read_b96", 3), ("ds_read_b128", 4)]


@pytest.mark.parametrize("ex_kind", ["full", "partial", "none"])
@pytest.mark.parametrize("limit", [0xFFFFFFFF, 700])
@pytest.mark.parametrize("op,count", LOADS)
def test_ds_read_dwords(op, count, limit, ex_kind):
    rng = np.random.default_rng(zlib.crc32(f"{op}{limit}{ex_kind}".encode()))
    init = bytearray(rng.integers(0, 256, LDS_BYTES, dtype=np.uint8).tobytes())
    addr = _addrs(rng)
    ex = _exec(rng, ex_kind)
    off = 44
    _edge(addr, min(limit, LDS_BYTES) - off, 4 * count, 16)
    old = rng.integers(0, 1 << 32, (4, 64), dtype=np.uint64).astype(np.uint32)
    # v1 = address, dst v[1:count] overlaps it (read before write per lane)
    vg = {1 + i: old[i] for i in range(count)}
    vg[1] = addr
    r = run(f"{op} v[1:{count}], v1 offset:{off}" if count > 1 else f"{op} v1, v1 offset:{off}",
            vgpr=vg, lds=bytes(init), lds_bytes=LDS_BYTES, m0=limit, exec_mask=ex)
    lim = min(limit, LDS_BYTES)
    nb = 4 * count
    align = nb if nb <= 8 else 16
    for l in range(64):
        if ex >> l & 1:
            a = ((int(addr[l]) + off) & M32) & ~(align - 1)
            exp = _rd(init, a, lim, nb)
        else:
            exp = [int(old[i][l]) if i else int(addr[l]) for i in range(count)]
        got = [int(r.vgpr[1 + i][l]) for i in range(count)]
        assert got == exp, (l, hex(int(addr[l])))


@pytest.mark.parametrize("ex_kind", ["full", "partial"])
@pytest.mark.parametrize("st64", [False, True])
@pytest.mark.parametrize("count", [1, 2])
def test_ds_read2(count, st64, ex_kind):
    rng = np.random.default_rng(count * 10 + st64 * 3 + (ex_kind == "full"))
    init = bytearray(rng.integers(0, 256, LDS_BYTES, dtype=np.uint8).tobytes())
    addr = _addrs(rng)
    if st64:
        addr = (addr % 256).astype(np.uint32)
        addr[::5] = (-addr[::5].astype(np.int64) - 4) & M32
    ex = _exec(rng, ex_kind)
    o0, o1 = (1, 2) if st64 else (3, 200)
    sfx = ("2st64" if st64 else "2") + ("_b32" if count == 1 else "_b64")
    _edge(addr, LDS_BYTES - o1 * 4 * count * (64 if st64 else 1), 4 * count, 4 * count)
    old = rng.integers(0, 1 << 32, (4, 64), dtype=np.uint64).astype(np.uint32)
    # address in v2, which the results v[1:2*count] overwrite
    vg = {1 + i: old[i] for i in range(2 * count)}
    vg[2] = addr
    r = run(f"ds_read{sfx} v[1:{2 * count}], v2 offset0:{o0} offset1:{o1}",
            vgpr=vg, lds=bytes(init), lds_bytes=LDS_BYTES, exec_mask=ex)
    nb = 4 * count
    scale = nb * (64 if st64 else 1)
    for l in range(64):
        if ex >> l & 1:
            exp = []
            for o in (o0, o1):
                a = ((int(addr[l]) + o * scale) & M32) & ~(nb - 1)
                exp += _rd(init, a, LDS_BYTES, nb)
        else:
            exp = [int(addr[l]) if i == 1 else int(old[i][l]) for i in range(2 * count)]
        got = [int(r.vgpr[1 + i][l]) for i in range(2 * count)]
        assert got == exp, (l, hex(int(addr[l])))


STORES = [("ds_write_b32", 1), ("ds_write_b64", 2), ("ds_write_b96", 3), ("ds_write_b128", 4)]


@pytest.mark.parametrize("ex_kind", ["full", "partial"])
@pytest.mark.parametrize("limit", [0xFFFFFFFF, 600])
@pytest.mark.parametrize("op,count", STORES)
def test_ds_write_dwords(op, count, limit, ex_kind):
    rng = np.random.default_rng(zlib.crc32(f"{op}{limit}{ex_kind}w".encode()))
    init = bytearray(rng.integers(0, 256, LDS_BYTES, dtype=np.uint8).tobytes())
    addr = _addrs(rng)
    addr[10:20] = addr[40]          # several lanes on one address: the last lane wins
    ex = _exec(rng, ex_kind)
    off = 20
    _edge(addr, min(limit, LDS_BYTES) - off, 4 * count, 16)
    nb = 4 * count
    _check_store(rng, op, count, addr, ex, init, min(limit, LDS_BYTES), off,
                 nb if nb <= 8 else 16, None, m0=limit)


@pytest.mark.parametrize("ex_kind", ["full", "partial"])
@pytest.mark.parametrize("st64", [False, True])
@pytest.mark.parametrize("count", [1, 2])
def test_ds_write2(count, st64, ex_kind):
    rng = np.random.default_rng(100 + count * 10 + st64 * 3 + (ex_kind == "full"))
    init = bytearray(rng.integers(0, 256, LDS_BYTES, dtype=np.uint8).tobytes())
    addr = _addrs(rng)
    if st64:
        addr = (addr % 256).astype(np.uint32)
    ex = _exec(rng, ex_kind)
    # offsets that make the two halves of some lanes meet (o1 = o0): the second one wins
    o0, o1 = ((1, 1) if count == 1 else (1, 2)) if st64 else ((5, 5) if count == 1 else (3, 100))
    sfx = ("2st64" if st64 else "2") + ("_b32" if count == 1 else "_b64")
    data = rng.integers(0, 1 << 32, (4, 64), dtype=np.uint64).astype(np.uint32)
    vg = {10 + i: data[i] for i in range(2 * count)}
    vg[1] = addr
    _edge(addr, LDS_BYTES - o1 * 4 * count * (64 if st64 else 1), 4 * count, 4 * count)
    d0, d1 = ("v10", "v11") if count == 1 else ("v[10:11]", "v[12:13]")
    r = run(f"ds_write{sfx} v1, {d0}, {d1} offset0:{o0} offset1:{o1}", vgpr=vg, lds=bytes(init),
            lds_bytes=LDS_BYTES, exec_mask=ex)
    nb = 4 * count
    scale = nb * (64 if st64 else 1)
    mem = bytearray(init)
    for l in range(64):
        if ex >> l & 1:
            for k, o in enumerate((o0, o1)):
                a = ((int(addr[l]) + o * scale) & M32) & ~(nb - 1)
                _wr(mem, a, LDS_BYTES, [data[k * count + i][l] for i in range(count)])
    assert r.lds.tobytes() == bytes(mem)


@pytest.mark.parametrize("gbase", [0x100, 0x102])   # aligned: fast loop; unaligned: general
def test_gds_dword_write_read(gbase):
    rng = np.random.default_rng(gbase)
    gsize = 0x200
    addr = (rng.integers(0, gsize + 32, 64) & ~3).astype(np.uint32)
    data = rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)
    m0 = (gbase << 16) | gsize
    r = run("ds_write_b32 v1, v10 gds\nds_read_b32 v20, v1 gds\nds_read2_b32 v[21:22], v1 offset1:1 gds",
            vgpr={1: addr, 10: data}, m0=m0, lds_bytes=LDS_BYTES)
    mem = bytearray(gsize)
    for l in range(64):
        _wr(mem, int(addr[l]), gsize, [data[l]])
    # the window (M0[31:16] on) holds the stores, the rest of the GDS its zeros
    assert r.gds[gbase:gbase + gsize].tobytes() == bytes(mem)
    assert not r.gds[:gbase].any() and not r.gds[gbase + gsize:].any()
    assert r.lds_overruns == []     # (GDS accesses past the window are not LDS overruns)
    for l in range(64):
        a = int(addr[l])
        assert int(r.vgpr[20][l]) == _rd(mem, a, gsize, 4)[0]
        assert [int(r.vgpr[21][l]), int(r.vgpr[22][l])] == _rd(mem, a, gsize, 4) + _rd(mem, a + 4, gsize, 4)


@pytest.mark.parametrize("lds_bytes", [0, 4, 8, 16])
@pytest.mark.parametrize("op,count", LOADS + [("ds_read2_b32", 1), ("ds_read2_b64", 2)])
def test_ds_read_tiny_lds(op, count, lds_bytes):
    # an LDS allocation of 0..16 bytes: lanes at the start are in range or just past it,
    # the others (incl. addresses that wrap to small ones) read 0; inactive lanes keep v[1:]
    init = bytes(range(1, 1 + lds_bytes))
    addr = np.array([(4 * (l % 8)) if l % 3 else (-4 * l) & M32 for l in range(64)], np.uint32)
    ex = 0xFFFF_FFFF_FFFF_FFFF & ~(1 << 9) & ~(1 << 40)
    two = op.startswith("ds_read2")
    nrows = 2 * count if two else count
    old = [np.full(64, 0xC0DE0000 + i, np.uint32) for i in range(nrows)]
    vg = {2 + i: old[i] for i in range(nrows)}
    vg[1] = addr
    regs = f"v[2:{1 + nrows}]" if nrows > 1 else "v2"
    r = run(f"{op} {regs}, v1 offset1:1" if two else f"{op} {regs}, v1 offset:4",
            vgpr=vg, lds=init, lds_bytes=lds_bytes, exec_mask=ex)
    nb = 4 * count
    align = nb if (two or nb <= 8) else 16
    for l in range(64):
        if not ex >> l & 1:
            exp = [0xC0DE0000 + i for i in range(nrows)]
        elif two:
            exp = []
            for k in (0, 1):
                a = ((int(addr[l]) + k * nb) & M32) & ~(nb - 1)
                exp += _rd(init, a, lds_bytes, nb)
        else:
            a = ((int(addr[l]) + 4) & M32) & ~(align - 1)
            exp = _rd(init, a, lds_bytes, nb)
        got = [int(r.vgpr[2 + i][l]) for i in range(nrows)]
        assert got == exp, (l, hex(int(addr[l])))


@pytest.mark.parametrize("count", [1, 2])
def test_ds_write2_lane_order_across_lanes(count):
    # lane l's second address is lane l+1's first: in lane order lane l+1's first dword(s)
    # overwrite lane l's second ones (a loop over all first addresses, then all second ones,
    # would keep lane l's)
    nb = 4 * count
    addr = (np.arange(64, dtype=np.uint32) * nb)
    data = [np.arange(64, dtype=np.uint32) + 0x1000 * (k + 1) for k in range(2 * count)]
    vg = {10 + i: data[i] for i in range(2 * count)}
    vg[1] = addr
    ex = 0xFFFF_FFFF_FFFF_FFFF & ~(1 << 20)
    d0, d1 = ("v10", "v11") if count == 1 else ("v[10:11]", "v[12:13]")
    sfx = "_b32" if count == 1 else "_b64"
    r = run(f"ds_write2{sfx} v1, {d0}, {d1} offset0:0 offset1:1", vgpr=vg, lds=bytes(LDS_BYTES),
            lds_bytes=LDS_BYTES, exec_mask=ex)
    mem = bytearray(LDS_BYTES)
    for l in range(64):
        if ex >> l & 1:
            for k in (0, 1):
                _wr(mem, int(addr[l]) + k * nb, LDS_BYTES, [data[k * count + i][l] for i in range(count)])
    assert r.lds.tobytes() == bytes(mem)
    assert mem[4 * nb:4 * nb + 4] != bytes(4)


def test_snippet_lds_after_the_run_and_load_overruns():
    # run_snippet returns the LDS after the run and the first load past lds_bytes: lane l
    # loads dword l of a 64-byte LDS (lanes 16.. are past it, read 0 and are overruns),
    # then a store moves the dwords it read up by 4 bytes (lanes 15.. are dropped)
    init = np.arange(1, 17, dtype=np.uint32) * 0x01010101
    r = run("v_lshlrev_b32 v1, 2, v0\nds_read_b32 v2, v1\ns_waitcnt lgkmcnt(0)\n"
            "ds_write_b32 v1, v2 offset:4", vgpr={0: np.arange(64, dtype=np.uint32)},
            lds=init.tobytes(), lds_bytes=64)
    assert r.vgpr[2].tolist() == init.tolist() + [0] * 48
    assert r.lds.view(np.uint32).tolist() == [int(init[0])] + init[:15].tolist()
    assert r.lds_overruns == [(64, 4, 16, 0)]      # byte 64, the ds_read at pc 4, lane 16
    assert r.dropped["lds_overruns"] == (64 - 16) + (64 - 15) - 1
    assert not r.gds.any()


@pytest.mark.parametrize("lds_bytes", [0, 4, 16])
@pytest.mark.parametrize("op,count", STORES)
def test_ds_write_tiny_lds(op, count, lds_bytes):
    # the stores that fit in a 0..16-byte LDS land there (last lane wins), the others are
    # dropped, and counted as overruns (the first with its address, lane and pc)
    addr = np.array([(4 * (l % 6)) if l % 3 else (-4 * l) & M32 for l in range(64)], np.uint32)
    data = [np.arange(64, dtype=np.uint32) * 3 + 0x100 * (i + 1) for i in range(count)]
    vg = {10 + i: data[i] for i in range(count)}
    vg[1] = addr
    ex = 0xFFFF_FFFF_FFFF_FFFF & ~(1 << 1)
    d = f"v[10:{9 + count}]" if count > 1 else "v10"
    r = run(f"s_nop 0\n{op} v1, {d}", vgpr=vg, lds=bytes(lds_bytes), lds_bytes=lds_bytes,
            exec_mask=ex)
    nb = 4 * count
    align = nb if nb <= 8 else 16
    mem = bytearray(lds_bytes)
    past = []
    for l in range(64):
        if ex >> l & 1:
            a = int(addr[l]) & ~(align - 1)
            _wr(mem, a, lds_bytes, [data[i][l] for i in range(count)])
            if a + nb > lds_bytes:
                past.append((a, l))
    assert r.lds.tobytes() == bytes(mem)
    assert past
    a, lane = past[0]
    assert r.lds_overruns == [(a, 4, lane, 1)]    # (the store's byte pc: after the 4-byte s_nop)
    assert r.dropped.get("lds_overruns", 0) == len(past) - 1


# The engine loads a group of 16 lanes whose addresses are consecutive elements (a row of a
# tile) with one vector load and a group whose addresses are all equal (a broadcast) with one
# scalar load (lanes._lds_rows); other groups lane by lane. Each group below takes one pattern,
# including ones that must not take those forms: a consecutive run that crosses the M0 limit
# (partly out of range), one that wraps at 2^32, one starting at or above 2^31, a broadcast of
# an out-of-range element, a run with one lane off the pattern.
def _group(kind, rng, nb, lim):
    step = np.arange(16, dtype=np.int64) * nb
    start = int(rng.integers(0, lim // 2)) & ~(nb - 1)
    if kind == "consecutive":
        return start + step
    if kind == "uniform":
        return np.full(16, start)
    if kind == "crossing_limit":
        return (lim - 5 * nb) + step
    if kind == "wrapping":
        return ((1 << 32) - 6 * nb + step) & M32
    if kind == "high":
        return (1 << 31) + step
    if kind == "uniform_out":
        return np.full(16, lim + 64)
    if kind == "one_off":
        a = start + step
        a[9] = start
        return a
    return rng.integers(0, lim + 32, 16) & ~(nb - 1)


PATTERNS = ["consecutive", "uniform", "crossing_limit", "wrapping", "high", "uniform_out",
            "one_off", "random"]


@pytest.mark.parametrize("ex_kind", ["full", "partial"])
@pytest.mark.parametrize("op,count,pairs", [(op, c, 1) for op, c in LOADS] +
                         [("ds_read2_b32", 1, 2), ("ds_read2_b64", 2, 2)])
def test_ds_read_address_patterns(op, count, pairs, ex_kind):
    rng = np.random.default_rng(zlib.crc32(f"{op}{ex_kind}patterns".encode()))
    init = bytearray(rng.integers(0, 256, LDS_BYTES, dtype=np.uint8).tobytes())
    nb = 4 * count
    align = 4 * count if pairs == 2 or count <= 2 else 16
    lim = 900
    for case in range(len(PATTERNS)):
        kinds = [PATTERNS[(case + g) % len(PATTERNS)] for g in range(4)]
        addr = np.concatenate([_group(k, rng, nb, lim) for k in kinds]).astype(np.uint32)
        ex = _exec(rng, ex_kind)
        old = rng.integers(0, 1 << 32, (8, 64), dtype=np.uint64).astype(np.uint32)
        vg = {10 + i: old[i] for i in range(pairs * count)}
        vg[2] = addr
        if pairs == 1:
            offs = [8 * count]
            text = f"{op} v[10:{9 + count}], v2 offset:{offs[0]}"
        else:
            offs = [1 * nb, 5 * nb]
            text = f"{op} v[10:{9 + 2 * count}], v2 offset0:1 offset1:5"
        r = run(text, vgpr=vg, lds=bytes(init), lds_bytes=LDS_BYTES, m0=lim, exec_mask=ex)
        for l in range(64):
            if ex >> l & 1:
                exp = []
                for o in offs:
                    a = ((int(addr[l]) + o) & M32) & ~(align - 1)
                    exp += _rd(init, a, lim, nb)
            else:
                exp = [int(old[i][l]) for i in range(pairs * count)]
            got = [int(r.vgpr[10 + i][l]) for i in range(pairs * count)]
            assert got == exp, (kinds, l, hex(int(addr[l])))


@pytest.mark.parametrize("ex_kind", ["full", "partial"])
@pytest.mark.parametrize("op,count", STORES)
def test_ds_write_address_patterns(op, count, ex_kind):
    # stores by groups of 16 lanes (lanes._grouped_store): a consecutive group is one vector
    # store, a broadcast group the last active lane's store; groups meet (the later one wins),
    # and the patterns of the load test that must not take those forms
    rng = np.random.default_rng(zlib.crc32(f"{op}{ex_kind}wpatterns".encode()))
    nb = 4 * count
    align = nb if nb <= 8 else 16
    lim = 900
    for case in range(len(PATTERNS) + 1):
        init = bytearray(rng.integers(0, 256, LDS_BYTES, dtype=np.uint8).tobytes())
        if case < len(PATTERNS):
            kinds = [PATTERNS[(case + g) % len(PATTERNS)] for g in range(4)]
            addr = np.concatenate([_group(k, rng, nb, lim) for k in kinds])
        else:   # groups over one another: consecutive, the same run again, a broadcast into it
            kinds = ["overlapping"]
            run0 = _group("consecutive", rng, nb, lim)
            addr = np.concatenate([run0, run0, np.full(16, run0[3]), run0 + nb])
        addr = addr.astype(np.uint32)
        ex = _exec(rng, ex_kind)
        _check_store(rng, op, count, addr, ex, init, lim, 4 * count, align, kinds)


# A row whose 64 lanes are all on and address one run of 256n bytes (scan_lds' buf[lid]) is
# one vector load or store (lanes._lds_segments, n = 1, 2, 4); runs that must not take that
# form: one crossing the M0 limit, one that wraps at 2^32 (in ADDR, or only after the
# offset), one whose ADDR is not aligned to the access (the alignment mask then moves its
# lanes), partial EXEC, and b96 (16-byte alignment for 12-byte elements).
WHOLE_LDS = 2048     # room for a run of 64 b128 accesses below the limit
WHOLE_RUNS = ["inside", "crossing_limit", "wrapping", "offset_wraps", "unaligned", "partial"]


def _whole_run(kind, nb, lim):
    start = {"inside": 8 * nb, "crossing_limit": lim - 62 * nb, "wrapping": (1 << 32) - 20 * nb,
             "offset_wraps": (1 << 32) - 64 * nb, "unaligned": 8 * nb + 4 if nb > 4 else 8 * nb + 2,
             "partial": 8 * nb}[kind]
    return ((start + nb * np.arange(64, dtype=np.int64)) & M32).astype(np.uint32)


@pytest.mark.parametrize("kind", WHOLE_RUNS)
@pytest.mark.parametrize("op,count", LOADS)
def test_ds_read_whole_row_runs(op, count, kind):
    rng = np.random.default_rng(zlib.crc32(f"{op}{kind}whole".encode()))
    init = bytes(rng.integers(0, 256, WHOLE_LDS, dtype=np.uint8).tobytes())
    nb = 4 * count
    align = nb if nb <= 8 else 16
    lim = WHOLE_LDS - 16
    addr = _whole_run(kind, nb, lim)
    off = 4 * count if kind != "offset_wraps" else 64 * nb - 8
    ex = _exec(rng, "partial" if kind == "partial" else "full")
    old = rng.integers(0, 1 << 32, (4, 64), dtype=np.uint64).astype(np.uint32)
    vg = {10 + i: old[i] for i in range(count)}
    vg[2] = addr
    r = run(f"{op} v[10:{9 + count}], v2 offset:{off}", vgpr=vg, lds=init, lds_bytes=WHOLE_LDS,
            m0=lim, exec_mask=ex)
    for l in range(64):
        if ex >> l & 1:
            exp = _rd(init, ((int(addr[l]) + off) & M32) & ~(align - 1), lim, nb)
        else:
            exp = [int(old[i][l]) for i in range(count)]
        assert [int(r.vgpr[10 + i][l]) for i in range(count)] == exp, (l, hex(int(addr[l])))


@pytest.mark.parametrize("kind", WHOLE_RUNS)
@pytest.mark.parametrize("op,count", STORES)
def test_ds_write_whole_row_runs(op, count, kind):
    rng = np.random.default_rng(zlib.crc32(f"{op}{kind}wwhole".encode()))
    init = bytearray(rng.integers(0, 256, WHOLE_LDS, dtype=np.uint8).tobytes())
    nb = 4 * count
    align = nb if nb <= 8 else 16
    lim = WHOLE_LDS - 16
    addr = _whole_run(kind, nb, lim)
    off = 4 * count if kind != "offset_wraps" else 64 * nb - 8
    ex = _exec(rng, "partial" if kind == "partial" else "full")
    _check_store(rng, op, count, addr, ex, init, lim, off, align, kind, lds_bytes=WHOLE_LDS)


# A row whose lanes are all on and whose 4 groups of 16 lanes are each one run of 16
# elements (a 16-wide tile's rows: transpose_lds' tile[ly][lx] at a row stride of 68 bytes,
# matmul_tiled's Bs[k][tx]) or each one element (matmul_tiled's As[ty][k]), all in range, is
# one vector (scalar) access per group (lanes._lds_segments). Rows that must not take that
# form, each with one group changed: a group crossing the M0 limit, one whose ADDR wraps at
# 2^32 (or whose address wraps only after the offset), one misaligned group, one lane off its
# group's run, one lane off, and (stores) groups over one another, where the later lane wins.
SEGMENT_CASES = ["inside", "crossing_limit", "wrapping", "offset_wraps", "unaligned", "one_off",
                 "lane_off", "overlapping"]


def _segments(case, uniform, nb, lim, rng):
    """The ADDR row and EXEC mask of a segmented row (groups at a stride of 17 elements)."""
    step = 0 if uniform else nb
    starts = [nb * 17 * g + nb * int(rng.integers(0, 4)) for g in range(4)]
    if case == "overlapping":
        starts = [starts[0], starts[0] + 3 * nb, starts[0], starts[0] + nb]
    addr = np.concatenate([s + step * np.arange(16, dtype=np.int64) for s in starts])
    ex = (1 << 64) - 1
    if case == "crossing_limit":
        addr[32:48] = lim - 5 * nb - 8 + step * np.arange(16)
    elif case == "wrapping":
        addr[16:32] = (1 << 32) - 3 * nb + step * np.arange(16)
    elif case == "offset_wraps":
        addr[48:64] = (1 << 32) - 20 * nb + step * np.arange(16)
    elif case == "unaligned":
        addr[16:32] += 4 if nb > 4 else 2
    elif case == "one_off":
        addr[40] = addr[32] + 3 * nb
    elif case == "lane_off":
        ex &= ~(1 << 37)
    return (addr & M32).astype(np.uint32), ex


@pytest.mark.parametrize("uniform", [False, True])
@pytest.mark.parametrize("op,count,pairs", [(op, c, 1) for op, c in LOADS if c != 3] +
                         [("ds_read2_b32", 1, 2), ("ds_read2_b64", 2, 2)])
def test_ds_read_segmented_rows(op, count, pairs, uniform):
    rng = np.random.default_rng(zlib.crc32(f"{op}{uniform}segments".encode()))
    nb = 4 * count
    lim = 1000
    for case in SEGMENT_CASES[:-1]:
        init = bytes(rng.integers(0, 256, LDS_BYTES, dtype=np.uint8).tobytes())
        addr, ex = _segments(case, uniform, nb, lim, rng)
        old = rng.integers(0, 1 << 32, (8, 64), dtype=np.uint64).astype(np.uint32)
        vg = {10 + i: old[i] for i in range(pairs * count)}
        vg[2] = addr
        if pairs == 1:
            offs = [16 * nb if case == "offset_wraps" else 4 * count]
            text = f"{op} v[10:{9 + count}], v2 offset:{offs[0]}"
        else:
            offs = [nb, (20 if case == "offset_wraps" else 5) * nb]
            text = f"{op} v[10:{9 + 2 * count}], v2 offset0:1 offset1:{offs[1] // nb}"
        r = run(text, vgpr=vg, lds=init, lds_bytes=LDS_BYTES, m0=lim, exec_mask=ex)
        for l in range(64):
            if ex >> l & 1:
                exp = []
                for o in offs:
                    exp += _rd(init, ((int(addr[l]) + o) & M32) & ~(nb - 1), lim, nb)
            else:
                exp = [int(old[i][l]) for i in range(pairs * count)]
            got = [int(r.vgpr[10 + i][l]) for i in range(pairs * count)]
            assert got == exp, (case, l, hex(int(addr[l])))


@pytest.mark.parametrize("uniform", [False, True])
@pytest.mark.parametrize("op,count", [(op, c) for op, c in STORES if c != 3])
def test_ds_write_segmented_rows(op, count, uniform):
    rng = np.random.default_rng(zlib.crc32(f"{op}{uniform}wsegments".encode()))
    nb = 4 * count
    lim = 1000
    for case in SEGMENT_CASES:
        init = bytearray(rng.integers(0, 256, LDS_BYTES, dtype=np.uint8).tobytes())
        addr, ex = _segments(case, uniform, nb, lim, rng)
        off = 16 * nb if case == "offset_wraps" else nb
        _check_store(rng, op, count, addr, ex, init, lim, off, nb, case)
