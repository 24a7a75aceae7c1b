"""Bad input to the ISA layer: only AssemblerError / DecodeError, with line/column or offset."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from gcnemu.errors import AssemblerError, DecodeError
from gcnemu.isa import assemble, decode, disassemble


@pytest.mark.parametrize("code,offset,words", [
    (bytes.fromhex("000080bf") + bytes.fromhex("ffffffff"), 4, "undefined"),   # s_nop; junk
    (bytes.fromhex("0000a0bf"), 0, "opcode"),                                  # SOPP op 32
    (bytes.fromhex("010000d2"), 0, "truncated"),                               # VOP3 half
    (bytes.fromhex("000080bf") + bytes.fromhex("ff02007e"), 4, "literal"),     # literal missing
    (bytes.fromhex("00"), 0, "truncated"),
])
def test_decode_errors_name_offset(code, offset, words):
    with pytest.raises(DecodeError) as e:
        decode(code)
    assert e.value.offset == offset
    assert words in str(e.value) and f"0x{offset:x}" in str(e.value)
    with pytest.raises(DecodeError):
        disassemble(code)


@pytest.mark.parametrize("src,line,col,words", [
    ("s_nop 0\nv_bogus v1, v2", 2, 1, "unknown instruction"),
    ("v_add_f32 v1, v2", 1, 1, "takes 3 operand"),
    ("s_mov_b32 s0, s[2:3]", 1, 15, "needs 1"),
    ("s_mov_b64 s[1:2], 0", 1, 11, "multiple of 2"),
    ("v_mov_b32 v256, v1", 1, 11, "out of range"),
    ("v_add_f32_e64 v1, 0x12345678, v2", 1, 19, "literal"),
    ("s_mov_b32 s0, 0x123456789", 1, 15, "32 bits"),
    ("ds_read_b32 v1, v2 offset:70000", 1, 27, "out of range"),
    ("s_waitcnt vmcnt(99)", 1, 11, "too large"),
    ("s_branch nowhere", 1, 10, "undefined label"),
    ("s_getreg_b32 s1, hwreg(HW_REG_NOPE)", 1, 18, "hardware register"),
    ("buffer_load_dword v1, v2, s[4:7], 0", 1, 23, "off"),
    ("v_add_f32 v1, v2, v3 glc", 1, 22, "glc"),
    ("exp mrt9 v0, v0, v0, v0", 1, 5, "export target"),
    ("a: s_nop 0\na: s_nop 0", 2, 1, "defined twice"),
    (".unknown 1", 1, 1, "directive"),
    ("s_add_u32 s0, s1,", 1, 1, "operand"),
])
def test_assembler_errors_name_line_column(src, line, col, words):
    with pytest.raises(AssemblerError) as e:
        assemble(src)
    assert e.value.line == line, str(e.value)
    assert e.value.column == col, str(e.value)
    assert words in str(e.value), str(e.value)
    assert f"line {line}" in str(e.value)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(min_size=0, max_size=64))
def test_random_bytes_decode_or_decode_error(code):
    try:
        text = disassemble(code)
    except DecodeError as e:
        assert e.offset is not None and 0 <= e.offset < max(len(code), 1)
        return
    # what disassembles re-assembles to exactly the same bytes (.long where no spelling exists)
    assert assemble(text) == code


_words = st.sampled_from(["s_mov_b32", "v_add_f32", "v_add_f32_e64", "s_waitcnt", "ds_read_b32",
                          "buffer_load_dword", "image_load", "exp", "s_branch", "v_cmp_eq_f32",
                          "s0", "s[0:1]", "v1", "v[2:3]", "vcc", "exec", "off", "0x10", "-1", "1.5",
                          "offset:4", "glc", "|v1|", "-v2", "mul:2", "hwreg(1)", "vmcnt(0)",
                          "lbl:", ",", " ", "\n", "//c", "[", "]", "(", ")", ":", "s[5:4]",
                          ".long", ".p2align", "mrt0", "attr0.x"])


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(max_size=80), st.lists(_words, max_size=12).map(" ".join)))
def test_random_text_assembles_or_assembler_error(src):
    try:
        code = assemble(src)
    except AssemblerError as e:
        assert str(e) and e.line is not None and e.line >= 1
        return
    assert isinstance(code, bytes)


def _family_words():
    from gcnemu.isa.encoding import LAYOUTS

    fams = sorted(LAYOUTS)

    def build(items):
        code = b""
        for fam, w in items:
            size, match, mask, _ = LAYOUTS[fam]
            w0 = (w & 0xFFFFFFFF & ~mask) | match
            code += (w0 | (w >> 32 << 32)).to_bytes(12, "little")[:size + 4]
        return code

    return st.lists(st.tuples(st.sampled_from(fams), st.integers(0, 2**96 - 1)),
                    max_size=6).map(build)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_family_words())
def test_random_instruction_words_round_trip(code):
    """Words carrying each family's fixed bits (so most decode): the disassembly always
    re-assembles to the input, or decoding fails with a DecodeError at a real offset."""
    try:
        text = disassemble(code)
    except DecodeError as e:
        assert e.offset is not None and 0 <= e.offset < len(code)
        return
    assert assemble(text) == code


def test_non_bytes_and_non_str_inputs():
    with pytest.raises(DecodeError):
        decode("not bytes")
    with pytest.raises(AssemblerError):
        assemble(b"s_nop 0")
