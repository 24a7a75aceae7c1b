// asm_flow: control flow and indexing. Block 64 (one wave per group), 8 groups.
// Per work-item (x = in[gid]) 16 dwords to out[gid*16 + k]:
//  0 sum 1..(x & 31)       (divergent while-loop: v_cmp + s_and_b64 exec + s_cbranch_execz)
//  1 3 ** ((x >> 5) & 7)   (do-while with s_cbranch_execnz)
//  2 222 if no lane of the wave has x < 2**28 (s_cbranch_vccz), else 111
//  3 7 if group == 3 else 9 (s_cmp_eq_u32 + s_cbranch_scc0)
//  4 11: indirect jump over an instruction with s_getpc_b64 / s_setpc_b64
//  5 x ^ 0x5a5a computed in a subroutine called with s_swappc_b64, returning with s_setpc_b64
//  6 x odd ? x * 2 : x + 7 (if/else with s_and_saveexec_b64, s_xor_b64, s_or_saveexec_b64)
//  7 s_movrels_b32: s[40 + m0] with s[40:43] = {10, 20, 30, 40}, m0 = group & 3
//  8 sum of s[40:43] after s_movreld_b32 writes 99 to s[40 + m0]
//  9 popcount(exec) after the loops (64)
// 10..13 v[30:33] = 0 except v[30 + m0] = x (v_movreld_b32)
// 14 v_movrels_b32: v[18 + m0] with v[18:21] = {x, x+1, x+2, x+3}
// 15 x
// ABI: s[0:1] kernarg pointer, s2 workgroup id x, v0 workitem id x.
// kernarg: in (u32*, 0), out (u32*, 8).
	.text
	.globl	asm_flow
	.p2align	8
	.type	asm_flow,@function
asm_flow:
	s_load_dwordx4 s[4:7], s[0:1], 0x0
	s_lshl_b32 s3, s2, 6
	v_add_i32 v1, vcc, s3, v0
	v_lshlrev_b32 v2, 2, v1
	s_waitcnt lgkmcnt(0)
	v_mov_b32 v4, s5
	v_add_i32 v3, vcc, s4, v2
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_load_dword v10, v[3:4]
	s_waitcnt vmcnt(0)
	// 0: while (count != 0) { acc += count; count-- }
	v_and_b32 v5, 31, v10
	v_mov_b32 v40, 0
	s_mov_b64 s[20:21], exec
.Lloop1:
	v_cmp_ne_u32 vcc, 0, v5
	s_and_b64 exec, exec, vcc
	s_cbranch_execz .Lloop1_end
	v_add_i32 v40, vcc, v40, v5
	v_subrev_i32 v5, vcc, 1, v5
	s_branch .Lloop1
.Lloop1_end:
	s_mov_b64 exec, s[20:21]
	// 1: k = (x >> 5) & 7; p = 1; if (k) do { p *= 3 } while (--k)
	v_bfe_u32 v7, v10, 5, 3
	v_mov_b32 v41, 1
	s_mov_b64 s[22:23], exec
	v_cmp_ne_u32 vcc, 0, v7
	s_and_b64 exec, exec, vcc
	s_cbranch_execz .Lloop2_end
.Lloop2:
	v_mul_u32_u24 v41, 3, v41
	v_subrev_i32 v7, vcc, 1, v7
	v_cmp_ne_u32 vcc, 0, v7
	s_and_b64 exec, exec, vcc
	s_cbranch_execnz .Lloop2
.Lloop2_end:
	s_mov_b64 exec, s[22:23]
	s_bcnt1_i32_b64 s46, exec
	v_mov_b32 v49, s46
	// 2: uniform branch on VCC
	v_and_b32 v11, 0xf0000000, v10
	v_cmp_eq_u32 vcc, 0, v11
	s_cbranch_vccz .Lvccz
	v_mov_b32 v42, 111
	s_branch .Lvccj
.Lvccz:
	v_mov_b32 v42, 222
.Lvccj:
	// 3: branch on SCC
	s_cmp_eq_u32 s2, 3
	s_cbranch_scc0 .Lscc0
	v_mov_b32 v43, 7
	s_branch .Lsccj
.Lscc0:
	v_mov_b32 v43, 9
.Lsccj:
	// 4: indirect jump
	v_mov_b32 v44, 1
	s_getpc_b64 s[24:25]
.Lpc:
	s_add_u32 s24, s24, .Ltarget-.Lpc
	s_addc_u32 s25, s25, 0
	s_setpc_b64 s[24:25]
	v_mov_b32 v44, 5                         // skipped
.Ltarget:
	v_add_i32 v44, vcc, 10, v44
	// 5: call a subroutine
	s_getpc_b64 s[26:27]
.Lpc2:
	s_add_u32 s26, s26, .Lsub-.Lpc2
	s_addc_u32 s27, s27, 0
	s_swappc_b64 s[30:31], s[26:27]
	// 6: if / else
	v_and_b32 v12, 1, v10
	v_cmp_eq_u32 vcc, 1, v12
	s_and_saveexec_b64 s[28:29], vcc
	s_xor_b64 s[28:29], exec, s[28:29]
	v_lshlrev_b32 v46, 1, v10                // then: x * 2
	s_or_saveexec_b64 s[28:29], s[28:29]
	s_xor_b64 exec, exec, s[28:29]
	v_add_i32 v46, vcc, 7, v10               // else: x + 7
	s_or_b64 exec, exec, s[28:29]
	// 7, 8: scalar relative addressing
	s_and_b32 s3, s2, 3
	s_mov_b32 m0, s3
	s_mov_b32 s40, 10
	s_mov_b32 s41, 20
	s_mov_b32 s42, 30
	s_mov_b32 s43, 40
	s_movrels_b32 s44, s40
	s_movreld_b32 s40, 99
	s_add_u32 s45, s40, s41
	s_add_u32 s45, s45, s42
	s_add_u32 s45, s45, s43
	v_mov_b32 v47, s44
	v_mov_b32 v48, s45
	// 10..14: vector relative addressing (m0 still = group & 3)
	v_mov_b32 v30, 0
	v_mov_b32 v31, 0
	v_mov_b32 v32, 0
	v_mov_b32 v33, 0
	v_movreld_b32 v30, v10
	v_mov_b32 v50, v30
	v_mov_b32 v51, v31
	v_mov_b32 v52, v32
	v_mov_b32 v53, v33
	v_mov_b32 v18, v10
	v_add_i32 v19, vcc, 1, v10
	v_add_i32 v20, vcc, 2, v10
	v_add_i32 v21, vcc, 3, v10
	v_movrels_b32 v54, v18
	v_mov_b32 v55, v10
	s_mov_b32 m0, -1
	// store v[40:55]
	v_lshlrev_b32 v2, 6, v1
	v_mov_b32 v4, s7
	v_add_i32 v3, vcc, s6, v2
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
	s_endpgm
.Lsub:
	v_xor_b32 v45, 0x5a5a, v10
	s_setpc_b64 s[30:31]
.Lasm_flow_end:
	.size	asm_flow, .Lasm_flow_end-asm_flow

	.rodata
	.p2align	6
.amdhsa_kernel asm_flow
	.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.amdhsa_system_sgpr_workgroup_id_x 1
	.amdhsa_system_vgpr_workitem_id 0
	.amdhsa_next_free_vgpr 56
	.amdhsa_next_free_sgpr 48
	.amdhsa_kernarg_size 16
.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.version:
  - 1
  - 1
amdhsa.kernels:
  - .name:            asm_flow
    .symbol:          asm_flow.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size:  64
    .sgpr_count:      54
    .vgpr_count:      56
    .max_flat_workgroup_size: 64
    .args:
      - {.name: in, .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global}
      - {.name: out, .size: 8, .offset: 8, .value_kind: global_buffer, .address_space: global}
...
	.end_amdgpu_metadata
