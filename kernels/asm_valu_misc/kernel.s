// asm_valu_misc: VOP1/VOP2/VOP3 integer, bitfield, byte and conversion instructions with
// exact results. Block 64; per work-item 32 dwords to out[gid*32 + k].
// Inputs a, b, c (u32) and f, g (f32) per work-item.
// ABI: s[0:1] kernarg pointer, s2 workgroup id x, v0 workitem id x.
// kernarg: a (0), b (8), c (16), f (24), g (32), out (40).
	.text
	.globl	asm_valu_misc
	.p2align	8
	.type	asm_valu_misc,@function
asm_valu_misc:
	s_load_dwordx8 s[4:11], s[0:1], 0x0      // a, b, c, f
	s_load_dwordx4 s[12:15], s[0:1], 0x8     // g, out
	s_lshl_b32 s3, s2, 6
	v_add_i32 v1, vcc, s3, v0                // gid
	v_lshlrev_b32 v2, 2, v1
	s_waitcnt lgkmcnt(0)
	v_mov_b32 v4, s5
	v_add_i32 v3, vcc, s4, v2
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_load_dword v10, v[3:4]              // a
	v_mov_b32 v4, s7
	v_add_i32 v3, vcc, s6, v2
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_load_dword v11, v[3:4]              // b
	v_mov_b32 v4, s9
	v_add_i32 v3, vcc, s8, v2
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_load_dword v12, v[3:4]              // c
	v_mov_b32 v4, s11
	v_add_i32 v3, vcc, s10, v2
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_load_dword v13, v[3:4]              // f
	v_mov_b32 v4, s13
	v_add_i32 v3, vcc, s12, v2
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_load_dword v14, v[3:4]              // g
	s_waitcnt vmcnt(0)
	v_cvt_f32_ubyte0 v20, v10               // r0  float(a.byte0)
	v_cvt_f32_ubyte3 v21, v10               // r1  float(a.byte3)
	v_sad_u8 v22, v10, v11, v12             // r2  sum |a.b_i - b.b_i| + c
	v_lerp_u8 v23, v10, v11, v12            // r3  per byte (a_i + b_i + (c_i & 1)) >> 1
	v_alignbit_b32 v24, v10, v11, v12       // r4  ({a,b} >> c[4:0])[31:0]
	v_alignbyte_b32 v25, v10, v11, v12      // r5  ({a,b} >> 8*c[1:0])[31:0]
	v_bfi_b32 v26, v10, v11, v12            // r6  (a & b) | (~a & c)
	v_bfm_b32 v27, v10, v11                 // r7  ((1 << a[4:0]) - 1) << b[4:0]
	v_bfe_u32 v28, v10, v11, v12            // r8  (a >> b[4:0]) & mask(c[4:0])  (c[4:0] != 0)
	v_bfe_i32 v29, v10, v11, v12            // r9  signed bitfield
	v_bcnt_u32_b32 v30, v10, v11            // r10 popcount(a) + b
	v_ffbh_u32 v31, v10                     // r11 leading zeros, -1 for 0
	v_ffbl_b32 v32, v10                     // r12 trailing zeros, -1 for 0
	v_ffbh_i32 v33, v10                     // r13 leading sign bits, -1 for 0 / -1
	v_mul_hi_i32_i24 v34, v10, v11          // r14 (s24(a) * s24(b)) >> 32
	v_mad_u32_u24 v35, v10, v11, v12        // r15 u24(a) * u24(b) + c
	v_min3_u32 v36, v10, v11, v12           // r16
	v_max3_i32 v37, v10, v11, v12           // r17
	v_med3_i32 v38, v10, v11, v12           // r18
	v_cvt_flr_i32_f32 v39, v13              // r19 floor(f)
	v_cvt_rpi_i32_f32 v40, v13              // r20 floor(f + 0.5)
	v_frexp_exp_i32_f32 v41, v13            // r21 frexp exponent (0 for 0)
	v_frexp_mant_f32 v42, v13               // r22 frexp mantissa (signed)
	v_max_legacy_f32 v43, v13, v14          // r23 max (no NaNs here)
	v_cvt_pkrtz_f16_f32 v44, v13, v14       // r24 half_rtz(f) | half_rtz(g) << 16
	v_and_b32 v46, 15, v11
	v_subrev_i32 v46, vcc, 8, v46            // r26 e = (b & 15) - 8
	v_ldexp_f32 v45, v13, v46                // r25 f * 2**e
	v_cvt_f32_ubyte2 v47, v10                // r27 float(a.byte2)
	v_lshl_b64 v[48:49], v[10:11], v12       // r28,29 ({b:a} << c[5:0])
	v_ashr_i64 v[50:51], v[10:11], v12       // r30,31 ({b:a} >>s c[5:0])
	v_lshlrev_b32 v2, 7, v1                  // gid * 128 bytes
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
	s_endpgm
.Lasm_valu_misc_end:
	.size	asm_valu_misc, .Lasm_valu_misc_end-asm_valu_misc

	.rodata
	.p2align	6
.amdhsa_kernel asm_valu_misc
	.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.amdhsa_system_sgpr_workgroup_id_x 1
	.amdhsa_system_vgpr_workitem_id 0
	.amdhsa_next_free_vgpr 52
	.amdhsa_next_free_sgpr 16
	.amdhsa_kernarg_size 48
.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.version:
  - 1
  - 1
amdhsa.kernels:
  - .name:            asm_valu_misc
    .symbol:          asm_valu_misc.kd
    .kernarg_segment_size: 48
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size:  64
    .sgpr_count:      22
    .vgpr_count:      52
    .max_flat_workgroup_size: 64
    .args:
      - {.name: a, .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global}
      - {.name: b, .size: 8, .offset: 8, .value_kind: global_buffer, .address_space: global}
      - {.name: c, .size: 8, .offset: 16, .value_kind: global_buffer, .address_space: global}
      - {.name: f, .size: 8, .offset: 24, .value_kind: global_buffer, .address_space: global}
      - {.name: g, .size: 8, .offset: 32, .value_kind: global_buffer, .address_space: global}
      - {.name: out, .size: 8, .offset: 40, .value_kind: global_buffer, .address_space: global}
...
	.end_amdgpu_metadata
