// asm_f64: double-precision VALU with modifiers and CI-only f64 rounding ops
// (v_floor/ceil/trunc/rndne_f64), v_fract_f64, v_ldexp_f64 (incl. denormal results: FP64
// denormals enabled), v_frexp_*_f64, conversions, v_cmp_class_f64 -> v_cndmask_b32.
// Block 64; per work-item 40 dwords to out[gid*40 + k] (layout in spec.py).
// ABI: s[0:1] kernarg pointer, s2 workgroup id x, v0 workitem id x.
// kernarg: a (f64*, 0), b (f64*, 8), c (f64*, 16), d (f64*, 24), m (u32*, 32), out (40).
	.text
	.globl	asm_f64
	.p2align	8
	.type	asm_f64,@function
asm_f64:
	s_load_dwordx8 s[4:11], s[0:1], 0x0      // a, b, c, d
	s_load_dwordx4 s[12:15], s[0:1], 0x8     // m, out
	s_lshl_b32 s3, s2, 6
	v_add_i32 v1, vcc, s3, v0                // gid
	v_lshlrev_b32 v2, 3, v1                  // gid * 8
	s_waitcnt lgkmcnt(0)
	v_mov_b32 v4, s5
	v_add_i32 v3, vcc, s4, v2
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_load_dwordx2 v[10:11], v[3:4]       // a
	v_mov_b32 v4, s7
	v_add_i32 v3, vcc, s6, v2
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_load_dwordx2 v[12:13], v[3:4]       // b
	v_mov_b32 v4, s9
	v_add_i32 v3, vcc, s8, v2
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_load_dwordx2 v[14:15], v[3:4]       // c
	v_mov_b32 v4, s11
	v_add_i32 v3, vcc, s10, v2
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_load_dwordx2 v[16:17], v[3:4]       // d
	v_lshlrev_b32 v2, 2, v1
	v_mov_b32 v4, s13
	v_add_i32 v3, vcc, s12, v2
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_load_dword v18, v[3:4]              // m
	s_waitcnt vmcnt(0)
	v_add_f64 v[20:21], |v[10:11]|, -v[12:13]
	v_mul_f64 v[22:23], v[10:11], v[12:13]
	v_fma_f64 v[24:25], v[10:11], v[12:13], -v[14:15]
	v_min_f64 v[26:27], v[10:11], v[12:13]
	v_max_f64 v[28:29], -v[10:11], v[14:15]
	v_floor_f64 v[30:31], v[10:11]
	v_ceil_f64 v[32:33], v[10:11]
	v_trunc_f64 v[34:35], v[10:11]
	v_rndne_f64 v[36:37], v[10:11]
	v_fract_f64 v[38:39], v[10:11]
	v_and_b32 v5, 7, v0
	v_subrev_i32 v5, vcc, 3, v5              // (lane & 7) - 3
	v_ldexp_f64 v[40:41], v[10:11], v5
	v_frexp_mant_f64 v[42:43], v[10:11]
	v_frexp_exp_i32_f64 v44, v[10:11]
	v_cvt_i32_f64 v45, v[10:11]
	v_cvt_f64_i32 v[46:47], v18
	v_cvt_f32_f64 v48, v[14:15]
	v_cmp_class_f64 vcc, v[16:17], v18
	v_cndmask_b32 v49, 0, 1, vcc
	v_cvt_f64_f32 v[50:51], v48
	v_and_b32 v6, 15, v0
	v_sub_i32 v6, vcc, 0xfffffbf0, v6        // -1040 - (lane & 15)
	v_ldexp_f64 v[52:53], v[10:11], v6       // denormal results
	v_mul_f64 v[54:55], v[10:11], v[14:15]
	v_add_f64 v[56:57], v[12:13], v[14:15]
	v_cvt_f64_u32 v[58:59], v18
	v_mul_u32_u24 v2, 0xa0, v1               // gid * 160 bytes
	v_mov_b32 v4, s15
	v_add_i32 v3, vcc, s14, v2
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_store_dwordx4 v[3:4], v[20:23]
	v_add_i32 v3, vcc, 16, v3
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_store_dwordx4 v[3:4], v[24:27]
	v_add_i32 v3, vcc, 16, v3
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_store_dwordx4 v[3:4], v[28:31]
	v_add_i32 v3, vcc, 16, v3
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_store_dwordx4 v[3:4], v[32:35]
	v_add_i32 v3, vcc, 16, v3
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_store_dwordx4 v[3:4], v[36:39]
	v_add_i32 v3, vcc, 16, v3
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_store_dwordx4 v[3:4], v[40:43]
	v_add_i32 v3, vcc, 16, v3
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_store_dwordx4 v[3:4], v[44:47]
	v_add_i32 v3, vcc, 16, v3
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_store_dwordx4 v[3:4], v[48:51]
	v_add_i32 v3, vcc, 16, v3
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_store_dwordx4 v[3:4], v[52:55]
	v_add_i32 v3, vcc, 16, v3
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_store_dwordx4 v[3:4], v[56:59]
	s_endpgm
.Lasm_f64_end:
	.size	asm_f64, .Lasm_f64_end-asm_f64

	.rodata
	.p2align	6
.amdhsa_kernel asm_f64
	.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.amdhsa_system_sgpr_workgroup_id_x 1
	.amdhsa_system_vgpr_workitem_id 0
	.amdhsa_next_free_vgpr 60
	.amdhsa_next_free_sgpr 16
	.amdhsa_kernarg_size 48
	.amdhsa_float_denorm_mode_16_64 3
.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.version:
  - 1
  - 1
amdhsa.kernels:
  - .name:            asm_f64
    .symbol:          asm_f64.kd
    .kernarg_segment_size: 48
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size:  64
    .sgpr_count:      22
    .vgpr_count:      60
    .max_flat_workgroup_size: 64
    .args:
      - {.name: a, .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global}
      - {.name: b, .size: 8, .offset: 8, .value_kind: global_buffer, .address_space: global}
      - {.name: c, .size: 8, .offset: 16, .value_kind: global_buffer, .address_space: global}
      - {.name: d, .size: 8, .offset: 24, .value_kind: global_buffer, .address_space: global}
      - {.name: m, .size: 8, .offset: 32, .value_kind: global_buffer, .address_space: global}
      - {.name: out, .size: 8, .offset: 40, .value_kind: global_buffer, .address_space: global}
...
	.end_amdgpu_metadata
