"""Tests of gcnemu.loader against values forced in the sources (tests/data/loader/*.cl, *.s),
the AMDGPU ABI documentation (AMDGPUUsage), the HSA packet layout, and llvm-readelf-14."""
from __future__ import annotations

import re
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from gcnemu.errors import DispatchError, GcnEmuError, LoaderError
from gcnemu.loader import (
    build_aql_dispatch_packet,
    build_kernarg_segment,
    initial_sgpr_layout,
    initial_vgpr_layout,
    load_code_object,
)
from gcnemu.loader.abi import default_hidden_args

DATA = Path(__file__).parent / "data" / "loader"
CL_OBJECTS = {v: DATA / f"kernels_v{v}.hsaco" for v in (2, 3, 4, 5)}
ASM_OBJECT = DATA / "asm_kernels.hsaco"
CL_KERNELS = {"vadd", "lds_kernel", "scratch_kernel", "ids3d"}
S_ENDPGM = bytes([0x00, 0x00, 0x81, 0xBF])  # llvm-mc -mcpu=bonaire -show-encoding: s_endpgm
READELF = shutil.which("llvm-readelf-14")


@pytest.fixture(scope="module", params=sorted(CL_OBJECTS))
def cl_obj(request):
    return request.param, load_code_object(CL_OBJECTS[request.param])


@pytest.fixture(scope="module")
def asm_obj():
    return load_code_object(ASM_OBJECT)


# --- code objects from OpenCL -----------------------------------------------------------------

def test_version_target_and_kernels(cl_obj):
    version, co = cl_obj
    assert co.code_object_version == version  # built with -mcode-object-version=<version>
    assert co.target == "amdgcn-amd-amdhsa--gfx700"
    assert co.mach == "gfx700"
    assert set(co.kernels) == CL_KERNELS
    for k in co.kernels.values():
        assert k.code_object_version == version
        assert k.wavefront_size == 64


def test_code_slices_lie_in_text_and_end_with_s_endpgm(cl_obj):
    _, co = cl_obj
    for k in co.kernels.values():
        assert k.entry_address % 256 == 0  # AMDGPUUsage: kernel entry is 256-byte aligned
        off = k.entry_address - co.text_address
        assert co.text[off:off + len(k.code)] == k.code
        assert k.code[-4:] == S_ENDPGM, k.name
        assert len(k.code) % 4 == 0


def test_kernel_object_address(cl_obj):
    version, co = cl_obj
    for k in co.kernels.values():
        if version == 2:
            # amd_kernel_code_t is the 256 bytes in front of the code.
            assert k.entry_address - k.descriptor_address == 256
            assert len(k.descriptor) == 256
        else:
            assert len(k.descriptor) == 64
        assert k.kernel_code_entry_byte_offset == k.entry_address - k.descriptor_address


def test_vadd_args_match_opencl_signature(cl_obj):
    version, co = cl_obj
    k = co.kernel("vadd")
    ex = k.explicit_args
    # __kernel void vadd(__global const float *a, __global const float *b, __global float *c, uint n)
    assert [a.name for a in ex] == ["a", "b", "c", "n"]
    assert [a.type_name for a in ex] == ["float*", "float*", "float*", "uint"]
    assert [a.value_kind for a in ex] == ["global_buffer"] * 3 + ["by_value"]
    assert [a.size for a in ex] == [8, 8, 8, 4]
    assert [a.offset for a in ex] == [0, 8, 16, 24]
    assert [a.is_const for a in ex] == [True, True, False, False]
    assert [a.address_space for a in ex[:3]] == ["global"] * 3
    hidden = [a.value_kind for a in k.args if a.is_hidden]
    if version < 5:
        # Hidden arguments start at the next 8-byte boundary after n (offset 28 -> 32).
        assert hidden[:3] == ["hidden_global_offset_x", "hidden_global_offset_y", "hidden_global_offset_z"]
        assert [a.offset for a in k.args if a.is_hidden][0] == 32
        assert k.kernarg_segment_size == k.args[-1].offset + k.args[-1].size
    else:
        assert hidden[0] == "hidden_block_count_x"
    assert k.kernarg_size == k.kernarg_segment_size


def test_lds_kernel_forced_values(cl_obj):
    _, co = cl_obj
    k = co.kernel("lds_kernel")
    assert k.reqd_workgroup_size == (64, 1, 1)          # reqd_work_group_size(64,1,1)
    assert k.group_segment_fixed_size == 250 * 4          # __local float tile[250]
    ex = k.explicit_args
    # (__global int *out, __local int *dyn, char c, short s, long l, double d): C alignment.
    assert [(a.name, a.size, a.offset) for a in ex] == [
        ("out", 8, 0), ("dyn", 4, 8), ("c", 1, 12), ("s", 2, 14), ("l", 8, 16), ("d", 8, 24)]
    assert ex[1].value_kind == "dynamic_shared_pointer"
    assert ex[1].address_space == "local"
    assert [a.type_name for a in ex[2:]] == ["char", "short", "long", "double"]


def test_scratch_kernel_has_private_segment(cl_obj):
    _, co = cl_obj
    k = co.kernel("scratch_kernel")
    assert k.private_segment_fixed_size >= 64 * 4         # int priv[64]
    assert k.enable_private_segment == 1
    assert k.enable_sgpr_private_segment_buffer == 1
    names = [n for n, _, _ in initial_sgpr_layout(k)]
    assert names[-1] == "private_segment_wave_offset"
    assert co.kernel("vadd").enable_private_segment == 0


def test_ids3d_enables_all_dimensions(cl_obj):
    _, co = cl_obj
    k = co.kernel("ids3d")
    assert (k.enable_sgpr_workgroup_id_x, k.enable_sgpr_workgroup_id_y, k.enable_sgpr_workgroup_id_z) == (1, 1, 1)
    assert k.enable_vgpr_workitem_id == 2
    assert initial_vgpr_layout(k) == [("workitem_id_x", 0, 1), ("workitem_id_y", 1, 1), ("workitem_id_z", 2, 1)]
    v = co.kernel("vadd")
    assert (v.enable_sgpr_workgroup_id_y, v.enable_sgpr_workgroup_id_z, v.enable_vgpr_workitem_id) == (0, 0, 0)
    assert initial_vgpr_layout(v) == [("workitem_id_x", 0, 1)]


def test_register_counts_cover_metadata_counts(cl_obj):
    _, co = cl_obj
    for k in co.kernels.values():
        # The descriptor's granulated counts round the exact metadata counts up.
        assert k.vgpr_count >= k.metadata_vgpr_count and k.vgpr_count % 4 == 0
        assert k.vgpr_count - k.metadata_vgpr_count < 4
        assert k.sgpr_count % 8 == 0 and k.sgpr_count >= 8


def test_versions_agree():
    objs = {v: load_code_object(p) for v, p in CL_OBJECTS.items()}
    for name in CL_KERNELS:
        ref = objs[4].kernel(name)
        for v in (2, 3, 5):
            k = objs[v].kernel(name)
            # v2 offsets are computed from YAML Align; v3/v4 carry explicit offsets; v5 has
            # other hidden arguments, so only its explicit ones are compared.
            args, ref_args = (k.args, ref.args) if v < 5 else (k.explicit_args, ref.explicit_args)
            assert [(a.name, a.offset, a.size, a.value_kind, a.type_name, a.address_space)
                    for a in args] == [(a.name, a.offset, a.size, a.value_kind, a.type_name,
                                        a.address_space) for a in ref_args], (v, name)
            assert k.reqd_workgroup_size == ref.reqd_workgroup_size
            assert k.group_segment_fixed_size == ref.group_segment_fixed_size
            assert k.enable_private_segment == ref.enable_private_segment


# --- hand-written assembly -------------------------------------------------------------------

def test_asm_modes_descriptor_fields(asm_obj):
    k = asm_obj.kernel("asm_modes")
    assert not k.has_metadata and k.args == []
    assert k.group_segment_fixed_size == 4096
    assert k.private_segment_fixed_size == 96
    assert k.kernarg_size == 24
    assert (k.float_round_mode_32, k.float_round_mode_16_64) == (1, 2)
    assert (k.float_denorm_mode_32, k.float_denorm_mode_16_64) == (0, 1)
    assert (k.enable_dx10_clamp, k.enable_ieee_mode) == (0, 1)
    assert k.enable_exception_ieee_754_fp_invalid_operation == 1
    assert k.enable_exception_int_divide_by_zero == 1
    assert k.enable_exception_ieee_754_fp_division_by_zero == 0
    # MODE (GcnState.md): round32 1:0, round64 3:2, denorm32 5:4, denorm64 7:6, DX10 8, IEEE 9.
    assert k.mode_register == 1 | 2 << 2 | 0 << 4 | 1 << 6 | 0 << 8 | 1 << 9
    # .amdhsa_next_free_vgpr 37 -> granules of 4; next_free_sgpr 50 (no vcc/flat_scratch) -> of 8.
    assert k.vgpr_count == 40 and k.granulated_workitem_vgpr_count == 9
    assert k.sgpr_count == 56 and k.granulated_wavefront_sgpr_count == 6
    assert k.code == bytes([0, 0, 0x80, 0xBF]) + S_ENDPGM  # s_nop 0 ; s_endpgm


def test_asm_modes_full_sgpr_layout_matches_abi(asm_obj):
    k = asm_obj.kernel("asm_modes")
    assert k.user_sgpr_count == 4 + 2 + 2 + 2 + 2 + 2 + 1
    # AMDGPUUsage "Initial Kernel Execution State", SGPR order.
    assert initial_sgpr_layout(k) == [
        ("private_segment_buffer", 0, 4), ("dispatch_ptr", 4, 2), ("queue_ptr", 6, 2),
        ("kernarg_segment_ptr", 8, 2), ("dispatch_id", 10, 2), ("flat_scratch_init", 12, 2),
        ("private_segment_size", 14, 1), ("workgroup_id_x", 15, 1), ("workgroup_id_y", 16, 1),
        ("workgroup_id_z", 17, 1), ("workgroup_info", 18, 1), ("private_segment_wave_offset", 19, 1)]
    assert initial_vgpr_layout(k) == [("workitem_id_x", 0, 1), ("workitem_id_y", 1, 1), ("workitem_id_z", 2, 1)]


def test_asm_store(asm_obj):
    k = asm_obj.kernel("asm_store")
    # 8 single-dword instructions and one 8-byte flat_store_dword.
    assert len(k.code) == 8 * 4 + 8 and k.code[-4:] == S_ENDPGM
    assert k.group_segment_fixed_size == 512
    assert initial_sgpr_layout(k) == [("private_segment_buffer", 0, 4), ("kernarg_segment_ptr", 4, 2),
                                      ("workgroup_id_x", 6, 1)]
    assert k.has_metadata and [(a.name, a.offset, a.size, a.value_kind) for a in k.args] == [
        ("out", 0, 8, "global_buffer")]
    assert k.reqd_workgroup_size == (128, 1, 1) and k.max_flat_workgroup_size == 128
    # Default float mode of .amdhsa_kernel: round-to-nearest, f64/f16 denormals on, DX10, IEEE.
    assert k.mode_register == 3 << 6 | 1 << 8 | 1 << 9


def test_user_sgpr_count_mismatch_is_reported(asm_obj):
    import dataclasses
    k = dataclasses.replace(asm_obj.kernel("asm_store"), user_sgpr_count=2)
    with pytest.raises(LoaderError, match="user_sgpr_count"):
        initial_sgpr_layout(k)


# --- errors ------------------------------------------------------------------------------------

def test_not_an_elf():
    with pytest.raises(LoaderError, match="not an ELF"):
        load_code_object(b"hello world, not an elf file")


def test_missing_file():
    with pytest.raises(LoaderError, match="cannot read"):
        load_code_object(DATA / "does_not_exist.hsaco")


def test_wrong_gpu_family():
    with pytest.raises(LoaderError, match="gfx803"):
        load_code_object(DATA / "wrong_target_gfx803.hsaco")


def test_wrong_machine():
    raw = bytearray(CL_OBJECTS[4].read_bytes())
    struct.pack_into("<H", raw, 18, 62)  # e_machine = EM_X86_64
    with pytest.raises(LoaderError, match="EM_AMDGPU"):
        load_code_object(bytes(raw))


def test_unlinked_object_rejected():
    raw = bytearray(CL_OBJECTS[4].read_bytes())
    struct.pack_into("<H", raw, 16, 1)  # e_type = ET_REL
    with pytest.raises(LoaderError, match="link"):
        load_code_object(bytes(raw))


@pytest.mark.parametrize("cut", [20, 64, 500, 3000])
def test_truncated_file(cut):
    raw = CL_OBJECTS[4].read_bytes()[:cut]
    with pytest.raises(LoaderError):
        load_code_object(raw)


def test_missing_kernel_lists_names():
    co = load_code_object(CL_OBJECTS[4])
    with pytest.raises(LoaderError, match="vadd") as e:
        co.kernel("nope")
    assert "nope" in str(e.value)
    assert issubclass(LoaderError, GcnEmuError)


def test_bad_source_type():
    with pytest.raises(LoaderError):
        load_code_object(12345)


# --- kernarg segment ----------------------------------------------------------------------------

def test_kernarg_segment_layout():
    k = load_code_object(CL_OBJECTS[4]).kernel("lds_kernel")
    seg = build_kernarg_segment(k, [0x1_0000_1000, 1024, -3, 1000, np.int64(-5), 2.5],
                                {"hidden_global_offset_x": 7, "hidden_global_offset_z": 9})
    assert len(seg) == 88
    # Offsets from C alignment of (ptr, local ptr, char, short, long, double), then hidden 8-byte.
    assert struct.unpack_from("<QIbxhqd", seg, 0) == (0x1_0000_1000, 1024, -3, 1000, -5, 2.5)
    assert struct.unpack_from("<QQQ", seg, 32) == (7, 0, 9)
    assert seg[56:] == bytes(88 - 56)


def test_kernarg_numpy_and_float_types():
    k = load_code_object(CL_OBJECTS[3]).kernel("vadd")
    seg = build_kernarg_segment(k, [np.uint64(0x1_0000_0000), 0x1_0000_2000, 0x1_0000_4000, np.uint32(77)], {})
    assert struct.unpack_from("<QQQI", seg, 0) == (0x1_0000_0000, 0x1_0000_2000, 0x1_0000_4000, 77)


def test_kernarg_errors_name_the_argument():
    k = load_code_object(CL_OBJECTS[4]).kernel("lds_kernel")
    good = [0x1_0000_1000, 0, 1, 2, 3, 4.0]
    with pytest.raises(DispatchError, match="takes 6 arguments, got 5"):
        build_kernarg_segment(k, good[:5], {})
    with pytest.raises(DispatchError, match=r"argument 2 \(c: char\).*integer.*float"):
        build_kernarg_segment(k, good[:2] + [1.5] + good[3:], {})
    with pytest.raises(DispatchError, match="c: char.*300.*1 bytes"):
        build_kernarg_segment(k, good[:2] + [300] + good[3:], {})
    with pytest.raises(DispatchError, match="out.*address"):
        build_kernarg_segment(k, [-1] + good[1:], {})
    with pytest.raises(DispatchError, match="out.*address.*str"):
        build_kernarg_segment(k, ["x"] + good[1:], {})
    with pytest.raises(DispatchError, match="np|bytes|int64"):
        build_kernarg_segment(k, good[:3] + [np.int64(1)] + good[4:], {})  # short given 8 bytes
    with pytest.raises(DispatchError, match="unknown hidden"):
        build_kernarg_segment(k, good, {"hidden_glob_offset_x": 1})


def test_kernarg_v5_hidden_arguments():
    k = load_code_object(CL_OBJECTS[5]).kernel("vadd")
    seg = build_kernarg_segment(k, [0x1_0000_0000, 0x1_0000_1000, 0x1_0000_2000, 1000],
                                default_hidden_args((1000, 3), (64, 1)))
    # Offsets and sizes as printed by `llvm-readelf-14 --notes kernels_v5.hsaco` (LLVM 14's
    # experimental v5 layout): block counts u32 at 28/32/36, group sizes u16 at 40/42/44,
    # remainders u16 at 46/48/50, global offsets u64 at 72/80/88, grid dims u16 at 96.
    assert struct.unpack_from("<I", seg, 24) == (1000,)
    assert struct.unpack_from("<III", seg, 28) == (15, 3, 1)      # 1000 // 64, 3 // 1, 1
    assert struct.unpack_from("<HHH", seg, 40) == (64, 1, 1)
    assert struct.unpack_from("<HHH", seg, 46) == (1000 % 64, 0, 0)
    assert struct.unpack_from("<QQQ", seg, 72) == (0, 0, 0)
    assert struct.unpack_from("<H", seg, 96) == (2,)
    assert len(seg) >= 128  # the multigrid sync argument ends at 128


def test_default_hidden_args():
    h = default_hidden_args((100, 8), (64, 4))
    assert h["hidden_block_count_x"] == 1 and h["hidden_remainder_x"] == 36
    assert h["hidden_block_count_y"] == 2 and h["hidden_remainder_y"] == 0
    assert h["hidden_group_size_z"] == 1 and h["hidden_grid_dims"] == 2


# --- AQL packet ----------------------------------------------------------------------------------

def test_aql_packet_layout():
    p = build_aql_dispatch_packet((1024, 2), (64, 2), kernarg_address=0x1_0000_2000,
                                  kernel_object_address=0x1400, private_segment_size=260,
                                  group_segment_size=1000)
    assert len(p) == 64
    # hsa_kernel_dispatch_packet_t field offsets (HSA runtime spec, hsa.h).
    assert p[0] == 2                               # header.type = KERNEL_DISPATCH
    assert int.from_bytes(p[2:4], "little") == 2   # setup.dimensions
    assert [int.from_bytes(p[o:o + 2], "little") for o in (4, 6, 8)] == [64, 2, 1]
    assert [int.from_bytes(p[o:o + 4], "little") for o in (12, 16, 20)] == [1024, 2, 1]
    assert int.from_bytes(p[24:28], "little") == 260
    assert int.from_bytes(p[28:32], "little") == 1000
    assert int.from_bytes(p[32:40], "little") == 0x1400
    assert int.from_bytes(p[40:48], "little") == 0x1_0000_2000
    assert p[48:64] == bytes(16)


def test_aql_packet_errors():
    with pytest.raises(DispatchError, match="work-group size"):
        build_aql_dispatch_packet((64,), (70000,), 0, 0, 0, 0)
    with pytest.raises(DispatchError, match="1-3 dimensions"):
        build_aql_dispatch_packet((1, 1, 1, 1), (1,), 0, 0, 0, 0)
    with pytest.raises(DispatchError, match="grid size"):
        build_aql_dispatch_packet((0,), (1,), 0, 0, 0, 0)


# --- independent references: llvm-readelf and a rebuild -----------------------------------------

def _readelf(*args):
    return subprocess.run([READELF, *args], capture_output=True, text=True, check=True).stdout


@pytest.mark.skipif(READELF is None, reason="llvm-readelf-14 not installed")
@pytest.mark.parametrize("path", [CL_OBJECTS[3], CL_OBJECTS[4], CL_OBJECTS[5], ASM_OBJECT])
def test_metadata_matches_llvm_readelf(path):
    import yaml
    text = _readelf("--notes", str(path))

    class Loader(yaml.SafeLoader):  # llvm-readelf tags bool-like strings ('n') with !str
        pass
    Loader.add_constructor("!str", lambda loader, node: loader.construct_scalar(node))
    doc = yaml.load(text[text.index("---"):text.index("\n...") + 4], Loader=Loader)
    co = load_code_object(path)
    for km in doc["amdhsa.kernels"]:
        k = co.kernel(km[".name"])
        assert k.kernarg_segment_size == km[".kernarg_segment_size"]
        assert k.kernarg_segment_align == km[".kernarg_segment_align"]
        assert k.metadata_sgpr_count == km[".sgpr_count"]
        assert k.metadata_vgpr_count == km[".vgpr_count"]
        assert k.max_flat_workgroup_size == km[".max_flat_workgroup_size"]
        assert k.group_segment_fixed_size == km[".group_segment_fixed_size"]
        assert k.private_segment_fixed_size == km[".private_segment_fixed_size"]
        assert len(k.args) == len(km[".args"])
        for a, ma in zip(k.args, km[".args"]):
            assert (a.offset, a.size, a.value_kind) == (ma[".offset"], ma[".size"], ma[".value_kind"])
            assert a.name == ma.get(".name") and a.type_name == ma.get(".type_name")
            assert a.address_space == ma.get(".address_space")
            assert a.is_const == ma.get(".is_const", False)


@pytest.mark.skipif(READELF is None, reason="llvm-readelf-14 not installed")
@pytest.mark.parametrize("path", list(CL_OBJECTS.values()) + [ASM_OBJECT])
def test_symbols_match_llvm_readelf(path):
    co = load_code_object(path)
    out = _readelf("-s", "-h", str(path))
    flags = int(re.search(r"Flags:\s+0x([0-9a-fA-F]+)", out).group(1), 16)
    assert flags & 0xFF == 0x22  # EF_AMDGPU_MACH_AMDGCN_GFX700
    seen = set()
    for m in re.finditer(r"^\s*\d+: ([0-9a-f]+)\s+(\d+) (FUNC|AMDGPU_HSA_KERNEL)\s+\w+\s+\w+\s+\d+ (\S+)$",
                         out, re.M):
        value, size, kind, name = int(m.group(1), 16), int(m.group(2)), m.group(3), m.group(4)
        k = co.kernel(name)
        if kind == "FUNC":
            assert k.entry_address == value and len(k.code) == size
        else:  # v2: the symbol covers amd_kernel_code_t + code
            assert k.descriptor_address == value and len(k.code) == size - 256
        seen.add(name)
    assert seen == set(co.kernels)


@pytest.mark.skipif(not (shutil.which("clang-14") and shutil.which("ld.lld-14")
                         and Path("/usr/lib/clc/amdgcn--amdhsa.bc").exists()),
                    reason="clang-14 / lld-14 / libclc-14 not installed")
def test_rebuild_matches_committed(tmp_path):
    for f in ("build.sh", "kernels.cl", "asm_kernels.s", "wrong_target.cl"):
        shutil.copy(DATA / f, tmp_path / f)
    subprocess.run(["sh", "build.sh"], cwd=tmp_path, check=True, capture_output=True)
    for name in ["kernels_v2.hsaco", "kernels_v3.hsaco", "kernels_v4.hsaco", "kernels_v5.hsaco",
                 "asm_kernels.hsaco"]:
        new, old = load_code_object(tmp_path / name), load_code_object(DATA / name)
        assert set(new.kernels) == set(old.kernels)
        for kn in old.kernels:
            a, b = new.kernel(kn), old.kernel(kn)
            assert (a.code, a.descriptor, a.args) == (b.code, b.descriptor, b.args), (name, kn)


def test_workgroup_info_value():
    from gcnemu.loader.abi import workgroup_info_value
    # AMDGPUUsage: {first_wave[31], 14'b0, ordered_append_term[16:6], threadgroup_size_in_waves[5:0]}
    assert workgroup_info_value(4) == 4
    assert workgroup_info_value(16, first_wave=True, ordered_append_term=3) == (1 << 31) | (3 << 6) | 16
    with pytest.raises(DispatchError):
        workgroup_info_value(0)
