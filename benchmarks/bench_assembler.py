"""Assembler/disassembler speed on LLVM's gfx7 MC test (29,030 instructions).

Run:  python -m pytest benchmarks/bench_assembler.py --benchmark-only
The issue's bar: assembling the whole file takes under 10 s on the project machine.
"""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from gcnemu.isa.assembler import assemble
from gcnemu.isa.decoder import decode
from gcnemu.isa.disassembler import disassemble

ALL = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "llvm-mc-tests" / "gfx7_asm_all.s"


@pytest.fixture(scope="module")
def source():
    if not ALL.exists():
        pytest.skip(f"{ALL} not found")
    return ALL.read_text()


@pytest.fixture(scope="module")
def code(source):
    return assemble(source)


def test_bench_assemble_gfx7_asm_all(benchmark, source):
    t = time.perf_counter()
    out = assemble(source)
    assert time.perf_counter() - t < 10.0
    assert len(out) > 29030 * 4
    benchmark.pedantic(assemble, args=(source,), rounds=3, iterations=1)


def test_bench_decode(benchmark, code):
    ins = benchmark.pedantic(decode, args=(code,), rounds=3, iterations=1)
    assert len(ins) == 29030


def test_bench_disassemble_verified(benchmark, code):
    text = benchmark.pedantic(disassemble, args=(code,), rounds=2, iterations=1)
    assert text.count("\n") == 29030
