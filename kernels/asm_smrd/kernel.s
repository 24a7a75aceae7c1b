// asm_smrd: scalar memory reads. A buffer descriptor (V#) built from kernarg values feeds
// s_buffer_load_dword/x2/x4/x8/x16 with immediate dword offsets and an SGPR byte offset;
// s_load_dword/x2 with an SGPR byte offset and an immediate. One wave per group, 8 groups;
// lane 0 stores 36 dwords per group to out[group*36 + k]:
//   0 data[1]  1..2 data[2..3]  3..6 data[4..7]  7..14 data[8..15]  15..30 data[16..31]
//   31 data[group] (s_buffer_load, SGPR offset)  32 data[group + 1] (s_load, SGPR offset)
//   33..34 data[32..33] (s_load_dwordx2, imm)  35 data[34] (s_buffer_load, SGPR offset 136)
// ABI: s[0:1] kernarg pointer, s2 workgroup id x. kernarg: data (0), out (8), nbytes (16).
	.text
	.globl	asm_smrd
	.p2align	8
	.type	asm_smrd,@function
asm_smrd:
	s_load_dwordx4 s[4:7], s[0:1], 0x0       // data, out
	s_load_dword s3, s[0:1], 0x4             // nbytes
	s_waitcnt lgkmcnt(0)
	s_mov_b32 s8, s4
	s_and_b32 s9, s5, 0xffff
	s_mov_b32 s10, s3
	s_mov_b32 s11, 0x27fac
	s_buffer_load_dword s20, s[8:11], 0x1
	s_buffer_load_dwordx2 s[22:23], s[8:11], 0x2
	s_buffer_load_dwordx4 s[24:27], s[8:11], 0x4
	s_buffer_load_dwordx8 s[28:35], s[8:11], 0x8
	s_buffer_load_dwordx16 s[36:51], s[8:11], 0x10
	s_lshl_b32 s12, s2, 2                    // group * 4 bytes
	s_buffer_load_dword s52, s[8:11], s12
	s_add_u32 s13, s12, 4
	s_load_dword s53, s[4:5], s13
	s_load_dwordx2 s[14:15], s[4:5], 0x20
	s_movk_i32 s16, 0x88
	s_buffer_load_dword s55, s[8:11], s16
	s_waitcnt lgkmcnt(0)
	s_mul_i32 s17, s2, 144
	s_add_u32 s6, s6, s17
	s_addc_u32 s7, s7, 0
	s_mov_b64 exec, 1
	v_mov_b32 v0, s6
	v_mov_b32 v1, s7
	v_mov_b32 v10, s20
	v_mov_b32 v11, s22
	v_mov_b32 v12, s23
	v_mov_b32 v13, s24
	v_mov_b32 v14, s25
	v_mov_b32 v15, s26
	v_mov_b32 v16, s27
	v_mov_b32 v17, s28
	v_mov_b32 v18, s29
	v_mov_b32 v19, s30
	v_mov_b32 v20, s31
	v_mov_b32 v21, s32
	v_mov_b32 v22, s33
	v_mov_b32 v23, s34
	v_mov_b32 v24, s35
	v_mov_b32 v25, s36
	v_mov_b32 v26, s37
	v_mov_b32 v27, s38
	v_mov_b32 v28, s39
	v_mov_b32 v29, s40
	v_mov_b32 v30, s41
	v_mov_b32 v31, s42
	v_mov_b32 v32, s43
	v_mov_b32 v33, s44
	v_mov_b32 v34, s45
	v_mov_b32 v35, s46
	v_mov_b32 v36, s47
	v_mov_b32 v37, s48
	v_mov_b32 v38, s49
	v_mov_b32 v39, s50
	v_mov_b32 v40, s51
	v_mov_b32 v41, s52
	v_mov_b32 v42, s53
	v_mov_b32 v43, s14
	v_mov_b32 v44, s15
	v_mov_b32 v45, s55
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
	v_add_i32 v0, vcc, 16, v0
	v_addc_u32 v1, vcc, 0, v1, vcc
	flat_store_dwordx4 v[0:1], v[26:29]
	v_add_i32 v0, vcc, 16, v0
	v_addc_u32 v1, vcc, 0, v1, vcc
	flat_store_dwordx4 v[0:1], v[30:33]
	v_add_i32 v0, vcc, 16, v0
	v_addc_u32 v1, vcc, 0, v1, vcc
	flat_store_dwordx4 v[0:1], v[34:37]
	v_add_i32 v0, vcc, 16, v0
	v_addc_u32 v1, vcc, 0, v1, vcc
	flat_store_dwordx4 v[0:1], v[38:41]
	v_add_i32 v0, vcc, 16, v0
	v_addc_u32 v1, vcc, 0, v1, vcc
	flat_store_dwordx4 v[0:1], v[42:45]
	s_endpgm
.Lasm_smrd_end:
	.size	asm_smrd, .Lasm_smrd_end-asm_smrd

	.rodata
	.p2align	6
.amdhsa_kernel asm_smrd
	.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.amdhsa_system_sgpr_workgroup_id_x 1
	.amdhsa_system_vgpr_workitem_id 0
	.amdhsa_next_free_vgpr 46
	.amdhsa_next_free_sgpr 56
	.amdhsa_kernarg_size 20
.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.version:
  - 1
  - 1
amdhsa.kernels:
  - .name:            asm_smrd
    .symbol:          asm_smrd.kd
    .kernarg_segment_size: 20
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size:  64
    .sgpr_count:      62
    .vgpr_count:      46
    .max_flat_workgroup_size: 64
    .args:
      - {.name: data, .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global}
      - {.name: out, .size: 8, .offset: 8, .value_kind: global_buffer, .address_space: global}
      - {.name: nbytes, .size: 4, .offset: 16, .value_kind: by_value}
...
	.end_amdgpu_metadata
