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
