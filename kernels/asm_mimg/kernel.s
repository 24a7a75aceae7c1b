// asm_mimg: image_load / image_store on 2D 32-bit UINT images through T#s read from kernarg
// memory with s_load_dwordx8; the kernel patches the image base address into T# words 0-1.
// Block 8x8, grid W x H (2D). Per work-item (x, y):
//   a = image_load(src, x, y);  b = image_load(src, W-1-x, y)
//   image_store(dst, x, y) = a + 3*b;   lin[y*W + x] = b  (FLAT, to check loads alone)
// T# (8 dwords, from kernarg offset 24): see spec.py for the field values; w0 = base >> 8,
// w1[7:0] = base >> 40 (the kernel ORs these in; base must be 256-byte aligned).
// ABI: s[0:1] kernarg pointer, s2/s3 workgroup id x/y, v0/v1 workitem id x/y.
// kernarg: src (0), dst (8), lin (16), tdesc w0..w7 (u32 x 8, 24..55), width (u32, 56).
	.text
	.globl	asm_mimg
	.p2align	8
	.type	asm_mimg,@function
asm_mimg:
	s_load_dwordx4 s[4:7], s[0:1], 0x0       // src, dst
	s_load_dwordx2 s[26:27], s[0:1], 0x4     // lin
	s_load_dwordx8 s[8:15], s[0:1], 0x6      // T# template
	s_load_dword s28, s[0:1], 0xe            // width
	s_lshl_b32 s2, s2, 3
	s_lshl_b32 s3, s3, 3
	v_add_i32 v2, vcc, s2, v0                // x
	v_add_i32 v3, vcc, s3, v1                // y
	s_waitcnt lgkmcnt(0)
	// dst T# = template with the dst base
	s_mov_b64 s[16:17], s[8:9]
	s_mov_b64 s[18:19], s[10:11]
	s_mov_b64 s[20:21], s[12:13]
	s_mov_b64 s[22:23], s[14:15]
	s_lshr_b64 s[24:25], s[4:5], 8
	s_mov_b32 s8, s24
	s_and_b32 s25, s25, 0xff
	s_and_b32 s9, s9, 0xffffff00
	s_or_b32 s9, s9, s25
	s_lshr_b64 s[24:25], s[6:7], 8
	s_mov_b32 s16, s24
	s_and_b32 s25, s25, 0xff
	s_and_b32 s17, s17, 0xffffff00
	s_or_b32 s17, s17, s25
	// mirrored coordinate
	s_sub_u32 s29, s28, 1
	v_sub_i32 v4, vcc, s29, v2               // W-1-x
	v_mov_b32 v5, v3
	image_load v20, v[2:3], s[8:15] dmask:0x1 unorm
	image_load v21, v[4:5], s[8:15] dmask:0x1 unorm
	s_waitcnt vmcnt(0)
	v_mul_lo_u32 v22, v21, 3
	v_add_i32 v22, vcc, v20, v22
	image_store v22, v[2:3], s[16:23] dmask:0x1 unorm
	// lin[y*W + x] = b
	v_mul_lo_u32 v7, v3, s28
	v_add_i32 v7, vcc, v7, v2
	v_lshlrev_b32 v7, 2, v7
	v_mov_b32 v9, s27
	v_add_i32 v8, vcc, s26, v7
	v_addc_u32 v9, vcc, 0, v9, vcc
	flat_store_dword v[8:9], v21
	s_waitcnt vmcnt(0)
	s_endpgm
.Lasm_mimg_end:
	.size	asm_mimg, .Lasm_mimg_end-asm_mimg

	.rodata
	.p2align	6
.amdhsa_kernel asm_mimg
	.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.amdhsa_system_sgpr_workgroup_id_x 1
	.amdhsa_system_sgpr_workgroup_id_y 1
	.amdhsa_system_vgpr_workitem_id 1
	.amdhsa_next_free_vgpr 23
	.amdhsa_next_free_sgpr 30
	.amdhsa_kernarg_size 60
.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.version:
  - 1
  - 1
amdhsa.kernels:
  - .name:            asm_mimg
    .symbol:          asm_mimg.kd
    .kernarg_segment_size: 60
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size:  64
    .sgpr_count:      36
    .vgpr_count:      23
    .max_flat_workgroup_size: 64
    .args:
      - {.name: src, .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global}
      - {.name: dst, .size: 8, .offset: 8, .value_kind: global_buffer, .address_space: global}
      - {.name: lin, .size: 8, .offset: 16, .value_kind: global_buffer, .address_space: global}
      - {.name: t0, .size: 4, .offset: 24, .value_kind: by_value}
      - {.name: t1, .size: 4, .offset: 28, .value_kind: by_value}
      - {.name: t2, .size: 4, .offset: 32, .value_kind: by_value}
      - {.name: t3, .size: 4, .offset: 36, .value_kind: by_value}
      - {.name: t4, .size: 4, .offset: 40, .value_kind: by_value}
      - {.name: t5, .size: 4, .offset: 44, .value_kind: by_value}
      - {.name: t6, .size: 4, .offset: 48, .value_kind: by_value}
      - {.name: t7, .size: 4, .offset: 52, .value_kind: by_value}
      - {.name: width, .size: 4, .offset: 56, .value_kind: by_value}
...
	.end_amdgpu_metadata
