"""Differential fuzzing of OpenCL C integer expressions (tools/cl_int_fuzz.py), fixed budget.

Random kernels over the eight integer types run on gcnemu and every output element must equal
the exact model of tools/cl_int_fuzz.py (Python integers, OpenCL C 1.2 semantics). The model
itself is checked against clang-14's constant folding: the same expressions with constant
leaves, compiled to LLVM IR, store the values LLVM computed. Longer campaigns:
``python tools/cl_int_fuzz.py --cases 200 --seed S`` (see its docstring).
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from gcnemu.loader import opencl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import cl_int_fuzz as fz  # noqa: E402
from cl_int_fuzz import Node  # noqa: E402

needs_toolchain = pytest.mark.skipif(
    any(shutil.which(tool) is None for tool in ("clang-14", "ld.lld-14"))
    or not Path(opencl.LIBCLC).is_file(),
    reason="clang-14, lld-14 and libclc-14 are not installed")
needs_llvm = pytest.mark.skipif(
    any(shutil.which(tool) is None for tool in ("clang-14", "opt-14"))
    or not Path(opencl.LIBCLC).is_file(),
    reason="clang-14, libclc-14 and opt-14 (llvm-14) are not installed")

#: the fixed budget: 3 kernels of 8 expressions, 2 input sets of 256 work-items each
SEEDS = (11, 22, 33)


def _describe(tree: Node, env: dict, expected, got) -> str:
    return f"{fz.render(tree)}\n  env {env}: expected {expected}, got {got}"


@needs_toolchain
@pytest.mark.parametrize("seed", SEEDS)
def test_generated_kernels_match_the_exact_model(seed, tmp_path):
    case = fz.make_case(seed, n_trees=8)
    runner = fz.Runner(items=256, block=64, workdir=str(tmp_path))
    rng = fz.random.Random(seed)
    for _ in range(2):
        inputs = fz.random_inputs(rng, runner.items)
        found = runner.mismatches(case.trees, inputs)
        assert not found, "\n".join(
            _describe(case.trees[m.tree], inputs.env(m.item, runner.block), m.expected, m.got)
            for m in found[:5])


def test_model_follows_the_specification_on_hand_worked_values():
    """Values worked out by hand from the OpenCL C 1.2 specification (no compiler needed)."""
    def lit(t, v):
        return Node("lit", t, (), v)

    def value(node):
        return fz.evaluate(node, {})

    # a shift count is taken modulo the width of the promoted left operand: 33 & 31 = 1
    assert value(Node("shr", "uchar", (lit("uchar", 0x80), lit("uint", 33)))) == 0x40
    assert value(Node("shr", "char", (lit("char", -128), lit("int", 40)))) == -1   # 40 & 31 = 8
    assert value(Node("shr", "ulong", (lit("ulong", 1 << 63), lit("uint", 65)))) == 1 << 62
    # rotate takes its count modulo the element width, without promotion
    assert value(Node("call", "uchar", (lit("uchar", 0x81), lit("uchar", 9)), "rotate")) == 0x03
    assert value(Node("call", "ushort", (lit("ushort", 1),), "clz")) == 15
    assert value(Node("call", "char", (lit("char", -128), lit("char", -128)), "mul_hi")) == 64
    assert value(Node("call", "int", (lit("int", 2**31 - 1), lit("int", 2**31 - 1)),
                      "hadd")) == 2**31 - 1
    assert value(Node("call", "int", (lit("int", -3), lit("int", 0)), "rhadd")) == -1
    assert value(Node("abs", "uchar", (lit("char", -128),))) == 128
    # ... but the generator keeps int and long clear of libclc-14's abs(INT_MIN) (poison)
    assert value(Node("abs", "uint", (lit("int", -2**31),))) == 2**31 - 1
    assert value(Node("upsample", "long", (lit("int", -1), lit("uint", 5)))) == -(2**32) + 5
    assert value(Node("sat", "uchar", (lit("int", -7),))) == 0
    # C99 division truncates towards zero; the remainder has the dividend's sign
    assert value(Node("rem", "int", (lit("int", -7), lit("int", 2)), None)) == -1
    assert value(Node("div", "int", (lit("int", -7), lit("int", 2)), None)) == -3
    # int + uint is computed as uint
    assert value(Node("mixed", "long", (lit("int", -1), lit("uint", 0)), "+")) == 2**32 - 1


def _coverage_trees() -> list:
    """One tree per operator and type, over the variables, for the folding comparison."""
    trees = []
    for t in fz.TYPE_NAMES:
        x = Node("cast", t, (Node("var", "uint", (), "A"),))
        y = Node("cast", t, (Node("var", "uint", (), "B"),))
        w = Node("cast", t, (Node("var", "ulong", (), "C"),))
        trees += [Node("sat", t, (Node("cast", "long", (Node("var", "ulong", (), "C"),)),)),
                  Node("sat", t, (Node("var", "ulong", (), "C"),)),
                  Node("not", t, (x,)), Node("neg", t, (w,)),
                  Node("shl", t, (x, y)), Node("shr", t, (w, y)),
                  Node("cond", t, (Node("cast", "char", (Node("var", "uint", (), "B"),)), x, w)),
                  Node("select", t, (x, y, Node("cast", fz.SIGNED_OF[t], (w,)))),
                  Node("clamp", t, (x, y, w)), Node("mad_hi", t, (x, y, w)),
                  Node("div", t, (w, Node("lit", t, (), 7)), None),
                  Node("rem", t, (w, Node("lit", t, (), -3 if fz.is_signed(t) else 10)),
                       None)]
        trees += [Node("arith", t, (x, w), op) for op in fz.ARITH_OPS]
        trees += [Node("bit", t, (w, y), op) for op in fz.BIT_OPS]
        guards = fz.DIV_GUARDS if fz.is_signed(t) and fz.bits_of(t) >= 32 else ("or1", "max1")
        for guard in guards:
            trees += [Node(op, t, (w, x), guard) for op in ("div", "rem")]
        for name, arity in fz.SAME_TYPE_CALLS.items():
            if (name, t) not in fz.KNOWN_LIBCLC_BUGS:
                trees.append(Node("call", t, (x, y, w)[:arity], name))
        if not fz.is_signed(t):
            s = fz.SIGNED_OF[t]
            trees += [Node("abs", t, (Node("cast", s, (w,)),)),
                      Node("abs_diff", t, (Node("cast", s, (x,)), Node("cast", s, (w,))))]
        if t in ("int", "uint"):
            for bits in ((24, 7), (16, 15)) if t == "int" else ((24, 24), (16, 16)):
                trees += [Node("mul24", t, (x, w), bits), Node("mad24", t, (x, w, y), bits)]
        if t in fz.UPSAMPLE_HI:
            hi = fz.UPSAMPLE_HI[t]
            trees.append(Node("upsample", t, (Node("cast", hi, (w,)),
                                              Node("cast", fz.UNSIGNED_OF[hi], (x,)))))
    a, c = Node("var", "uint", (), "A"), Node("var", "ulong", (), "C")
    for op in fz.CMP_OPS:
        trees += [Node("cmp", "int", (Node("cast", "char", (a,)), Node("cast", "char", (c,))), op),
                  Node("cmp", "int", (c, Node("cast", "ulong", (a,))), op),
                  Node("cmp", "int", (Node("cast", "long", (c,)), Node("cast", "long", (a,))), op)]
    trees += [Node("lnot", "int", (c,)), Node("logic", "int", (a, c), "&&"),
              Node("logic", "int", (a, Node("cast", "uchar", (c,))), "||")]
    for t1, t2 in (("int", "uint"), ("int", "ulong"), ("char", "ushort"), ("uint", "long")):
        ops = fz.BIT_OPS + (fz.ARITH_OPS if not fz.is_signed(fz.arithmetic_conversion(t1, t2))
                            else ())
        trees += [Node("mixed", "long", (Node("cast", t1, (a,)), Node("cast", t2, (c,))), op)
                  for op in ops]
    return trees


#: leaf values of the folding comparison: edge values (shift counts past the width, MIN / -1
#: where the guards must step in, sign bits set) and one arbitrary set
FOLD_ENVS = (
    {"A": 0x80000000, "B": 0xFFFFFFFF, "C": 0x8000000000000000},
    {"A": 0x7F, "B": 0x21, "C": 0xFFFFFFFFFFFFFF80},
    {"A": 0xDEADBEEF, "B": 0x00012345, "C": 0x0123456789ABCDEF},
)


@needs_llvm
@pytest.mark.parametrize("leaves", FOLD_ENVS, ids=("min", "small", "mixed"))
def test_model_agrees_with_clangs_constant_folding(leaves):
    trees = _coverage_trees()
    env = {name: 0 for name in fz.VARS} | leaves
    folded = fz.clang_fold(trees, env)
    bad = [_describe(tree, leaves, fz.evaluate(tree, env), got)
           for tree, got in zip(trees, folded) if fz.evaluate(tree, env) != got]
    assert not bad, f"{len(bad)} of {len(trees)} differ from clang:\n" + "\n".join(bad[:10])


@needs_llvm
def test_model_agrees_with_clang_on_generated_expressions():
    assert fz.fold_check(seed=5, n_trees=12, envs=1) == []
