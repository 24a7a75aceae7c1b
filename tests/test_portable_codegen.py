"""The engine compiled for a CPU without AVX-512 gives the same bits (issue 15).

The row kernels use LLVM's masked loads and stores with 64-lane predicates taken from the
EXEC mask (gcnemu/exec/lanes.py), which AVX-512 holds in mask registers and other CPUs must
spell out. A child process runs corpus kernels with numba's code generation forced to an
AVX2 CPU (NUMBA_CPU_NAME=znver3, the host's features less every AVX-512 one) and its own
numba cache; its results must equal the bits this process computes, and the corpus's own
references. Skipped where the host has no AVX-512: the default build is then the AVX2 one.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gcnemu
from kernels import corpus

ROOT = Path(__file__).resolve().parents[1]
#: VALU f32 and divergence, f64, integer ALU, LDS row forms and barriers, global atomics,
#: FLAT row forms, byte and short accesses; blocks (exec/blockjit.py) of f32 division, square
#: roots and fma (nbody) and of SALU mask logic (loops_break, mandelbrot)
KERNELS = ("mandelbrot", "fp64_arith", "bitops", "transpose_lds", "scan_lds", "histogram",
           "saxpy", "bytes_shorts", "nbody", "loops_break")

CHILD = """
import hashlib, json, sys
import numpy as np
from kernels import corpus
out = {}
for name in sys.argv[1:]:
    results, case = corpus.run_case(name)
    corpus.compare_results(case, results)
    out[name] = {str(i): hashlib.sha256(np.ascontiguousarray(r).tobytes()).hexdigest()
                 for i, r in sorted(results.items())}
print(json.dumps(out))
"""


def _avx2_features() -> str | None:
    """The host's CPU features with every AVX-512 one turned off, or None without AVX-512."""
    import llvmlite.binding as ll
    feats = ll.get_host_cpu_features().flatten().split(",")
    if "+avx512f" not in feats:
        return None
    return ",".join("-" + f[1:] if f.startswith("+avx512") else f for f in feats)


def _avx2_asm_child(child: str, *names: str):
    """Run ``child`` (a script that prints assembly statistics) in a process whose numba
    targets AVX2 (znver3, every AVX-512 feature off); skipped off x86."""
    import platform
    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("x86 code generation")
    env = dict(os.environ, NUMBA_CPU_NAME="znver3", PYTHONPATH=str(ROOT))
    feats = _avx2_features()
    if feats is not None:
        env["NUMBA_CPU_FEATURES"] = feats
    env.pop("NUMBA_DISABLE_JIT", None)
    proc = subprocess.run([sys.executable, "-c", child, *names], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def _digests(name: str) -> dict:
    results, case = corpus.run_case(name, gpu=gcnemu.GPU())
    corpus.compare_results(case, results)
    return {str(i): hashlib.sha256(np.ascontiguousarray(r).tobytes()).hexdigest()
            for i, r in sorted(results.items())}


def test_avx2_code_gives_the_same_bits():
    feats = _avx2_features()
    if feats is None:
        pytest.skip("the host has no AVX-512: its default code is already the AVX2 path")
    # a cache of its own, kept between runs (and dropped with the rest of gcnemu's cache
    # when a jitted source changes: exec/jit.py ensure_fresh_cache)
    cache = ROOT / "gcnemu" / "__pycache__" / "avx2-codegen"
    env = dict(os.environ, NUMBA_CPU_NAME="znver3", NUMBA_CPU_FEATURES=feats,
               NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    env.pop("NUMBA_DISABLE_JIT", None)
    proc = subprocess.run([sys.executable, "-c", CHILD, *KERNELS], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-3000:]
    child = json.loads(proc.stdout.strip().splitlines()[-1])
    for name in KERNELS:
        assert child[name] == _digests(name), f"{name}: the AVX2 build gives other bits"


ASM_CHILD = """
import sys
from numba import cfunc
from gcnemu.exec import dispatch_gen as D
from gcnemu.exec.opkernels import VALU32_SIGNATURE
for name in sys.argv[1:]:
    cf = cfunc(VALU32_SIGNATURE, cache=False, error_model="numpy", boundscheck=False)(
        getattr(D, "_c32_" + name))
    asm = cf._library.get_asm_str()
    print(name, asm.count("vpmaskmov"), asm.count("vblendv") + asm.count("vpblendv"))
"""


def test_avx2_vgpr_row_stores_are_blends_not_masked_stores():
    # exec/lanes.py store_row_under: LLVM folds store(select(p, v, load(d)), d) into a masked
    # store unless told not to, and AVX2's vpmaskmovd is microcoded on AMD's cores (a 32-bit
    # row kernel took 3x as long). The AVX2 code of two row kernels must blend and store.
    proc = _avx2_asm_child(ASM_CHILD, "v_mov_b32", "v_add_f32")
    for line in proc.stdout.strip().splitlines():
        name, masked, blends = line.split()
        assert int(masked) == 0, f"{name}: AVX2 code stores its result with vpmaskmov"
        assert int(blends) >= 8, f"{name}: AVX2 code has {blends} blends, expected 8 per row"


BLOCK_ASM_CHILD = """
import sys
import llvmlite.binding as llvm
from numba.core.registry import cpu_target
import gcnemu
from gcnemu.exec import blockjit
from kernels import corpus
for name in sys.argv[1:]:
    lp = gcnemu.load(str(corpus.hsaco_path(name)))
    prog = lp.kernel(lp.kernel_names[0]).program
    names = [i.name for i in prog.instructions]
    text, _ = blockjit.blocks_ir(prog.code, names, blockjit.find_blocks(prog.code, names))
    asm = cpu_target.target_context.codegen()._tm.emit_assembly(llvm.parse_assembly(text))
    print(name, asm.count("vpmaskmov"), asm.count("vpextr") + asm.count("btq"), asm.count("zmm"))
"""


def test_avx2_blocks_store_with_blends_and_make_masks_as_vectors():
    # exec/blockjit.py: a block's VGPR rows are stored whole (volatile: not folded into AVX2's
    # microcoded vpmaskmovd) and its EXEC predicates are built as vectors (lanes.lane_predicate:
    # a bitcast of the i64 mask is a bit extract per lane on AVX2)
    proc = _avx2_asm_child(BLOCK_ASM_CHILD, "mandelbrot", "nbody")
    for line in proc.stdout.strip().splitlines():
        name, masked, extracts, zmm = line.split()
        assert int(masked) == 0, f"{name}: AVX2 block code stores with vpmaskmov"
        assert int(extracts) < 64, f"{name}: AVX2 block code extracts mask bits lane by lane"
        assert int(zmm) == 0, f"{name}: AVX-512 registers in AVX2 code"
