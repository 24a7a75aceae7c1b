"""Bad input to the engine: registers outside the wave's allocation, invalid operand codes,
runaway loops, falling off the program, bad branch targets. Each raises ExecutionError whose
message names the PC, the instruction and the reason; afterwards the emulator still works.
"""
import numpy as np
import pytest

from gcnemu.errors import ExecutionError, GcnEmuError
from gcnemu.snippet import run_snippet

from snippets import M32, assemble, code, run


def check_error(excinfo, pc, mnemonic, *reason_words):
    e = excinfo.value
    msg = str(e)
    assert e.pc == pc, msg
    assert f"pc {pc:#x}" in msg, msg
    assert e.instruction is not None and mnemonic in e.instruction, msg
    assert mnemonic in msg, msg
    for w in reason_words:
        assert w in msg, msg


def test_sanity_after_errors():
    # a known-good snippet, run between the failing ones below
    st = run("s_add_u32 s1, s0, 5\nv_add_i32 v1, vcc, s1, v0", sgpr={0: 10},
             vgpr={0: np.arange(64, dtype=np.uint32)})
    assert st.sgpr[1] == 15
    assert list(st.vgpr[1]) == [15 + l for l in range(64)]
    assert st.status == "done"


@pytest.mark.parametrize("src,pc,mn,reg", [
    ("v_mov_b32 v0, v10", 0, "v_mov_b32", "v10"),                  # read
    ("s_nop 0\nv_mov_b32 v9, 0", 4, "v_mov_b32", "v9"),            # write
    ("v_lshl_b64 v[7:8], v[0:1], 1", 0, "v_lshl_b64", "v8"),       # 64-bit write straddling
    ("v_add_f64 v[0:1], v[6:7], v[8:9]", 0, "v_add_f64", "v9"),    # 64-bit read
    ("v_mac_f32 v12, v0, v1", 0, "v_mac_f32", "v12"),
])
def test_vgpr_outside_allocation(src, pc, mn, reg):
    with pytest.raises(ExecutionError) as ei:
        run(src, num_vgprs=8)
    check_error(ei, pc, mn, reg, "outside")
    test_sanity_after_errors()


@pytest.mark.parametrize("src,pc,mn,reg", [
    ("s_mov_b32 s20, 0", 0, "s_mov_b32", "s20"),
    ("s_mov_b32 s0, s16", 0, "s_mov_b32", "s16"),
    ("s_nop 0\ns_mov_b64 s[14:15], 0", 4, "s_mov_b64", "s15"),
    ("v_readfirstlane_b32 s30, v0", 0, "v_readfirstlane_b32", "s30"),
    ("v_cmp_eq_u32_e64 s[16:17], v0, v0", 0, "v_cmp_eq_u32", "s1"),   # s16 or s17
    ("v_add_i32 v1, vcc, s40, v0", 0, "v_add_i32", "s40"),
])
def test_sgpr_outside_allocation(src, pc, mn, reg):
    with pytest.raises(ExecutionError) as ei:
        run(src, num_sgprs=15)
    check_error(ei, pc, mn, reg, "outside")
    test_sanity_after_errors()


def test_special_registers_are_not_part_of_the_allocation():
    st = run("s_mov_b64 vcc, exec\ns_mov_b32 m0, s0\ns_mov_b32 s1, m0", sgpr={0: 3}, num_sgprs=2)
    assert st.vcc == (1 << 64) - 1 and st.m0 == 3 and st.sgpr[1] == 3


def sop1(op, sdst, ssrc0):
    return (0xBE800000 | (sdst << 16) | (op << 8) | ssrc0).to_bytes(4, "little")


ENDPGM = (0xBF810000).to_bytes(4, "little")


@pytest.mark.parametrize("operand", [248, 249, 250])
def test_invalid_scalar_operand_code(operand):
    # SOP1 s_mov_b32 s10, <reserved source operand code> (248..250 are reserved on gfx7)
    prog = sop1(3, 10, operand) + ENDPGM
    with pytest.raises((ExecutionError, GcnEmuError)) as ei:
        run_snippet(prog)
    msg = str(ei.value)
    assert str(operand) in msg or hex(operand) in msg, msg
    if isinstance(ei.value, ExecutionError):
        assert ei.value.pc == 0 and "s_mov_b32" in msg
    test_sanity_after_errors()


def test_invalid_vector_operand_code():
    # VOP1 v_mov_b32 v1, <reserved 249>: 0x7E000000 | vdst<<17 | op<<9 | src0
    prog = (0x7E000000 | (1 << 17) | (1 << 9) | 249).to_bytes(4, "little") + ENDPGM
    with pytest.raises((ExecutionError, GcnEmuError)) as ei:
        run_snippet(prog)
    msg = str(ei.value)
    assert "249" in msg or "0xf9" in msg, msg
    test_sanity_after_errors()


def test_runaway_loop_hits_step_limit():
    src = "s_mov_b32 s0, 0\nLOOP:\ns_add_u32 s0, s0, 1\ns_branch LOOP"
    with pytest.raises(ExecutionError) as ei:
        run(src, step_limit=1000)
    e = ei.value
    msg = str(e)
    assert "step limit" in msg and "1000" in msg, msg
    assert e.pc in (4, 8) and e.instruction is not None, msg
    assert f"pc {e.pc:#x}" in msg
    test_sanity_after_errors()
    # the same loop with an exit finishes well inside the limit
    st = run("s_mov_b32 s0, 0\nLOOP:\ns_add_u32 s0, s0, 1\ns_cmp_lt_u32 s0, 100\n"
             "s_cbranch_scc1 LOOP", step_limit=1000)
    assert st.sgpr[0] == 100


def test_step_limit_counts_instructions():
    src = "\n".join(["s_nop 0"] * 10)
    st = run(src, step_limit=11)     # 10 nops + s_endpgm
    assert st.instructions == 11
    with pytest.raises(ExecutionError, match="step limit"):
        run(src, step_limit=10)


def test_running_off_the_end():
    with pytest.raises(ExecutionError) as ei:
        run_snippet(assemble("s_mov_b32 s0, 1\ns_nop 0"))
    assert "past the end" in str(ei.value)
    test_sanity_after_errors()


def test_branch_into_the_middle_of_an_instruction():
    # s_branch +1 dword lands inside the 8-byte s_mov_b32 with a literal
    prog = (0xBF820001).to_bytes(4, "little") + assemble("s_mov_b32 s0, 0x12345678") + ENDPGM
    with pytest.raises((ExecutionError, GcnEmuError)) as ei:
        run_snippet(prog)
    msg = str(ei.value)
    assert "branch" in msg or "target" in msg, msg
    test_sanity_after_errors()


def test_s_trap_without_handler():
    with pytest.raises(ExecutionError) as ei:
        run("s_nop 0\ns_trap 3")
    check_error(ei, 4, "s_trap", "trap")


def test_error_leaves_inputs_untouched_and_runs_are_independent():
    v0 = np.arange(64, dtype=np.uint32)
    vg = {0: v0.copy()}
    sg = {0: 5}
    with pytest.raises(ExecutionError):
        run("v_mov_b32 v0, 7\nv_mov_b32 v20, v0", vgpr=vg, sgpr=sg, num_vgprs=16)
    assert (vg[0] == v0).all() and sg == {0: 5}
    st = run("v_add_i32 v1, vcc, s0, v0", vgpr=vg, sgpr=sg, num_vgprs=16)
    assert list(st.vgpr[1]) == [5 + l for l in range(64)]
    assert st.vgpr.shape == (16, 64)


def test_bad_arguments():
    with pytest.raises(GcnEmuError):
        run("s_nop 0", vgpr={300: 1})
    with pytest.raises(GcnEmuError):
        run("s_nop 0", sgpr={104: 1})
    with pytest.raises(GcnEmuError):
        run("s_nop 0", vgpr={0: np.zeros(10, np.uint32)})
    with pytest.raises(GcnEmuError):
        run("s_nop 0", num_vgprs=0)
    with pytest.raises(GcnEmuError):
        run_snippet(12345)


def test_label_spelled_like_a_modifier():
    """llvm-mc assembles `s_cbranch_scc1 DONE` with a label named DONE; gcnemu's assembler
    must do the same (it took DONE for the `done` EXP modifier)."""
    src = "s_cbranch_scc1 DONE\ns_nop 0\nDONE:\ns_endpgm"
    from snippets import _assemble_llvm, _llvm_tools
    if not all(_llvm_tools()):
        pytest.skip("llvm-mc not available")
    assert assemble(src) == _assemble_llvm(src)


def test_v_movrel_past_the_allocation_is_an_error():
    with pytest.raises(ExecutionError) as ei:
        run("v_movrels_b32 v0, v10", m0=246)
    assert "v256" in str(ei.value) and ei.value.pc == 0
    with pytest.raises(ExecutionError) as ei:
        run("v_movreld_b32 v10, v0", m0=10, num_vgprs=16)
    assert "v20" in str(ei.value) and "v_movreld_b32" in str(ei.value)


@pytest.mark.parametrize("src,m0", [("s_movrels_b32 s0, s10", 130), ("s_movrels_b32 s0, s10", 96),
                                    ("s_movreld_b32 s10, s0", 116), ("s_movreld_b32 s10, s0", 96),
                                    ("s_movrels_b64 s[0:1], s[10:11]", 94)])  # M0 counts dwords: s[104:105]
def test_s_movrel_past_the_allocation_is_an_error(src, m0):
    # like v_movrel*, an index past the wave's SGPRs (s0..s103 here) is a register-range error
    with pytest.raises(ExecutionError, match="outside"):
        run(src, m0=m0, sgpr={0: 0x1234})


def test_vgpr_inputs_accept_ints_and_float32():
    p = code("s_nop 0")
    assert run_snippet(p, vgpr={0: 1.5}).vgpr[0][0] == 0x3FC00000          # a float: f32 bits
    assert run_snippet(p, vgpr={0: np.full(64, 1.5, np.float32)}).vgpr[0][5] == 0x3FC00000
    assert run_snippet(p, vgpr={0: [-1] * 64}).vgpr[0][7] == M32
    assert run_snippet(p, vgpr={0: np.arange(64, dtype=np.uint32)}).vgpr[0][9] == 9


def test_vgpr_float64_array_is_treated_like_a_float_scalar():
    p = code("s_nop 0")
    st = run_snippet(p, vgpr={0: np.full(64, 1.5)})
    assert st.vgpr[0][0] == 0x3FC00000


def test_error_pc_after_literals_and_branches():
    src = """
    s_mov_b32 s0, 0x12345678        // 0: 8 bytes with its literal
    s_branch L                      // 8
    s_nop 0                         // 12
L:  v_add_f32 v1, 0x40490fdb, v1    // 16: 8 bytes
    v_mov_b32 v0, v100              // 24
    """
    with pytest.raises(ExecutionError) as ei:
        run(src, num_vgprs=8)
    check_error(ei, 24, "v_mov_b32", "v100", "outside")


def test_error_in_a_loop_names_the_failing_iteration_pc():
    # the loop writes v[s0] via movreld; it fails on the iteration where M0 leaves the allocation
    src = """
    s_mov_b32 m0, 0
LOOP:
    v_movreld_b32 v0, v1            // 4
    s_add_u32 m0, m0, 1             // 8
    s_cmp_lt_u32 m0, 100            // 12
    s_cbranch_scc1 LOOP             // 16
    """
    with pytest.raises(ExecutionError) as ei:
        run(src, num_vgprs=10, vgpr={1: 5})
    check_error(ei, 4, "v_movreld_b32", "v10", "outside")


@pytest.mark.parametrize("src", ["v_cmp_eq_u32_e64 exec, v0, v1", "v_add_i32_e64 v0, exec, v1, v2"])
def test_vop3_sdst_exec_assembles_like_llvm_mc(src):
    from snippets import _assemble_llvm, _llvm_tools
    if not all(_llvm_tools()):
        pytest.skip("llvm-mc not available")
    assert assemble(src) == _assemble_llvm(src)


def test_reserved_destination_125_is_an_error():
    with pytest.raises(ExecutionError) as ei:
        run_snippet(sop1(3, 125, 0) + ENDPGM)           # s_mov_b32 <125>, s0
    assert "125" in str(ei.value) and ei.value.pc == 0


def test_reserved_source_125_is_an_error():
    with pytest.raises((ExecutionError, GcnEmuError), match="125"):
        run_snippet(sop1(3, 10, 125) + ENDPGM)          # s_mov_b32 s10, <125>
