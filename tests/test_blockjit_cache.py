"""The disk cache of compiled blocks (gcnemu/exec/blockjit.py: _key, _read_cached,
_write_cached): a process loads the object code an earlier process compiled for the same
rows, binds its SALU calls to its own compiled ops, and never takes one program's code for
another's.

Each case runs programs in fresh processes sharing one cache directory (GCNEMU_BLOCK_CACHE);
expected register values come from numpy, and the processes report blockjit.STATS (programs
whose blocks were compiled / loaded from the cache).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]

#: a block with SALU ops that call their compiled kernels (s_add_i32, s_lshl_b32, s_bfe_u32),
#: inline SALU forms, literal and inline VALU constants; {lit} varies the program
PROGRAM = """
s_mov_b32 s4, 3
s_add_i32 s4, s4, 0x10
s_lshl_b32 s5, s4, 2
s_bfe_u32 s6, s5, 0x40002
v_add_i32 v1, vcc, s5, v0
v_mul_f32 v2, {lit}, v3
v_add_f32 v2, 0.5, v2
v_xor_b32 v4, 0x12345678, v0
v_add_i32 v5, vcc, s6, v1
s_endpgm
"""

CHILD = r"""
import json, sys
import numpy as np
from gcnemu.exec import blockjit
from gcnemu.exec.program import build_program
from gcnemu.isa.assembler import assemble
from gcnemu.isa.decoder import decode
from gcnemu.snippet import run_snippet
from kernels import corpus
import gcnemu
out = {"runs": []}
for item in json.loads(sys.argv[1]):
    if item.startswith("corpus:"):
        lp = gcnemu.load(str(corpus.hsaco_path(item[7:])))
        for kn in lp.kernel_names:
            lp.kernel(kn)
        continue
    prog = build_program(decode(assemble(item)))
    v0 = np.arange(64, dtype=np.uint32) * 7
    v3 = np.linspace(-2, 2, 64).astype(np.float32).view(np.uint32)
    s = run_snippet(prog, vgpr={0: v0, 3: v3})
    out["runs"].append([s.vgpr[i].tolist() for i in (1, 2, 4, 5)])
out["stats"] = {k: blockjit.STATS[k] for k in ("programs", "compiled", "loaded")}
print(json.dumps(out))
"""


def _child(cache: Path, items: list) -> dict:
    env = dict(os.environ, GCNEMU_BLOCK_CACHE=str(cache), GCNEMU_BLOCKJIT="1")
    r = subprocess.run([sys.executable, "-c", CHILD, json.dumps(items)], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def _expected(lit: float) -> list:
    s4 = 3 + 0x10
    s5 = (s4 << 2) & 0xFFFFFFFF
    s6 = (s5 >> 2) & 0xF                     # s_bfe_u32: offset 2, width 4
    v0 = np.arange(64, dtype=np.uint32) * 7
    v3 = np.linspace(-2, 2, 64).astype(np.float32)
    v1 = v0 + np.uint32(s5)
    v2 = (np.float32(lit) * v3 + np.float32(0.5)).astype(np.float32).view(np.uint32)
    return [v1.tolist(), v2.tolist(), (v0 ^ np.uint32(0x12345678)).tolist(),
            (v1 + np.uint32(s6)).tolist()]


def _objects(cache: Path) -> list:
    return sorted(cache.glob("*.o"))


def test_a_later_process_loads_the_blocks_an_earlier_one_compiled(tmp_path):
    three = PROGRAM.format(lit="0x40400000")
    first = _child(tmp_path, [three])
    assert first["stats"] == {"programs": 1, "compiled": 1, "loaded": 0}
    assert first["runs"] == [_expected(3.0)]
    assert len(_objects(tmp_path)) == 1
    second = _child(tmp_path, [three])
    assert second["stats"] == {"programs": 1, "compiled": 0, "loaded": 1}
    assert second["runs"] == [_expected(3.0)]


def test_a_program_that_differs_only_in_a_constant_is_not_taken_for_another(tmp_path):
    _child(tmp_path, [PROGRAM.format(lit="0x40400000")])
    both = _child(tmp_path, [PROGRAM.format(lit="0x40400000"), PROGRAM.format(lit="0x40a00000")])
    assert both["stats"] == {"programs": 2, "compiled": 1, "loaded": 1}
    assert both["runs"] == [_expected(3.0), _expected(5.0)]
    assert len(_objects(tmp_path)) == 2


def test_a_damaged_cache_file_is_compiled_again_not_loaded(tmp_path):
    text = PROGRAM.format(lit="0x40400000")
    _child(tmp_path, [text])
    (obj,) = _objects(tmp_path)
    data = bytearray(obj.read_bytes())
    data[len(data) // 2] ^= 0xFF
    obj.write_bytes(bytes(data))
    again = _child(tmp_path, [text])
    assert again["stats"] == {"programs": 1, "compiled": 1, "loaded": 0}
    assert again["runs"] == [_expected(3.0)]
    assert _child(tmp_path, [text])["stats"]["loaded"] == 1     # rewritten whole


@pytest.mark.skipif(not (ROOT / "kernels").is_dir(), reason="the corpus is not in this checkout")
def test_compiler_output_is_found_again_by_a_later_process(tmp_path):
    """clang's kernels: constant rows, SALU calls and literals keyed by what they stand for,
    not by this process's addresses (a key with an address in it would never be found)."""
    items = ["corpus:mandelbrot", "corpus:nbody", "corpus:intdiv"]
    first = _child(tmp_path, items)
    n = first["stats"]["programs"]
    assert n >= 3 and first["stats"]["compiled"] == n
    assert _child(tmp_path, items)["stats"] == {"programs": n, "compiled": 0, "loaded": n}


def test_the_key_covers_every_module_the_translation_reads():
    """A block's object code is keyed by the sources it is made from (TRANSLATION_SOURCES):
    a module blockjit imports from and that is not among them could change the code without
    changing the key, and a later process would load stale code. dispatch_gen gives only
    SALU_NAMES, the symbols' names, which the instruction names in the key already fix."""
    import ast
    from gcnemu.exec import blockjit
    src = Path(blockjit.__file__)
    imported = set()
    for node in ast.walk(ast.parse(src.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = src.parent
            for _ in range(node.level - 1):
                base = base.parent
            for m in ([node.module] if node.module else [a.name for a in node.names]):
                path = base.joinpath(*m.split(".")).with_suffix(".py")
                imported.add(path.relative_to(ROOT / "gcnemu").as_posix())
    assert "sem/valu_float.py" in imported      # the walk finds the function-level import
    missing = imported - set(blockjit.TRANSLATION_SOURCES) - {"exec/dispatch_gen.py"}
    assert not missing, f"blockjit reads {sorted(missing)}, which its cache key does not cover"
    assert "exec/blockjit.py" in blockjit.TRANSLATION_SOURCES
