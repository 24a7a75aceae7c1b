"""Hostile input: programs, code objects and arguments that used to corrupt the process or give a
wrong answer without a word. Each case must end in a clear GcnEmuError (or the documented
behaviour), leave every byte of unmapped GPU memory untouched (the fuzzers' canary), and leave
the GPU able to run the next dispatch correctly.

The cases come from the robustness issue and from the fuzz campaigns of tools/fuzz.py; the
campaigns themselves run in tests/test_fuzz.py on the bounds-checked build.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import msgpack
import numpy as np
import pytest

import gcnemu
from gcnemu.errors import DispatchError, ExecutionError, GcnEmuError, LoaderError, MemoryFault
from kernels import corpus

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import fuzz  # noqa: E402

SAXPY = corpus.hsaco_path("saxpy")
ENDPGM = (0xBF810000).to_bytes(4, "little")


def _word(hexstr: str, field_lo: int, width: int, value: int) -> bytes:
    """Little-endian instruction bytes (given as llvm-mc prints them, as hex) with one bit field
    set: the way to reach encodings assembly syntax cannot write."""
    b = bytes.fromhex(hexstr)
    w = int.from_bytes(b, "little")
    w = (w & ~(((1 << width) - 1) << field_lo)) | (value << field_lo)
    return w.to_bytes(len(b), "little")


def _run(code: bytes, *, vgprs=16, sgprs=104, grid=64, block=64, workers=1, gpu=None):
    """Dispatch raw code on a fresh (or the given) GPU with the unmapped bytes filled with the
    canary; returns (gpu, report or the GcnEmuError raised)."""
    gpu = gpu or gcnemu.GPU(step_limit=20000)
    out = gpu.to_device(np.arange(256, dtype=np.uint32), name="out")
    k = fuzz.raw_kernel(code, vgprs, sgprs)
    pages = fuzz.fill_canary(gpu.memory)
    try:
        result = gpu.dispatch(k, grid=(grid,), block=(block,), args=[out, out], strict=False,
                              workers=workers)
    except GcnEmuError as e:
        result = e
    assert fuzz.canary_intact(gpu.memory, pages), "unmapped GPU memory was written"
    assert fuzz._check_gpu_still_works(gpu) == ""
    return gpu, result


# --- scalar operand ranges that ran past a wave's row of sregs ------------------------------
SCALAR_RANGE_CASES = {
    # s_mov_b64 with SDST 127: the second dword would be the next wave's s0
    "s_mov_b64 sdst 127": bytes.fromhex("c104ffbe") + ENDPGM,
    # s_load_dwordx16 into 120..135 (SDST = 120 is encodable, not writable in assembly)
    "s_load_dwordx16 sdst 120": _word("00012cc1", 15, 7, 120) + ENDPGM,
    # a VOP3 compare writing its mask to 127..128
    "v_cmp_eq_u32_e64 sdst 127": _word("0a0084d101050200", 0, 8, 127) + ENDPGM,
    # s_and_saveexec_b64 saving EXEC to 127..128
    "s_and_saveexec_b64 sdst 127": _word("02248abe", 16, 7, 127) + ENDPGM,
    # an image T# of 8 dwords from s124 (srsrc field 31)
    "image_load T# at s124": _word("000f00f004000100", 48, 5, 31) + ENDPGM,
    # s_buffer_load with its V# at s126..s129 (sbase field 63)
    "s_buffer_load V# at s126": _word("000584c2", 9, 6, 63) + ENDPGM,
}


@pytest.mark.parametrize("name", sorted(SCALAR_RANGE_CASES))
def test_scalar_ranges_past_the_operand_space_are_errors(name):
    _, err = _run(SCALAR_RANGE_CASES[name])
    assert isinstance(err, ExecutionError), err
    assert "past EXEC_HI" in str(err) and "wave 0 of workgroup (0, 0, 0)" in str(err), str(err)


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("code", [
    # the two programs of the issue that ended the process with SIGABRT (glibc's heap check)
    "6f5d02bf326cd8cbff04e47d563413efffff84bf0a00fad801850220000078dc00000000ffff82bf2c3280be"
    "2a4734d9a3120000ff0090d20093ab01000081bf",
    "ff0f2ce0000019f0056a50d201051a00050098d268040e04050034d2c1040200000081bf",
], ids=["interp-flat-join-ds", "buffer-sshort-vop3"])
def test_issue_programs_end_in_an_error_or_run(code, workers):
    gpu = gcnemu.GPU(step_limit=20000)
    for _ in range(20):      # the corruption took repeated dispatches to show
        _, result = _run(bytes.fromhex(code), vgprs=16, grid=576, block=192, workers=workers,
                         gpu=gpu)
        assert isinstance(result, (GcnEmuError, gcnemu.DispatchReport))


def test_join_with_a_stack_pointer_past_the_fork_stack_is_an_error():
    # s_setreg_imm32_b32 hwreg(HW_REG_MODE, 29, 3), 7 (MODE[31:29] is the fork/join stack
    # pointer), then s_cbranch_join s0 with s0 = 0: there is no seventh entry to pop
    code = gcnemu.assemble("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 29, 3), 7\n"
                           "s_mov_b32 s0, 0\ns_cbranch_join s0\ns_endpgm")
    _, err = _run(code)
    assert isinstance(err, ExecutionError) and "fork/join stack pointer of 7" in str(err)


def test_m0_relative_register_index_is_named_as_such():
    code = gcnemu.assemble("s_mov_b32 m0, 0xfffffff0\ns_movrels_b32 s1, s20\ns_endpgm")
    _, err = _run(code)
    assert isinstance(err, ExecutionError)
    assert "M0-relative" in str(err) and "0x" in str(err) and "s_movrels_b32" in str(err)


# --- sizes checked before anything is allocated ---------------------------------------------
def _saxpy_args(gpu):
    y = gpu.to_device(np.ones(64, np.float32))
    return [y, y, np.float32(2), np.uint32(64)]


@pytest.mark.parametrize("grid, block, text", [
    ((2 ** 64 - 1,), (256,), "32 bits"),
    ((2 ** 32 - 1, 2 ** 20), (64, 1), "workgroups"),
    ((1024.7,), (256,), "integers"),
    ((True,), (1,), "integers"),
    ((64,), ("64",), "integers"),
])
def test_grid_sizes_are_checked_first(grid, block, text):
    gpu = gcnemu.GPU()
    k = gcnemu.load(SAXPY).kernel("saxpy")
    t = time.monotonic()
    with pytest.raises(DispatchError, match=text):
        gpu.dispatch(k, grid=grid, block=block, args=_saxpy_args(gpu))
    assert time.monotonic() - t < 5


def _program_header(blob: bytearray, index: int) -> int:
    phoff = int.from_bytes(blob[0x20:0x28], "little")
    return phoff + 56 * index


def _load_segment_index(blob: bytes) -> int:
    phnum = int.from_bytes(blob[0x38:0x3A], "little")
    for i in range(phnum):
        o = _program_header(bytearray(blob), i)
        if int.from_bytes(blob[o:o + 4], "little") == 1:   # PT_LOAD
            return i
    raise AssertionError("no PT_LOAD")


@pytest.mark.parametrize("memsz", [256 << 20, 1 << 44])
def test_huge_zero_fill_is_rejected_before_allocating(memsz):
    blob = bytearray(SAXPY.read_bytes())
    o = _program_header(blob, _load_segment_index(blob))
    blob[o + 0x28:o + 0x30] = memsz.to_bytes(8, "little")          # p_memsz
    with pytest.raises(LoaderError, match="p_memsz|zero-fill"):
        gcnemu.load(bytes(blob))


def _section_header(blob: bytes, name: str) -> int:
    shoff = int.from_bytes(blob[0x28:0x30], "little")
    shnum = int.from_bytes(blob[0x3C:0x3E], "little")
    shstrndx = int.from_bytes(blob[0x3E:0x40], "little")
    stro = int.from_bytes(blob[shoff + 64 * shstrndx + 0x18:shoff + 64 * shstrndx + 0x20], "little")
    for i in range(shnum):
        o = shoff + 64 * i
        nm = int.from_bytes(blob[o:o + 4], "little")
        if blob[stro + nm:].split(b"\0")[0].decode() == name:
            return o
    raise AssertionError(name)


def test_section_offset_past_the_file_is_a_loader_error():
    blob = bytearray(SAXPY.read_bytes())
    o = _section_header(blob, ".text")
    blob[o + 0x18:o + 0x20] = (1 << 63).to_bytes(8, "little")     # sh_offset
    with pytest.raises(LoaderError, match="section header .*sh_offset"):
        gcnemu.load(bytes(blob))


def test_symbol_table_of_the_wrong_type_is_a_loader_error():
    blob = bytearray(SAXPY.read_bytes())
    o = _section_header(blob, ".symtab")
    blob[o + 4:o + 8] = (1).to_bytes(4, "little")                 # SHT_PROGBITS
    with pytest.raises(LoaderError, match="symbol table"):
        gcnemu.load(bytes(blob))


def _with_metadata(blob: bytes, edit) -> bytes:
    """The code object with its msgpack metadata changed by ``edit(doc)``, written in place: the
    note shrinks and a dummy note fills the rest of the section (so no offset moves)."""
    o = _section_header(blob, ".note")
    off = int.from_bytes(blob[o + 0x18:o + 0x20], "little")
    size = int.from_bytes(blob[o + 0x20:o + 0x28], "little")
    notes = blob[off:off + size]
    pos = 0
    while pos < len(notes):
        namesz, descsz, ntype = (int.from_bytes(notes[pos + i:pos + i + 4], "little") for i in (0, 4, 8))
        desc_at = pos + 12 + ((namesz + 3) & ~3)
        if ntype == 32:
            doc = msgpack.unpackb(notes[desc_at:desc_at + descsz], raw=False)
            doc["amdhsa.kernels"][0].pop(".symbol", None)              # room for the change
            doc["amdhsa.kernels"][0].pop(".language_version", None)
            edit(doc)
            new = msgpack.packb(doc)
            end = desc_at + ((descsz + 3) & ~3)
            room = end - desc_at
            assert len(new) + 12 <= room, "the edit does not fit"
            new_aligned = (len(new) + 3) & ~3
            body = bytearray(notes[:pos + 4]) + len(new).to_bytes(4, "little") + notes[pos + 8:desc_at]
            body += new + bytes(new_aligned - len(new))
            filler = room - new_aligned - 12
            body += (0).to_bytes(4, "little") + filler.to_bytes(4, "little") + (0).to_bytes(4, "little")
            body += bytes(filler) + notes[end:]
            assert len(body) == len(notes)
            return bytes(blob[:off]) + bytes(body) + bytes(blob[off + size:])
        pos = desc_at + ((descsz + 3) & ~3)
    raise AssertionError("no metadata note")


def _set(path, value):
    def edit(doc):
        d = doc
        for key in path[:-1]:
            d = d[key]
        d[path[-1]] = value
    return edit


@pytest.mark.parametrize("edit, field", [
    (_set(["amdhsa.version"], "1.1"), "amdhsa.version"),
    (_set(["amdhsa.kernels"], 7), "amdhsa.kernels"),
    (lambda d: d["amdhsa.kernels"][0].__setitem__(".args", 3), ".args"),
    (lambda d: d["amdhsa.kernels"][0][".args"][0].__setitem__(".size", -8), ".size"),
    (lambda d: d["amdhsa.kernels"][0][".args"][0].__setitem__(".offset", "0"), ".offset"),
    (lambda d: d["amdhsa.kernels"][0].__setitem__(".kernarg_segment_size", 1 << 40), "kernarg_segment_size"),
    (lambda d: d["amdhsa.kernels"][0].__setitem__(".kernarg_segment_size", 8), "kernarg_size 80"),
    (lambda d: d["amdhsa.kernels"][0][".args"][0].__setitem__(".offset", 76), "argument 0"),
    (lambda d: d["amdhsa.kernels"][0].__setitem__(".vgpr_count", 9999), "vgpr_count"),
    (lambda d: d["amdhsa.kernels"][0].__setitem__(".group_segment_fixed_size", 4096), "group_segment_fixed_size"),
    (lambda d: d["amdhsa.kernels"][0].__setitem__(".name", 5), ".name"),
])
def test_inconsistent_metadata_is_a_loader_error_naming_the_field(edit, field):
    blob = _with_metadata(SAXPY.read_bytes(), edit)
    with pytest.raises(LoaderError, match=field.replace(".", r"\.")):
        prog = gcnemu.load(blob)
        prog.kernel(prog.kernel_names[0])


def test_the_metadata_rewriter_keeps_a_loadable_object():
    blob = _with_metadata(SAXPY.read_bytes(), lambda d: None)
    gpu = gcnemu.GPU()
    x = np.arange(64, dtype=np.float32)
    y = gpu.to_device(np.ones(64, np.float32))
    gpu.dispatch(gcnemu.load(blob).kernel("saxpy"), grid=(64,), block=(64,),
                 args=[y, gpu.to_device(x), np.float32(2), np.uint32(64)])
    assert np.array_equal(y.to_numpy(np.float32), np.float32(2) * x + 1)


def test_large_private_segment_runs_in_smaller_batches():
    code = gcnemu.assemble("s_endpgm")
    import dataclasses
    from gcnemu.kernel import LoadedProgram, assembly_kernel_info
    info = dataclasses.replace(assembly_kernel_info("k", code), private_segment_fixed_size=100_000)
    k = LoadedProgram(None, {"k": info}).kernel("k")
    gpu = gcnemu.GPU()
    before = gpu.memory.size
    gpu.dispatch(k, grid=(64 * 256,), block=(64,), args=[])
    # 256 waves of 64 lanes x 100 kB would be 1.6 GB of scratch in one batch of 128 waves
    assert gpu.memory.size - before < (80 << 20)


# --- the assembler against llvm-mc's behaviour ------------------------------------------------
@pytest.mark.parametrize("text, want", [
    ("s_mov_b32 s0, -0.0", "ff0380be00000080"),      # a literal: -0.0 has no inline code
    ("v_add_f32 v1, -0.0, v2", "ff04020600000080"),
    ("s_mov_b32 s0, 010", "880380be"),              # C octal, as llvm-mc reads it: 8
    ("v_mov_b32 v[010], v1", "0103107e"),           # v8 (an index is a number) ...
    ("v_mov_b32 v010, v1", "0103147e"),             # ... v10 (a name is not)
    ("s_mov_b32 s0, --1", "810380be"),              # llvm-mc 14 takes these two as well
    ("v_mov_b32 v0, 0.0,", "8002007e"),
])
def test_assembler_encodes_as_llvm_mc(text, want):
    assert gcnemu.assemble(text).hex() == want


@pytest.mark.parametrize("text", [
    "v_mov_b32 v[1:], v2",
    "v_add_f64 v[1:2],,, v[3:4], v[5:6]",
    "v_mov_b32 v1,, v2",
    "buffer_load_dword v1, off, s[4:7], 0 offset:409#5",
    "s_mov_b32 s0, 09",
    "s_mov_b64 s[0:1], -0.0",
    "v_add_f64 v[0:1], -0.0, v[2:3]",
])
def test_assembler_rejects_what_llvm_mc_rejects(text):
    with pytest.raises(gcnemu.AssemblerError):
        gcnemu.assemble(text)


def test_assembler_differential_sample_against_llvm_mc():
    if not any(os.access(os.path.join(p, "llvm-mc"), os.X_OK) for p in os.environ["PATH"].split(":")):
        pytest.skip("llvm-mc (llvm-14) is not installed")
    r = fuzz.asm_differential(seed=20261202, n=300)
    assert r["both"] > 20                       # the sample exercises real instructions
    assert r["gcnemu_only"] == [], "gcnemu accepts what llvm-mc rejects"
    assert r["different"] == [], "gcnemu and llvm-mc encode differently"


# --- runaway kernels: time limit and Ctrl-C ---------------------------------------------------
BARRIER_LOOP = "L:\n  s_barrier\n  v_add_f32 v1, v1, v1\n  s_branch L\n  s_endpgm"
#: a loop of the costliest kind of instruction for the host: 64 lanes of 16-byte loads, each
#: a fault (a slice counts instructions, and a memory instruction as MEMORY_WORK of them)
MEMORY_LOOP = "L:\n  flat_load_dwordx4 v[4:7], v[2:3]\n  s_waitcnt vmcnt(0)\n  s_branch L\n  s_endpgm"


@pytest.mark.parametrize("loop", [BARRIER_LOOP, MEMORY_LOOP], ids=["barrier", "memory"])
@pytest.mark.parametrize("workers", [1, 2])
def test_time_limit_stops_a_loop(workers, loop):
    k = fuzz.raw_kernel(gcnemu.assemble(loop), 16, 104)
    gpu = gcnemu.GPU(step_limit=10 ** 15)
    out = gpu.to_device(np.zeros(16, np.uint32))
    with pytest.raises(ExecutionError, match="time limit"):     # compiles on this first use
        gpu.dispatch(k, grid=(64,), block=(64,), args=[out], time_limit=5)
    t = time.monotonic()
    with pytest.raises(ExecutionError, match="time limit of 0.5 s"):
        gpu.dispatch(k, grid=(192 * 12,), block=(192,), args=[out], time_limit=0.5,
                     workers=workers)
    assert time.monotonic() - t < 2.0
    assert fuzz._check_gpu_still_works(gpu) == ""


CTRL_C_CHILD = """
import sys, numpy as np, gcnemu
sys.path.insert(0, "tools")
import fuzz
k = fuzz.raw_kernel(gcnemu.assemble({src!r}), 16, 104)
gpu = gcnemu.GPU(step_limit=10**15)
out = gpu.to_device(np.zeros(16, np.uint32))
try:
    gpu.dispatch(k, grid=(64,), block=(64,), args=[out], time_limit=2)
except gcnemu.ExecutionError:
    pass
print("running", flush=True)
gpu.dispatch(k, grid=(192 * 12,), block=(192,), args=[out], workers={workers})
"""


@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_stops_a_dispatch_within_a_second(workers):
    child = subprocess.Popen([sys.executable, "-c", CTRL_C_CHILD.format(src=BARRIER_LOOP, workers=workers)],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        assert child.stdout.readline().strip() == "running"
        time.sleep(0.5)
        t = time.monotonic()
        child.send_signal(signal.SIGINT)
        child.wait(10)
        assert time.monotonic() - t < 1.5
        assert "KeyboardInterrupt" in child.stderr.read()
    finally:
        if child.poll() is None:
            child.kill()


# --- nothing cut off or coerced without a word ------------------------------------------------
def test_messages_beyond_the_buffer_are_counted():
    st = gcnemu.run_snippet("s_mov_b32 s0, 300\nL:\n s_sendmsg sendmsg(MSG_GS, GS_OP_NOP)\n"
                            " s_sub_u32 s0, s0, 1\n s_cmp_lg_u32 s0, 0\n s_cbranch_scc1 L\n s_endpgm")
    assert len(st.messages) + st.dropped["s_sendmsg"] == 300 and st.dropped["s_sendmsg"] > 0


def test_halted_waves_are_reported():
    gpu, rep = _run(gcnemu.assemble("s_sethalt 1\ns_endpgm"), grid=128)
    assert rep.halted_waves == 2 and "2 waves halted by s_sethalt" in rep.summary()


def test_faults_beyond_the_record_buffer_are_counted():
    # 40 loads from an unmapped address by each of 64 lanes: 16 recorded, all counted
    src = "v_mov_b32 v2, 0\nv_mov_b32 v3, 0x7\n" + "flat_load_dword v4, v[2:3]\n" * 40 + "s_endpgm"
    gpu, rep = _run(gcnemu.assemble(src))
    assert len(rep.faults) == 16 and rep.dropped["faults"] == 40 * 64 - 16
    assert f"{40 * 64} faults" in rep.summary()


def test_fault_address_past_2_63_prints_unsigned():
    src = "v_mov_b32 v2, 0\nv_mov_b32 v3, 0x80000000\nflat_load_dword v4, v[2:3]\ns_endpgm"
    gpu, rep = _run(gcnemu.assemble(src))
    assert rep.faults and "0x8000000000000000" in rep.faults[0] and "0x-" not in rep.faults[0]


# --- Python misuse ----------------------------------------------------------------------------
def test_buffers_are_checked():
    gpu, other = gcnemu.GPU(), gcnemu.GPU()
    k = gcnemu.load(SAXPY).kernel("saxpy")
    for bad in ("hello", [], np.array([], np.float32), np.array([None, 1])):
        with pytest.raises(GcnEmuError):
            gpu.to_device(bad)
    with pytest.raises(GcnEmuError, match="positive"):
        gpu.empty(0)
    y = gpu.to_device(np.ones(64, np.float32))
    assert np.array_equal(gpu.to_device(np.ones((8, 8), np.float32)[:, ::2]).to_numpy(np.float32),
                          np.ones(32, np.float32))     # not contiguous: copied, kept in order
    for count in (-1, 65, 2.5):
        with pytest.raises(GcnEmuError, match="count"):
            y.to_numpy(np.float32, count)
    z = other.to_device(np.ones(64, np.float32))
    with pytest.raises(DispatchError, match="another GPU"):
        gpu.dispatch(k, grid=(64,), block=(64,), args=[z, y, np.float32(2), np.uint32(64)])
    y.free()
    with pytest.raises(MemoryFault, match="was freed"):
        y.to_numpy(np.float32)
    with pytest.raises(MemoryFault, match="was freed"):
        y.free()
    with pytest.raises(DispatchError, match="was freed"):
        gpu.dispatch(k, grid=(64,), block=(64,), args=[y, y, np.float32(2), np.uint32(64)])


@pytest.mark.parametrize("value, text", [
    (-1, "negative value -1 for the unsigned uint"),
    (np.int32(-5), "negative value -5"),
    (np.float32(3), "expected an integer"),
])
def test_by_value_arguments_keep_their_type(value, text):
    gpu = gcnemu.GPU()
    k = gcnemu.load(SAXPY).kernel("saxpy")
    y = gpu.to_device(np.ones(64, np.float32))
    with pytest.raises(DispatchError, match=text):
        gpu.dispatch(k, grid=(64,), block=(64,), args=[y, y, np.float32(2), value])
    with pytest.raises(DispatchError, match="expected a float, got uint32"):
        gpu.dispatch(k, grid=(64,), block=(64,), args=[y, y, np.uint32(2), np.uint32(64)])


@pytest.mark.parametrize("kwargs", [{"workers": 0}, {"workers": 1.5}, {"time_limit": -1},
                                    {"time_limit": "soon"}])
def test_dispatch_options_are_checked(kwargs):
    gpu = gcnemu.GPU()
    k = gcnemu.load(SAXPY).kernel("saxpy")
    with pytest.raises(DispatchError, match=next(iter(kwargs))):
        gpu.dispatch(k, grid=(64,), block=(64,), args=_saxpy_args(gpu), **kwargs)


@pytest.mark.parametrize("kwargs", [{"step_limit": 0}, {"waves_per_batch": -3}, {"time_limit": 0}])
def test_gpu_options_are_checked(kwargs):
    with pytest.raises(DispatchError, match=next(iter(kwargs))):
        gcnemu.GPU(**kwargs)


def test_gpu_is_usable_after_every_kind_of_failure():
    """After a failed wave, a fault, a time limit and a bad argument on one GPU, a saxpy gives
    numpy's bits and a buffer the failing kernels did not write is unchanged."""
    gpu = gcnemu.GPU(step_limit=20000)
    keep = gpu.to_device(np.arange(1000, dtype=np.uint32), name="keep")
    _run(SCALAR_RANGE_CASES["s_mov_b64 sdst 127"], gpu=gpu)
    _run(gcnemu.assemble("v_mov_b32 v2, 0\nv_mov_b32 v3, 7\nflat_store_dword v[2:3], v0\ns_endpgm"), gpu=gpu)
    _run(gcnemu.assemble("L:\n s_branch L\n s_endpgm"), gpu=gpu)          # step limit
    with pytest.raises(DispatchError):
        gpu.dispatch(gcnemu.load(SAXPY).kernel("saxpy"), grid=(64,), block=(64,), args=[1])
    assert np.array_equal(keep.to_numpy(np.uint32), np.arange(1000, dtype=np.uint32))
    assert fuzz._check_gpu_still_works(gpu) == ""
