"""tools/numba_perf.py: perf's map of numba's JIT code, the code dumps, the attribution of
samples to instructions (perf itself is not needed: the map and the dumps are checked
against numba's engine and the process's memory)."""
import ctypes
import sys
from pathlib import Path

import numba

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import numba_perf  # noqa: E402


@numba.njit(cache=False)
def _perf_probe(x):
    return x * 3 + 1


def test_map_and_dump_name_a_compiled_function(tmp_path):
    assert _perf_probe(4) == 13
    from numba.core.registry import cpu_target
    engine = cpu_target.target_context.codegen()._engine
    path = tmp_path / "perf.map"
    assert numba_perf.write_perf_map(str(path)) > 0
    entries = {}
    for line in path.read_text().splitlines():
        addr, extent, name = line.split(" ", 2)
        entries[name] = (int(addr, 16), int(extent, 16))
    probe = [n for n in entries if numba_perf.numba_name_matches(n, "_perf_probe")
             and not n.startswith(("_ZN08NumbaEnv", "_ZN7cpython"))]
    assert probe, "the probe's symbol is not in the map"
    addr, extent = entries[probe[0]]
    assert addr == engine.get_function_address(probe[0]) and extent > 0
    # the map is sorted and no symbol's extent runs into the next one's code
    addrs = sorted(a for a, _ in entries.values())
    assert all(entries_end <= nxt for entries_end, nxt in
               zip((a + e for a, e in sorted(entries.values())), addrs[1:]))
    dumped = numba_perf.dump_code("_perf_probe", tmp_path / "dumps")
    assert dumped
    code = dumped[0].read_bytes()
    assert int(dumped[0].with_suffix(".addr").read_text(), 16) == addr
    assert code == ctypes.string_at(addr, len(code)) and len(code) == extent


def test_name_matching():
    sym = "_ZN6gcnemu6timing5model7_replayB4v182B52c8tJTIeFIjxB2IKSgI4C"
    assert numba_perf.numba_name_matches(sym, "_replay")
    assert not numba_perf.numba_name_matches(sym, "replay")
    assert not numba_perf.numba_name_matches(sym.replace("7_replay", "8_replay2"), "_replay")
    assert not numba_perf.numba_name_matches(sym.replace("7_replay", "17_xx_replay"), "_replay")


def test_hot_instructions():
    listing = ["", "Disassembly of section .data:", "   1000:\tpush   %rbx",
               "   1001:\tmov    (%rax),%rcx", "   1004:\tadd    %rcx,%rdx", "   1007:\tret"]
    total, hot = numba_perf.hot_instructions([0x1004, 0x1004, 0x1001, 0x9999], listing, top=2)
    assert total == 3      # the sample outside the listing is not its
    assert hot == [(0x1004, 2, "add    %rcx,%rdx"), (0x1001, 1, "mov    (%rax),%rcx")]


def test_the_map_names_the_block_functions_of_a_program(tmp_path):
    # a straight run of VALU rows is a block (exec/blockjit.py); its function is loaded from
    # an object file, which numba's engine does not list
    from gcnemu.exec import blockjit
    from gcnemu.exec import layout as L
    from gcnemu.exec.program import build_program
    from gcnemu.isa.assembler import assemble
    from gcnemu.isa.decoder import decode
    if not blockjit.ENABLED:
        import pytest
        pytest.skip("GCNEMU_BLOCKJIT=0: programs are decoded without blocks")
    text = "\n".join(["v_add_f32 v1, v2, v3", "v_mul_f32 v4, v1, v1", "v_sub_f32 v5, v4, v2",
                      "v_add_i32 v6, vcc, v5, v1", "s_endpgm"])
    prog = build_program(decode(assemble(text)))
    addrs = {int(a) for a in prog.code[:, L.C_BLK] if a}
    assert addrs, "the program has no block"
    path = tmp_path / "perf.map"
    numba_perf.write_perf_map(str(path))
    named = {}
    for line in path.read_text().splitlines():
        addr, extent, name = line.split(" ", 2)
        named[int(addr, 16)] = (name, int(extent, 16))
    for a in addrs:
        assert a in named and named[a][0].startswith("gcnemu_block_") and named[a][1] > 0
