"""The cycle model's fast replay (each CU on its own clock between shared accesses, plain
scans in gcnemu.timing.model._fast_run) gives the same bits as its plainest schedule
(``lockstep``: every scan in (cycle, CU) order, no fast loop), on corpus traces and on random
traces built to make CUs meet in the caches, the DRAM queue and the launch order."""
import numpy as np
import pytest

import gcnemu
from gcnemu.timing import TimingConfig
from gcnemu.timing import costs as C
from gcnemu.timing import icache as IC
from gcnemu.timing import model as M
from gcnemu.timing.caches import GPUCaches
from kernels import corpus


#: simulate's outputs after its 15 inputs: per-wave cycles, CUs, counters, the per-row cycle
#: table, then the caches it leaves (tags, stamps, dirty bits, the LRU clock), the ESRAM
#: ranges (an input) and the I$ state (gcnemu/timing/icache.py)
OUTPUTS = ("per-wave cycles", "CUs", "counters", "per-row cycles", "L1 tags", "L1 stamps",
           "L2 tags", "L2 stamps", "L2 dirty", "K$ tags", "K$ stamps", "LRU clock", "ESRAM",
           "I$")


def _replay(args, lockstep, solo=True):
    """simulate on copies of ``args``: (cycles, its outputs as in OUTPUTS)."""
    a = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    cycles = M.simulate(*a, lockstep=lockstep, solo=solo)
    return (cycles,) + tuple(a[15:])


def _assert_same(args, what, solo_off=False):
    """The fast replay gives the plain replay's bits (and, with ``solo_off``, so does the fast
    replay without its solo runs)."""
    fast, plain = _replay(args, False), _replay(args, True)
    others = [("the plain replay", plain)]
    if solo_off:
        others.append(("the fast replay without solo runs", _replay(args, False, False)))
    for other, ref in others:
        assert ref[0] > 0, f"{what}: {other} did not finish"
        assert fast[0] == ref[0], f"{what}: {fast[0]} cycles, {other} {ref[0]}"
        for name, x, y in zip(OUTPUTS, fast[1:], ref[1:]):
            if np.array_equal(x, y):
                continue
            bad = np.flatnonzero((x != y).reshape(len(x), -1).any(axis=1))
            assert not len(bad), (f"{what}: {name} differ from {other} at {bad[:8]}: "
                                  f"{x[bad[:4]]} vs {y[bad[:4]]}")


#: corpus kernels with barriers and LDS, atomics, FLAT, many waves, scalar loads in loops
CORPUS = ["matmul_tiled", "scan_lds", "scan_blelloch", "histogram", "atomics_global", "atomics64",
          "transpose_lds", "bitonic_sort", "mandelbrot", "nbody", "nu_barrier_loop", "scratch_spill",
          "saxpy"]


def _simulate_calls(monkeypatch, run):
    """Call ``run()`` with the model's ``simulate`` wrapped; returns the arguments of each of
    its calls and run's result. (The dispatch's own call passes lockstep=False and solo=True
    last, left out; the arrays are copies, the GPU's caches as the dispatch found them: it updates
    them.)"""
    captured = []
    simulate = M.simulate

    def keep(*args):
        captured.append([x.copy() if isinstance(x, np.ndarray) else x for x in args[:-2]])
        return simulate(*args)

    monkeypatch.setattr(M, "simulate", keep)
    try:
        result = run()
    finally:
        monkeypatch.undo()
    return captured, result


@pytest.mark.parametrize("name", CORPUS)
def test_corpus_replay_matches_lockstep(name, monkeypatch):
    captured, _ = _simulate_calls(
        monkeypatch, lambda: corpus.run_case(name, gcnemu.GPU(timing=True), seed=2))
    assert captured, f"{name}: no dispatch was timed"
    for i, args in enumerate(captured):
        _assert_same(args, f"{name} dispatch {i}", solo_off=True)


# --- random traces -----------------------------------------------------------------------
# rows: (category, flags, cost, taken cost, waitcnt (vm, exp, lgkm))
_ROWS = [
    (C.CAT_VALU, 0, 4, 4, None),
    (C.CAT_VALU, 0, 16, 16, None),
    (C.CAT_VALU, C.F_LONG, 4, 4, None),
    (C.CAT_VALU, C.F_VSDST, 4, 4, None),                                # v_cmp -> VCC
    (C.CAT_SALU, C.F_SREAD, 4, 4, None),                                # reads VCC
    (C.CAT_BRANCH, C.F_SREAD, 4, 20, None),                             # s_cbranch_vccz
    (C.CAT_SALU, 0, 4, 4, None),
    (C.CAT_BRANCH, 0, 4, 20, None),
    (C.CAT_INTERNAL, 0, 1, 1, None),                                    # s_nop
    (C.CAT_INTERNAL, 0, 0, 0, None),            # a row of cost 0 (TimingConfig.default_cycles=0)
    (C.CAT_INTERNAL, C.F_WAITCNT, 1, 1, (0, -1, -1)),
    (C.CAT_INTERNAL, C.F_WAITCNT, 1, 1, (-1, -1, 0)),
    (C.CAT_INTERNAL, C.F_WAITCNT, 1, 1, (2, 0, 1)),
    (C.CAT_INTERNAL, C.F_BARRIER, 1, 1, None),
    (C.CAT_VMEM, C.F_VMEM, 4, 4, None),                                 # buffer load
    (C.CAT_VMEM, C.F_VMEM | C.F_STORE, 4, 4, None),
    (C.CAT_VMEM, C.F_VMEM | C.F_ATOMIC, 4, 4, None),
    (C.CAT_VMEM, C.F_VMEM | C.F_FLAT, 4, 4, None),
    (C.CAT_VMEM, C.F_VMEM | C.F_GLC, 4, 4, None),                       # the L1 policies
    (C.CAT_VMEM, C.F_VMEM | C.F_SLC, 4, 4, None),
    (C.CAT_VMEM, C.F_VMEM | C.F_GLC | C.F_SLC, 4, 4, None),
    (C.CAT_VMEM, C.F_VMEM | C.F_STORE | C.F_SLC, 4, 4, None),
    (C.CAT_VMEM, C.F_VMEM | C.F_MIMG, 4, 4, None),                     # image_load
    (C.CAT_VMEM, C.F_VMEM | C.F_MIMG | C.F_STORE, 4, 4, None),
    (C.CAT_VMEM, C.F_VMEM | C.F_MIMG | C.F_UNTRACED, 4, 4, None),      # image_sample
    (C.CAT_LDS, C.F_LDS, 4, 4, None),
    (C.CAT_EXPGDS, C.F_GDS, 4, 4, None),
    (C.CAT_EXPGDS, C.F_EXP, 4, 4, None),
    (C.CAT_SALU, C.F_SMEM, 4, 4, None),                                 # s_load
    (C.CAT_SALU, C.F_SMEM | C.F_NOREC, 4, 4, None),                     # s_memtime
    (C.CAT_INTERNAL, C.F_ICINV, 1, 1, None),                            # s_icache_inv
]
_ICINV = len(_ROWS) - 1
_BARRIER = [r[1] for r in _ROWS].index(C.F_BARRIER)
_EXPGDS = [i for i, r in enumerate(_ROWS) if r[0] == C.CAT_EXPGDS]
_END = len(_ROWS)   # s_endpgm


def _tables():
    n = len(_ROWS) + 1
    cat = np.full(n, C.CAT_INTERNAL, np.int64)
    flags = np.zeros(n, np.int64)
    cost = np.ones(n, np.int64)
    taken = np.ones(n, np.int64)
    wait = np.full((n, 3), -1, np.int64)
    sregs = np.zeros((n, 2), np.int64)
    for i, (c, f, k, tk, w) in enumerate(_ROWS):
        cat[i], flags[i], cost[i], taken[i] = c, f, k, tk
        if w is not None:
            wait[i] = w
        if f & (C.F_VSDST | C.F_SREAD):
            sregs[i] = 0, 3 << (106 - 64)        # VCC
    flags[_END] = C.F_END
    return cat, flags, cost, taken, wait, sregs


def _random_case(seed, plain=False, nsimd=4, exports=True):
    """simulate's arguments for random waves: groups of 1-4 waves, each a random instruction
    mix (heavy on memory, so CUs meet in the shared caches) ending in s_endpgm; cache lines
    from a small pool, so lines are shared, evicted and written back. ``plain``: longer waves,
    mostly plain rows (VALU, SALU, branches) between s_waitcnt, s_barrier, LDS and memory
    rows, on 1-3 CUs, few workgroups, mostly all resident at once: SIMDs with one wave, which
    runs ahead of its CU's other SIMDs (_fast_run's solo runs) until a row needs a scan or a
    fetch may miss, beside SIMDs with several. ``nsimd``: SIMDs per CU (the presets' 4 takes
    the model's masks for the turn arithmetic, other counts its divisions). ``exports``:
    False leaves the export and GDS rows out of the program (the model parks waves that the
    busy LDS refuses only then: model.PARKED)."""
    rng = np.random.default_rng(seed)
    cat, flags, cost, taken, wait, sregs = _tables()
    ncu = int(rng.integers(2, 9))
    wps = int(rng.integers(1, 11))
    gpc = int(rng.integers(1, 17))
    gsize = int(rng.integers(1, min(4, nsimd * wps) + 1))
    ngroups = int(rng.integers(1, 40))
    pool = rng.integers(0, 1 << 40, 24)          # the lines the waves touch
    weights = rng.random(len(_ROWS)) + 0.05
    invalidates = rng.random() < 0.5       # else no wave runs s_icache_inv: small sets
    length = 60
    if plain:
        ncu = int(rng.integers(1, 4))
        ngroups = int(rng.integers(1, 2 * ncu + 2))
        weights[:10] *= 20          # (the plain rows: ~90 % of the mix)
        length = 400
        invalidates = False
    if not invalidates:
        weights[_ICINV] = 0
    if not exports:
        for i in _EXPGDS:
            weights[i] = 0
            cat[i] = C.CAT_INTERNAL        # (the rows are not in the program)
    weights /= weights.sum()
    streams, wbeg, wend = [], [], []
    for _ in range(ngroups * gsize):
        wbeg.append(len(streams))
        for row in rng.choice(len(_ROWS), int(rng.integers(0, length)), p=weights):
            streams.append(int(row))
            f = int(flags[row])
            if f & C.F_UNTRACED:
                streams.append(0)
            elif f & C.F_VMEM or (f & C.F_SMEM and not f & C.F_NOREC):
                lines = np.unique(rng.choice(pool, int(rng.integers(1, 5))))
                streams.append(len(lines))
                streams.extend(int(x) for x in lines)
            elif f & C.F_LDS:
                passes = int(rng.integers(0, 9))          # LDS passes | conflict free << 16
                streams.append(passes | int(rng.integers(0, passes + 1)) << 16)
            elif f & C.F_GDS:
                streams.append(1)
        streams.append(_END)
        wend.append(len(streams))
    group_first = np.arange(0, ngroups * gsize + 1, gsize, dtype=np.int64)
    small = rng.random() < 0.5
    tc = TimingConfig(l1_bytes=1024, l1_ways=4, l2_channel_bytes=2048, l2_ways=2,
                      kcache_bytes=512, kcache_ways=2, icache_bytes=256,
                      icache_ways=2) if small else TimingConfig()
    # the rows' code: 4- or 8-byte instructions, with gaps in a small I$ so that its sets
    # hold more of the program's lines than ways (fetches that always take the ordered path)
    sizes = rng.choice([4, 8], len(cat))
    gaps = rng.integers(0, 96 if small else 8, len(cat)) // 4 * 4
    pcs = np.cumsum(sizes + gaps) - sizes - gaps[0]
    P = M._params(tc, gcnemu.GPU().config)
    nw = len(wbeg)
    caches = GPUCaches(ncu, tc)
    if rng.random() < 0.5:       # the code in the I$ from an earlier dispatch, partly
        caches.i_tags[rng.integers(0, len(caches.i_tags), 8)] = rng.integers(0, 8, 8) + (4096 >> 6)
        caches.i_base = 1000
    ic = IC.prepare(caches.i_tags, caches.i_stamps, caches.i_base, caches.i_groups, tc,
                    IC.blocks(pcs, sizes, 4096 + 32 * int(rng.integers(0, 2)), tc.icache_fetch_bytes),
                    invalidates=invalidates)
    return [np.array(streams, np.int64), np.array(wbeg, np.int64), np.array(wend, np.int64),
            group_first, ncu, nsimd, wps, gpc, cat, flags, cost, taken, wait, sregs, P,
            np.zeros((nw, 2), np.int64), np.zeros(nw, np.int64),
            np.zeros(len(M.COUNTER_NAMES), np.int64), np.zeros(len(cat) * M.NPC, np.int64),
            caches.l1_tags, caches.l1_stamps, caches.l2_tags, caches.l2_stamps, caches.l2_dirty,
            caches.k_tags, caches.k_stamps, caches.lru,
            M.esram_lines([(int(pool[0]) << 6, 64 * 4)] if rng.random() < 0.5 else []), ic]


@pytest.mark.parametrize("seed", range(60))
def test_random_replay_matches_lockstep(seed):
    _assert_same(_random_case(seed), f"random case {seed}")


@pytest.mark.parametrize("seed", range(40))
def test_solo_runs_match_lockstep(seed):
    """A wave alone on its SIMD runs ahead of its CU's other SIMDs (_fast_run's solo runs)
    until a row needs the scan (s_waitcnt, LDS, memory, s_barrier, the wave's last) or a
    fetch may miss, while the other SIMDs' waves meet at barriers, in the LDS and in memory:
    the same bits as the plain replay and as the fast replay without solo runs."""
    _assert_same(_random_case(seed, plain=True), f"plain-heavy random case {seed}", solo_off=True)


@pytest.mark.parametrize("nsimd", [2, 3])
@pytest.mark.parametrize("seed", range(8))
def test_other_simd_counts_match_lockstep(seed, nsimd):
    """CUs of 2 or 3 SIMDs: the fast replay, its solo runs and the plain replay agree."""
    _assert_same(_random_case(seed, nsimd=nsimd), f"random case {seed}, {nsimd} SIMDs")
    _assert_same(_random_case(seed, plain=True, nsimd=nsimd),
                 f"plain-heavy random case {seed}, {nsimd} SIMDs", solo_off=True)


@pytest.mark.parametrize("nsimd", [4, 3])
@pytest.mark.parametrize("seed", range(30))
def test_parked_waves_match_lockstep(seed, nsimd):
    """Programs without export or GDS rows, where _fast_run parks the waves the busy LDS
    refuses until a scan of their SIMD finds it free (model.PARKED): the same bits as the
    plain replay, which never parks, and as the fast replay without solo runs."""
    _assert_same(_random_case(seed, nsimd=nsimd, exports=False),
                 f"random case {seed}, {nsimd} SIMDs, no exports", solo_off=True)
    _assert_same(_random_case(seed, plain=True, nsimd=nsimd, exports=False),
                 f"plain-heavy random case {seed}, {nsimd} SIMDs, no exports", solo_off=True)


@pytest.mark.parametrize("nsimd", [1, 2])
@pytest.mark.parametrize("seed", range(40))
def test_release_in_the_scans_own_cycle_matches_lockstep(seed, nsimd):
    """s_barrier and s_endpgm rows that cost 0 release their workgroup at the cycle of the
    scan that issues them (one or two SIMDs: the group's waves share them), where the
    released waves of the scan's later slots issue in that scan: _fast_run's ready mask
    takes them in (model._released_now) as the plain replay's slot loop finds them. (Without
    it, 10 of these 160 cases differ.)"""
    for plain in (False, True):
        args = _random_case(seed, plain=plain, nsimd=nsimd)
        for row in (_BARRIER, _END):
            args[10][row] = args[11][row] = 0        # (cost, taken cost)
        _assert_same(args, f"random case {seed}, {nsimd} SIMDs, plain {plain}", solo_off=plain)


def test_icache_inv_replay_matches_lockstep(tmp_path, monkeypatch):
    """A real program with s_icache_inv (every fetch of its dispatch takes the ordered path):
    8 CUs, two I$ groups, many waves per CU running a loop that invalidates in every other
    workgroup."""
    from test_timing import asm_kernel
    src = ("s_mov_b32 s4, 3\nloop:\n" + "v_add_f32 v1, v1, v0\n" * 40 +
           "s_and_b32 s5, s2, 1\ns_cmp_eq_u32 s5, 0\ns_cbranch_scc0 skip\ns_icache_inv\nskip:\n"
           "s_sub_u32 s4, s4, 1\ns_cmp_lg_u32 s4, 0\ns_cbranch_scc1 loop\ns_endpgm\n")
    k = asm_kernel(tmp_path, "icinv", src)
    gpu = gcnemu.GPU(timing=True, num_cus=8)
    captured, rep = _simulate_calls(
        monkeypatch, lambda: gpu.dispatch(k, grid=(64 * 48,), block=(128,)))
    assert rep.counters["SQC_ICACHE_MISSES"] > 2 * 3      # (more than the cold misses)
    assert len(captured) == 1
    _assert_same(captured[0], "s_icache_inv loop")
