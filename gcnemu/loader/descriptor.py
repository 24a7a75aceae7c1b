"""Kernel descriptors: the 64-byte AMDHSA kernel descriptor (code object v3+) and the
256-byte ``amd_kernel_code_t`` header (code object v2), decoded into one field set.

Bit layouts follow LLVM's AMDGPUUsage ("Kernel Descriptor", "compute_pgm_rsrc1/2 for GFX6-GFX10",
"Kernel Code Properties") and AMDKernelCodeT.h for v2.
"""
from __future__ import annotations

import struct
from typing import Any

from ..errors import LoaderError

KERNEL_DESCRIPTOR_SIZE = 64
AMD_KERNEL_CODE_T_SIZE = 256

# (field name, low bit, width) of COMPUTE_PGM_RSRC1 on GFX6-GFX8.
RSRC1_FIELDS = (
    ("granulated_workitem_vgpr_count", 0, 6),
    ("granulated_wavefront_sgpr_count", 6, 4),
    ("priority", 10, 2),
    ("float_round_mode_32", 12, 2),
    ("float_round_mode_16_64", 14, 2),
    ("float_denorm_mode_32", 16, 2),
    ("float_denorm_mode_16_64", 18, 2),
    ("priv", 20, 1),
    ("enable_dx10_clamp", 21, 1),
    ("debug_mode", 22, 1),
    ("enable_ieee_mode", 23, 1),
    ("bulky", 24, 1),
    ("cdbg_user", 25, 1),
)

# COMPUTE_PGM_RSRC2 on GFX6-GFX8.
RSRC2_FIELDS = (
    ("enable_private_segment", 0, 1),  # a.k.a. enable_sgpr_private_segment_wavefront_offset / SCRATCH_EN
    ("user_sgpr_count", 1, 5),
    ("enable_trap_handler", 6, 1),
    ("enable_sgpr_workgroup_id_x", 7, 1),
    ("enable_sgpr_workgroup_id_y", 8, 1),
    ("enable_sgpr_workgroup_id_z", 9, 1),
    ("enable_sgpr_workgroup_info", 10, 1),
    ("enable_vgpr_workitem_id", 11, 2),
    ("enable_exception_address_watch", 13, 1),
    ("enable_exception_memory", 14, 1),
    ("granulated_lds_size", 15, 9),
    ("enable_exception_ieee_754_fp_invalid_operation", 24, 1),
    ("enable_exception_fp_denormal_source", 25, 1),
    ("enable_exception_ieee_754_fp_division_by_zero", 26, 1),
    ("enable_exception_ieee_754_fp_overflow", 27, 1),
    ("enable_exception_ieee_754_fp_underflow", 28, 1),
    ("enable_exception_ieee_754_fp_inexact", 29, 1),
    ("enable_exception_int_divide_by_zero", 30, 1),
)

# kernel_code_properties (16 bits in the v3+ descriptor).
KCP_FIELDS = (
    ("enable_sgpr_private_segment_buffer", 0, 1),
    ("enable_sgpr_dispatch_ptr", 1, 1),
    ("enable_sgpr_queue_ptr", 2, 1),
    ("enable_sgpr_kernarg_segment_ptr", 3, 1),
    ("enable_sgpr_dispatch_id", 4, 1),
    ("enable_sgpr_flat_scratch_init", 5, 1),
    ("enable_sgpr_private_segment_size", 6, 1),
    ("enable_wavefront_size32", 10, 1),
    ("uses_dynamic_stack", 11, 1),
)

# amd_kernel_code_t.kernel_code_properties (32 bits, v2 only). Bits 0-6 match KCP_FIELDS;
# v2 additionally has grid workgroup count SGPRs (removed from the v3 ABI).
KCP_V2_FIELDS = KCP_FIELDS[:7] + (
    ("enable_sgpr_grid_workgroup_count_x", 7, 1),
    ("enable_sgpr_grid_workgroup_count_y", 8, 1),
    ("enable_sgpr_grid_workgroup_count_z", 9, 1),
    ("enable_ordered_append_gds", 16, 1),
    ("private_element_size", 17, 2),
    ("is_ptr64", 19, 1),
    ("is_dynamic_callstack", 20, 1),
    ("is_debug_enabled", 21, 1),
    ("is_xnack_enabled", 22, 1),
)


def _bits(value: int, fields) -> dict[str, int]:
    return {name: (value >> lo) & ((1 << width) - 1) for name, lo, width in fields}


def mode_register_from_rsrc1(rsrc1: int) -> int:
    """Initial hardware MODE register value implied by COMPUTE_PGM_RSRC1.

    The SPI copies FLOAT_MODE (rsrc1 bits 19:12: round32, round16_64, denorm32, denorm16_64,
    two bits each) into MODE bits 7:0 in that same order, DX10_CLAMP into MODE bit 8 and
    IEEE into MODE bit 9 (see GcnState.md, "MODE Register").
    """
    f = _bits(rsrc1, RSRC1_FIELDS)
    return (
        f["float_round_mode_32"]
        | f["float_round_mode_16_64"] << 2
        | f["float_denorm_mode_32"] << 4
        | f["float_denorm_mode_16_64"] << 6
        | f["enable_dx10_clamp"] << 8
        | f["enable_ieee_mode"] << 9
    )


def _derived(rsrc1: int) -> dict[str, Any]:
    f = _bits(rsrc1, RSRC1_FIELDS)
    return {
        # GFX6-9: VGPR granule 4, SGPR granule 8 (AMDGPUUsage, compute_pgm_rsrc1).
        "vgpr_count": (f["granulated_workitem_vgpr_count"] + 1) * 4,
        "sgpr_count": (f["granulated_wavefront_sgpr_count"] + 1) * 8,
        "mode_register": mode_register_from_rsrc1(rsrc1),
    }


def decode_kernel_descriptor(raw: bytes) -> dict[str, Any]:
    """Decode a 64-byte code-object-v3+ kernel descriptor into a flat dict of fields."""
    if len(raw) < KERNEL_DESCRIPTOR_SIZE:
        raise LoaderError(f"kernel descriptor truncated: {len(raw)} bytes, need {KERNEL_DESCRIPTOR_SIZE}")
    (group, private, kernarg, _r0, entry_off) = struct.unpack_from("<IIIIq", raw, 0)
    rsrc3, rsrc1, rsrc2, kcp = struct.unpack_from("<IIIH", raw, 44)
    out: dict[str, Any] = {
        "group_segment_fixed_size": group,
        "private_segment_fixed_size": private,
        "kernarg_size": kernarg,
        "kernel_code_entry_byte_offset": entry_off,
        "compute_pgm_rsrc1": rsrc1,
        "compute_pgm_rsrc2": rsrc2,
        "compute_pgm_rsrc3": rsrc3,
        "kernel_code_properties": kcp,
    }
    out.update(_bits(rsrc1, RSRC1_FIELDS))
    out.update(_bits(rsrc2, RSRC2_FIELDS))
    out.update(_bits(kcp, KCP_FIELDS))
    out.update(_derived(rsrc1))
    return out


def decode_amd_kernel_code_t(raw: bytes) -> dict[str, Any]:
    """Decode a 256-byte ``amd_kernel_code_t`` (code object v2) into the same field names
    as :func:`decode_kernel_descriptor`, plus the v2-only fields."""
    if len(raw) < AMD_KERNEL_CODE_T_SIZE:
        raise LoaderError(f"amd_kernel_code_t truncated: {len(raw)} bytes, need {AMD_KERNEL_CODE_T_SIZE}")
    (ver_major, ver_minor, machine_kind, mach_major, mach_minor, mach_stepping,
     entry_off, prefetch_off, prefetch_size, max_scratch, pgm_rsrc, kcp,
     private, group, gds, kernarg, fbarrier, wf_sgpr, wi_vgpr,
     res_vgpr_first, res_vgpr_count, res_sgpr_first, res_sgpr_count,
     dbg_wave_off_sgpr, dbg_psb_sgpr, kernarg_align, group_align, private_align,
     wavefront_size_log2, call_convention) = struct.unpack_from(
        "<IIHHHHqqQQQIIIIQIHHHHHHHHBBBBi", raw, 0)
    rsrc1 = pgm_rsrc & 0xFFFFFFFF
    rsrc2 = pgm_rsrc >> 32
    out: dict[str, Any] = {
        "group_segment_fixed_size": group,
        "private_segment_fixed_size": private,
        "kernarg_size": kernarg,
        "kernel_code_entry_byte_offset": entry_off,
        "compute_pgm_rsrc1": rsrc1,
        "compute_pgm_rsrc2": rsrc2,
        "compute_pgm_rsrc3": 0,
        "kernel_code_properties": kcp,
        "amd_kernel_code_version": (ver_major, ver_minor),
        "amd_machine_version": (mach_major, mach_minor, mach_stepping),
        "gds_segment_byte_size": gds,
        "workgroup_fbarrier_count": fbarrier,
        "wavefront_sgpr_count": wf_sgpr,
        "workitem_vgpr_count": wi_vgpr,
        "kernarg_segment_alignment_log2": kernarg_align,
        "wavefront_size_log2": wavefront_size_log2,
    }
    out.update(_bits(rsrc1, RSRC1_FIELDS))
    out.update(_bits(rsrc2, RSRC2_FIELDS))
    out.update(_bits(kcp, KCP_V2_FIELDS))
    out.update(_derived(rsrc1))
    return out


# ---------------------------------------------------------------------------------------------
# .amdhsa_kernel blocks to descriptors, as llvm-mc 14 encodes them for gfx7
# (AMDGPUAsmParser::ParseDirectiveAMDHSAKernel; AMDGPUUsage, "Code Object V3 to V5 Kernel
# Descriptor"). A directive sets a bit field of one descriptor word; a few set a count the
# encoder needs (GPR counts, reserved registers).

_WORDS = {"rsrc1": RSRC1_FIELDS, "rsrc2": RSRC2_FIELDS, "kcp": KCP_FIELDS}
#: directive -> (descriptor word, field): the field's width bounds the value
_AMDHSA_FIELDS = {
    ".amdhsa_group_segment_fixed_size": ("group", None),
    ".amdhsa_private_segment_fixed_size": ("private", None),
    ".amdhsa_kernarg_size": ("kernarg", None),
    ".amdhsa_user_sgpr_private_segment_buffer": ("kcp", "enable_sgpr_private_segment_buffer"),
    ".amdhsa_user_sgpr_dispatch_ptr": ("kcp", "enable_sgpr_dispatch_ptr"),
    ".amdhsa_user_sgpr_queue_ptr": ("kcp", "enable_sgpr_queue_ptr"),
    ".amdhsa_user_sgpr_kernarg_segment_ptr": ("kcp", "enable_sgpr_kernarg_segment_ptr"),
    ".amdhsa_user_sgpr_dispatch_id": ("kcp", "enable_sgpr_dispatch_id"),
    ".amdhsa_user_sgpr_flat_scratch_init": ("kcp", "enable_sgpr_flat_scratch_init"),
    ".amdhsa_user_sgpr_private_segment_size": ("kcp", "enable_sgpr_private_segment_size"),
    ".amdhsa_system_sgpr_private_segment_wavefront_offset": ("rsrc2", "enable_private_segment"),
    ".amdhsa_system_sgpr_workgroup_id_x": ("rsrc2", "enable_sgpr_workgroup_id_x"),
    ".amdhsa_system_sgpr_workgroup_id_y": ("rsrc2", "enable_sgpr_workgroup_id_y"),
    ".amdhsa_system_sgpr_workgroup_id_z": ("rsrc2", "enable_sgpr_workgroup_id_z"),
    ".amdhsa_system_sgpr_workgroup_info": ("rsrc2", "enable_sgpr_workgroup_info"),
    ".amdhsa_system_vgpr_workitem_id": ("rsrc2", "enable_vgpr_workitem_id"),
    ".amdhsa_float_round_mode_32": ("rsrc1", "float_round_mode_32"),
    ".amdhsa_float_round_mode_16_64": ("rsrc1", "float_round_mode_16_64"),
    ".amdhsa_float_denorm_mode_32": ("rsrc1", "float_denorm_mode_32"),
    ".amdhsa_float_denorm_mode_16_64": ("rsrc1", "float_denorm_mode_16_64"),
    ".amdhsa_dx10_clamp": ("rsrc1", "enable_dx10_clamp"),
    ".amdhsa_ieee_mode": ("rsrc1", "enable_ieee_mode"),
    ".amdhsa_exception_fp_ieee_invalid_op": ("rsrc2", "enable_exception_ieee_754_fp_invalid_operation"),
    ".amdhsa_exception_fp_denorm_src": ("rsrc2", "enable_exception_fp_denormal_source"),
    ".amdhsa_exception_fp_ieee_div_zero": ("rsrc2", "enable_exception_ieee_754_fp_division_by_zero"),
    ".amdhsa_exception_fp_ieee_overflow": ("rsrc2", "enable_exception_ieee_754_fp_overflow"),
    ".amdhsa_exception_fp_ieee_underflow": ("rsrc2", "enable_exception_ieee_754_fp_underflow"),
    ".amdhsa_exception_fp_ieee_inexact": ("rsrc2", "enable_exception_ieee_754_fp_inexact"),
    ".amdhsa_exception_int_div_zero": ("rsrc2", "enable_exception_int_divide_by_zero"),
}
#: user SGPRs each enabled user SGPR input takes
_USER_SGPRS = {".amdhsa_user_sgpr_private_segment_buffer": 4, ".amdhsa_user_sgpr_dispatch_ptr": 2,
               ".amdhsa_user_sgpr_queue_ptr": 2, ".amdhsa_user_sgpr_kernarg_segment_ptr": 2,
               ".amdhsa_user_sgpr_dispatch_id": 2, ".amdhsa_user_sgpr_flat_scratch_init": 2,
               ".amdhsa_user_sgpr_private_segment_size": 1}
#: directives of later targets: llvm-mc rejects them for gfx7
_LATER_TARGETS = {
    ".amdhsa_reserve_xnack_mask": "gfx8+", ".amdhsa_fp16_overflow": "gfx9+",
    ".amdhsa_wavefront_size32": "gfx10+", ".amdhsa_workgroup_processor_mode": "gfx10+",
    ".amdhsa_memory_ordered": "gfx10+", ".amdhsa_forward_progress": "gfx10+",
    ".amdhsa_shared_vgpr_count": "gfx10+", ".amdhsa_accum_offset": "gfx90a",
    ".amdhsa_tg_split": "gfx90a",
    ".amdhsa_enable_private_segment": "targets with architected flat scratch (gfx940)"}
_OTHER = (".amdhsa_next_free_vgpr", ".amdhsa_next_free_sgpr", ".amdhsa_reserve_vcc",
          ".amdhsa_reserve_flat_scratch", ".amdhsa_user_sgpr_count")
#: SGPRs a gfx7 wave can address (LLVM: getAddressableNumSGPRs)
_ADDRESSABLE_SGPRS = 104


def encode_kernel_descriptor(name: str, directives: dict, line: int) -> bytearray:
    """The 64-byte descriptor of ``.amdhsa_kernel name``, as llvm-mc 14 encodes it for gfx7,
    with kernel_code_entry_byte_offset 0 (the linker fills it). ``directives`` is
    {'.amdhsa_x': (value, line, column)}; ``line`` is the line of ``.amdhsa_kernel``. A problem
    is an AssemblerError naming the directive's line."""
    from ..errors import AssemblerError

    words = {"group": 0, "private": 0, "kernarg": 0, "kcp": 0,
             # llvm's defaults: no denormal flushing for f16/f64, DX10 clamp and IEEE mode on,
             # workgroup id x enabled
             "rsrc1": 3 << 18 | 1 << 21 | 1 << 23, "rsrc2": 1 << 7}
    implied_user = 0
    for d, (value, dline, dcol) in directives.items():
        if d in _LATER_TARGETS:
            raise AssemblerError(f"{d} is for {_LATER_TARGETS[d]}, not gfx7", dline, dcol)
        if d not in _AMDHSA_FIELDS and d not in _OTHER:
            raise AssemblerError(f"unknown directive {d} in .amdhsa_kernel {name}", dline, dcol)
        if value < 0:
            raise AssemblerError(f"{d} {value}: a negative value", dline, dcol)
        if d in _AMDHSA_FIELDS:
            word, field = _AMDHSA_FIELDS[d]
            if field is None:
                lo, width = 0, 32
            else:
                lo, width = next((f_lo, f_w) for f, f_lo, f_w in _WORDS[word] if f == field)
            if value >= 1 << width:
                raise AssemblerError(f"{d} {value} does not fit its {width}-bit field", dline,
                                     dcol)
            words[word] = words[word] & ~(((1 << width) - 1) << lo) | value << lo
            if value and d in _USER_SGPRS:
                implied_user += _USER_SGPRS[d]
        elif d in (".amdhsa_reserve_vcc", ".amdhsa_reserve_flat_scratch") and value > 1:
            raise AssemblerError(f"{d} takes 0 or 1, got {value}", dline, dcol)
    for d in (".amdhsa_next_free_vgpr", ".amdhsa_next_free_sgpr"):
        if d not in directives:
            raise AssemblerError(f".amdhsa_kernel {name} has no {d} (llvm-mc requires it)", line)

    def val(d, default):
        return directives[d][0] if d in directives else default

    user = implied_user
    if ".amdhsa_user_sgpr_count" in directives:
        user, uline, ucol = directives[".amdhsa_user_sgpr_count"]
        if user < implied_user:
            raise AssemblerError(f".amdhsa_user_sgpr_count {user} is smaller than the "
                                 f"{implied_user} user SGPRs the enabled inputs take", uline, ucol)
    if user >= 32:
        where = directives.get(".amdhsa_user_sgpr_count", (0, line, None))
        raise AssemblerError(f"too many user SGPRs enabled ({user}; USER_SGPR is 5 bits)",
                             where[1], where[2])
    words["rsrc2"] = words["rsrc2"] & ~(0x1F << 1) | user << 1
    vgprs, vline, vcol = directives[".amdhsa_next_free_vgpr"]
    sgprs, sline, scol = directives[".amdhsa_next_free_sgpr"]
    # gfx7: VCC takes 2 SGPRs past the last, a reserved flat scratch 4 (instead of VCC's 2)
    extra = 2 if val(".amdhsa_reserve_vcc", 1) else 0
    if val(".amdhsa_reserve_flat_scratch", 1):
        extra = 4
    if sgprs + extra > _ADDRESSABLE_SGPRS:
        raise AssemblerError(f".amdhsa_next_free_sgpr {sgprs}: with the {extra} reserved SGPRs "
                             f"(VCC, flat scratch) past {_ADDRESSABLE_SGPRS}, the SGPRs gfx7 "
                             f"addresses", sline, scol)
    vblocks = (max(vgprs, 1) + 3) // 4 - 1
    sblocks = (max(sgprs + extra, 1) + 7) // 8 - 1
    if vblocks >= 64:
        raise AssemblerError(f".amdhsa_next_free_vgpr {vgprs}: past v255", vline, vcol)
    words["rsrc1"] = words["rsrc1"] & ~0x3FF | vblocks | sblocks << 6
    return bytearray(struct.pack("<IIIIq20xIIIH6x", words["group"], words["private"],
                                 words["kernarg"], 0, 0, 0, words["rsrc1"], words["rsrc2"],
                                 words["kcp"]))
