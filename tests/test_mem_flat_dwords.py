"""flat_load/store_dword[x2,x3,x4]: the unrolled per-count fast loops against numpy.

Expected values are computed from the buffer contents with numpy, independently of
gcnemu.mem.space: partial EXEC (inactive lanes keep their registers and write nothing), lanes
whose access straddles into the unmapped guard page after a buffer (their in-page dwords are
accessed, the rest read 0 / are dropped, faults recorded in lane order), a lane on an
unmapped address among fast lanes, x4 loads whose destination overlaps the address
registers, and stores where several lanes hit the same dwords (the last lane wins).
"""
from __future__ import annotations

import numpy as np
import pytest

from gcnemu.mem.space import PAGE_SIZE
from test_mem_helpers import LANES, Memory, run

EXEC = 0xF0F0_5A5A_FFFF_0001 | (1 << 63) | (1 << 5)   # partial, incl. lanes 5 and 63


def _rows(addr):
    a = np.asarray(addr, np.uint64)
    return (a & np.uint64(0xFFFFFFFF)).astype(np.uint32), (a >> np.uint64(32)).astype(np.uint32)


def _on(lane):
    return (EXEC >> lane) & 1


def _setup(n):
    mem = Memory()
    size = 2 * PAGE_SIZE
    buf = mem.allocate(size)
    words = (np.arange(size // 4, dtype=np.uint32) * np.uint32(2654435761)) ^ np.uint32(0x5EED)
    mem.write(buf, words)
    rng = np.random.default_rng(n)
    dw = rng.integers(0, size // 4 - n + 1, 64)
    addr = (buf + 4 * dw).astype(np.uint64)
    addr[5] = buf + size - 8          # straddles into the guard page (for n > 2)
    addr[63] = buf + size + 64        # wholly in the guard page
    return mem, buf, size, words, addr


def _load_and_check(n, addr, ex, mem, buf, size, words):
    """flat_load_dword[xN] v[10:..], v[2:3] at ``addr`` under ``ex``, checked lane by lane
    against the buffer's words: inactive lanes keep their registers, in-buffer dwords load,
    dwords past the buffer read 0 and are recorded as faults in lane order (the wave records
    its first 64, gcnemu/snippet.py); the buffer is unchanged."""
    lo, hi = _rows(addr)
    dst = 10
    name = "flat_load_dword" + ("" if n == 1 else f"x{n}")
    regs = f"v{dst}" if n == 1 else f"v[{dst}:{dst + n - 1}]"
    init = {dst + i: 0xDEAD0000 + LANES + i for i in range(n)}
    r = run(f"{name} {regs}, v[2:3]", vgpr={2: lo, 3: hi, **init}, mem=mem, exec_mask=ex)
    want_faults = []
    for lane in range(64):
        for i in range(n):
            got = int(r.vgpr[dst + i, lane])
            if not (ex >> lane) & 1:
                assert got == 0xDEAD0000 + lane + i
                continue
            a = int(addr[lane]) + 4 * i
            if a + 4 <= buf + size:
                assert got == int(words[(a - buf) // 4]), (lane, i)
            else:
                assert got == 0, (lane, i)
                want_faults.append((a, lane, 0))
    assert [(f[0], f[2], f[3]) for f in r.faults] == want_faults[:64]
    assert mem.read(buf, size) == words.tobytes()


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_flat_load_dwords(n):
    mem, buf, size, words, addr = _setup(n)
    _load_and_check(n, addr, EXEC, mem, buf, size, words)


def test_flat_load_dwordx4_dst_overlaps_address():
    mem, buf, size, words, addr = _setup(4)
    lo, hi = _rows(addr)
    r = run("flat_load_dwordx4 v[2:5], v[2:3]", vgpr={2: lo, 3: hi, 4: 7, 5: 8}, mem=mem,
            exec_mask=EXEC)
    want_faults = []
    for lane in range(64):
        if not _on(lane):
            assert [int(r.vgpr[2 + i, lane]) for i in range(4)] == [lo[lane], hi[lane], 7, 8]
            continue
        for i in range(4):
            a = int(addr[lane]) + 4 * i
            ok = a + 4 <= buf + size
            assert int(r.vgpr[2 + i, lane]) == (int(words[(a - buf) // 4]) if ok else 0)
            if not ok:
                want_faults.append((a, lane, 0))
    assert [(f[0], f[2], f[3]) for f in r.faults] == want_faults
    # and x2 into exactly the address pair
    r = run("flat_load_dwordx2 v[2:3], v[2:3]", vgpr={2: lo, 3: hi}, mem=mem, exec_mask=EXEC)
    for lane in range(64):
        if _on(lane) and lane != 63:
            a = int(addr[lane])
            assert int(r.vgpr[2, lane]) == int(words[(a - buf) // 4])
            assert int(r.vgpr[3, lane]) == int(words[(a - buf) // 4 + 1])


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_flat_store_dwords(n):
    mem, buf, size, words, addr = _setup(n)
    addr[7] = addr[6]                 # same dwords: the later lane wins
    addr[20] = addr[17] + 4           # overlapping by n - 1 dwords
    lo, hi = _rows(addr)
    name = "flat_store_dword" + ("" if n == 1 else f"x{n}")
    regs = "v10" if n == 1 else f"v[10:{10 + n - 1}]"
    data = {10 + i: (LANES * np.uint32(0x01010101)) ^ np.uint32(0xC0000000 + i) for i in range(n)}
    r = run(f"{name} v[2:3], {regs}", vgpr={2: lo, 3: hi, **data}, mem=mem, exec_mask=EXEC)
    want = words.copy()
    want_faults = []
    for lane in range(64):
        if not _on(lane):
            continue
        for i in range(n):
            a = int(addr[lane]) + 4 * i
            if a + 4 <= buf + size:
                want[(a - buf) // 4] = data[10 + i][lane]
            else:
                want_faults.append((a, lane, 1))
    assert np.array_equal(np.frombuffer(mem.read(buf, size), np.uint32), want)
    assert [(f[0], f[2], f[3]) for f in r.faults] == want_faults


def test_flat_load_dword_private_aperture_lane_among_fast_lanes():
    # lane 3 addresses the private aperture: it goes to its (swizzled) scratch address, dword
    # 4 of lane 3 of a wave at scratch base 0 -> 4 * 256 + 3 * 4, unmapped here: fault, 0
    mem, buf, size, words, addr = _setup(1)
    addr[63] = addr[0]
    addr[3] = (0x20000000 << 32) | 0x10
    lo, hi = _rows(addr)
    r = run("flat_load_dword v6, v[2:3]", vgpr={2: lo, 3: hi, 6: 5}, mem=mem)
    for lane in range(64):
        want = 0 if lane == 3 else int(words[(int(addr[lane]) - buf) // 4])
        assert int(r.vgpr[6, lane]) == want
    assert [(f[0], f[2], f[3]) for f in r.faults] == [(4 * 256 + 3 * 4, 3, 0)]


def _check_loads(r, dst, n, addr, exec_mask, read, old):
    """read(a) -> the dword the lane reads at a (None: fault, reads 0); returns the faults."""
    want_faults = []
    for lane in range(64):
        for i in range(n):
            got = int(r.vgpr[dst + i, lane])
            if not (exec_mask >> lane) & 1:
                assert got == old + i, (lane, i)
                continue
            a = int(addr[lane]) + 4 * i
            v = read(a)
            if v is None:
                want_faults.append((a, lane, 0))
                v = 0
            assert got == v, (lane, i, hex(a))
    return want_faults


def _load(n, addr, mem, exec_mask, dst=10, old=0xDEAD0000, **kw):
    lo, hi = _rows(addr)
    name = "flat_load_dword" + ("" if n == 1 else f"x{n}")
    regs = f"v{dst}" if n == 1 else f"v[{dst}:{dst + n - 1}]"
    init = {dst + i: old + i for i in range(n)}
    return run(f"{name} {regs}, v[2:3]", vgpr={2: lo, 3: hi, **init}, mem=mem,
               exec_mask=exec_mask, **kw)


def _buffer(mem, pages, seed):
    size = pages * PAGE_SIZE
    buf = mem.allocate(size)
    words = np.random.default_rng(seed).integers(0, 1 << 32, size // 4, dtype=np.uint64).astype(np.uint32)
    mem.write(buf, words)
    return buf, size, words


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("pages", [1, 4, 40])   # a span of a few pages, and more than 16
def test_flat_load_all_mapped_inactive_lanes_unmapped(n, pages):
    # every active lane wholly in one buffer; inactive lanes point at unmapped memory, at
    # the guard page, at the private aperture: they read nothing and record no fault
    mem = Memory()
    buf, size, words = _buffer(mem, pages, n + pages)
    rng = np.random.default_rng(7 * n + pages)
    addr = (buf + 4 * rng.integers(0, size // 4 - n + 1, 64)).astype(np.uint64)
    addr[0] = buf
    addr[1] = buf + size - 4 * n       # the last dwords of the buffer
    ex = EXEC & ~(1 << 2) & ~(1 << 3) & ~(1 << 4)
    addr[2] = buf + size               # guard page
    addr[3] = 0x12345678
    addr[4] = (0x20000000 << 32) | 0x40
    r = _load(n, addr, mem, ex)
    faults = _check_loads(r, 10, n, addr, ex,
                          lambda a: int(words[(a - buf) // 4]), 0xDEAD0000)
    assert faults == [] and r.faults == []


@pytest.mark.parametrize("n", [1, 4])
def test_flat_load_two_buffers_and_a_hole_between(n):
    # lanes alternate between two buffers; the guard page between them lies inside the lanes'
    # page range but only lane 7 touches it (fault, 0); lane 9 straddles from buffer a into it
    mem = Memory()
    a, sa, wa = _buffer(mem, 2, 1)
    b, sb, wb = _buffer(mem, 2, 2)
    assert b > a + sa
    rng = np.random.default_rng(n)
    addr = np.where(np.arange(64) % 2 == 0, a + 4 * rng.integers(0, sa // 4 - n + 1, 64),
                    b + 4 * rng.integers(0, sb // 4 - n + 1, 64)).astype(np.uint64)
    addr[7] = a + sa + 16
    addr[9] = a + sa - 4

    def read(x):
        if a <= x < a + sa:
            return int(wa[(x - a) // 4])
        if b <= x < b + sb:
            return int(wb[(x - b) // 4])
        return None
    r = _load(n, addr, mem, EXEC | (1 << 7) | (1 << 9))
    faults = _check_loads(r, 10, n, addr, EXEC | (1 << 7) | (1 << 9), read, 0xDEAD0000)
    assert faults and [(f[0], f[2], f[3]) for f in r.faults] == faults


@pytest.mark.parametrize("n", [1, 2])
def test_flat_load_unaligned_and_lds_lanes_among_fast_lanes(n):
    # lane 4: a 2-aligned address (general path, bytes); lane 6: the LDS aperture (LDS dwords);
    # lane 8: the LDS aperture out of range (0); the others fast; dst overlaps the address
    mem = Memory()
    buf, size, words = _buffer(mem, 2, 3)
    raw = words.tobytes()
    rng = np.random.default_rng(10 + n)
    addr = (buf + 4 * rng.integers(0, size // 4 - n - 1, 64)).astype(np.uint64)
    addr[4] = buf + 4 * 17 + 2
    addr[6] = (0x10000000 << 32) | 40
    addr[8] = (0x10000000 << 32) | 4096
    lds = bytes(((np.arange(256) * 7 + 3) % 256).astype(np.uint8))

    def read(x):
        if x >> 32 == 0x10000000:
            o = x & 0xFFFFFFFF
            return int.from_bytes(lds[o:o + 4], "little") if o + 4 <= 256 else 0
        return int.from_bytes(raw[x - buf:x - buf + 4], "little")
    lo, hi = _rows(addr)
    regs = "v2" if n == 1 else "v[2:3]"
    op = "flat_load_dword" + ("" if n == 1 else "x2")
    r = run(f"{op} {regs}, v[2:3]", vgpr={2: lo, 3: hi}, mem=mem, exec_mask=EXEC | 0x150,
            lds=lds, lds_bytes=256)
    for lane in range(64):
        for i in range(n):
            got = int(r.vgpr[2 + i, lane])
            if not ((EXEC | 0x150) >> lane) & 1:
                assert got == (int(lo[lane]) if i == 0 else int(hi[lane]))
                continue
            assert got == read(int(addr[lane]) + 4 * i), (lane, i)
    assert r.faults == []


def _store(n, addr, mem, exec_mask, data):
    lo, hi = _rows(addr)
    name = "flat_store_dword" + ("" if n == 1 else f"x{n}")
    regs = "v10" if n == 1 else f"v[10:{9 + n}]"
    return run(f"{name} v[2:3], {regs}", vgpr={2: lo, 3: hi, **{10 + i: data[i] for i in range(n)}},
               mem=mem, exec_mask=exec_mask)


def _model_store(raw, buf, n, addr, exec_mask, data):
    """Byte model of the stores, lane by lane in order (the writes of a later lane win)."""
    out = bytearray(raw)
    for lane in range(64):
        if (exec_mask >> lane) & 1:
            for i in range(n):
                o = int(addr[lane]) + 4 * i - buf
                out[o:o + 4] = int(data[i][lane]).to_bytes(4, "little")
    return bytes(out)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_flat_store_all_lanes_fast_overlapping(n):
    # every active lane mapped and aligned (the branch-free lane loop): lanes overlap in part
    # (lane l+1 one dword after lane l) and in full (lanes 30..39 on one address): the later
    # lane wins; inactive lanes point at the guard page and store nothing
    mem = Memory()
    buf, size, words = _buffer(mem, 3, 20 + n)
    addr = (buf + 4 * np.arange(64) + 64).astype(np.uint64)
    addr[30:40] = buf + 8
    addr[50] = buf + size - 4 * n
    ex = EXEC & ~(1 << 2) | (1 << 30) | (1 << 39)
    addr[2] = buf + size
    data = [np.arange(64, dtype=np.uint32) + 0x01010000 * (i + 1) for i in range(n)]
    r = _store(n, addr, mem, ex, data)
    assert mem.read(buf, size) == _model_store(words.tobytes(), buf, n, addr, ex, data)
    assert r.faults == []


@pytest.mark.parametrize("n", [1, 2])
def test_flat_store_slow_lane_keeps_its_place_in_lane_order(n):
    # lane 3 is 2-aligned (general path, bytes) and overlaps lanes 2 and 4, which are fast:
    # lane 3 overwrites lane 2's upper half and lane 4 then overwrites lane 3's upper bytes
    mem = Memory()
    buf, size, words = _buffer(mem, 2, 30 + n)
    addr = (buf + 16 * np.arange(64)).astype(np.uint64) % np.uint64(buf + size - 16)
    addr = np.maximum(addr, np.uint64(buf))
    addr[2] = buf + 256
    addr[3] = buf + 256 + 2
    addr[4] = buf + 256 + 4
    data = [np.arange(64, dtype=np.uint32) * 0x01010101 + 0x10203040 * (i + 1) for i in range(n)]
    r = _store(n, addr, mem, (1 << 64) - 1, data)
    assert mem.read(buf, size) == _model_store(words.tobytes(), buf, n, addr, (1 << 64) - 1, data)
    assert r.faults == []


# Groups of 16 lanes whose addresses are consecutive elements load with one vector load, and
# groups on one address with one scalar load (lanes._grouped_rows); the others lane by lane.
# Each group takes one pattern, including consecutive runs that reach into the guard page after
# the buffer (those lanes fault and read 0: the instruction runs again through the general
# path), a run with one lane off the pattern and a broadcast from the guard page.
FLAT_PATTERNS = ["consecutive", "uniform", "into_guard", "one_off", "random", "uniform_guard"]


def _flat_group(kind, rng, buf, size, n):
    step = 4 * n * np.arange(16, dtype=np.int64)
    start = buf + 4 * int(rng.integers(0, size // 8))
    if kind == "consecutive":
        return start + step
    if kind == "uniform":
        return np.full(16, start)
    if kind == "into_guard":
        return buf + size - 4 * n * 5 + step
    if kind == "one_off":
        a = start + step
        a[7] = start + 4
        return a
    if kind == "uniform_guard":
        return np.full(16, buf + size + 16)
    return buf + 4 * rng.integers(0, size // 4 - n + 1, 16)


@pytest.mark.parametrize("ex", [(1 << 64) - 1, EXEC])
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_flat_load_address_patterns(n, ex):
    mem, buf, size, words, _ = _setup(n)
    rng = np.random.default_rng(100 + n)
    for case in range(len(FLAT_PATTERNS)):
        kinds = [FLAT_PATTERNS[(case + g) % len(FLAT_PATTERNS)] for g in range(4)]
        addr = np.concatenate([_flat_group(k, rng, buf, size, n) for k in kinds]).astype(np.uint64)
        _load_and_check(n, addr, ex, mem, buf, size, words)


@pytest.mark.parametrize("ex", [(1 << 64) - 1, EXEC])
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_flat_store_address_patterns(n, ex):
    # stores by groups of 16 lanes (lanes._grouped_store) when every active lane is mapped:
    # consecutive groups, broadcast groups (the last active lane wins), groups over one
    # another (the later group wins), a group with one lane off the pattern; and a case with a
    # lane in the guard page (the whole store then goes lane by lane through the general path)
    mem = Memory()
    buf, size, words = _buffer(mem, 16, 50 + n)
    rng = np.random.default_rng(200 + n)
    step = 4 * n * np.arange(16, dtype=np.int64)
    for case in range(4):
        base = buf + 4 * int(rng.integers(0, (size - 1024) // 4))
        run0 = base + step
        if case == 0:
            addr = np.concatenate([run0, run0 + 16 * 4 * n, np.full(16, base + 8), run0])
        elif case == 1:
            addr = np.concatenate([run0, np.full(16, run0[5]), run0 + 4, run0 + 8])
        elif case == 2:
            one_off = run0.copy()
            one_off[4] = base
            addr = np.concatenate([one_off, buf + 4 * rng.integers(0, size // 4 - n, 16), run0,
                                   np.full(16, base)])
        else:
            addr = np.concatenate([run0, run0, run0, buf + size - 4 * n * 4 + step])
        addr = addr.astype(np.uint64)
        data = [rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32) for _ in range(n)]
        before = mem.read(buf, size)
        r = _store(n, addr, mem, ex, data)
        if case < 3:
            assert mem.read(buf, size) == _model_store(before, buf, n, addr, ex, data), case
            assert r.faults == []
        else:
            # lanes 51.. reach into the guard page: their in-page dwords are stored, the rest
            # dropped and recorded as faults (the general path, lane by lane)
            out = bytearray(before)
            faults = []
            for lane in range(64):
                if not (ex >> lane) & 1:
                    continue
                for i in range(n):
                    a = int(addr[lane]) + 4 * i
                    if a + 4 <= buf + size:
                        out[a - buf:a - buf + 4] = int(data[i][lane]).to_bytes(4, "little")
                    else:
                        faults.append((a, lane, 1))
            assert mem.read(buf, size) == bytes(out)
            assert [(f[0], f[2], f[3]) for f in r.faults] == faults[:64]


# A row whose 64 lanes are all on and address one run of 256n bytes (an array indexed by the
# work-item id) loads and stores with vector accesses (lanes._flat_segments); runs that
# must not take that form: one reaching into the guard page, one starting unaligned (its
# dwords go through the byte path), one lane's high half off the run (an unmapped address),
# partial EXEC; and an x2 load into its own address pair (all addresses read first).
RUNS = ["inside", "into_guard", "unaligned", "high_half", "partial_exec"]


def _run_case(kind, n, buf, size):
    start = buf + 4 * 37
    if kind == "into_guard":
        start = buf + size - 256 * n + 4 * n * 3      # the last three lanes past the end
    elif kind == "unaligned":
        start = buf + 4 * 37 + 2
    addr = (start + 4 * n * np.arange(64)).astype(np.uint64)
    if kind == "high_half":
        addr[40] += np.uint64(1 << 32)
    ex = EXEC if kind == "partial_exec" else (1 << 64) - 1
    return addr, ex


@pytest.mark.parametrize("kind", RUNS)
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_flat_load_whole_row_runs(n, kind):
    mem = Memory()
    buf, size, words = _buffer(mem, 8, 300 + n)
    addr, ex = _run_case(kind, n, buf, size)
    if kind == "unaligned":
        # dwords across two words: the little-endian bytes of the buffer
        lo, hi = _rows(addr)
        name = "flat_load_dword" + ("" if n == 1 else f"x{n}")
        regs = "v10" if n == 1 else f"v[10:{9 + n}]"
        r = run(f"{name} {regs}, v[2:3]", vgpr={2: lo, 3: hi}, mem=mem)
        raw = words.tobytes()
        for lane in range(64):
            for i in range(n):
                o = int(addr[lane]) - buf + 4 * i
                assert int(r.vgpr[10 + i, lane]) == int.from_bytes(raw[o:o + 4], "little"), (lane, i)
        assert r.faults == []
        return
    _load_and_check(n, addr, ex, mem, buf, size, words)


def test_flat_load_dwordx2_whole_row_into_its_address_pair():
    mem = Memory()
    buf, size, words = _buffer(mem, 8, 302)
    addr, _ = _run_case("inside", 2, buf, size)
    lo, hi = _rows(addr)
    r = run("flat_load_dwordx2 v[2:3], v[2:3]", vgpr={2: lo, 3: hi}, mem=mem)
    o = (addr - np.uint64(buf)) // np.uint64(4)
    assert np.array_equal(r.vgpr[2], words[o]) and np.array_equal(r.vgpr[3], words[o + 1])
    assert r.faults == []


@pytest.mark.parametrize("kind", RUNS)
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_flat_store_whole_row_runs(n, kind):
    mem = Memory()
    buf, size, words = _buffer(mem, 8, 400 + n)
    addr, ex = _run_case(kind, n, buf, size)
    rng = np.random.default_rng(500 + n)
    data = [rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32) for _ in range(n)]
    r = _store(n, addr, mem, ex, data)
    want = bytearray(words.tobytes())
    want_faults = []
    for lane in range(64):
        if not (ex >> lane) & 1:
            continue
        for i in range(n):
            a = int(addr[lane]) + 4 * i
            if buf <= a and a + 4 <= buf + size:
                want[a - buf:a - buf + 4] = int(data[i][lane]).to_bytes(4, "little")
            else:
                want_faults.append((a, lane, 1))
    assert mem.read(buf, size) == bytes(want)
    assert [(f[0], f[2], f[3]) for f in r.faults] == want_faults[:64]


# A row whose lanes are all on and whose 4 groups of 16 lanes each address one run of 64n
# bytes (a 16-wide tile's rows: transpose_lds' and matmul_tiled's loads and stores) is one
# vector access per group (lanes._flat_segments; one run of 256n bytes is the case of
# adjacent groups). Rows that must not take that form, each with one group or lane changed:
# a group reaching into the guard page, a misaligned group (its dwords through the byte
# path), one lane off its group's run, one lane's high half off, one lane off in EXEC; groups
# far apart (transpose_lds' rows: 8 pages) and over one another (stores: the later lane wins).
SEGMENT_RUNS = ["segments", "overlapping", "into_guard", "unaligned", "one_off", "high_half",
                "lane_off", "far_apart"]


def _segment_case(kind, n, buf, size, rng):
    stride = 4 * PAGE_SIZE if kind != "far_apart" else 20 * PAGE_SIZE
    starts = [buf + 4 * n * int(rng.integers(0, 40)) + stride * g for g in range(4)]
    if kind == "overlapping":
        starts = [starts[0], starts[0] + 12 * n, starts[0], starts[0] + 4 * n]
    elif kind == "into_guard":
        starts[2] = buf + size - 64 * n + 4 * n * 3   # its last three lanes past the end
    elif kind == "unaligned":
        starts[1] += 2
    addr = np.concatenate([s + 4 * n * np.arange(16) for s in starts]).astype(np.uint64)
    if kind == "one_off":
        addr[40] = addr[32] + np.uint64(12 * n)
    elif kind == "high_half":
        addr[20] += np.uint64(1 << 32)
    ex = (1 << 64) - 1 if kind != "lane_off" else ((1 << 64) - 1) & ~(1 << 37)
    return addr, ex


def _model_bytes(raw, buf, size, addr, lane, i):
    """Dword i of a lane's access: its 4 bytes (little-endian) or None past the buffer."""
    a = int(addr[lane]) + 4 * i
    if buf <= a and a + 4 <= buf + size:
        return a, int.from_bytes(raw[a - buf:a - buf + 4], "little")
    return a, None


@pytest.mark.parametrize("kind", SEGMENT_RUNS[:1] + SEGMENT_RUNS[2:])
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_flat_load_segmented_rows(n, kind):
    mem = Memory()
    buf, size, words = _buffer(mem, 64 if kind == "far_apart" else 24, 600 + n)
    addr, ex = _segment_case(kind, n, buf, size, np.random.default_rng(700 + n))
    lo, hi = _rows(addr)
    name = "flat_load_dword" + ("" if n == 1 else f"x{n}")
    regs = "v10" if n == 1 else f"v[10:{9 + n}]"
    init = {10 + i: np.full(64, 0xDEAD0000 + i, np.uint32) for i in range(n)}
    r = run(f"{name} {regs}, v[2:3]", vgpr={2: lo, 3: hi, **init}, mem=mem, exec_mask=ex)
    raw = words.tobytes()
    want_faults = []
    for lane in range(64):
        for i in range(n):
            got = int(r.vgpr[10 + i, lane])
            if not (ex >> lane) & 1:
                assert got == 0xDEAD0000 + i, (lane, i)
                continue
            a, want = _model_bytes(raw, buf, size, addr, lane, i)
            if want is None:
                want_faults.append((a, lane, 0))
            assert got == (want or 0), (lane, i, hex(a))
    assert [(f[0], f[2], f[3]) for f in r.faults] == want_faults[:64]


@pytest.mark.parametrize("kind", SEGMENT_RUNS)
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_flat_store_segmented_rows(n, kind):
    mem = Memory()
    buf, size, words = _buffer(mem, 64 if kind == "far_apart" else 24, 800 + n)
    addr, ex = _segment_case(kind, n, buf, size, np.random.default_rng(900 + n))
    rng = np.random.default_rng(1000 + n)
    data = [rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32) for _ in range(n)]
    r = _store(n, addr, mem, ex, data)
    want = bytearray(words.tobytes())
    want_faults = []
    for lane in range(64):          # lane order: a later lane's bytes win
        if not (ex >> lane) & 1:
            continue
        for i in range(n):
            a, old = _model_bytes(want, buf, size, addr, lane, i)
            if old is None:
                want_faults.append((a, lane, 1))
            else:
                want[a - buf:a - buf + 4] = int(data[i][lane]).to_bytes(4, "little")
    assert mem.read(buf, size) == bytes(want)
    assert [(f[0], f[2], f[3]) for f in r.faults] == want_faults[:64]
