// asm_ds: LDS instructions. Work-group of 128 (two waves), 1280 bytes of static LDS used
// (group segment 4096 declared). Per work-item (lid = local id, x = in[gid]):
//   [0..511]    A[lid] = x            } one ds_write2_b32 with offset0:0 offset1:128 (dwords)
//   [512..1023] B[lid] = x ^ 0xffff   }
//   [1024..1535] C[lid] = lid * 3, then ds_add_rtn_u32 C[lid] += x (returns lid*3)
//   [2048] sum of (x & 0xff) over the group (ds_add_u32), [2052] ds_append counter,
//   [2056] ds_max_u32 of x, [2060] ds_min_i32 of x, [3072 + lid] byte x & 0xff (ds_write_b8)
// M0 = -1 (gfx7 DS limit) except around ds_append, which uses M0 = 0 as its base.
// Outputs out[gid*10 + k]: 0,1: ds_read2_b32 A/B of lane (lid+1)%128 (crosses waves),
// 2: ds_swizzle quad-perm (3,2,1,0), 3: ds_swizzle bitmask and=0x1f or=0 xor=5,
// 4: ds_add_rtn old value, 5: C[lid] re-read, 6: group byte sum, 7: append counter (128),
// 8: ds_read_i8 of byte (lid ^ 1) sign-extended, 9: max_u32 ^ min_i32 of the group.
// ABI: s[0:1] kernarg pointer, s2 workgroup id x, v0 workitem id x.
// kernarg: in (u32*, 0), out (u32*, 8).
	.text
	.globl	asm_ds
	.p2align	8
	.type	asm_ds,@function
asm_ds:
	s_load_dwordx4 s[4:7], s[0:1], 0x0       // in, out
	s_lshl_b32 s3, s2, 7                     // group base = gid * 128
	v_add_i32 v1, vcc, s3, v0                // global id
	v_lshlrev_b32 v2, 2, v1
	s_waitcnt lgkmcnt(0)
	v_mov_b32 v4, s5
	v_add_i32 v3, vcc, s4, v2
	v_addc_u32 v4, vcc, 0, v4, vcc
	flat_load_dword v10, v[3:4]              // x
	s_mov_b32 m0, -1
	v_lshlrev_b32 v5, 2, v0                  // lid * 4
	// lane 0 of the group zeroes the shared cells
	v_cmp_eq_u32_e32 vcc, 0, v0
	s_and_saveexec_b64 s[8:9], vcc
	v_mov_b32 v6, 0
	v_mov_b32 v7, 0x800
	ds_write2_b32 v7, v6, v6 offset1:1       // [2048] = [2052] = 0
	v_bfrev_b32 v8, -2                       // 0x7fffffff
	ds_write2_b32 v7, v6, v8 offset0:2 offset1:3 // [2056] = 0 (max_u32), [2060] = INT_MAX (min_i32)
	s_mov_b64 exec, s[8:9]
	s_waitcnt vmcnt(0)
	v_xor_b32 v11, 0xffff, v10
	ds_write2_b32 v5, v10, v11 offset1:128
	v_mul_u32_u24 v12, 3, v0
	ds_write_b32 v5, v12 offset:1024
	v_add_i32 v13, vcc, 0xc00, v0
	ds_write_b8 v13, v10
	s_waitcnt lgkmcnt(0)
	s_barrier
	// neighbour (lid + 1) % 128
	v_add_i32 v14, vcc, 1, v0
	v_and_b32 v14, 0x7f, v14
	v_lshlrev_b32 v14, 2, v14
	ds_read2_b32 v[20:21], v14 offset1:128
	ds_swizzle_b32 v22, v10 offset:0x801b
	ds_swizzle_b32 v23, v10 offset:0x141f
	ds_add_rtn_u32 v24, v5, v10 offset:1024
	v_and_b32 v15, 0xff, v10
	v_mov_b32 v16, 0x800
	ds_add_u32 v16, v15
	ds_max_u32 v16, v10 offset:8
	ds_min_i32 v16, v10 offset:12
	v_xor_b32 v17, 1, v13
	ds_read_i8 v28, v17
	s_mov_b32 m0, 0
	ds_append v30 offset:2052
	s_mov_b32 m0, -1
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_read_b32 v25, v5 offset:1024
	ds_read2_b32 v[26:27], v16 offset1:1     // byte sum, append counter
	ds_read2_b32 v[18:19], v16 offset0:2 offset1:3
	s_waitcnt lgkmcnt(0)
	v_xor_b32 v29, v18, v19
	// store 10 dwords at out + gid * 40: v20..v29
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
.Lasm_ds_end:
	.size	asm_ds, .Lasm_ds_end-asm_ds

	.rodata
	.p2align	6
.amdhsa_kernel asm_ds
	.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.amdhsa_system_sgpr_workgroup_id_x 1
	.amdhsa_system_vgpr_workitem_id 0
	.amdhsa_next_free_vgpr 31
	.amdhsa_next_free_sgpr 10
	.amdhsa_kernarg_size 16
	.amdhsa_group_segment_fixed_size 4096
.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.version:
  - 1
  - 1
amdhsa.kernels:
  - .name:            asm_ds
    .symbol:          asm_ds.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 4096
    .private_segment_fixed_size: 0
    .wavefront_size:  64
    .sgpr_count:      16
    .vgpr_count:      31
    .max_flat_workgroup_size: 128
    .args:
      - {.name: in, .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global}
      - {.name: out, .size: 8, .offset: 8, .value_kind: global_buffer, .address_space: global}
...
	.end_amdgpu_metadata
