"""Regenerate gcnemu/isa/gfx7.tsv, the GCN 1.0/1.1 instruction table, from public sources.

Sources (all in ../shared/reference and ../shared/seeds, written by others):
  - LLVM's gfx7 syntax doc (AMDGPUAsmGFX7.rst): every gfx7 mnemonic with its operand kinds;
  - LLVM's gfx7 MC test (gfx7_asm_all.s): the encoding llvm-mc gives each mnemonic, from
    which the opcode number is read;
  - CLRX's per-instruction docs (GcnInstrs*.md): opcode numbers per GCN generation, which
    tell what GCN 1.0 (gfx6) has that gfx7 lacks and vice versa, and cover MTBUF;
  - CLRX's timing tables (clrx-gcn-timings.txt): cycles per instruction.

Run from the repository root:  python tools/gen_isa_table.py
The output is committed; tests/test_isa_table.py checks it against the same sources.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
REF = SHARED / "reference"

# (family, mask, match, opcode shift, opcode width) for the first dword; order matters.
FAMILY_BITS = [
    ("SOP1", 0xFF800000, 0xBE800000, 8, 8),
    ("SOPC", 0xFF800000, 0xBF000000, 16, 7),
    ("SOPP", 0xFF800000, 0xBF800000, 16, 7),
    ("SOPK", 0xF0000000, 0xB0000000, 23, 5),
    ("SOP2", 0xC0000000, 0x80000000, 23, 7),
    ("SMRD", 0xF8000000, 0xC0000000, 22, 5),
    ("VOP1", 0xFE000000, 0x7E000000, 9, 8),
    ("VOPC", 0xFE000000, 0x7C000000, 17, 8),
    ("VOP2", 0x80000000, 0x00000000, 25, 6),
    ("VOP3", 0xFC000000, 0xD0000000, 17, 9),
    ("VINTRP", 0xFC000000, 0xC8000000, 16, 2),
    ("DS", 0xFC000000, 0xD8000000, 18, 8),
    ("FLAT", 0xFC000000, 0xDC000000, 18, 7),
    ("MUBUF", 0xFC000000, 0xE0000000, 18, 7),
    ("MTBUF", 0xFC000000, 0xE8000000, 16, 3),
    ("MIMG", 0xFC000000, 0xF0000000, 18, 7),
    ("EXP", 0xFC000000, 0xF8000000, 0, 0),
]


def classify(word: int):
    for fam, mask, match, shift, width in FAMILY_BITS:
        if word & mask == match:
            return fam, (word >> shift) & ((1 << width) - 1)
    raise ValueError(hex(word))


def parse_syntax_doc():
    """Return {(section, mnemonic): [(operand name, kind), ...]} from LLVM's gfx7 doc."""
    text = (REF / "llvm-gfx7-syntax" / "AMDGPUAsmGFX7.rst").read_text()
    lines = text.split("\n")
    rows, sec = {}, None
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and re.fullmatch(r"-{5,}", lines[i + 1]) and re.fullmatch(r"[A-Z0-9]+", line):
            sec = line
            continue
        m = re.match(r"^    ([a-z][a-z0-9_]+)\s*(.*)$", line)
        if m and sec and not m.group(1).startswith("gfx7"):
            ops = re.findall(r":ref:`([^<`]+)<amdgpu_syn(?:id)?(?:7_)?_?([a-z0-9_]+)>`", m.group(2))
            rows[(sec, m.group(1))] = ops
    return rows


def parse_mc_test():
    """Return {mnemonic: first dword} from gfx7_asm_all.s (one sample encoding each)."""
    enc = {}
    lines = (REF / "llvm-mc-tests" / "gfx7_asm_all.s").read_text().split("\n")
    for i, line in enumerate(lines):
        if line.strip() and not line.startswith("//"):
            m = re.search(r"\[([0-9a-fx,]+)\]", lines[i + 1])
            b = [int(x, 16) for x in m.group(1).split(",")]
            enc.setdefault(line.split()[0], int.from_bytes(bytes(b[:4]), "little"))
    return enc


GEN_ALIASES = {"1.0": "10", "1.1": "11", "1.2": "12", "1.4": "14"}


def parse_clrx_docs():
    """Return {(form, MNEMONIC): {gen: opcode}} from CLRX's per-instruction docs.

    form is the encoding named on the Opcode line ('VOP1', 'VOP2', 'VOP3A', 'VOP3B') or ''
    when the instruction has a single encoding.
    """
    out = {}
    for md in sorted((REF / "clrx-isa-docs").glob("GcnInstrs*.md")):
        name, names = None, []
        for line in md.read_text().split("\n"):
            h = re.match(r"^#### ([A-Z0-9_, ]+)$", line.strip())
            if h:
                names = [n.strip() for n in h.group(1).split(",") if n.strip()]
                name = names[0]
                continue
            m = re.match(r"^Opcodes?:?\s*(VOP1|VOP2|VOP3A|VOP3B|VOPC|DS|)?:?\s*(.*)$", line)
            if not (m and name) or "|" in line:
                continue
            form = m.group(1) or ""
            for seg in re.split(r"[;,]", m.group(2)):
                n = re.match(r"\s*(\d+)\s*(?:\(0x[0-9a-f]+\))?\s*(.*)$", seg)
                if not n:
                    continue
                gens = re.findall(r"1\.\d", n.group(2)) if "GCN" in n.group(2) else ["1.0", "1.1", "1.2", "1.4"]
                for g in gens:
                    for nm in names:  # "#### V_QSAD_U8, V_QSAD_PK_U16_U8": one opcode, two names
                        out.setdefault((form, nm), {})[GEN_ALIASES[g]] = int(n.group(1))
    return out


def gfx6_encodings(mc):
    """Assemble one sample of every gfx7 mnemonic for tahiti (GCN 1.0) with llvm-mc.

    Returns {mnemonic: ("10 11", gcn1.0 opcode) or ("11", None)}: which generations have it.
    """
    import subprocess
    import tempfile

    lines = (REF / "llvm-mc-tests" / "gfx7_asm_all.s").read_text().split("\n")
    sample = {}
    for line in lines:
        if line.strip() and not line.startswith("//"):
            sample.setdefault(line.split()[0], line)
    names = list(sample)
    with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
        f.write("\n".join(sample[n] for n in names) + "\n")
    r = subprocess.run(["llvm-mc", "-arch=amdgcn", "-mcpu=tahiti", "-show-encoding", f.name],
                       capture_output=True, text=True)
    bad = {int(m.group(1)) for m in re.finditer(r"\.s:(\d+):\d+: error", r.stderr)}
    encs = re.findall(r"encoding: \[([0-9a-fx,]+)\]", r.stdout)
    out, k = {}, 0
    for i, n in enumerate(names, 1):
        if i in bad:
            out[n] = ("11", None)
            continue
        b = [int(x, 16) for x in encs[k].split(",")]
        k += 1
        out[n] = ("10 11", classify(int.from_bytes(bytes(b[:4]), "little"))[1])
    return out


def parse_timings():
    """Return {MNEMONIC: cycles expression} from the CLRX timing seed."""
    text = (SHARED / "seeds" / "clrx-gcn-timings.txt").read_text()
    cyc = {}
    for m in re.finditer(r"\b([SVDBIMTF][A-Z0-9_]+) \| ([^|\n]+?) \|", text):
        cyc.setdefault(m.group(1).lower(), m.group(2).strip())
    return cyc


def rule_cycles(name: str, fam: str) -> str:
    """Cycles for instructions the seed covers by a sentence rather than a table row."""
    if fam in ("SOP2", "SOPK", "SOP1", "SOPC"):
        if name.endswith("_saveexec_b64") or name.startswith("s_setreg"):
            return "8"
        return "4"
    if fam == "SOPP":
        return "4/20" if name.startswith(("s_branch", "s_cbranch")) else "4"
    if fam == "VOP2":
        return "4"
    if fam == "VOPC" or (fam == "VOP3" and name.startswith("v_cmp")):
        return "DPFACTOR*4" if name.endswith(("64")) else "4"
    return ""


def parse_operand_kinds():
    """Return {kind: (size in dwords or "", [accepted operand classes])} from the gfx7_<kind>.rst docs.

    Classes are the doc's names: v, s, flat_scratch, vcc, trap, m0, exec, vccz, execz, scc,
    lds_direct, constant, iconst, literal, off, uimm8, uimm32. Kinds without an operand list
    (modifiers, immediates) get an empty list.
    """
    out = {}
    for f in sorted((REF / "llvm-gfx7-syntax").glob("gfx7_*.rst")):
        kind = f.stem[len("gfx7_"):]
        text = f.read_text()
        m = re.search(r"^\*Size:\* (\d+) dwords?", text, re.M)
        ops = re.search(r"^\*Operands:\*(.*)$", text, re.M)
        classes = re.findall(r"synid_([a-z_0-9]+)>", ops.group(1)) if ops else []
        out[kind] = (m.group(1) if m else "", classes)
    return out


# VOP3 forms the hardware decodes (VOP3 opcode = VOP2 opcode + 256, VOP1 opcode + 384) that
# LLVM's gfx7 syntax lacks: (mnemonic, VOP3 opcode, operands). The SGPR destination of
# readlane/readfirstlane sits in the VOP3 vdst field.
EXTRA_VOP3 = [
    ("v_readlane_b32", 256 + 1, "sdst:sdst32_2,vsrc0:vsrc32_1,ssrc1:ssrc32_5"),
    ("v_writelane_b32", 256 + 2, "vdst:vdst32_0,ssrc0:ssrc32_6,ssrc1:ssrc32_5"),
    ("v_readfirstlane_b32", 384 + 2, "sdst:sdst32_2,vsrc:vsrc32_1"),
]


_BUF_ATOMIC = ("vdata:{data},dst:ret,vaddr:addr_buf,srsrc:rsrc_buf,soffset:offset_buf,idxen:idxen,"
               "offen:offen,addr64:addr64,offset12:buf_offset12,glc:glc,slc:slc")
_IMG_ATOMIC = ("vdata:{data},dst:ret,vaddr:addr_mimg,srsrc:rsrc_mimg,dmask:dmask,unorm:unorm,glc:glc,"
               "slc:slc,lwe:lwe,da:da")
EXTRA_CLRX = [
    # (s_getreg_regrd_b32, SOPK 20, is documented by CLRX with "Description: ???" and no
    # operation: left out, so that every gfx7 row has known semantics.)
    ("buffer_atomic_rsub", "MUBUF", _BUF_ATOMIC.format(data="data_buf_atomic32")),
    ("buffer_atomic_rsub_x2", "MUBUF", _BUF_ATOMIC.format(data="data_buf_atomic64")),
    ("buffer_atomic_fcmpswap", "MUBUF", _BUF_ATOMIC.format(data="data_buf_atomic64")),
    ("buffer_atomic_fmin", "MUBUF", _BUF_ATOMIC.format(data="data_buf_atomic32")),
    ("buffer_atomic_fmax", "MUBUF", _BUF_ATOMIC.format(data="data_buf_atomic32")),
    ("buffer_atomic_fcmpswap_x2", "MUBUF", _BUF_ATOMIC.format(data="data_buf_atomic128")),
    ("buffer_atomic_fmin_x2", "MUBUF", _BUF_ATOMIC.format(data="data_buf_atomic64")),
    ("buffer_atomic_fmax_x2", "MUBUF", _BUF_ATOMIC.format(data="data_buf_atomic64")),
    ("image_atomic_rsub", "MIMG", _IMG_ATOMIC.format(data="data_mimg_atomic_reg")),
    ("image_atomic_fcmpswap", "MIMG", _IMG_ATOMIC.format(data="data_mimg_atomic_cmp")),
    ("image_atomic_fmin", "MIMG", _IMG_ATOMIC.format(data="data_mimg_atomic_reg")),
    ("image_atomic_fmax", "MIMG", _IMG_ATOMIC.format(data="data_mimg_atomic_reg")),
    ]

# CLRX's doc says GCN 1.0/1.1, but CLRX's decoder treats it as illegal on GCN 1.1 and the
# buffer form (buffer_atomic_rsub) is GCN 1.0 only; the table follows the decoder.
GFX6_ONLY = {"image_atomic_rsub"}

# CLRX's doc omits GCN 1.0 for these, but the SI ISA manual and llvm-mc (tahiti) have them.
KEEP_GFX6 = {"buffer_store_dwordx4"}


def main():
    syntax = parse_syntax_doc()
    mc = parse_mc_test()
    clrx = parse_clrx_docs()
    timing = parse_timings()
    gfx6 = gfx6_encodings(mc)
    rows, gfx6_rows = [], []
    seen = set()

    def clrx_gens(name, forms):
        for f in forms:
            g = clrx.get((f, name.upper()))
            if g:
                return g
        return {}

    for (sec, mnem), ops in syntax.items():
        base = re.sub(r"_e64$", "", mnem) if sec == "VOP3" else mnem
        word = mc.get(mnem)
        if word is not None:
            fam, opc = classify(word)
        else:
            fam = sec
            forms = {"VOP3": ("VOP3A", "VOP3B", "")}.get(sec, ("",))
            opc = clrx_gens(base, forms).get("11")
            if opc is None:
                print("no opcode for", sec, mnem, file=sys.stderr)
                continue
        assert fam == sec, (sec, mnem, fam)
        gens = gfx6.get(mnem, ("10 11", None))
        if gens[1] is not None and gens[1] != opc:
            # GCN 1.0 encodes this instruction under another opcode: keep both rows
            gfx6_rows.append((base, fam, gens[1], "10", ",".join(f"{n}:{k}" for n, k in ops), timing.get(base, "")))
        elif gens[0] == "11" and fam.startswith(("SOP", "VOP")):
            # llvm-mc rejects it for tahiti; trust CLRX where it says GCN 1.0 has the same opcode
            forms = {"VOP3": ("VOP3A", "VOP3B", "")}.get(sec, (sec, ""))
            if clrx_gens(base, forms).get("10") == opc:
                gens = ("10 11", None)
        gens = gens[0].split()
        forms = {"VOP3": ("VOP3A", "VOP3B", "")}.get(sec, (sec, ""))
        cg = clrx_gens(base, forms)
        if cg and "11" in cg and "10" not in cg and "10" in gens and base not in KEEP_GFX6:
            # llvm-mc accepts it for tahiti, but CLRX's docs say GCN 1.0 lacks this opcode
            gens = ["11"]
        cycles = timing.get(base) or rule_cycles(base, fam)
        opstr = ",".join(f"{n}:{k}" for n, k in ops)
        rows.append((base, fam, opc, " ".join(sorted(gens)), opstr, cycles))
        seen.add((fam, base))

    # MTBUF: LLVM's gfx7 doc has no MTBUF section; the opcodes come from CLRX and the
    # operand kinds mirror the MUBUF format loads/stores.
    for (form, name), g in clrx.items():
        if name.startswith("TBUFFER_") and "11" in g:
            base = name.lower()
            store = "store" in base
            comps = base.rsplit("_", 1)[1]
            width = {"x": "32", "xy": "64", "xyz": "96", "xyzw": "128"}[comps]
            data = (f"vdata:vdata{width}_0" if store else f"vdst:vdst{width}_0")
            opstr = data + ",vaddr:addr_buf,srsrc:rsrc_buf,soffset:offset_buf,fmt:fmt,idxen:idxen,offen:offen,addr64:addr64,offset12:buf_offset12,glc:glc,slc:slc,tfe:tfe"
            gens = ["11"] + (["10"] if g.get("10") == g["11"] else [])
            rows.append((base, "MTBUF", g["11"], " ".join(sorted(gens)), opstr, timing.get(base, "")))
            seen.add(("MTBUF", base))

    # Opcodes CLRX documents that LLVM's gfx7 syntax lacks: (name, family, operands).
    for name, fam, opstr in EXTRA_CLRX:
        g = clrx.get(("", name.upper()), {})
        gens = [x for x in ("10", "11") if x in g and g[x] == g.get("11", g[x])]
        if name in GFX6_ONLY:
            gens = [x for x in gens if x == "10"]
        if not gens:
            continue
        if g and ("11" in g or "10" in g) and (fam, name) not in seen:
            rows.append((name, fam, g.get("11", g.get("10")), " ".join(sorted(gens)), opstr,
                         timing.get(name, "") or rule_cycles(name, fam)))
            seen.add((fam, name))

    for name, opc, opstr in EXTRA_VOP3:
        if ("VOP3", name) not in seen:
            rows.append((name, "VOP3", opc, "10 11", opstr, "4"))
            seen.add(("VOP3", name))

    # Operand lists the syntax doc gets wrong: llvm-mc 14 accepts (and clang emits) abs/neg on
    # the sources of v_cndmask_b32_e64.
    fixes = {("v_cndmask_b32", "VOP3"): "vdst:vdst32_0,src0:src32_3,m:mod,src1:src32_4,m:mod,ssrc2:ssrc64_1"}
    rows = [r[:4] + (fixes[(r[0], r[1])],) + r[5:] if (r[0], r[1]) in fixes else r for r in rows]

    rows.extend(gfx6_rows)
    vop2 = {r[0] for r in rows if r[1] == "VOP2"}
    rows = [r[:5] + ("4",) if r[1] == "VOP3" and r[0] in vop2 and not r[5] else r for r in rows]

    rows.sort(key=lambda r: ([f[0] for f in FAMILY_BITS].index(r[1]), r[2], r[3], r[0]))
    out = ROOT / "gcnemu" / "isa" / "gfx7.tsv"
    with out.open("w") as f:
        f.write("# Generated by tools/gen_isa_table.py from LLVM's gfx7 syntax doc and MC tests, CLRX's ISA docs\n")
        f.write("# and timing tables (see that script). Do not edit by hand.\n")
        f.write("name\tencoding\topcode\tgens\toperands\tcycles\n")
        for r in rows:
            f.write("\t".join(str(x) for x in r) + "\n")
    print(f"wrote {len(rows)} rows to {out}")
    kinds = parse_operand_kinds()
    kout = ROOT / "gcnemu" / "isa" / "operand_kinds.tsv"
    with kout.open("w") as f:
        f.write("# Generated by tools/gen_isa_table.py from LLVM's gfx7_<kind>.rst operand docs. Do not edit.\n")
        f.write("kind\tdwords\tclasses\n")
        for k, (size, classes) in sorted(kinds.items()):
            f.write(f"{k}\t{size}\t{' '.join(classes)}\n")
    print(f"wrote {len(kinds)} operand kinds to {kout}")


if __name__ == "__main__":
    main()
