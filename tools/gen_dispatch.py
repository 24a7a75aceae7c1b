"""Regenerate gcnemu/exec/dispatch_gen.py: the engine's per-opcode dispatch for SALU and VALU ops.

The semantics modules (gcnemu/sem/salu.py, valu_int.py, valu_float.py) define one numba
function per mnemonic and list them in SEMANTICS. This script writes, for every such op, a
function that runs it over the lanes (VALU) or once (SALU), each compiled on its own the first
time a program uses the op (gcnemu/exec/opkernels.py). Generated source lives in a
stable file so numba's cache stays valid between runs; tests/test_dispatch_gen.py checks that
the committed file matches what this script would write now.

Run from the repository root:  python tools/gen_dispatch.py
"""
from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

VALU_MODULES = ("valu_int", "valu_float")
SALU_MODULES = ("salu",)


def collect(modules):
    """(name, module) for every op in the modules' SEMANTICS; a name twice is an error."""
    ops, seen = [], {}
    for mod in modules:
        m = importlib.import_module(f"gcnemu.sem.{mod}")
        for name in sorted(m.SEMANTICS):
            if name in seen:
                raise SystemExit(f"{name} is defined in both gcnemu.sem.{seen[name]} and gcnemu.sem.{mod}")
            seen[name] = mod
            ops.append((name, mod))
    return ops


def flag_producing_ops() -> set:
    """Ops whose per-lane flag matters: compares, carry/borrow outputs, v_div_scale."""
    from gcnemu.sem import valu_int
    ops = set(valu_int.SDST_OUT_OPS)
    for mod in VALU_MODULES:
        m = importlib.import_module(f"gcnemu.sem.{mod}")
        ops |= {n for n in m.SEMANTICS if n.startswith("v_cmp") or n.startswith("v_div_scale")}
    return ops


def _lane_form_table(attr: str) -> dict:
    """op -> name of the lane form the semantics modules list in their table ``attr``."""
    out = {}
    for mod in VALU_MODULES:
        m = importlib.import_module(f"gcnemu.sem.{mod}")
        for name, fn in getattr(m, attr, {}).items():
            out[name] = fn.__name__ if hasattr(fn, "__name__") else fn.py_func.__name__
    return out


def row_fast_ops() -> dict:
    """op -> name of its quick lane form (ROW_FAST of the semantics modules): the row kernel
    runs the quick form on every lane and the op itself only where the quick form declines."""
    return _lane_form_table("ROW_FAST")


def plain32_ops() -> dict:
    """op -> name of its plain round-to-nearest-even uint32 form (PLAIN32 of the semantics
    modules): the 32-bit row kernel runs it on every lane and the op itself on the whole row
    when MODE rounds otherwise or any lane is odd."""
    return _lane_form_table("PLAIN32")


def plain_compare(name: str):
    """(module, predicate index) of an f32 compare with a plain host form, else None."""
    m = re.fullmatch(r"v_cmps?x?_([a-z]+)_f32", name)
    if not m:
        return None
    from gcnemu.sem import valu_float
    preds = valu_float.CMP_PREDICATES
    return ("valu_float", preds.index(m.group(1))) if m.group(1) in preds else None


def render_row32(w, name, mod, flag_ops, row_fast, plain32):
    """The 32-bit row kernel of one op: uint32 source rows read in place, the result written to
    the destination row under EXEC by one masked store (lanes.store_masked); res is a scratch
    of three rows (result, per-lane flag, declined lanes) whose flags lanes.lane_mask packs."""
    lane = f"_{mod}.{name}(np.uint64(s0[l]), np.uint64(s1[l]), np.uint64(s2[l]), (cin >> np.uint64(l)) & np.uint64(1), l, mode)"
    w("")
    w("")
    # the C-callable kernel itself, its rows as arrays over the addresses (no inner numba
    # function: a call passing five array structs cost ~3 ns a row, and creating ~460 numba
    # dispatchers for them ~0.14 s of every start-up)
    w(f"def _c32_{name}(pd, p0, p1, p2, pres, cin, exec_mask, mode):")
    if not name.startswith("v_cmp"):   # compares write no VGPR
        w("    d = carray(pd, 64)")
    if name == "v_mov_b32":
        w("    s0 = carray(p0, 64)")
    else:
        w("    s0, s1, s2 = carray(p0, 64), carray(p1, 64), carray(p2, 64)")
        w("    res = carray(pres, 192)")
    if name == "v_mov_b32":
        # a copy: straight from the source row (the loop below would be unrolled into
        # scalar copies, LLVM unable to rule out that res overlaps s0)
        w("    store_masked(d.ctypes.data, s0.ctypes.data, exec_mask)")
        w("    return np.uint64(0)")
    elif plain_compare(name) is not None:
        # the host's compare over all lanes unless an operand is odd (denormal or NaN)
        cmod, pred = plain_compare(name)
        render_plain_keys(w, "    ", cmod,
                          f"f, klo, khi = _{cmod}._plain_cmp_f32(s0[l], s1[l], {pred}, {{exact}})",
                          "res[64 + l] = np.uint32(f)", ["return lane_mask(res.ctypes.data + 256)"])
        render_row32_body(w, name, lane, flag_ops, row_fast)
    elif name in plain32:
        if name == "v_div_fmas_f32":  # an fma where no active lane has VCC set
            w("    if (mode & 3) == 0 and (cin & exec_mask) == np.uint64(0):")
        else:
            w("    if (mode & 3) == 0:")
        # (flags clear: the plain cases of flag ops have none)
        render_plain_keys(w, "        ", mod,
                          f"r, klo, khi = _{mod}.{plain32[name]}(s0[l], s1[l], s2[l], {{exact}})",
                          "res[l] = r", ["store_masked(d.ctypes.data, res.ctypes.data, exec_mask)",
                                         "return np.uint64(0)"])
        render_row32_body(w, name, lane, flag_ops, row_fast)
    else:
        render_row32_body(w, name, lane, flag_ops, row_fast)


def render_plain_keys(w, ind, mod, call, keep, done):
    """The plain host form over the row (valu_float's "plain f32 rows"), indented by ``ind``:
    the assignment ``call`` (``{exact}`` left to fill) on every lane, ``keep`` storing its
    result, the keys folded; the lines ``done`` when no lane is odd. A first pass with the
    cheaper keys marks zeros and denormals alike; only a row that has one runs the exact
    denormal keys, so the rows that go on to the op itself are those the exact keys alone
    would send."""
    for line in ["lo = np.uint32(0xFFFFFFFF)",
                 "hi = np.uint32(0)",
                 "for l in range(64):",
                 "    " + call.format(exact="False"),
                 "    " + keep,
                 "    lo = min(lo, klo)",
                 "    hi = max(hi, khi)",
                 f"if hi <= _{mod}.NAN_KEY:",
                 f"    if lo < _{mod}.EXPONENT_KEY:  # a zero or a denormal: which, the exact keys say",
                 "        lo = np.uint32(0xFFFFFFFF)",
                 "        for l in range(64):",
                 "            " + call.format(exact="True"),
                 "            lo = min(lo, klo)",
                 f"    if lo >= _{mod}.DENORMAL_KEY:"] + ["        " + d for d in done]:
        w(ind + line)


def render_row32_body(w, name, lane, flag_ops, row_fast):
    """The general lines of a 32-bit row kernel: the op (or its quick form) on every lane."""
    mod = lane[1:lane.index(".")]
    if name in row_fast:
        # res[64:128] holds the lanes' flags, res[128:192] where the quick form declined
        q = f"_{mod}.{row_fast[name]}"
        w("    for l in range(64):")
        w(f"        r, f, ok = {q}(np.uint64(s0[l]), np.uint64(s1[l]), np.uint64(s2[l]), (cin >> np.uint64(l)) & np.uint64(1), l, mode)")
        w("        res[l] = np.uint32(r)")
        w("        res[64 + l] = np.uint32(f)")
        w("        res[128 + l] = np.uint32(not ok)")
        w("    flags = lane_mask(res.ctypes.data + 256)")
        w("    slow = lane_mask(res.ctypes.data + 512) & exec_mask")
        w("    if slow != np.uint64(0):")
        w("        for l in range(64):")
        w("            if (slow >> np.uint64(l)) & np.uint64(1):")
        w(f"                r, f = {lane}")
        w("                res[l] = np.uint32(r)")
        w("                bit = np.uint64(1) << np.uint64(l)")
        w("                flags = (flags & ~bit) | (np.uint64(f) << np.uint64(l))")
        w("    store_masked(d.ctypes.data, res.ctypes.data, exec_mask)")
        w("    return flags")
    elif name in flag_ops:
        w("    for l in range(64):")
        w(f"        r, f = {lane}")
        w("        res[l] = np.uint32(r)")
        w("        res[64 + l] = np.uint32(f)")
        if not name.startswith("v_cmp"):  # compares write no VGPR
            w("    store_masked(d.ctypes.data, res.ctypes.data, exec_mask)")
        w("    return lane_mask(res.ctypes.data + 256)")
    else:
        w("    for l in range(64):")
        w(f"        res[l] = np.uint32({lane}[0])")
        w("    store_masked(d.ctypes.data, res.ctypes.data, exec_mask)")
        w("    return np.uint64(0)")


def render() -> str:
    valu = collect(VALU_MODULES)
    valu = [(n, m) for n, m in valu if n != "v_mqsad_u32_u8"]  # 128-bit: the engine runs it
    salu = collect(SALU_MODULES)
    out = []
    w = out.append
    w('"""Generated by tools/gen_dispatch.py from the SEMANTICS tables in gcnemu/sem. Do not edit.')
    w("")
    w("VALU ops: for each op a C-callable row kernel `_cf_<op>` that runs the op over all 64")
    w("lanes (ops are pure, so inactive lanes cost nothing but time and the engine writes only")
    w("active lanes; a loop without a per-lane branch vectorises), which gcnemu.exec.opkernels")
    w("compiles on first use (cached on disk) and hands to the engine as a function address, so")
    w("only the ops a program uses are ever compiled. Instructions whose operands are all 32-bit")
    w("use the 32-bit form instead, `_c32_<op>`: uint32 rows read in place (VGPRs as they are),")
    w("the result stored into the destination VGPR under EXEC. SALU ops: for each")
    w("op a C-callable `_cs_<op>(s0, s1, d, scc, scc_out)` that returns the result and stores")
    w("the new SCC at scc_out, compiled the first time a program uses the op")
    w("(gcnemu.exec.opkernels.salu_address), like the VALU ops.")
    w('"""')
    w("import numpy as np")
    w("from numba import carray")
    w("")
    mods = sorted({m for _, m in valu} | {m for _, m in salu})
    for m in mods:
        w(f"from ..sem import {m} as _{m}")
    w("from .lanes import lane_mask, store_masked")
    w("")
    if any(n == "v_mqsad_u32_u8" for n, _ in collect(VALU_MODULES)):
        w("v_mqsad_u32_u8 = _valu_int.v_mqsad_u32_u8  # 128-bit result: the engine calls it itself")
        w("")
    w("VALU_NAMES = (")
    for n, _ in valu:
        w(f'    "{n}",')
    w(")")
    w("SALU_NAMES = (")
    for n, _ in salu:
        w(f'    "{n}",')
    w(")")
    flag_ops = flag_producing_ops()
    row_fast = row_fast_ops()
    plain32 = plain32_ops()
    for name, mod in valu:
        w("")
        w("")
        w(f"def _cf_{name}(p0, p1, p2, pres, cin, exec_mask, mode):")
        w("    s0, s1, s2, res = carray(p0, 64), carray(p1, 64), carray(p2, 64), carray(pres, 64)")
        if name in row_fast:
            # the quick form over all lanes (vectorised), then the op on active lanes it declined
            q = f"_{mod}.{row_fast[name]}"
            w("    flags = np.uint64(0)")
            w("    slow = np.uint64(0)")
            w("    for l in range(64):")
            w(f"        r, f, ok = {q}(s0[l], s1[l], s2[l], (cin >> np.uint64(l)) & np.uint64(1), l, mode)")
            w("        res[l] = r")
            w("        flags |= np.uint64(f) << np.uint64(l)")
            w("        slow |= np.uint64(not ok) << np.uint64(l)")
            w("    slow &= exec_mask")
            w("    if slow != np.uint64(0):")
            w("        for l in range(64):")
            w("            if (slow >> np.uint64(l)) & np.uint64(1):")
            w(f"                r, f = _{mod}.{name}(s0[l], s1[l], s2[l], (cin >> np.uint64(l)) & np.uint64(1), l, mode)")
            w("                res[l] = r")
            w("                bit = np.uint64(1) << np.uint64(l)")
            w("                flags = (flags & ~bit) | (np.uint64(f) << np.uint64(l))")
            w("    return flags")
        elif name in flag_ops:
            w("    flags = np.uint64(0)")
            w("    for l in range(64):")
            w(f"        r, f = _{mod}.{name}(s0[l], s1[l], s2[l], (cin >> np.uint64(l)) & np.uint64(1), l, mode)")
            w("        res[l] = r")
            w("        flags |= np.uint64(f) << np.uint64(l)")
            w("    return flags")
        else:
            w("    for l in range(64):")
            w(f"        res[l] = _{mod}.{name}(s0[l], s1[l], s2[l], (cin >> np.uint64(l)) & np.uint64(1), l, mode)[0]")
            w("    return np.uint64(0)")
        render_row32(w, name, mod, flag_ops, row_fast, plain32)
    for name, mod in salu:
        w("")
        w("")
        w(f"def _cs_{name}(s0, s1, d, scc, scc_out):")
        w(f"    r, c = _{mod}.{name}(s0, s1, d, scc)")
        w("    carray(scc_out, 1)[0] = np.uint64(c)")
        w("    return np.uint64(r)")
    w("")
    return "\n".join(out)


def main():
    path = ROOT / "gcnemu" / "exec" / "dispatch_gen.py"
    text = render()
    path.write_text(text)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
