"""gcnemu.timing.trace.ds_passes against a set-based model of the seeds' rule: per half wave
(32 lanes), 32 four-byte banks (clrx-gcn-timings: "The bank number is in bits 2-6 of the
address"), each bank delivering one dword a pass, equal dwords broadcast; every dword of a
multi-dword access counts."""
import numpy as np
import pytest

from gcnemu.timing.trace import DS_SCRATCH, KEYS, ds_passes


def _reference(addrs, offa, offb, two, ndw, ex):
    passes = ideal = 0
    for half in range(2):
        dwords = set()
        for lane in range(32 * half, 32 * half + 32):
            if ex >> lane & 1:
                for off in ((offa, offb) if two else (offa,)):
                    d = (int(addrs[lane]) + off) >> 2
                    dwords.update(range(d, d + ndw))
        if not dwords:
            continue
        banks = {}
        for d in dwords:
            banks.setdefault(d % 32, set()).add(d)
        passes += max(len(v) for v in banks.values())
        ideal += -(-len(dwords) // 32)
    return passes, ideal


def _patterns():
    lanes = np.arange(64)
    rng = np.random.default_rng(7)
    yield "consecutive", lanes * 4, 0
    yield "consecutive with offset", lanes * 4 + 1000, 12
    yield "broadcast", np.full(64, 256), 0
    for stride in (2, 3, 4, 8, 16, 32, 33, 64):
        yield f"stride {stride} dwords", lanes * 4 * stride, 0
    yield "two rows of a tile", (lanes % 16) * 4 + (lanes // 16) * 64 * 4, 0
    yield "reversed", (63 - lanes) * 4, 0
    yield "broadcast and consecutive mixed", np.where(lanes % 3 == 0, 0, lanes * 4), 0
    yield "unaligned bytes", lanes * 4 + 2, 1
    # dwords 64 KB apart (out of range of any LDS): ds_passes' table holds them in one entry
    yield "64 KB apart", (lanes % 8) * 4 + (lanes // 8 % 3) * 65536, 0
    for k in range(4):
        yield f"random {k}", rng.integers(0, 1 << 12, 64) * 4, 0
        yield f"random small {k}", rng.integers(0, 40, 64) * 4, 0
    # a histogram's bins (few rows, random banks), and dwords over 16 rows of banks (the
    # most ds_passes counts by rows) and over 17 (counted dword by dword)
    yield "histogram bins", np.minimum(rng.exponential(40.0, 64), 255).astype(np.int64) * 4, 0
    yield "16 rows", np.append(rng.integers(0, 512, 62), [0, 511]) * 4, 0
    yield "17 rows", np.append(rng.integers(0, 544, 62), [0, 543]) * 4, 0


FORMS = [(1, False, 0), (2, False, 0), (3, False, 0), (4, False, 0), (1, True, 256), (2, True, 8)]


@pytest.mark.parametrize("exec_mask", [(1 << 64) - 1, 0x5555555555555555, 0xFFFF0000FFFF0001, 1 << 40, 0])
@pytest.mark.parametrize("ndw,two,offb", FORMS, ids=["b32", "b64", "b96", "b128", "2x_b32", "2x_b64"])
@pytest.mark.parametrize("name,addrs,off", list(_patterns()), ids=[p[0] for p in _patterns()])
def test_passes(name, addrs, off, ndw, two, offb, exec_mask):
    vgpr = np.zeros((3, 64), np.uint32)
    vgpr[1] = np.asarray(addrs, np.int64).astype(np.uint32)
    tr = np.full(DS_SCRATCH + 8, 12345, np.int64)
    got = ds_passes(vgpr, 1, np.int64(off), np.int64(off + offb), two, ndw, np.uint64(exec_mask),
                    tr, 1)
    assert (got & 0xFFFF, got >> 16) == _reference(vgpr[1], off, off + offb, two, ndw, exec_mask), name


def test_natural_stride_b64_is_conflict_free():
    # the example: ds_read_b64 at its natural 8-byte stride moves 128 dwords, 64 per
    # half wave: 2 passes per half, as many as conflict free
    vgpr = np.zeros((2, 64), np.uint32)
    vgpr[1] = np.arange(64) * 8
    got = ds_passes(vgpr, 1, 0, 0, False, 2, np.uint64((1 << 64) - 1), np.zeros(DS_SCRATCH + 1, np.int64), 1)
    assert (got & 0xFFFF, got >> 16) == (4, 4)


def test_remembered_access():
    # ds_passes keeps the access it counted last and answers a match from it: pairs of calls
    # on one scratch, the second differing from the first in one thing only (a common move
    # of every address, the byte within the dword, the distance of the two addresses, EXEC,
    # the width, one lane), must each give the set model's answer
    lanes = np.arange(64)
    rng = np.random.default_rng(11)
    tr = np.zeros(DS_SCRATCH + 1, np.int64)
    vgpr = np.zeros((2, 64), np.uint32)
    patterns = [(lanes % 16) * 4 + (lanes // 16) * 64, ((lanes % 16) * 17 + lanes // 16) * 4,
                rng.integers(0, 40, 64) * 4, lanes * 66, np.where(lanes < 32, lanes * 4, 0)]
    full = (1 << 64) - 1
    base = dict(shift=0, ndw=1, two=True, offa=0, offb=4, ex=full, poke=None)
    changes = [dict(shift=64), dict(shift=1024), dict(shift=2), dict(shift=1), dict(offb=64),
               dict(offb=12), dict(ex=full ^ 1), dict(ex=0x5555555555555555),
               dict(ex=(1 << 32) - 1), dict(ndw=2),
               dict(two=False), dict(poke=5), dict()]
    answers = set()
    for addrs in patterns:
        for change in changes:
            for c in (base, {**base, **change}):
                vgpr[1] = addrs + c["shift"]
                if c["poke"] is not None:
                    vgpr[1, c["poke"]] += 4
                got = ds_passes(vgpr, 1, np.int64(c["offa"]), np.int64(c["offb"]), c["two"],
                                c["ndw"], np.uint64(c["ex"]), tr, 1)
                want = _reference(vgpr[1], c["offa"], c["offb"], c["two"], c["ndw"], c["ex"])
                assert (got & 0xFFFF, got >> 16) == want, change
                answers.add(want)
    assert len(answers) > 4      # the changes matter: a stale answer would show


def test_remembered_accesses_replaced_in_turn():
    # more patterns than ds_passes remembers (KEYS), visited round and round with their
    # addresses moved each round: every answer the set model's, whichever entry holds it
    lanes = np.arange(64)
    rng = np.random.default_rng(12)
    pats = [lanes * 4, (lanes % 16) * 68, rng.integers(0, 64, 64) * 4, lanes * 8,
            (lanes // 4) * 4, rng.integers(0, 300, 64) * 4]
    assert len(pats) > KEYS
    tr = np.zeros(DS_SCRATCH + 1, np.int64)
    vgpr = np.zeros((2, 64), np.uint32)
    for rnd in range(3):
        for i, addrs in enumerate(pats):
            vgpr[1] = addrs + 4 * rnd
            two = i % 2 == 1
            got = ds_passes(vgpr, 1, np.int64(0), np.int64(64), two, 1, np.uint64((1 << 64) - 1),
                            tr, 1)
            want = _reference(vgpr[1], 0, 64, two, 1, (1 << 64) - 1)
            assert (got & 0xFFFF, got >> 16) == want, (rnd, i)


def test_remembered_access_with_equal_hash():
    # two accesses whose relative addresses have the same hash (lane 1 moved by 352 bytes,
    # lane 4 by -44: 352 * 2 - 44 * 16 = 0, the hash summing lane l's relative address
    # shifted left by l mod 32) but different conflicts, the one remembered when the other
    # comes after a third (whose key ds_passes compares first): it must compare the lanes
    lanes = np.arange(64, dtype=np.int64)
    a = lanes * 4 + 4096
    b = a.copy()
    b[1] += 352
    b[4] -= 44

    def rel_hash(addrs):
        return sum(int(x - addrs[0]) << (l % 32) for l, x in enumerate(addrs)) % (1 << 64)
    assert rel_hash(a) == rel_hash(b)
    tr = np.zeros(DS_SCRATCH + 1, np.int64)
    vgpr = np.zeros((2, 64), np.uint32)
    full = (1 << 64) - 1
    c = (lanes % 8) * 4
    answers = []
    for addrs in (a, c, b, c, a, c, b):
        vgpr[1] = addrs
        got = ds_passes(vgpr, 1, np.int64(0), np.int64(0), False, 1, np.uint64(full), tr, 1)
        want = _reference(vgpr[1], 0, 0, False, 1, full)
        assert (got & 0xFFFF, got >> 16) == want
        answers.append(want)
    assert answers[0] != answers[2]


def test_keys_looked_at_again_after_many_misses():
    # random bins (a histogram's): after KEY_GIVE_UP accesses that matched nothing remembered,
    # ds_passes counts most accesses without the keys, then looks again (two in KEY_RETRY)
    # and, on a match, uses them for every access again: every answer the set model's
    from gcnemu.timing import trace as T
    rng = np.random.default_rng(5)
    full = (1 << 64) - 1
    tr = np.zeros(DS_SCRATCH + 1, np.int64)
    vgpr = np.zeros((2, 64), np.uint32)
    tile = np.arange(64) * 4
    seq = [rng.integers(0, 256, 64) * 4 for _ in range(T.KEY_GIVE_UP + T.KEY_RETRY + 8)]
    seq += [tile] * (T.KEY_RETRY + 2)       # a pattern that repeats: looked up and kept again
    for i, addrs in enumerate(seq):
        vgpr[1] = addrs
        got = ds_passes(vgpr, 1, np.int64(0), np.int64(0), False, 1, np.uint64(full), tr, 1)
        assert (got & 0xFFFF, got >> 16) == _reference(vgpr[1], 0, 0, False, 1, full), i
        if i == T.KEY_GIVE_UP + 4:
            assert tr[1 + T._KEY_MISSES] > T.KEY_GIVE_UP      # giving up
    assert tr[1 + T._KEY_MISSES] == 0      # the tile's key matched again
