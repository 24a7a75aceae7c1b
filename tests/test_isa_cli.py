"""`gcnemu asm` / `gcnemu disasm`, and disassembly of clang-built code objects (checked by
re-assembling the text with llvm-mc and comparing .text byte for byte)."""
from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest

from gcnemu.cli import main
from gcnemu.isa import assemble, disassemble

ROOT = Path(__file__).resolve().parents[1]
LLVM_MC = shutil.which("llvm-mc")
HSACO = sorted((ROOT / "kernels").glob("*/*.hsaco"))

SRC = """
  s_load_dwordx2 s[0:1], s[4:5], 0x0   // kernarg
  v_mov_b32 v1, 1.0
loop:
  v_add_f32 v1, v1, v1
  s_sub_u32 s2, s2, 1
  s_cbranch_scc1 loop
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_endpgm
"""


def test_asm_then_disasm(tmp_path, capsys):
    s = tmp_path / "k.s"
    s.write_text(SRC)
    out = tmp_path / "k.bin"
    assert main(["asm", str(s), "-o", str(out)]) == 0
    assert out.read_bytes() == assemble(SRC)
    assert main(["disasm", str(out)]) == 0
    text = capsys.readouterr().out
    assert text == disassemble(out.read_bytes())
    assert "v_add_f32_e32 v1, v1, v1" in text and "s_cbranch_scc1 -3" in text
    assert assemble(text) == out.read_bytes()


def test_asm_and_disasm_gfx6(tmp_path, capsys):
    s = tmp_path / "k.s"
    s.write_text("buffer_atomic_rsub v1, v2, s[4:7], 0 offen\nflat_load_dword v1, v[2:3]\n")
    # buffer_atomic_rsub is GCN 1.0 only, flat_load_dword GCN 1.1 only
    assert main(["asm", str(s), "-o", str(tmp_path / "x.bin")]) == 1
    assert "buffer_atomic_rsub" in capsys.readouterr().err
    assert main(["asm", "--gfx6", str(s), "-o", str(tmp_path / "x.bin")]) == 1
    assert "line 2" in capsys.readouterr().err
    s.write_text("buffer_atomic_rsub v1, v2, s[4:7], 0 offen\ns_endpgm\n")
    assert main(["asm", "--gfx6", str(s), "-o", str(tmp_path / "x.bin")]) == 0
    assert main(["disasm", "--gfx6", str(tmp_path / "x.bin")]) == 0
    assert capsys.readouterr().out == "buffer_atomic_rsub v1, v2, s[4:7], 0 offen\ns_endpgm\n"


def test_asm_error_reports_line_and_column(tmp_path, capsys):
    s = tmp_path / "bad.s"
    s.write_text("s_nop 0\n  v_add_f32 v1, v2, q7\n")
    assert main(["asm", str(s), "-o", str(tmp_path / "x.bin")]) == 1
    err = capsys.readouterr().err
    assert "line 2" in err and "column 21" in err and "q7" in err


def test_disasm_errors_are_reported(tmp_path, capsys):
    f = tmp_path / "bad.bin"
    f.write_bytes(b"\x00\x00\x80\xbf\x01\x00\x00\xd2")  # s_nop, then half a VOP3
    assert main(["disasm", str(f)]) == 1
    assert "offset 0x4" in capsys.readouterr().err
    assert main(["disasm", str(tmp_path / "missing.bin")]) == 2
    (tmp_path / "elf.o").write_bytes(b"\x7fELF" + b"\x00" * 20)
    assert main(["disasm", str(tmp_path / "elf.o")]) == 1
    assert main([]) == 2


def test_disassemble_with_labels():
    code = assemble(SRC)
    text = disassemble(code, labels=True)
    assert "L8:" in text and "s_cbranch_scc1 L8" in text
    assert assemble(text) == code


@pytest.mark.skipif(not HSACO, reason="no compiled kernels (kernels/*/*.hsaco) in this checkout")
@pytest.mark.parametrize("labels", [False, True], ids=["offsets", "labels"])
@pytest.mark.parametrize("path", HSACO, ids=[p.parent.name for p in HSACO])
def test_disasm_clang_code_objects(path, labels, tmp_path, capsys):
    from elftools.elf.elffile import ELFFile

    assert main(["disasm", str(path)] + (["--labels"] if labels else [])) == 0
    text = capsys.readouterr().out
    # every instruction clang emits has an LLVM spelling, except a literal that equals an
    # inline constant (clang's MC layer can emit it, text cannot: assemblers fold it)
    longs = [ln for ln in text.splitlines() if ln.startswith(".long")]
    assert all("fold into an inline constant" in ln for ln in longs), longs
    body = "\n".join(ln for ln in text.splitlines() if labels or not ln.endswith(":"))
    original = ELFFile(io.BytesIO(path.read_bytes())).get_section_by_name(".text").data()
    assert assemble(body) == original
    if LLVM_MC:
        src, obj = tmp_path / "k.s", tmp_path / "k.o"
        src.write_text(body + "\n")
        subprocess.run([LLVM_MC, "-arch=amdgcn", "-mcpu=bonaire", "-filetype=obj", str(src),
                        "-o", str(obj)], check=True, capture_output=True)
        again = ELFFile(io.BytesIO(obj.read_bytes())).get_section_by_name(".text").data()
        assert again == original
