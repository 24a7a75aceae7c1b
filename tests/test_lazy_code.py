"""Code compiled on first use: the engine's general path (step_generic), the memory families'
entries and the SALU op kernels are compiled when a program first needs them (exec/engine.py
provide_code, exec/opkernels.py salu_address), so that a kernel whose instructions all take
the engine's fast paths compiles none of them on a fresh install."""
from __future__ import annotations

from pathlib import Path

import numpy as np

import gcnemu
from gcnemu.exec import engine
from gcnemu.exec import layout as L
from gcnemu.snippet import run_snippet

SAXPY = Path(__file__).resolve().parents[1] / "kernels" / "saxpy" / "kernel.hsaco"


def _spy(monkeypatch):
    """Record the handler of each row the engine stops at for code, as in a fresh process
    (no general path nor trace recorder compiled yet)."""
    calls = []
    real = engine.provide_code

    def spy(code, sched):
        calls.append(int(code[sched[engine.SC_NEED], L.C_H]))
        real(code, sched)
    monkeypatch.setattr(engine, "provide_code", spy)
    monkeypatch.setattr(engine, "_compiled", {})    # nothing compiled in this process yet
    return calls


def test_a_kernel_on_the_fast_paths_needs_no_general_code(monkeypatch):
    calls = _spy(monkeypatch)
    gpu = gcnemu.GPU()
    k = gcnemu.load(SAXPY).kernel("saxpy")
    n = 4096
    x = np.arange(n, dtype=np.float32)
    y, xb = gpu.to_device(np.full(n, 0.5, np.float32)), gpu.to_device(x)
    gpu.dispatch(k, grid=(n,), block=(256,), args=[y, xb, np.float32(2), np.uint32(n)])
    assert np.array_equal(y.to_numpy(), np.float32(2) * x + np.float32(0.5))
    code = k.program.code
    flat = code[:, L.C_H] == L.H_FLAT
    assert flat.any() and (code[flat, L.C_FN] == 0).all()     # the FLAT family: never needed
    salu = code[:, L.C_H] == L.H_SALU
    assert salu.any() and (code[salu, L.C_SFN] == 0).all()    # s_and_b32: run inline
    assert calls == []


def test_the_general_path_and_a_family_are_compiled_when_first_needed(monkeypatch):
    calls = _spy(monkeypatch)
    lds = np.arange(256, dtype=np.uint8)[::-1].copy()
    st = run_snippet("""
        v_mov_b32 v1, 3
        ds_read_u8 v2, v1                 // a byte: the DS family's entry, not a row kernel
        s_waitcnt lgkmcnt(0)
        v_readlane_b32 s5, v2, 7          // the general path
        s_mul_i32 s6, s5, 3               // a SALU op kernel (compiled when decoded)
        s_endpgm
    """, lds=lds, lds_bytes=256)
    assert st.sgpr[5] == 252 and st.sgpr[6] == 756 and (st.vgpr[2] == 252).all()
    assert calls == [L.H_DS, L.H_READLANE]



def _timed(name, prefill):
    """The timing-mode report of corpus kernel ``name`` on a fresh load; with ``prefill``
    every memory family's address is in its rows before the dispatch (no stop for code)."""
    from gcnemu.exec.jit import native_address
    from gcnemu.mem.entry import family_address
    from kernels import corpus

    case = corpus.make_case(name, 0)
    k = gcnemu.load(str(corpus.hsaco_path(name))).kernel(case.kernel)
    code = k.program.code
    if prefill:
        for h in set(code[:, L.C_H].tolist()) & set(L.MEMORY_HANDLERS.values()):
            code[code[:, L.C_H] == h, L.C_FN] = family_address(h)
        engine._compiled[engine.SC_GENERIC] = native_address(engine._generic_entry,
                                                             engine._GENERIC_SIGNATURE)
    gpu = gcnemu.GPU(timing=True)
    return gpu.dispatch(k, grid=tuple(case.grid), block=tuple(case.block),
                        args=corpus.device_args(gpu, case))


def test_timing_is_the_same_when_code_is_compiled_mid_run(monkeypatch):
    """A wave that stops for code not there yet takes back the step and the trace record of
    that instruction: cycles and counters equal those of a run with nothing to provide
    (corpus kernels that need the general path and a memory family)."""
    for name in ("asm_flow", "atomics_global"):
        calls = _spy(monkeypatch)
        cold = _timed(name, prefill=False)
        assert calls, f"{name}: nothing was provided on first use"
        n = len(calls)
        warm = _timed(name, prefill=True)
        assert len(calls) == n            # the second run did not stop for code
        assert cold.instructions == warm.instructions and cold.cycles == warm.cycles
        assert cold.counters == warm.counters
