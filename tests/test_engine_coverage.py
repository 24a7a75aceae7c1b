"""Every gfx7 SOP1/SOP2/SOPK/SOPC/SOPP/VOP1/VOP2/VOPC/VOP3 opcode runs in the engine.

The instances are built generically from the operand kinds in the ISA table
(gcnemu.isa.table.InstrDef.operands), never by hand per opcode. Each instance is checked to
encode exactly the (encoding, opcode) of its row, using the bit layouts from the ISA
documents (written out below, independent of gcnemu.isa.encoding), and then run:
it must finish, or raise an ExecutionError saying "not implemented" (collected and listed
in the failure message), or one of the few documented errors an instruction raises by
design (s_trap with no trap handler).
"""
import numpy as np
import pytest

from gcnemu.errors import ExecutionError
from gcnemu.isa.table import by_name, instructions, operand_kinds
from gcnemu.snippet import run_snippet

from snippets import assemble

FAMILIES = ("SOP1", "SOP2", "SOPK", "SOPC", "SOPP", "VOP1", "VOP2", "VOPC", "VOP3")
NON_OPERAND_KINDS = {"mod", "clamp", "omod", "type_dev"}
# register bases per operand role: sources and destinations never overlap
SGPR_BASE = {"sdst": 10, "ssrc": 2, "ssrc0": 2, "ssrc1": 4, "ssrc2": 6}
VGPR_BASE = {"vdst": 10, "src": 2, "src0": 2, "src1": 4, "src2": 6,
             "vsrc": 2, "vsrc0": 2, "vsrc1": 4, "vsrc2": 6}
IMMEDIATES = {"simm16": "1", "uimm16": "1", "bimm16": "0", "label": "L",
              "hwreg": "hwreg(HW_REG_MODE)", "msg": "1", "waitcnt": "0", "fimm32": "1.0",
              "bimm32": "0x3f0"}
# errors that an instruction raises by design in a snippet without a trap handler
EXPECTED_ERRORS = {"s_trap": "no trap handler"}
M32_ = 0xFFFFFFFF

# (encoding) -> (fixed-bits mask, fixed-bits value, opcode shift, opcode mask) from the
# GCN3/Sea Islands ISA microcode formats
LAYOUT = {
    "SOP2": (0xC0000000, 0x80000000, 23, 0x7F),
    "SOPK": (0xF0000000, 0xB0000000, 23, 0x1F),
    "SOP1": (0xFF800000, 0xBE800000, 8, 0xFF),
    "SOPC": (0xFF800000, 0xBF000000, 16, 0x7F),
    "SOPP": (0xFF800000, 0xBF800000, 16, 0x7F),
    "VOP1": (0xFE000000, 0x7E000000, 9, 0xFF),
    "VOPC": (0xFE000000, 0x7C000000, 17, 0xFF),
    "VOP2": (0x80000000, 0x00000000, 25, 0x3F),
    "VOP3": (0xFC000000, 0xD0000000, 17, 0x1FF),
}


def _width(kind: str) -> int:
    for w, n in (("512", 16), ("256", 8), ("128", 4), ("96", 3), ("64", 2), ("32", 1)):
        if w in kind:
            return n
    return 1


def _reg(prefix: str, base: int, n: int) -> str:
    return f"{prefix}{base}" if n == 1 else f"{prefix}[{base}:{base + n - 1}]"


def operand_text(role: str, kind: str) -> str:
    """A valid operand of this kind: a register of the right width, or an immediate."""
    if kind == "vcc_64":
        return "vcc"
    if kind.startswith(("sdst", "ssrc")):
        return _reg("s", SGPR_BASE.get(role, 10 if "dst" in role else 2), _width(kind))
    if kind.startswith(("vdst", "vsrc", "src")):
        return _reg("v", VGPR_BASE.get(role, 10 if "dst" in role else 2), _width(kind))
    return IMMEDIATES[kind]


def instance(defn) -> str:
    """Assembly text of one instance of a table row, forcing its encoding by suffix."""
    name = defn.name
    encodings = by_name().get(name, {})
    if defn.encoding == "VOP3" and len(encodings) > 1:
        name += "_e64"
    elif defn.encoding in ("VOP1", "VOP2", "VOPC") and "VOP3" in encodings:
        name += "_e32"
    ops, scalar_reads = [], 0
    vector = defn.encoding.startswith("VOP")
    for role, kind in defn.operands:
        if kind in NON_OPERAND_KINDS:
            continue
        text = operand_text(role, kind)
        if vector and kind.startswith("ssrc"):
            # VALU constant bus: one SGPR read at most; later scalar sources take an inline
            # constant where their kind accepts one
            scalar_reads += 1
            classes = operand_kinds().get(kind, (None, frozenset()))[1]
            if scalar_reads > 1 and classes & {"iconst", "constant"}:
                text = "1"
        ops.append(text)
    return f"{name} {', '.join(ops)}".strip()


def gfx7_rows():
    return [d for d in instructions() if "11" in d.gens and d.encoding in FAMILIES]


def run_instance(defn):
    """Assemble `<instance>; L: s_endpgm` and run it. SGPR pairs s[0:9] hold the byte offset
    of the s_endpgm (so s_setpc/s_swappc/s_rfe/g_fork/join land on it), M0 = 0 (movrel)."""
    text = instance(defn)
    body = assemble(text + "\nL:")
    word = int.from_bytes(body[:4], "little")
    fixed_mask, fixed, shift, opmask = LAYOUT[defn.encoding]
    assert word & fixed_mask == fixed and (word >> shift) & opmask == defn.opcode, \
        f"{text!r} did not encode as {defn.encoding} opcode {defn.opcode}: {word:#010x}"
    prog = body + assemble("s_endpgm")
    sgpr = {i: (len(body) if i % 2 == 0 else 0) for i in range(10)}
    vgpr = {i: 0x3F800000 + i for i in range(16)}
    return text, run_snippet(prog, sgpr=sgpr, vgpr=vgpr, m0=0, step_limit=100)


def test_table_has_the_families():
    rows = gfx7_rows()
    counts = {f: sum(1 for d in rows if d.encoding == f) for f in FAMILIES}
    # every family is present, VOP3 holds the promoted VOP1/VOP2/VOPC forms
    assert all(counts[f] > 0 for f in FAMILIES), counts
    assert counts["VOP3"] > counts["VOPC"] + counts["VOP1"]


def test_every_salu_valu_opcode_is_implemented():
    not_implemented, unexpected, bad_message = [], [], []
    ran = 0
    for d in gfx7_rows():
        try:
            text, st = run_instance(d)
            assert st.status in ("done", "halted", "barrier"), (text, st.status)
            ran += 1
        except ExecutionError as e:
            msg = str(e)
            if "not implemented" in msg:
                not_implemented.append(f"{d.encoding} {d.opcode} {d.name}")
                if d.name not in msg or "pc 0x0" not in msg:
                    bad_message.append(msg)
            elif d.name in EXPECTED_ERRORS and EXPECTED_ERRORS[d.name] in msg:
                ran += 1
            else:
                unexpected.append(f"{d.encoding} {d.opcode} {d.name}: {msg}")
    assert not bad_message, "not-implemented errors must name the instruction and PC:\n" + \
        "\n".join(bad_message)
    assert not unexpected, "unexpected execution errors:\n" + "\n".join(unexpected)
    assert not not_implemented, (f"{len(not_implemented)} gfx7 opcodes are not implemented "
                                 f"(ran {ran}):\n" + "\n".join(not_implemented))


@pytest.mark.parametrize("name", ["s_add_u32", "v_add_f32", "v_cmp_lt_f32", "v_mad_f32",
                                  "s_setpc_b64", "s_cbranch_scc0"])
def test_instance_builder_makes_valid_instances(name):
    # a sanity check of the generic builder itself on a few shapes
    for d in by_name()[name].values():
        text, st = run_instance(d)
        assert st.status == "done", text


VECTOR = ("VOP1", "VOP2", "VOPC", "VOP3")
# cross-lane ops that ignore EXEC by definition (CLRX: "Ignores EXEC mask")
IGNORES_EXEC = {"v_readlane_b32", "v_writelane_b32", "v_readfirstlane_b32"}


def test_every_valu_opcode_honours_exec():
    """Every VOP1/VOP2/VOPC/VOP3 row, run with a partial EXEC: destination lanes that are off
    keep their old values, and lane-mask outputs (compares, carries) hold 0 for them."""
    ex = 0x0F0F_0000_FFFF_1234
    sentinel = np.array([0xA5A50000 | l for l in range(64)], np.uint32)
    problems = []
    for d in gfx7_rows():
        if d.encoding not in VECTOR or d.name in IGNORES_EXEC or d.name == "v_nop":
            continue
        text = instance(d)
        prog = assemble(text + "\ns_endpgm")
        vgpr = {i: 0x3F800000 + 0x10000 * i for i in range(2, 10)}
        vgpr.update({i: sentinel for i in range(10, 16)})
        try:
            st = run_snippet(prog, sgpr={i: 0x40 + i for i in range(10)} | {10: M32_, 11: M32_},
                             vgpr=vgpr, m0=0, vcc=(1 << 64) - 1, exec_mask=ex, step_limit=100)
        except ExecutionError as e:
            problems.append(f"{text}: {e}")
            continue
        off = [l for l in range(64) if not (ex >> l) & 1]
        for r in range(10, 16):
            bad = [l for l in off if st.vgpr[r][l] != sentinel[l]]
            if bad:
                problems.append(f"{text}: v{r} changed in inactive lanes {bad[:4]}")
                break
        roles = {r for r, _ in d.operands}
        masks = []
        if "VCC" in d.writes:
            masks.append(("vcc", st.vcc))
        if "sdst" in roles and any(k.startswith("sdst64") for _, k in d.operands):
            masks.append(("s[10:11]", int(st.sgpr[10]) | int(st.sgpr[11]) << 32))
        for name, m in masks:
            if m & ~ex:
                problems.append(f"{text}: {name} = {m:#018x} has bits of inactive lanes")
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)


def _short_and_long_pairs():
    out = []
    for name, encs in sorted(by_name().items()):
        short = [encs[f] for f in ("VOP1", "VOP2", "VOPC") if f in encs]
        if short and "VOP3" in encs and name not in IGNORES_EXEC and name != "v_nop":
            out.append((short[0], encs["VOP3"]))
    return out


def test_e32_and_e64_encodings_agree():
    """Every op with both a VOP1/VOP2/VOPC and a VOP3 encoding gives the same bits in both
    (same inputs, no modifiers): the decoder and operand routing of the two forms agree.
    Lane-mask outputs go to VCC in the short form and to s[10:11] in the VOP3 form; the
    carry-in comes from VCC and from s[6:7] respectively."""
    rng = np.random.default_rng(5)
    vals = rng.integers(0, 1 << 32, size=(8, 64), dtype=np.uint64).astype(np.uint32)
    vals[:, :16] = np.array([0, 1, 0x3F800000, 0xBF800000, 0x7F800000, 0x7FC00000, 0x80000000,
                             0x00000001, 0x40490FDB, 5, 31, 32, 0xFFFFFFFF, 0x4B000000,
                             0x3EAAAAAB, 0x00800000], np.uint32)
    carry = 0x5A5A_3C3C_F0F0_9999
    vgpr = {2 + i: vals[i] for i in range(8)}
    sgpr = {6: carry & M32_, 7: carry >> 32, 2: 0x40, 3: 0, 4: 0x41, 5: 0}
    diffs = []
    for short, long_ in _short_and_long_pairs():
        results = []
        for d in (short, long_):
            st = run_snippet(assemble(instance(d) + "\ns_endpgm"), sgpr=sgpr, vgpr=vgpr, m0=0,
                             vcc=carry, step_limit=100)
            mask = st.vcc if d is short else int(st.sgpr[10]) | int(st.sgpr[11]) << 32
            writes_mask = "VCC" in short.writes
            results.append((st.vgpr[10:16].copy(), mask if writes_mask else None, st.exec))
        (v1, m1, e1), (v2, m2, e2) = results
        if not np.array_equal(v1, v2):
            lane = int(np.argwhere(v1 != v2)[0][1])
            diffs.append(f"{short.name}: VGPR results differ (lane {lane}: "
                         f"{[hex(int(x)) for x in v1[:, lane]]} vs {[hex(int(x)) for x in v2[:, lane]]})")
        if m1 != m2:
            diffs.append(f"{short.name}: lane masks differ: {m1:#x} vs {m2:#x}")
        if e1 != e2:
            diffs.append(f"{short.name}: EXEC differs: {e1:#x} vs {e2:#x}")
    assert not diffs, f"{len(diffs)} ops differ between encodings:\n" + "\n".join(diffs)


def _float_result_bits(name):
    """Width in bits of a float result (32/64), or None when the result is not a float."""
    parts = name.split("_")
    if name.startswith(("v_cmp", "v_readlane", "v_writelane")):
        return None
    if name.startswith("v_cvt_") or name.startswith("v_frexp_exp"):
        t = parts[2]
    else:
        t = parts[-1]
    return {"f32": 32, "f64": 64}.get(t)


def test_vop3_clamp_on_every_float_op():
    """For every VOP3 row with a clamp bit and a float result, `op ... clamp` equals the
    unclamped result clamped to [0, 1] (NaN -> 0)."""
    import struct
    rng = np.random.default_rng(8)
    fl = rng.uniform(-3, 3, size=(8, 64)).astype(np.float32)
    vals = fl.view(np.uint32).copy()
    vals[:, :6] = np.array([0x7FC00000, 0x3F800000, 0x3F000000, 0xBF000000, 0x40000000, 0],
                           np.uint32)
    vgpr = {2 + i: vals[i] for i in range(8)}
    problems = []
    for d in gfx7_rows():
        if d.encoding != "VOP3" or not any(k == "clamp" for _, k in d.operands):
            continue
        bits = _float_result_bits(d.name)
        if bits is None:
            continue
        text = instance(d)
        plain = run_snippet(assemble(text + "\ns_endpgm"), vgpr=vgpr, m0=0, step_limit=100)
        clamped = run_snippet(assemble(text + " clamp\ns_endpgm"), vgpr=vgpr, m0=0, step_limit=100)
        for l in range(64):
            if bits == 32:
                x = struct.unpack("<f", struct.pack("<I", int(plain.vgpr[10][l])))[0]
                g = struct.unpack("<f", struct.pack("<I", int(clamped.vgpr[10][l])))[0]
            else:
                x = struct.unpack("<d", struct.pack("<Q", int(plain.vgpr[10][l]) | int(plain.vgpr[11][l]) << 32))[0]
                g = struct.unpack("<d", struct.pack("<Q", int(clamped.vgpr[10][l]) | int(clamped.vgpr[11][l]) << 32))[0]
            exp = 0.0 if (x != x or x <= 0) else min(x, 1.0)
            if g != exp or g != g:
                problems.append(f"{text} clamp, lane {l}: unclamped {x!r}, clamped {g!r}, "
                                f"expected {exp!r}")
                break
    assert not problems, f"{len(problems)} ops:\n" + "\n".join(problems)


def test_vop3_omod_on_every_float_op():
    """With denormals flushed (MODE 0x300: OMOD works only then, per CLRX), `op ... mul:2`,
    `mul:4`, `div:2` scale the unmodified result exactly (checked where the scaled value is
    a normal number or an infinity)."""
    import math
    import struct
    rng = np.random.default_rng(9)
    vals = rng.uniform(-3, 3, size=(8, 64)).astype(np.float32).view(np.uint32).copy()
    vgpr = {2 + i: vals[i] for i in range(8)}
    problems = []
    for d in gfx7_rows():
        if d.encoding != "VOP3" or not any(k == "omod" for _, k in d.operands):
            continue
        bits = _float_result_bits(d.name)
        if bits is None:
            continue
        text = instance(d)
        plain = run_snippet(assemble(text + "\ns_endpgm"), vgpr=vgpr, m0=0, mode=0x300)
        for mod, factor in (("mul:2", 2.0), ("mul:4", 4.0), ("div:2", 0.5)):
            st = run_snippet(assemble(f"{text} {mod}\ns_endpgm"), vgpr=vgpr, m0=0, mode=0x300)
            for l in range(64):
                if bits == 32:
                    x = struct.unpack("<f", struct.pack("<I", int(plain.vgpr[10][l])))[0]
                    g = struct.unpack("<f", struct.pack("<I", int(st.vgpr[10][l])))[0]
                    tiny, big = 2.0 ** -126, 2.0 ** 128
                else:
                    x = struct.unpack("<d", struct.pack("<Q", int(plain.vgpr[10][l]) | int(plain.vgpr[11][l]) << 32))[0]
                    g = struct.unpack("<d", struct.pack("<Q", int(st.vgpr[10][l]) | int(st.vgpr[11][l]) << 32))[0]
                    tiny, big = 2.0 ** -1022, math.inf
                if x != x:
                    if g == g:
                        problems.append(f"{text} {mod} lane {l}: NaN became {g!r}")
                        break
                    continue
                y = x * factor
                if y != 0 and not math.isinf(x) and not tiny <= abs(y) < big:
                    continue
                if g != y:
                    problems.append(f"{text} {mod} lane {l}: plain {x!r} -> {g!r}, expected {y!r}")
                    break
    assert not problems, f"{len(problems)} cases:\n" + "\n".join(problems)


def test_scalar_constant_and_literal_src0_equal_a_vgpr_holding_the_value():
    """For every VOP1/VOP2/VOPC op, src0 given as an SGPR, an inline integer constant or a
    32-bit literal gives the same result as a VGPR holding that value in every lane (64-bit
    sources: the pair's value, the sign-extended constant)."""
    rng = np.random.default_rng(10)
    base = {i: rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32) for i in range(2, 10)}
    diffs = []
    for d in gfx7_rows():
        if d.encoding not in ("VOP1", "VOP2", "VOPC") or d.name in IGNORES_EXEC or d.name == "v_nop":
            continue
        kinds = dict(d.operands)
        skind = kinds.get("src0") or kinds.get("src")
        if skind is None or not skind.startswith("src"):
            continue
        wide = _width(skind) == 2
        text = instance(d)                  # src0 is v2 (v[2:3])
        reg = "v[2:3]" if wide else "v2"
        assert reg in text, text
        variants = [("-7", (-7) & ((1 << 64) - 1)), ("64", 64)]
        # the constant bus carries one scalar value: ops that already read VCC or M0, or
        # carry a literal (madmk/madak), take only inline constants here (as in llvm-mc)
        bus_free = not (d.reads & {"VCC", "M0"}) and not any(k == "fimm32" for _, k in d.operands)
        if bus_free:
            variants.append(("s[2:3]" if wide else "s2", 0x89ABCDEF_3F800000 if wide else 0x3F800000))
            if not wide and "literal" in operand_kinds()[skind][1]:
                variants.append(("0x12345", 0x12345))
        for op, value in variants:
            other = text.replace(reg, op, 1)
            vg = dict(base)
            vg[2] = np.full(64, value & M32_, np.uint32)
            vg[3] = np.full(64, value >> 32, np.uint32) if wide else base[3]
            sg = {2: value & M32_, 3: value >> 32} if op.startswith("s") else {}
            try:
                a = run_snippet(assemble(text + "\ns_endpgm"), vgpr=vg, sgpr=sg, m0=0, vcc=0x1234)
                b = run_snippet(assemble(other + "\ns_endpgm"), vgpr=vg, sgpr=sg, m0=0, vcc=0x1234)
            except Exception as e:   # noqa: BLE001 - report, do not stop the walk
                diffs.append(f"{other}: {type(e).__name__}: {e}")
                continue
            if not np.array_equal(a.vgpr[10:16], b.vgpr[10:16]) or a.vcc != b.vcc or a.exec != b.exec:
                diffs.append(f"{other} differs from {text} with the value in VGPRs "
                             f"({int(a.vgpr[10][0]):#x} vs {int(b.vgpr[10][0]):#x}, vcc {a.vcc:#x} vs {b.vcc:#x})")
    assert not diffs, f"{len(diffs)} cases:\n" + "\n".join(diffs)


def test_vop3_src1_src2_from_sgprs_and_constants():
    """For every VOP3 row, src1 or src2 given as an SGPR (pair) or an inline integer constant
    gives the same result as VGPRs holding that value."""
    rng = np.random.default_rng(11)
    base = {i: rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32) for i in range(2, 10)}
    diffs = []
    checked = 0
    for d in gfx7_rows():
        if d.encoding != "VOP3" or d.name in IGNORES_EXEC:
            continue
        kinds = dict(d.operands)
        text = instance(d)
        has_sgpr = any(k.startswith("ssrc") for _, k in d.operands) or bool(d.reads & {"M0", "VCC"})
        for role, vreg in (("src1", 4), ("src2", 6)):
            kind = kinds.get(role)
            if kind is None or not kind.startswith("src"):
                continue
            wide = _width(kind) == 2
            reg = f"v[{vreg}:{vreg + 1}]" if wide else f"v{vreg}"
            if reg not in text:
                continue
            variants = [("-7", (-7) & ((1 << 64) - 1)), ("33", 33)]
            if not has_sgpr:
                variants.append((f"s[{vreg}:{vreg + 1}]" if wide else f"s{vreg}",
                                 0x01234567_C0400000 if wide else 0xC0400000))
            for op, value in variants:
                # replace the operand in its position only (after the destination)
                head, _, tail = text.partition(" ")
                parts = [p.strip() for p in tail.split(",")]
                idx = [i for i, p in enumerate(parts) if p == reg]
                if not idx:
                    continue
                parts[idx[-1]] = op
                other = f"{head} {', '.join(parts)}"
                vg = dict(base)
                vg[vreg] = np.full(64, value & M32_, np.uint32)
                if wide:
                    vg[vreg + 1] = np.full(64, value >> 32, np.uint32)
                sg = {vreg: value & M32_, vreg + 1: value >> 32}
                a = run_snippet(assemble(text + "\ns_endpgm"), vgpr=vg, sgpr=sg, m0=0, vcc=0x1234)
                b = run_snippet(assemble(other + "\ns_endpgm"), vgpr=vg, sgpr=sg, m0=0, vcc=0x1234)
                checked += 1
                sa = (int(a.sgpr[10]), int(a.sgpr[11]))
                sb = (int(b.sgpr[10]), int(b.sgpr[11]))
                if not np.array_equal(a.vgpr[10:16], b.vgpr[10:16]) or sa != sb or a.exec != b.exec:
                    diffs.append(f"{other} differs from {text} with the value in VGPRs")
    assert checked > 500
    assert not diffs, f"{len(diffs)} cases:\n" + "\n".join(diffs)
