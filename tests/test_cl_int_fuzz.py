"""Differential fuzzing of OpenCL C integer expressions (tools/cl_int_fuzz.py), fixed budget.

Random kernels over the eight integer types run on gcnemu and every output element must equal
the exact model of tools/cl_int_fuzz.py (Python integers, OpenCL C 1.2 semantics). The model
itself is checked against clang-14's constant folding: the same expressions with constant
leaves, compiled to LLVM IR, store the values LLVM computed. The generator's features (divergent
control flow, __local memory with barriers and atomics, vector types) get a smaller budget of
their own. Longer campaigns: ``python tools/cl_int_fuzz.py --cases 200 --seed S`` (see its
docstring).
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


def _assert_no_mismatch(case, runner, inputs):
    """Run the case's kernel on gcnemu and fail naming the first mismatching elements."""
    found = runner.mismatches(case.trees, inputs)
    assert not found, "\n".join(
        _describe(case.trees[m.tree], inputs.env(m.item, runner.block), m.expected, m.got)
        for m in found[:5])


def _lit(t, v):
    return Node("lit", t, (), v)


@needs_toolchain
@pytest.mark.parametrize("seed", SEEDS)
def test_generated_kernels_match_the_exact_model(seed, tmp_path):
    case = fz.make_case(seed, n_trees=8)
    runner = fz.Runner(items=256, block=64, workdir=str(tmp_path))
    rng = fz.random.Random(seed)
    for _ in range(2):
        _assert_no_mismatch(case, runner, fz.random_inputs(rng, runner.items))


def test_model_follows_the_specification_on_hand_worked_values():
    """Values worked out by hand from the OpenCL C 1.2 specification (no compiler needed)."""
    def value(node):
        return fz.evaluate(node, {})

    # a shift count is taken modulo the width of the promoted left operand: 33 & 31 = 1
    assert value(Node("shr", "uchar", (_lit("uchar", 0x80), _lit("uint", 33)))) == 0x40
    assert value(Node("shr", "char", (_lit("char", -128), _lit("int", 40)))) == -1   # 40 & 31 = 8
    assert value(Node("shr", "ulong", (_lit("ulong", 1 << 63), _lit("uint", 65)))) == 1 << 62
    # rotate takes its count modulo the element width, without promotion
    assert value(Node("call", "uchar", (_lit("uchar", 0x81), _lit("uchar", 9)), "rotate")) == 0x03
    assert value(Node("call", "ushort", (_lit("ushort", 1),), "clz")) == 15
    assert value(Node("call", "char", (_lit("char", -128), _lit("char", -128)), "mul_hi")) == 64
    assert value(Node("call", "int", (_lit("int", 2**31 - 1), _lit("int", 2**31 - 1)),
                      "hadd")) == 2**31 - 1
    assert value(Node("call", "int", (_lit("int", -3), _lit("int", 0)), "rhadd")) == -1
    assert value(Node("abs", "uchar", (_lit("char", -128),))) == 128
    # ... but the generator keeps int and long clear of libclc-14's abs(INT_MIN) (poison)
    assert value(Node("abs", "uint", (_lit("int", -2**31),))) == 2**31 - 1
    assert value(Node("upsample", "long", (_lit("int", -1), _lit("uint", 5)))) == -(2**32) + 5
    assert value(Node("sat", "uchar", (_lit("int", -7),))) == 0
    # C99 division truncates towards zero; the remainder has the dividend's sign
    assert value(Node("rem", "int", (_lit("int", -7), _lit("int", 2)), None)) == -1
    assert value(Node("div", "int", (_lit("int", -7), _lit("int", 2)), None)) == -3
    # int + uint is computed as uint
    assert value(Node("mixed", "long", (_lit("int", -1), _lit("uint", 0)), "+")) == 2**32 - 1


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


#: the new features' fixed budget: (seed, features, workgroup size), one input set of 256 items
FEATURE_CASES = ((44, ("cf", "lds", "vec"), 256), (55, ("cf", "lds", "vec"), 64))


@needs_toolchain
@pytest.mark.parametrize("seed,features,block", FEATURE_CASES, ids=("block256", "block64"))
def test_control_flow_and_local_memory_kernels_match_the_exact_model(seed, features, block,
                                                                      tmp_path):
    case = fz.make_case(seed, n_trees=8, features=features, block=block)
    src = case.source()
    assert all(w in src for w in ("barrier(", "if (", "4)(")), "a feature is not exercised"
    runner = fz.Runner(items=256, block=block, workdir=str(tmp_path))
    _assert_no_mismatch(case, runner, fz.random_inputs(fz.random.Random(seed), runner.items))


def test_control_flow_and_local_memory_model_on_hand_worked_values():
    """The cf and lds nodes' model on values worked out by hand (no compiler needed)."""
    a = Node("var", "uint", (), "A")
    r, i = Node("var", "int", (), "r1"), Node("var", "uint", (), "i1")
    never = Node("cmp", "int", (_lit("int", 0), _lit("int", 1)), "==")
    # r = 10; for i < (A & 7): r = r - i, continue when i == 2, break when i == 4
    body = Node("arith", "int", (r, Node("cast", "int", (i,))), "-")
    brk = Node("cmp", "int", (i, _lit("uint", 4)), "==")
    cont = Node("cmp", "int", (i, _lit("uint", 2)), "==")
    loop = Node("loop", "int", (a, _lit("int", 10), brk, cont, body), (1, 7))
    assert [fz.evaluate(loop, {"A": n}) for n in (0, 1, 2, 3, 4, 9, 15)] == \
        [10, 10, 9, 9, 6, 10, 6]        # 10 - 0 - 1 - 3; A & 7 = 1 for 9
    loop_no_exit = Node("loop", "int", (a, _lit("int", 0), never, never, body), (1, 3))
    assert fz.evaluate(loop_no_exit, {"A": 7}) == -3    # 7 & 3 = 3 trips: 0 - 0 - 1 - 2
    # switch (A % 5U): case 1 falls through into case 2, r = e1 then r = e2 ^ r
    sw = Node("switch", "uchar", (a, _lit("uchar", 1), _lit("uchar", 6), _lit("uchar", 3),
                                  _lit("uchar", 9)), (2,))
    assert [fz.evaluate(sw, {"A": n}) for n in range(6)] == [1, 5, 3, 9, 9, 1]
    cond = Node("if", "char", (Node("cast", "uchar", (a,)), _lit("char", -1), _lit("char", 2)),
                (3, False))
    assert fz.evaluate(cond, {"A": 0x100}) == 2 and fz.evaluate(cond, {"A": 0x101}) == -1
    # lds: item lid reads src of (lid * 3 + 1) % 4 and of 3 - lid; combine x - y
    x, y = Node("var", "short", (), "x4"), Node("var", "short", (), "y4")
    src = Node("cast", "short", (a,))
    lds = Node("lds", "short", (src, Node("neg", "short", (src,)),
                                Node("arith", "short", (x, y), "-")),
               (4, "array", 4, ("mul", 3, 1), ("rev",)))
    envs = [{"A": v} for v in (10, 20, 30, 40, 1, 2, 3, 4)]
    assert fz.expected_outputs([lds], envs, 4) == \
        [[20 + 40, 10 + 30, 40 + 20, 30 + 10, 2 + 4, 1 + 3, 4 + 2, 3 + 1]]
    # local atomics: work-item 0's src1 is the initial value, then every item's src0
    init = Node("cast", "int", (Node("arith", "uint", (a, _lit("uint", 1)), "+"),))
    for op, want in (("add", 11 + 100), ("min", 10), ("max", 40), ("xor", 11 ^ 10 ^ 20 ^ 30 ^ 40),
                     ("dec", 11 - 4), ("sub", 11 - 100)):
        at = Node("lds", "int", (Node("cast", "int", (a,)), init, Node("var", "int", (), "x5")),
                  (5, f"atomic_{op}", 4, ("rev",), ("rev",)))
        assert fz.expected_outputs([at], envs[:4], 4) == [[want] * 4], op


def test_vector_model_on_hand_worked_values():
    """The vec nodes' model on values worked out by hand from the OpenCL C 1.2 specification."""
    def vec(t, a, b, form, op, comp, extra=(), s=None):
        args = tuple(_lit(t, x) for x in a + b) + tuple(_lit(s, x) for x in extra)
        return fz.evaluate(Node("vec", t, args, (1, len(a), form, op, comp, s or t)), {})

    # a vector comparison is -1 per true component (0xff as uchar), not 1 (6.3 d)
    assert vec("uchar", [1, 2], [1, 3], "cmp", "==", 0) == 0xFF
    assert vec("long", [1, 2], [1, 3], "cmp", "<", 1) == -1
    assert vec("int", [1, 2], [1, 3], "cmp", "<", 0) == 0
    # select takes b where the mask's most significant bit is set: m = (a ^ b).yx
    assert vec("uchar", [0x80, 1], [0, 2], "select", "xor", 1) == 2      # m = (3, 0x80)
    assert vec("uchar", [0x80, 1], [0, 2], "select", "xor", 0) == 0x80
    assert vec("char", [1, -1], [2, 5], "select", "xor", 0) == 2     # (-1 ^ 5) < 0
    # vector arithmetic is not promoted: uchar4 wraps at 8 bits; shift counts modulo 8
    assert vec("uchar", [200, 0, 0, 0], [100, 0, 0, 0], "arith", "+", 0) == 44
    assert vec("char", [-128, 0], [9, 0], "shift", ">>", 0) == -64
    assert vec("short", [1, 0], [17, 0], "shift", "<<", 0) == 2
    # swizzles: (t4)(a.odd, b.even) and a.wzyx ^ b.s1032
    a4, b4 = [1, 2, 3, 4], [16, 32, 64, 128]
    assert [vec("uint", a4, b4, "swizzle", 1, k) for k in range(4)] == [2, 4, 16, 64]
    assert [vec("uint", a4, b4, "swizzle", 2, k) for k in range(4)] == [36, 19, 130, 65]
    assert vec("uchar", [0, 0], [0, 0], "sat", None, 1, (-5, 300), "int") == 255
    assert [vec("int", a4, b4, "vload", None, k) for k in range(4)] == [2, 3, 4, 16]


@needs_llvm
def test_model_agrees_with_clang_on_control_flow_and_vectors():
    """clang folds the cf nodes (loops unrolled) and vec nodes of generated kernels like the
    model does."""
    assert fz.fold_check(seed=7, n_trees=8, envs=1, features=("cf", "lds", "vec")) == []
