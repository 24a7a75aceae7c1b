// asm_crosslane: v_readfirstlane_b32, v_readlane_b32 (constant and SGPR lane select),
// v_writelane_b32, v_mbcnt_lo/hi_u32_b32 (lane id; prefix count of a partial EXEC),
// s_bcnt1_i32_b64 / s_ff1_i32_b64 on a VCC mask, readfirstlane under a partial EXEC.
// Block 64 (one wave per group). Outputs out[gid*10 + k]:
//   0 readfirstlane(x) = x[lane 0]      1 readlane(x, 17)       2 readlane(x, group_id & 63)
//   3 lid, but lane 5 gets x[lane 0] (writelane)                 4 mbcnt(-1) = lane id
//   5 for lanes with (x & 0xff) > 100: number of such lanes below this one, else 0xffffffff
//   6 for those lanes: x of the first such lane (readfirstlane under EXEC), else 0
//   7 count of such lanes (s_bcnt1_i32_b64 vcc)   8 first such lane (s_ff1_i32_b64, -1 if none)
//   9 readlane(x, 63)
// ABI: s[0:1] kernarg pointer, s2 workgroup id x, v0 workitem id x.
// kernarg: in (u32*, 0), out (u32*, 8).
	.text
	.globl	asm_crosslane
	.p2align	8
	.type	asm_crosslane,@function
asm_crosslane:
	s_load_dwordx4 s[4:7], s[0:1], 0x0       // in, out
	s_lshl_b32 s3, s2, 6
	v_add_i32 v1, vcc, s3, v0                // global id
	v_lshlrev_b32 v2, 2, v1
	s_waitcnt lgkmcnt(0)
	v_mov_b32 v4, s5
	v_add_i32 v3, vcc, s4, v2
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_load_dword v10, v[3:4]              // x
	s_waitcnt vmcnt(0)
	v_readfirstlane_b32 s10, v10
	v_mov_b32 v20, s10                       // 0
	v_readlane_b32 s11, v10, 17
	v_mov_b32 v21, s11                       // 1
	s_and_b32 s12, s2, 63
	v_readlane_b32 s13, v10, s12
	v_mov_b32 v22, s13                       // 2
	v_mov_b32 v23, v0
	v_writelane_b32 v23, s10, 5              // 3
	v_mbcnt_lo_u32_b32_e64 v24, -1, 0
	v_mbcnt_hi_u32_b32_e64 v24, -1, v24      // 4
	v_mov_b32 v25, -1
	v_mov_b32 v26, 0
	v_and_b32 v11, 0xff, v10
	v_cmp_lt_u32_e32 vcc, 100, v11           // 100 < (x & 0xff)
	s_bcnt1_i32_b64 s14, vcc
	s_ff1_i32_b64 s15, vcc
	s_and_saveexec_b64 s[16:17], vcc
	s_cbranch_execz .Lskip
	v_mbcnt_lo_u32_b32_e64 v25, exec_lo, 0
	v_mbcnt_hi_u32_b32_e64 v25, exec_hi, v25 // 5
	v_readfirstlane_b32 s18, v10
	v_mov_b32 v26, s18                       // 6
.Lskip:
	s_or_b64 exec, exec, s[16:17]
	v_mov_b32 v27, s14                       // 7
	v_mov_b32 v28, s15                       // 8
	v_readlane_b32 s19, v10, 63
	v_mov_b32 v29, s19                       // 9
	v_mul_u32_u24 v2, 40, v1
	v_mov_b32 v4, s7
	v_add_i32 v3, vcc, s6, v2
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_store_dwordx2 v[3:4], v[20:21]
	v_add_i32 v3, vcc, 8, v3
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_store_dwordx2 v[3:4], v[22:23]
	v_add_i32 v3, vcc, 8, v3
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_store_dwordx2 v[3:4], v[24:25]
	v_add_i32 v3, vcc, 8, v3
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_store_dwordx2 v[3:4], v[26:27]
	v_add_i32 v3, vcc, 8, v3
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_store_dwordx2 v[3:4], v[28:29]
	s_endpgm
.Lasm_crosslane_end:
	.size	asm_crosslane, .Lasm_crosslane_end-asm_crosslane

	.rodata
	.p2align	6
.amdhsa_kernel asm_crosslane
	.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.amdhsa_system_sgpr_workgroup_id_x 1
	.amdhsa_system_vgpr_workitem_id 0
	.amdhsa_next_free_vgpr 30
	.amdhsa_next_free_sgpr 20
	.amdhsa_kernarg_size 16
.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.version:
  - 1
  - 1
amdhsa.kernels:
  - .name:            asm_crosslane
    .symbol:          asm_crosslane.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size:  64
    .sgpr_count:      26
    .vgpr_count:      30
    .max_flat_workgroup_size: 64
    .args:
      - {.name: in, .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global}
      - {.name: out, .size: 8, .offset: 8, .value_kind: global_buffer, .address_space: global}
...
	.end_amdgpu_metadata
