// asm_salu: scalar ALU coverage. One wave per work-group (block 64); every wave derives
// x = a ^ (group_id * 0x9e3779b9) and y = b + group_id from two kernarg scalars, computes 24
// scalar results in s[16:39] and lane 0 stores them with FLAT to out[group_id * 24 + k].
// ABI: s[0:1] = kernarg segment pointer, s2 = workgroup id x, v0 = workitem id x.
// kernarg: out (u64, offset 0), a (u32, offset 8), b (u32, offset 12).
	.text
	.globl	asm_salu
	.p2align	8
	.type	asm_salu,@function
asm_salu:
	s_load_dwordx2 s[4:5], s[0:1], 0x0       // out
	s_load_dwordx2 s[6:7], s[0:1], 0x2       // a, b (SMRD offset in dwords)
	s_waitcnt lgkmcnt(0)
	s_mul_i32 s8, s2, 0x9e3779b9
	s_xor_b32 s6, s6, s8                     // x
	s_add_u32 s7, s7, s2                     // y
	// bitfield extracts: s9 = (y & 15) | (((y >> 4) & 15) + 1) << 16
	s_and_b32 s9, s7, 15
	s_lshr_b32 s10, s7, 4
	s_and_b32 s10, s10, 15
	s_add_u32 s10, s10, 1
	s_lshl_b32 s10, s10, 16
	s_or_b32 s9, s9, s10
	s_bfe_u32 s16, s6, s9                    // r0
	s_bfe_i32 s17, s6, 0x80014               // r1: shift 20, length 8, sign-extended
	s_bfe_u32 s18, s6, 0x100018              // r2: shift 24, length 16 (past bit 31)
	// find first / last bit
	s_lshl_b32 s10, -1, s2                   // mask = ~0 << (gid & 31)
	s_and_b32 s10, s10, s7
	s_ff1_i32_b32 s19, s10                   // r3
	s_lshr_b32 s10, s6, s2
	s_flbit_i32_b32 s20, s10                 // r4 (-1 when zero)
	s_bcnt1_i32_b32 s21, s6                  // r5
	s_bcnt0_i32_b32 s22, s7                  // r6
	s_quadmask_b32 s23, s6                   // r7
	s_cmp_gt_u32 s6, s7
	s_cselect_b32 s24, s6, s7                // r8 = max_u(x, y)
	s_brev_b32 s25, s6                       // r9
	// scalar loop: acc = acc * 3 + i for i = (y & 31) + 1 down to 1
	s_and_b32 s11, s7, 31
	s_add_u32 s11, s11, 1
	s_mov_b32 s26, 0
.Lloop:
	s_mul_i32 s26, s26, 3
	s_add_u32 s26, s26, s11
	s_sub_u32 s11, s11, 1
	s_cmp_lg_u32 s11, 0
	s_cbranch_scc1 .Lloop                    // r10 = s26
	// 64-bit add with carry: (y:x) + (x:y)
	s_add_u32 s27, s6, s7                    // r11 low
	s_addc_u32 s28, s7, s6                   // r12 high
	s_ashr_i32 s29, s6, s7                   // r13 (shift amount uses y[4:0])
	s_sext_i32_i8 s30, s6                    // r14
	s_abs_i32 s31, s7                        // r15
	s_absdiff_i32 s32, s6, s7                // r16
	s_min_i32 s33, s6, s7                    // r17
	s_max_u32 s34, s6, s7                    // r18
	s_bfm_b32 s35, s7, s6                    // r19 = ((1 << y[4:0]) - 1) << x[4:0]
	s_andn2_b32 s36, s6, s7                  // r20
	s_xnor_b32 s37, s6, s7                   // r21
	s_bitcmp1_b32 s6, 5
	s_mov_b32 s12, 0x5678
	s_cselect_b32 s38, 0x1234, s12           // r22
	s_movk_i32 s39, 0x8000                   // sign-extended 16-bit immediate
	s_addk_i32 s39, 0x7ff                    // r23 = -32768 + 2047
	// store: lane 0 only
	s_mul_i32 s10, s2, 96
	s_add_u32 s4, s4, s10
	s_addc_u32 s5, s5, 0
	s_mov_b64 exec, 1
	v_mov_b32 v0, s4
	v_mov_b32 v1, s5
	v_mov_b32 v2, s16
	v_mov_b32 v3, s17
	v_mov_b32 v4, s18
	v_mov_b32 v5, s19
	v_mov_b32 v6, s20
	v_mov_b32 v7, s21
	v_mov_b32 v8, s22
	v_mov_b32 v9, s23
	v_mov_b32 v10, s24
	v_mov_b32 v11, s25
	v_mov_b32 v12, s26
	v_mov_b32 v13, s27
	v_mov_b32 v14, s28
	v_mov_b32 v15, s29
	v_mov_b32 v16, s30
	v_mov_b32 v17, s31
	v_mov_b32 v18, s32
	v_mov_b32 v19, s33
	v_mov_b32 v20, s34
	v_mov_b32 v21, s35
	v_mov_b32 v22, s36
	v_mov_b32 v23, s37
	v_mov_b32 v24, s38
	v_mov_b32 v25, s39
	flat_store_dwordx4 v[0:1], v[2:5]
	v_add_i32 v0, vcc, 16, v0
	v_addc_u32 v1, vcc, 0, v1, vcc
	flat_store_dwordx4 v[0:1], v[6:9]
	v_add_i32 v0, vcc, 16, v0
	v_addc_u32 v1, vcc, 0, v1, vcc
	flat_store_dwordx4 v[0:1], v[10:13]
	v_add_i32 v0, vcc, 16, v0
	v_addc_u32 v1, vcc, 0, v1, vcc
	flat_store_dwordx4 v[0:1], v[14:17]
	v_add_i32 v0, vcc, 16, v0
	v_addc_u32 v1, vcc, 0, v1, vcc
	flat_store_dwordx4 v[0:1], v[18:21]
	v_add_i32 v0, vcc, 16, v0
	v_addc_u32 v1, vcc, 0, v1, vcc
	flat_store_dwordx4 v[0:1], v[22:25]
	s_endpgm
.Lasm_salu_end:
	.size	asm_salu, .Lasm_salu_end-asm_salu

	.rodata
	.p2align	6
.amdhsa_kernel asm_salu
	.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.amdhsa_system_sgpr_workgroup_id_x 1
	.amdhsa_system_vgpr_workitem_id 0
	.amdhsa_next_free_vgpr 26
	.amdhsa_next_free_sgpr 40
	.amdhsa_kernarg_size 16
	.amdhsa_group_segment_fixed_size 0
	.amdhsa_private_segment_fixed_size 0
.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.version:
  - 1
  - 1
amdhsa.kernels:
  - .name:            asm_salu
    .symbol:          asm_salu.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size:  64
    .sgpr_count:      46
    .vgpr_count:      26
    .max_flat_workgroup_size: 64
    .args:
      - .name:           out
        .size:           8
        .offset:         0
        .value_kind:     global_buffer
        .address_space:  global
      - .name:           a
        .size:           4
        .offset:         8
        .value_kind:     by_value
      - .name:           b
        .size:           4
        .offset:         12
        .value_kind:     by_value
...
	.end_amdgpu_metadata
