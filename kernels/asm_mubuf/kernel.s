// asm_mubuf: MUBUF loads/stores/atomics through buffer descriptors (V#) built in SGPRs
// from kernarg values, with bounds checking (out-of-range loads return 0, stores dropped).
// V# words: w0 = base[31:0]; w1 = base[47:32] | stride << 16; w2 = num_records;
// w3 = 0x27fac (DST_SEL_XYZW = X,Y,Z,W; NUM_FORMAT = 7 float; DATA_FORMAT = 4 (32)).
//   s[12:15] in,   stride 0, num_records = in_bytes (kernarg)
//   s[16:19] out,  stride 0, num_records = 0xffffffff
//   s[20:23] out2, stride 8, num_records = out2_records (kernarg), addressed with idxen
// Per work-item (gid = group*64 + lid, o = gid*4 bytes):
//   x   = dword  in[o]      (offen)                  -> out[4*gid + 0]
//   nxt = dword  in[o + 4]  (offen offset:4)         -> out[4*gid + 1]
//   b1  = ubyte  in[o + 1], sh = sshort in[o + 2]    -> out[4*gid + 2] = b1 ^ sh
//   y   = dword  in[o + 256] (soffset s24 = 256)     -> out[4*gid + 3] low 16 bits (store_short)
//   out2 record gid: {gid, gid ^ x} (idxen, offset 0 and 4)
//   out[4*N] += x & 15 (buffer_atomic_add, soffset = 16*N from kernarg)
// ABI: s[0:1] kernarg pointer, s2 workgroup id x, v0 workitem id x.
// kernarg: in (0), out (8), out2 (16), in_bytes (u32, 24), out2_records (u32, 28),
//          counter_offset (u32, 32).
	.text
	.globl	asm_mubuf
	.p2align	8
	.type	asm_mubuf,@function
asm_mubuf:
	s_load_dwordx4 s[4:7], s[0:1], 0x0       // in, out
	s_load_dwordx4 s[8:11], s[0:1], 0x4      // out2, in_bytes, out2_records
	s_load_dword s25, s[0:1], 0x8            // counter_offset
	s_lshl_b32 s3, s2, 6
	v_add_i32 v1, vcc, s3, v0                // gid
	v_lshlrev_b32 v2, 2, v1                  // gid * 4
	v_lshlrev_b32 v3, 4, v1                  // gid * 16
	s_waitcnt lgkmcnt(0)
	s_mov_b32 s12, s4
	s_and_b32 s13, s5, 0xffff
	s_mov_b32 s14, s10
	s_mov_b32 s15, 0x27fac
	s_mov_b32 s16, s6
	s_and_b32 s17, s7, 0xffff
	s_mov_b32 s18, -1
	s_mov_b32 s19, 0x27fac
	s_mov_b32 s20, s8
	s_and_b32 s21, s9, 0xffff
	s_or_b32 s21, s21, 0x80000               // stride 8
	s_mov_b32 s22, s11
	s_mov_b32 s23, 0x27fac
	s_movk_i32 s24, 0x100
	buffer_load_dword v10, v2, s[12:15], 0 offen
	buffer_load_dword v11, v2, s[12:15], 0 offen offset:4
	buffer_load_ubyte v12, v2, s[12:15], 0 offen offset:1
	buffer_load_sshort v13, v2, s[12:15], 0 offen offset:2
	buffer_load_dword v14, v2, s[12:15], s24 offen
	s_waitcnt vmcnt(0)
	v_xor_b32 v12, v12, v13
	buffer_store_dwordx2 v[10:11], v3, s[16:19], 0 offen
	buffer_store_dword v12, v3, s[16:19], 0 offen offset:8
	buffer_store_short v14, v3, s[16:19], 0 offen offset:12
	v_xor_b32 v15, v1, v10
	buffer_store_dword v1, v1, s[20:23], 0 idxen
	buffer_store_dword v15, v1, s[20:23], 0 idxen offset:4
	v_and_b32 v16, 15, v10
	v_mov_b32 v17, 0
	buffer_atomic_add v16, v17, s[16:19], s25 offen
	s_waitcnt vmcnt(0)
	s_endpgm
.Lasm_mubuf_end:
	.size	asm_mubuf, .Lasm_mubuf_end-asm_mubuf

	.rodata
	.p2align	6
.amdhsa_kernel asm_mubuf
	.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.amdhsa_system_sgpr_workgroup_id_x 1
	.amdhsa_system_vgpr_workitem_id 0
	.amdhsa_next_free_vgpr 18
	.amdhsa_next_free_sgpr 26
	.amdhsa_kernarg_size 36
.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.version:
  - 1
  - 1
amdhsa.kernels:
  - .name:            asm_mubuf
    .symbol:          asm_mubuf.kd
    .kernarg_segment_size: 36
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size:  64
    .sgpr_count:      32
    .vgpr_count:      18
    .max_flat_workgroup_size: 64
    .args:
      - {.name: in, .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global}
      - {.name: out, .size: 8, .offset: 8, .value_kind: global_buffer, .address_space: global}
      - {.name: out2, .size: 8, .offset: 16, .value_kind: global_buffer, .address_space: global}
      - {.name: in_bytes, .size: 4, .offset: 24, .value_kind: by_value}
      - {.name: out2_records, .size: 4, .offset: 28, .value_kind: by_value}
      - {.name: counter_offset, .size: 4, .offset: 32, .value_kind: by_value}
...
	.end_amdgpu_metadata
