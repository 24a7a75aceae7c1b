"""gcnemu.load("k.s") of what `clang -S` writes: gcnemu's assembler and linker
(isa/assembler.py, loader/asmlink.py) make the code object llvm-mc + ld.lld-14 make.

The reference is the toolchain itself: every corpus kernel's OpenCL C is compiled with the
corpus flags and -S (one clang-14 run for all, cached by content), then assembled and linked
both ways; the kernel descriptors, the metadata note, the code and every loaded section must be
equal, byte for byte. The toolchain tests skip, naming what is missing, without clang-14,
llvm-mc or ld.lld-14. The error tests need no tools (where llvm-mc is there, it must reject the
same input).
"""
from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import gcnemu
from gcnemu.errors import AssemblerError
from gcnemu.isa.assembler import assemble, assemble_object
from gcnemu.loader import load_code_object
from gcnemu.loader.asmlink import link_object
from gcnemu.loader.metadata import parse_notes
from gcnemu.loader.opencl import CL_FLAGS, LIBCLC, cache_dir
from kernels.corpus import KERNELS_DIR, list_kernels, source_path

CLANG, LLD = shutil.which("clang-14"), shutil.which("ld.lld-14")
MC = shutil.which("llvm-mc-14") or shutil.which("llvm-mc")
MISSING = [n for n, p in (("clang-14", CLANG), ("llvm-mc", MC), ("ld.lld-14", LLD),
                          (LIBCLC, os.path.isfile(LIBCLC))) if not p]
needs_tools = pytest.mark.skipif(bool(MISSING), reason=f"needs {', '.join(MISSING)}")
CL = [n for n in list_kernels() if source_path(n).suffix == ".cl"]
ASM = [n for n in list_kernels() if source_path(n).suffix == ".s"]


def _version(tool):
    return subprocess.run([tool, "--version"], capture_output=True, text=True).stdout


def _mc_lld(src: Path, out: Path) -> None:
    obj = out.with_suffix(".o")
    subprocess.run([MC, "-triple", "amdgcn-amd-amdhsa", "-mcpu=gfx700", "-filetype=obj",
                    str(src), "-o", str(obj)], check=True, capture_output=True)
    subprocess.run([LLD, "-shared", str(obj), "-o", str(out)], check=True, capture_output=True)
    obj.unlink()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """{kernel: (path of its assembly, llvm-mc + ld.lld code object bytes)}: clang -S of every
    corpus .cl (one clang run) and the corpus .s files, cached by the hash of the sources, the
    flags and the tool versions."""
    if MISSING:
        pytest.skip(f"needs {', '.join(MISSING)}")
    sources = {n: source_path(n).read_bytes() for n in CL + ASM}
    key = hashlib.sha256(b"\0".join([" ".join(CL_FLAGS).encode(),
                                     *(n.encode() + b"\0" + t for n, t in sorted(sources.items())),
                                     *(_version(t).encode() for t in (CLANG, MC, LLD))]))
    cache = cache_dir().parent / "clang-S" / key.hexdigest()[:32]
    if not (cache / "done").is_file():
        work = tmp_path_factory.mktemp("clang-S")
        for n in CL:
            (work / f"{n}.cl").write_bytes(sources[n])
        for n in ASM:
            (work / f"{n}.s").write_bytes(sources[n])
        # one clang run: it writes NAME.s beside each NAME.cl
        subprocess.run([CLANG, *CL_FLAGS, "-S", *(f"{n}.cl" for n in CL)], cwd=work, check=True,
                       capture_output=True)
        with ThreadPoolExecutor(2) as ex:
            list(ex.map(lambda n: _mc_lld(work / f"{n}.s", work / f"{n}.hsaco"), CL + ASM))
        (work / "done").write_text("")
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(f".{os.getpid()}")
            shutil.copytree(work, tmp)
            os.replace(tmp, cache)
        except OSError:
            cache = work
    return {n: (cache / f"{n}.s", (cache / f"{n}.hsaco").read_bytes()) for n in CL + ASM}


def _sections(raw: bytes) -> dict:
    from elftools.elf.elffile import ELFFile
    elf = ELFFile(io.BytesIO(raw))
    return {s.name: (s["sh_addr"], s.data()) for s in elf.iter_sections()
            if s["sh_flags"] & 2}             # SHF_ALLOC: what is loaded


def _compare(mine: bytes, ref: bytes):
    a, b = load_code_object(mine), load_code_object(ref)
    assert sorted(a.kernels) == sorted(b.kernels)
    for name, kb in b.kernels.items():
        ka = a.kernels[name]
        assert ka.descriptor == kb.descriptor, name          # all 64 bytes: every field
        assert ka.code == kb.code and ka.entry_address == kb.entry_address, name
        assert ka == kb, name                                # every decoded and metadata field
    ma = [d for o, t, d in parse_notes(_sections(mine)[".note"][1]) if t == 32]
    mb = [d for o, t, d in parse_notes(_sections(ref)[".note"][1]) if t == 32]
    assert ma == mb                                          # the msgpack, byte for byte
    import msgpack
    assert msgpack.unpackb(ma[0]) == msgpack.unpackb(mb[0])
    assert _sections(mine) == _sections(ref)   # .text, .rodata, dynamic tables: bytes, addresses


@needs_tools
@pytest.mark.parametrize("name", CL + ASM)
def test_clang_s_links_as_llvm_mc_and_lld(built, name):
    path, ref = built[name]
    _compare(link_object(assemble_object(path.read_text())), ref)
    prog = gcnemu.load(str(path))            # the public entry point takes the same file
    assert sorted(prog.kernel_names) == sorted(load_code_object(ref).kernels)


#: six kernels whose descriptors set every gfx7 directive to something else than its default,
#: a helper function called through sym@rel32@lo/hi, read-only data read the same way, and
#: metadata scalars of every kind LLVM types (hex, negative, YAML 1.1 bool, float, quoted
#: number, explicit !str)
VARIANTS = [
    "",
    ".amdhsa_reserve_vcc 0\n.amdhsa_reserve_flat_scratch 0\n.amdhsa_ieee_mode 0\n"
    ".amdhsa_dx10_clamp 0\n.amdhsa_float_denorm_mode_16_64 0\n.amdhsa_float_round_mode_32 3\n",
    ".amdhsa_user_sgpr_private_segment_buffer 1\n.amdhsa_user_sgpr_dispatch_ptr 1\n"
    ".amdhsa_user_sgpr_queue_ptr 1\n.amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
    ".amdhsa_user_sgpr_dispatch_id 1\n.amdhsa_user_sgpr_flat_scratch_init 1\n"
    ".amdhsa_user_sgpr_private_segment_size 1\n.amdhsa_user_sgpr_count 16\n",
    ".amdhsa_system_sgpr_private_segment_wavefront_offset 1\n"
    ".amdhsa_system_sgpr_workgroup_id_x 0\n.amdhsa_system_sgpr_workgroup_id_y 1\n"
    ".amdhsa_system_sgpr_workgroup_id_z 1\n.amdhsa_system_sgpr_workgroup_info 1\n"
    ".amdhsa_system_vgpr_workitem_id 2\n.amdhsa_private_segment_fixed_size 1040\n"
    ".amdhsa_group_segment_fixed_size 65536\n.amdhsa_kernarg_size 0x28\n",
    ".amdhsa_exception_fp_ieee_invalid_op 1\n.amdhsa_exception_fp_denorm_src 1\n"
    ".amdhsa_exception_fp_ieee_div_zero 1\n.amdhsa_exception_fp_ieee_overflow 1\n"
    ".amdhsa_exception_fp_ieee_underflow 1\n.amdhsa_exception_fp_ieee_inexact 1\n"
    ".amdhsa_exception_int_div_zero 1\n.amdhsa_float_denorm_mode_32 3\n"
    ".amdhsa_float_round_mode_16_64 2\n",
    ".amdhsa_reserve_vcc 1\n.amdhsa_reserve_flat_scratch 1\n",
]
GPRS = [(1, 1), (256, 104), (5, 9), (64, 30), (7, 0), (200, 100)]


def _variants_source() -> str:
    text = ["\t.text", '\t.amdgcn_target "amdgcn-amd-amdhsa--gfx700"', "\t.hidden helper",
            "\t.globl helper", "\t.p2align 2", "\t.type helper,@function", "helper:",
            "\ts_setpc_b64 s[30:31]", ".Lhelper_end:", "\t.size helper, .Lhelper_end-helper"]
    meta = []
    for i, (extra, (v, s)) in enumerate(zip(VARIANTS, GPRS)):
        vis = "\t.protected k%d" % i if i % 2 else ""
        text += [vis, f"\t.globl k{i}", "\t.p2align 8", f"\t.type k{i},@function", f"k{i}:",
                 "\ts_getpc_b64 s[0:1]", f"\ts_add_u32 s0, s0, table@rel32@lo+{4 + 4 * i}",
                 f"\ts_addc_u32 s1, s1, table@rel32@hi+{12 + 4 * i}",
                 "\ts_getpc_b64 s[2:3]", "\ts_add_u32 s2, s2, helper@rel32@lo+4",
                 "\ts_addc_u32 s3, s3, helper@rel32@hi+12", "\ts_swappc_b64 s[30:31], s[2:3]",
                 "\ts_endpgm", f".Lend{i}:", f"\t.size k{i}, .Lend{i}-k{i}",
                 "\t.section .rodata,#alloc", "\t.p2align 6", f"\t.amdhsa_kernel k{i}",
                 f"\t\t.amdhsa_next_free_vgpr {v}", f"\t\t.amdhsa_next_free_sgpr {s}",
                 *("\t\t" + ln for ln in extra.splitlines()), "\t.end_amdhsa_kernel", "\t.text"]
        d = dict(ln.split() for ln in extra.splitlines())
        meta += [f"  - .name: k{i}", f"    .symbol: k{i}.kd",
                 f"    .kernarg_segment_size: {d.get('.amdhsa_kernarg_size', 8)}",
                 f"    .group_segment_fixed_size: {d.get('.amdhsa_group_segment_fixed_size', 0)}",
                 "    .private_segment_fixed_size: "
                 f"{d.get('.amdhsa_private_segment_fixed_size', 0)}",
                 "    .kernarg_segment_align: 8", "    .wavefront_size: 64",
                 f"    .sgpr_count: '{s}'", f"    .vgpr_count: {v}",
                 "    .max_flat_workgroup_size: 256",
                 "    .args: [{.offset: 0, .size: 8, .value_kind: global_buffer, "
                 ".address_space: global, .name: out, .type_name: 'int*', .is_const: true}]",
                 "    .gcnemu_extra: [0x10, -3, -200, yes, on, 1.5, '12', !str 12, x y, 010, "
                 "18446744073709551615, " + "a" * 40 + "]"]
        if i == 3:
            text += ["\t.section .rodata,#alloc", "\t.p2align 4", "\t.type table,@object",
                     "table:", "\t.long 1, 2, 3, 4, 5, 6", "\t.ascii \"a;b//c\\\"\\n\\101\"",
                     "\t.zero 3", ".Ltable_end:", "\t.size table, .Ltable_end-table", "\t.text"]
    text += ["\t.amdgpu_metadata", "---", "amdhsa.kernels:", *meta,
             "amdhsa.target: amdgcn-amd-amdhsa--gfx700", "amdhsa.version: [1, 1]", "...",
             "\t.end_amdgpu_metadata", ""]
    return "\n".join(text)


@needs_tools
def test_every_descriptor_directive_and_several_kernels_as_llvm_mc(tmp_path):
    src = tmp_path / "variants.s"
    src.write_text(_variants_source())
    _mc_lld(src, tmp_path / "variants.hsaco")
    _compare(link_object(assemble_object(src.read_text())), (tmp_path / "variants.hsaco").read_bytes())


def test_the_descriptor_fields_of_a_variant():
    """Independent of the toolchain: fields computed by hand from AMDGPUUsage's tables."""
    co = load_code_object(link_object(assemble_object(_variants_source())))
    k1, k2, k5 = co.kernels["k1"], co.kernels["k2"], co.kernels["k5"]
    # k1: 1 VGPR -> granule 0; 104 SGPRs, no VCC and no flat scratch -> 13 granules of 8
    assert (k1.granulated_workitem_vgpr_count, k1.granulated_wavefront_sgpr_count) == (63, 12)
    assert (k1.enable_ieee_mode, k1.enable_dx10_clamp, k1.float_denorm_mode_16_64,
            k1.float_round_mode_32) == (0, 0, 0, 3)
    # k2: 4+2+2+2+2+2+1 = 15 implied user SGPRs, 16 declared; 9 + 4 (flat scratch) -> 2 granules
    assert k2.user_sgpr_count == 16 and k2.granulated_wavefront_sgpr_count == 1
    assert k2.kernel_code_properties == 0x7F
    # k5: 200 VGPRs -> 49; 100 + 4 = 104 SGPRs -> 12
    assert (k5.granulated_workitem_vgpr_count, k5.granulated_wavefront_sgpr_count) == (49, 12)
    for k in co.kernels.values():       # each descriptor points at its own code
        assert k.entry_address == k.descriptor_address + k.kernel_code_entry_byte_offset


# ------------------------------------------------------------------------------ errors
SAXPY = (KERNELS_DIR / "saxpy" / "kernel.lst").read_text()


def _line_of(text, needle):
    return next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)


#: (what to change in the clang -S output of saxpy, the message, the line it names)
BROKEN = [
    ((".amdhsa_next_free_vgpr 6", ".amdhsa_next_free_vgpr 300"), "past v255",
     ".amdhsa_next_free_vgpr"),
    ((".amdhsa_next_free_sgpr 9", ".amdhsa_next_free_sgpr 103"), "the SGPRs gfx7 addresses",
     ".amdhsa_next_free_sgpr"),
    ((".amdhsa_next_free_sgpr 9\n", ""), "has no .amdhsa_next_free_sgpr", ".amdhsa_kernel saxpy"),
    ((".amdhsa_dx10_clamp 1", ".amdhsa_dx10_clamp 2"), "does not fit its 1-bit field",
     ".amdhsa_dx10_clamp"),
    ((".amdhsa_ieee_mode 1", ".amdhsa_ieeee_mode 1"), "unknown directive .amdhsa_ieeee_mode",
     ".amdhsa_ieeee_mode"),
    ((".amdhsa_ieee_mode 1", ".amdhsa_reserve_xnack_mask 0"), "gfx8+",
     ".amdhsa_reserve_xnack_mask"),
    ((".amdhsa_user_sgpr_count 8", ".amdhsa_user_sgpr_count 4"), "smaller than the 8",
     ".amdhsa_user_sgpr_count"),
    ((".amdhsa_ieee_mode 1", ".amdhsa_ieee_mode 1\n.amdhsa_dx10_clamp 0"), "given twice",
     ".amdhsa_dx10_clamp 0"),
    ((".amdhsa_ieee_mode 1", ".amdhsa_ieee_mode yes"), "expects an integer",
     ".amdhsa_ieee_mode"),
    (("\t.end_amdhsa_kernel\n", ""), "or .end_amdhsa_kernel in the .amdhsa_kernel block",
     (".amdhsa_exception_int_div_zero", 1)),
    (("    .max_flat_workgroup_size: 256\n", ""), "has no .max_flat_workgroup_size",
     "  - .args:"),
    (("    .language:       OpenCL C", "    .language:       OpenCL D"), ".language must be one of",
     ".language:"),
    (("    .vgpr_count:     6", "    .vgpr_count:     six"), ".vgpr_count must be an integer",
     ".vgpr_count:"),
    (("    .vgpr_count:     6", "    .vgpr_count:     6: 7"), "not valid YAML", ".vgpr_count:"),
    (('"amdgcn-amd-amdhsa--gfx700"', '"amdgcn-amd-amdhsa--gfx900"'), "(gfx7)",
     ".amdgcn_target"),
    (("s_cbranch_execz .LBB0_2", "s_cbranch_execz .LBB0_9"), "undefined label '.LBB0_9'",
     "s_cbranch_execz"),
    (("\t.size\tsaxpy, .Lfunc_end0-saxpy", "\t.size\tsaxpy, .Lfunc_end0"), "is an address",
     ".size\tsaxpy"),
]


@pytest.mark.parametrize("edit, message, at", BROKEN, ids=[b[1][:30] for b in BROKEN])
def test_a_broken_directive_names_its_line(edit, message, at, tmp_path):
    old, new = edit
    assert old in SAXPY
    text = SAXPY.replace(old, new, 1)
    path = tmp_path / "k.s"
    path.write_text(text)
    with pytest.raises(AssemblerError) as e:
        gcnemu.load(str(path))
    assert message in str(e.value) and str(path) in str(e.value)
    needle, below = at if isinstance(at, tuple) else (at, 0)
    assert e.value.line == _line_of(text, needle) + below, str(e.value)
    if MC:       # the reference assembler rejects it too
        r = subprocess.run([MC, "-triple", "amdgcn-amd-amdhsa", "-mcpu=gfx700",
                            "-filetype=obj", str(path), "-o", str(tmp_path / "k.o")],
                           capture_output=True, text=True)
        assert r.returncode != 0, message


def test_a_block_left_open_names_its_first_line():
    text = SAXPY[:SAXPY.index("\t.end_amdhsa_kernel")]
    with pytest.raises(AssemblerError, match="without its .end_amdhsa_kernel") as e:
        assemble_object(text)
    assert e.value.line == _line_of(text, ".amdhsa_kernel saxpy")
    text = SAXPY[:SAXPY.index("\t.end_amdgpu_metadata")]
    with pytest.raises(AssemblerError, match="without its .end_amdgpu_metadata") as e:
        assemble_object(text)
    assert e.value.line == _line_of(text, ".amdgpu_metadata")


#: what llvm-mc accepts but gcnemu's linker does not take: a clear error, not a wrong image
LIMITS = [
    ("\t.section .data\nx:\n\t.long 1\n", "section .data is writable"),
    ("\t.text\nf:\n\ts_getpc_b64 s[0:1]\n\ts_add_u32 s0, s0, nowhere@rel32@lo+4\n",
     "undefined symbol 'nowhere'"),
    ("\t.text\nf:\n\ts_getpc_b64 s[0:1]\n\ts_add_u32 s0, s0, saxpy@gotpcrel32@lo+4\n",
     "@gotpcrel32@lo is not supported"),
    ("\t.text\n\t.globl g\ng:\n\ts_getpc_b64 s[0:1]\n\ts_add_u32 s0, s0, g@rel32@lo+4\n",
     "default visibility"),
]


@pytest.mark.parametrize("extra, message", LIMITS, ids=[m for _, m in LIMITS])
def test_what_the_linker_does_not_take_is_a_clear_error(extra, message, tmp_path):
    path = tmp_path / "k.s"
    path.write_text(SAXPY + extra)
    with pytest.raises(AssemblerError, match=message) as e:
        gcnemu.load(str(path))
    assert e.value.line is not None


def test_raw_code_keeps_working_and_refuses_what_needs_a_code_object():
    # gcnemu's own .s format (no directives): machine code, as before
    code = assemble("s_mov_b32 s0, 1\ns_endpgm")
    assert code == (0xBE800381).to_bytes(4, "little") + (0xBF810000).to_bytes(4, "little")
    # the .text of a clang -S file assembles alone (the descriptor is not code), as clang made it
    ref = load_code_object(KERNELS_DIR / "saxpy" / "kernel.hsaco").kernels["saxpy"].code
    assert assemble(SAXPY) == ref
    with pytest.raises(AssemblerError, match="section .rodata holds data"):
        assemble("s_endpgm\n.section .rodata\n.long 5\n")
    with pytest.raises(AssemblerError, match="is a relocation"):
        assemble("s_getpc_b64 s[0:1]\ns_add_u32 s0, s0, x@rel32@lo+4\nx:\ns_endpgm")


def test_gcnemu_run_takes_clang_s_output(tmp_path, capsys):
    """`gcnemu run k.s` through the entry point: the saxpy listing (clang -S) dispatched and
    checked against numpy; a broken directive exits 1 with one line naming file and line."""
    import numpy as np

    from gcnemu.cli import main

    s = tmp_path / "saxpy.s"
    s.write_text(SAXPY)
    x = np.arange(300, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", np.ones(300, np.float32))
    args = ["--kernel", "saxpy", "--grid", "300", "--arg", f"inout:{tmp_path / 'y.npy'}",
            "--arg", f"in:{tmp_path / 'x.npy'}", "--arg", "f32:0.5", "--arg", "u32:300"]
    assert main(["run", str(s), *args]) == 0, capsys.readouterr().err
    assert np.array_equal(np.load(tmp_path / "y.npy"), 1 + np.float32(0.5) * x)
    capsys.readouterr()
    bad = SAXPY.replace(".amdhsa_ieee_mode 1", ".amdhsa_ieee_mode 2")
    s.write_text(bad)
    assert main(["run", str(s), *args]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(s) in err and \
        f"line {_line_of(bad, '.amdhsa_ieee_mode')}" in err, err


@needs_tools
def test_clang_g_output_links_the_same_code(tmp_path):
    """clang -g adds .loc, .cfi_* and .debug_* sections: gcnemu reads and drops the debug
    information (no dispatch reads it); the loaded image equals llvm-mc + ld.lld's."""
    src = tmp_path / "func_calls.cl"
    src.write_bytes(source_path("func_calls").read_bytes())
    s = tmp_path / "func_calls.s"
    subprocess.run([CLANG, *CL_FLAGS, "-g", "-S", src.name, "-o", s.name], cwd=tmp_path,
                   check=True, capture_output=True)
    text = s.read_text()
    assert ".loc" in text and ".cfi_startproc" in text and ".debug_info" in text
    _mc_lld(s, tmp_path / "g.hsaco")
    _compare(link_object(assemble_object(text)), (tmp_path / "g.hsaco").read_bytes())
