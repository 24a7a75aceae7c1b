// asm_vop3_mods: VOP3 input modifiers (abs, neg), output modifiers (clamp, omod mul:2/mul:4/
// div:2), VOPC compares writing VCC and SGPR pairs, v_cndmask_b32 (e32 with VCC, e64 with an
// SGPR pair), v_cmpx with EXEC save/restore, min3/med3/fma/legacy multiply, cvt with
// modifiers. Block 64; per work-item 16 results (raw 32-bit patterns) to out[gid*16 + k].
// ABI: s[0:1] kernarg pointer, s2 workgroup id x, v0 workitem id x.
// kernarg: a (f32*, 0), b (f32*, 8), c (f32*, 16), out (u32*, 24).
	.text
	.globl	asm_vop3_mods
	.p2align	8
	.type	asm_vop3_mods,@function
asm_vop3_mods:
	s_load_dwordx4 s[4:7], s[0:1], 0x0       // a, b
	s_load_dwordx4 s[8:11], s[0:1], 0x4      // c, out
	s_lshl_b32 s3, s2, 6                     // group base = gid * 64
	v_add_i32 v1, vcc, s3, v0                // global id
	v_lshlrev_b32 v2, 2, v1                  // byte offset
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
	s_waitcnt vmcnt(0)
	v_add_f32_e64 v20, |v10|, -v11           // r0 = |a| - b
	v_mul_f32_e64 v21, v10, v11 clamp        // r1 = clamp(a*b)
	v_add_f32_e64 v22, v10, v11 mul:2        // r2 = (a+b)*2
	v_sub_f32_e64 v23, v10, v11 div:2        // r3 = (a-b)/2
	v_mad_f32 v24, -|v10|, v11, v12 mul:4    // r4 = (-|a|*b + c)*4
	v_max_f32_e64 v25, -v10, |v11| clamp     // r5 = clamp(max(-a, |b|))
	v_cmp_gt_f32_e32 vcc, v10, v11
	v_cndmask_b32_e32 v26, v10, v11, vcc     // r6 = a > b ? b : a
	v_mov_b32 v27, -1.0
	s_mov_b64 s[12:13], exec
	v_cmpx_lt_f32_e32 vcc, v10, v12          // EXEC &= (a < c)
	v_mul_f32_e32 v27, 2.0, v12              // r7 = a < c ? 2c : -1
	s_mov_b64 exec, s[12:13]
	v_min3_f32 v28, v10, -v11, v12           // r8
	v_med3_f32 v29, v10, v11, v12            // r9
	v_fma_f32 v30, v10, v11, -v12            // r10
	v_and_b32 v5, 3, v0
	v_cmp_eq_u32_e64 s[14:15], 0, v5
	v_cndmask_b32_e64 v31, v11, v12, s[14:15] // r11 = lid % 4 == 0 ? c : b
	v_mul_legacy_f32_e64 v32, v10, 0         // r12 = +0.0 (legacy: 0 * x = +0)
	v_cvt_i32_f32_e64 v33, -|v12|            // r13 = (int)(-|c|)
	v_sub_f32_e64 v34, v10, v11 clamp mul:2  // r14 = clamp((a-b)*2)
	v_subrev_f32_e64 v35, |v10|, v12 div:2   // r15 = (c - |a|)/2
	// store 16 dwords at out + gid * 64
	v_lshlrev_b32 v2, 6, v1
	v_mov_b32 v4, s11
	v_add_i32 v3, vcc, s10, v2
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
	s_endpgm
.Lasm_vop3_mods_end:
	.size	asm_vop3_mods, .Lasm_vop3_mods_end-asm_vop3_mods

	.rodata
	.p2align	6
.amdhsa_kernel asm_vop3_mods
	.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.amdhsa_system_sgpr_workgroup_id_x 1
	.amdhsa_system_vgpr_workitem_id 0
	.amdhsa_next_free_vgpr 36
	.amdhsa_next_free_sgpr 16
	.amdhsa_kernarg_size 32
	.amdhsa_float_denorm_mode_32 0
	.amdhsa_dx10_clamp 1
	.amdhsa_ieee_mode 1
.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.version:
  - 1
  - 1
amdhsa.kernels:
  - .name:            asm_vop3_mods
    .symbol:          asm_vop3_mods.kd
    .kernarg_segment_size: 32
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size:  64
    .sgpr_count:      22
    .vgpr_count:      36
    .max_flat_workgroup_size: 64
    .args:
      - {.name: a, .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global}
      - {.name: b, .size: 8, .offset: 8, .value_kind: global_buffer, .address_space: global}
      - {.name: c, .size: 8, .offset: 16, .value_kind: global_buffer, .address_space: global}
      - {.name: out, .size: 8, .offset: 24, .value_kind: global_buffer, .address_space: global}
...
	.end_amdgpu_metadata
