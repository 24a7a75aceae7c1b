"""The instruction table against its sources, read independently here: LLVM's gfx7 syntax doc,
LLVM's MC test encodings, CLRX's per-instruction docs (opcode numbers per generation, what an
instruction does to SCC), and the hardware's VOP3 opcode rule."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from gcnemu.isa import table
from gcnemu.isa.encoding import LAYOUTS

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
REF = SHARED / "reference"


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} not found")
    return path


@pytest.fixture(scope="module")
def clrx_sections():
    """{(family, mnemonic): text} for the GCN 1.0/1.1 entry of each CLRX instruction doc."""
    out = {}
    for md in sorted(_need(REF / "clrx-isa-docs").glob("GcnInstrs*.md")):
        fam = md.stem.replace("GcnInstrs", "").upper()
        for block in re.split(r"\n(?=#### )", md.read_text()):
            h = re.match(r"#### ([A-Z0-9_, ]+)\n", block)
            if not h:
                continue
            opline = re.search(r"^Opcodes?:?(.*)$", block, re.M)
            if opline and "GCN" in opline.group(1) and "1.1" not in opline.group(1) \
                    and "1.0" not in opline.group(1):
                continue  # a GCN 1.2/1.4-only entry
            for name in h.group(1).split(","):
                out.setdefault((fam, name.strip().lower()), block)
    return out


def test_rows_unique_per_generation():
    for gen in (table.GFX6, table.GFX7):
        seen = {}
        for d in table.instructions():
            if gen in d.gens:
                key = (d.encoding, d.opcode)
                assert key not in seen, (d.name, seen.get(key))
                seen[key] = d.name
                assert 0 <= d.opcode < (1 << dict(LAYOUTS[d.encoding][3]).get("op", (0, 1))[1] if False else 1 << 9)


def test_every_llvm_gfx7_mnemonic_is_in_the_table():
    text = _need(REF / "llvm-gfx7-syntax" / "AMDGPUAsmGFX7.rst").read_text()
    names = {n for n in re.findall(r"^    ([a-z][a-z0-9_]+)\s", text, re.M)
             if not n.startswith("gfx7")}
    byname = table.by_name()
    missing = [n for n in names if re.sub(r"_e64$", "", n) not in byname and n not in byname]
    assert not missing, missing


def test_opcodes_match_llvm_mc_encodings():
    """The opcode field of the first encoding of each mnemonic in gfx7_asm_all.s."""
    lines = _need(REF / "llvm-mc-tests" / "gfx7_asm_all.s").read_text().split("\n")
    from gcnemu.isa.decoder import detect_family
    from gcnemu.isa.encoding import extract
    checked = 0
    for i, line in enumerate(lines):
        if not line.strip() or line.startswith("//"):
            continue
        b = [int(x, 16) for x in re.search(r"\[([0-9a-fx,]+)\]", lines[i + 1]).group(1).split(",")]
        w = int.from_bytes(bytes(b[:8]), "little")
        fam = detect_family(w & 0xFFFFFFFF)
        op = extract(w, LAYOUTS[fam][3]).get("op", 0)
        mn = re.sub(r"_e(32|64)$", "", line.split()[0])
        assert table.lookup(fam, op).name == mn, line
        checked += 1
    assert checked == 29030


def test_vop3_opcode_rule():
    """Hardware: VOP3 opcode = VOPC opcode, VOP2 opcode + 256, VOP1 opcode + 384."""
    for name, rows in table.by_name().items():
        if "VOP3" not in rows:
            continue
        for fam, off in (("VOPC", 0), ("VOP2", 256), ("VOP1", 384)):
            if fam in rows:
                assert rows["VOP3"].opcode == rows[fam].opcode + off, name


#: CLRX doc entries whose GCN 1.1 opcode disagrees with llvm-mc's encoding (which the table
#: uses; test_opcodes_match_llvm_mc_encodings checks it): flat_load_dwordx4 "13" (LLVM: 14),
#: buffer_store_dwordx4 "31 (0x1e)" (decimal and hex disagree; 0x1e = 30 as in LLVM), and
#: image_atomic_smax/umin given as 21/22 where LLVM (and the SI ISA manual's order smin, umin,
#: smax, umax) has 22/21.
CLRX_DOC_ERRATA = {"flat_load_dwordx4", "buffer_store_dwordx4", "image_atomic_smax",
                   "image_atomic_umin"}


def test_gfx7_opcodes_agree_with_clrx_docs(clrx_sections):
    """Where CLRX documents a GCN 1.1 opcode for a mnemonic, the table has the same."""
    fam_of = {"SOP1": "SOP1", "SOP2": "SOP2", "SOPK": "SOPK", "SOPC": "SOPC", "SOPP": "SOPP",
              "SMRD": "SMRD", "DS": "DS", "MUBUF": "MUBUF", "MTBUF": "MTBUF", "MIMG": "MIMG",
              "FLAT": "FLAT", "VINTRP": "VINTRP"}
    checked, bad = 0, []
    for d in table.instructions():
        if table.GFX7 not in d.gens or d.encoding not in fam_of:
            continue
        block = clrx_sections.get((d.encoding, d.name))
        if block is None:
            continue
        m = re.search(r"^Opcodes?:?\s*(\d+)\s*\(0x[0-9a-f]+\)\s*(.*)$", block, re.M)
        if not m:
            continue
        rest = m.group(2)
        if "GCN" in rest and "1.1" not in rest.split(";")[0]:
            continue
        checked += 1
        if d.name in CLRX_DOC_ERRATA:
            continue
        if int(m.group(1)) != d.opcode:
            bad.append((d.name, d.opcode, m.group(0)))
    assert checked > 400
    assert not bad, bad


def test_salu_scc_writes_match_clrx_operations(clrx_sections):
    """An SOP* instruction writes SCC in the table exactly when CLRX's pseudo-code assigns it.
    (CLRX's S_MOVK_I32 entry says "SCC = SIMM16" where it means SDST; its text says SCC is
    unchanged.)"""
    bad = []
    for d in table.instructions():
        if d.encoding not in ("SOP1", "SOP2", "SOPK", "SOPC") or table.GFX7 not in d.gens:
            continue
        block = clrx_sections.get((d.encoding, d.name))
        if block is None or "Operation" not in block or d.name == "s_movk_i32":
            continue
        op = block.split("Operation", 1)[1]
        writes = bool(re.search(r"\bSCC\s*=[^=]", op))
        if writes != ("SCC" in d.writes):
            bad.append((d.name, writes, sorted(d.writes)))
    assert not bad, bad


def test_units_and_implicit_registers():
    units = {"SALU", "SMEM", "VALU", "VMEM", "LDS", "EXPORT", "BRANCH", "SPECIAL"}
    for d in table.instructions():
        assert d.unit in units
        assert d.reads <= {"SCC", "VCC", "EXEC", "M0"} and d.writes <= {"SCC", "VCC", "EXEC", "M0"}
    byname = table.by_name()
    assert byname["s_add_u32"]["SOP2"].writes == {"SCC"}
    assert byname["s_addc_u32"]["SOP2"].reads == {"SCC"}
    assert byname["v_addc_u32"]["VOP2"].reads == {"EXEC", "VCC"}
    assert "VCC" in byname["v_cmp_eq_f32"]["VOPC"].writes
    assert "VCC" not in byname["v_cmp_eq_f32"]["VOP3"].writes   # explicit SGPR pair instead
    assert "EXEC" in byname["v_cmpx_eq_f32"]["VOP3"].writes
    assert byname["s_and_saveexec_b64"]["SOP1"].writes == {"EXEC", "SCC"}
    assert byname["s_setvskip"]["SOPC"].writes == frozenset()
    assert byname["s_branch"]["SOPP"].unit == "BRANCH"
    assert byname["s_setpc_b64"]["SOP1"].unit == "BRANCH"
    assert byname["s_cbranch_i_fork"]["SOPK"].unit == "BRANCH"
    assert byname["s_getpc_b64"]["SOP1"].unit == "SALU"
    assert byname["s_waitcnt"]["SOPP"].unit == "SPECIAL"
    assert byname["ds_read_b32"]["DS"].unit == "LDS" and "M0" in byname["ds_read_b32"]["DS"].reads
    assert byname["flat_load_dword"]["FLAT"].unit == "VMEM"
    assert byname["s_load_dword"]["SMRD"].unit == "SMEM"


def test_cycle_costs_parse():
    """Every CLRX cycle expression evaluates; every SALU/VALU op has a figure."""
    for d in table.instructions():
        c = d.cost()
        assert c is None or c > 0, (d.name, d.cycles)
        if d.unit in ("SALU", "VALU") and table.GFX7 in d.gens and d.encoding != "VINTRP":
            assert c is not None, (d.name, d.encoding, d.cycles)
    byname = table.by_name()
    assert byname["v_add_f32"]["VOP2"].cost() == 4
    assert byname["v_add_f64"]["VOP3"].cost(dpfactor=4) > byname["v_add_f64"]["VOP3"].cost(dpfactor=1)


def test_vop3b_rows():
    names = {d.name for d in table.instructions() if d.is_vop3b}
    assert names == {"v_add_i32", "v_sub_i32", "v_subrev_i32", "v_addc_u32", "v_subb_u32",
                     "v_subbrev_u32", "v_div_scale_f32", "v_div_scale_f64", "v_mad_u64_u32",
                     "v_mad_i64_i32"}
