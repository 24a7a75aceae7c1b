"""The assembler, decoder and disassembler against LLVM's gfx7 MC test (gfx7_asm_all.s) and
against llvm-mc run live: the encodings written there are the independent reference."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gcnemu.errors import AssemblerError, DecodeError
from gcnemu.isa import table
from gcnemu.isa.assembler import assemble, assemble_with_labels
from gcnemu.isa.decoder import decode
from gcnemu.isa.disassembler import disassemble, format_instruction

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
MC_TESTS = SHARED / "reference" / "llvm-mc-tests"
ALL = MC_TESTS / "gfx7_asm_all.s"
LLVM_MC = shutil.which("llvm-mc")


def _pairs(path: Path):
    lines = path.read_text().split("\n")
    out = []
    for i, line in enumerate(lines):
        if line.strip() and not line.startswith("//"):
            m = re.search(r"\[([0-9a-fx,]+)\]", lines[i + 1])
            out.append((line, bytes(int(x, 16) for x in m.group(1).split(","))))
    return out


@pytest.fixture(scope="module")
def corpus():
    if not ALL.exists():
        pytest.skip(f"LLVM's gfx7 MC test not found at {ALL}")
    pairs = _pairs(ALL)
    assert len(pairs) == 29030
    return pairs


def test_assemble_every_line_of_gfx7_asm_all(corpus):
    bad = []
    for text, want in corpus:
        try:
            got = assemble(text)
        except AssemblerError as e:
            got = f"error: {e}"
        if got != want:
            bad.append((text, got, want.hex()))
    assert not bad, f"{len(bad)} of {len(corpus)} differ, e.g. {bad[:10]}"


def test_mov_fed_lines_included(corpus):
    fed = [(t, b) for t, b in corpus if t.startswith(("s_mov_fed_b32", "v_mov_fed_b32"))]
    assert len(fed) == 77
    for t, b in fed:
        assert assemble(t) == b


def test_whole_file_assembles_as_one_source(corpus):
    src = ALL.read_text()
    assert assemble(src) == b"".join(b for _, b in corpus)


def test_decode_and_disassemble_round_trip_ours(corpus):
    """Every encoding decodes to one instruction of its size, disassembles to LLVM-syntax text
    (never the .long fallback) and that text assembles back to the same bytes."""
    bad = []
    for text, code in corpus:
        ins = decode(code)
        assert len(ins) == 1 and ins[0].size == len(code), text
        out = format_instruction(ins[0])
        if out.startswith(".long") or assemble(out) != code:
            bad.append((text, out))
    assert not bad, bad[:10]


@pytest.fixture(scope="module")
def disassembled(corpus):
    code = b"".join(b for _, b in corpus)
    text = disassemble(code)
    lines = text.rstrip("\n").split("\n")
    assert len(lines) == len(corpus)
    assert not [ln for ln in lines if ln.startswith(".long")]
    return lines


def _llvm_mc(source: str, tmp_path: Path, name: str):
    f = tmp_path / name
    f.write_text(source)
    r = subprocess.run([LLVM_MC, "-arch=amdgcn", "-mcpu=bonaire", "-show-encoding", str(f)],
                       capture_output=True, text=True, timeout=300)
    rejected = {int(m.group(1)) for m in re.finditer(re.escape(name) + r":(\d+):\d+: error", r.stderr)}
    encs = [bytes(int(x, 16) for x in m.group(1).split(","))
            for m in re.finditer(r"encoding: \[([0-9a-fx,]+)\]", r.stdout)]
    return rejected, encs


@pytest.mark.skipif(LLVM_MC is None, reason="llvm-mc not installed")
def test_disassembly_reassembles_with_llvm_mc(corpus, disassembled, tmp_path):
    """llvm-mc (run once on the whole disassembly) gives back every original encoding. Lines
    the installed llvm-mc 14 rejects must be exactly the ones it rejects in the original file
    too (the 77 *_mov_fed_b32 lines, which come from a newer LLVM)."""
    rejected, encs = _llvm_mc("\n".join(disassembled) + "\n", tmp_path, "ours.s")
    orig_rejected, _ = _llvm_mc("\n".join(t for t, _ in corpus) + "\n", tmp_path, "orig.s")
    assert rejected == orig_rejected
    assert len(rejected) <= 77
    it = iter(encs)
    bad = []
    for i, (text, want) in enumerate(corpus, 1):
        if i in rejected:
            continue
        got = next(it)
        if got != want:
            bad.append((text, disassembled[i - 1], got.hex(), want.hex()))
    assert not bad, bad[:10]
    assert len(encs) == len(corpus) - len(rejected)


# Other LLVM MC tests (hand-written SI/CI checks) ---------------------------------------------

_CHECK = re.compile(r"//\s*(?:SICI|CI|GCN|SI|CIVI|SICIVI|SICIVI9)\s*:.*?encoding:\s*\[([0-9a-fx,]+)\]")


def _checked_pairs(path: Path):
    """(source line, CI encoding) where the check prefix applies to bonaire."""
    lines = path.read_text().split("\n")
    run = " ".join(ln for ln in lines if "RUN:" in ln)
    m = re.search(r"-mcpu=bonaire[^|]*\|[^\n]*?-check-prefix(?:es)?=([\w,]+)(?:[^\n]*?-check-prefix=(\w+))?"
                  r"(?:[^\n]*?-check-prefix=(\w+))?", run)
    if not m:
        return []
    prefixes = {p for g in m.groups() if g for p in g.split(",")}
    out = []
    for i, line in enumerate(lines):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        for nxt in lines[i + 1:i + 4]:
            c = re.match(r"\s*//\s*(\w+)\s*:.*?encoding:\s*\[([0-9a-fx,]+)\]", nxt)
            if c and c.group(1) in prefixes:
                out.append((line.split("//")[0].strip(), bytes(int(x, 16) for x in c.group(2).split(","))))
                break
            if nxt.strip() and not nxt.lstrip().startswith("//"):
                break
    return out


# Files whose check lines this simple reader pairs correctly with their inputs (vop1/vop2/
# literals interleave checks differently; ds.s also uses swizzle() macros and ds_*_src2_f32,
# which gcnemu does not support).
@pytest.mark.parametrize("name", ["sop2.s", "smrd.s", "mubuf.s", "mtbuf.s", "mimg.s", "flat.s",
                                  "lds_direct-ci.s"])
def test_other_llvm_mc_files(name):
    path = MC_TESTS / name
    if not path.exists():
        pytest.skip(f"{path} not found")
    pairs = _checked_pairs(path)
    if not pairs:
        pytest.skip(f"{name} has no checks for bonaire")
    bad = []
    for text, want in pairs:
        try:
            got = assemble(text)
        except AssemblerError as e:
            got = f"error: {e}"
        if got != want:
            bad.append((text, got if isinstance(got, str) else got.hex(), want.hex()))
    print(name, f"{len(pairs) - len(bad)}/{len(pairs)} match")
    assert len(bad) <= 0.05 * len(pairs), bad[:20]


# Labels, comments, directives ----------------------------------------------------------------

def test_labels_and_branches():
    src = """
    start:                      // a comment
        s_mov_b32 s0, 0         ; another
    loop: s_add_u32 s0, s0, 1   # and another
        s_cmp_lt_u32 s0, 10
        s_cbranch_scc1 loop
        s_branch end
        s_cbranch_i_fork s[2:3], start
    end:
        s_endpgm
    """
    code, labels = assemble_with_labels(src)
    assert labels == {"start": 0, "loop": 4, "end": 24}
    words = [int.from_bytes(code[i:i + 4], "little") for i in range(0, len(code), 4)]
    assert words[3] & 0xFFFF == (4 - (12 + 4)) // 4 & 0xFFFF      # scc1 back to loop: -3
    assert words[4] & 0xFFFF == (24 - (16 + 4)) // 4               # forward to end: 1
    assert words[5] & 0xFFFF == (0 - (20 + 4)) // 4 & 0xFFFF       # i_fork to start: -6
    if LLVM_MC:
        r = subprocess.run([LLVM_MC, "-arch=amdgcn", "-mcpu=bonaire", "-show-encoding"],
                           input=src.replace("#", "//"), capture_output=True, text=True)
        # llvm-mc leaves label operands to fixups (no encoding printed for them); the other
        # instructions must match
        for enc in re.findall(r"encoding: \[([0-9a-fx,]+)\]", r.stdout):
            assert bytes(int(x, 16) for x in enc.split(",")) in code


def test_directives():
    code = assemble(".text\n.globl k\nk:\n s_nop 0\n .p2align 4\n .long 0x12345678\n .byte 1, 2\n"
                    " .short 0x3344\n")
    assert len(code) == 16 + 4 + 2 + 2
    assert code[4:16] == (0xBF800000).to_bytes(4, "little") * 3
    assert code[16:20] == (0x12345678).to_bytes(4, "little")
    assert code[20:24] == bytes([1, 2, 0x44, 0x33])


def test_gen_column_for_gfx6_differences():
    """Rows say which generation has them: FLAT is GCN 1.1 only, and decoding FLAT bytes as
    GCN 1.0 is an error naming the offset."""
    flat = table.by_name()["flat_load_dword"]["FLAT"]
    assert flat.gens == frozenset({"11"})
    code = assemble("flat_load_dword v1, v[3:4]")
    assert decode(code)[0].name == "flat_load_dword"
    with pytest.raises(DecodeError) as e:
        decode(b"\x00" * 4 + code, gen=table.GFX6)
    assert e.value.offset == 4
