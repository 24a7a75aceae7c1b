// Hand-written gfx7 kernels with explicit .amdhsa_* settings that tests/test_loader.py checks.
	.text
	.globl	asm_store
	.p2align	8
	.type	asm_store,@function
asm_store:
	s_load_dwordx2 s[0:1], s[4:5], 0x0
	v_lshlrev_b32 v0, 2, v0
	s_waitcnt lgkmcnt(0)
	v_mov_b32 v2, s1
	v_add_i32 v1, vcc, s0, v0
	v_addc_u32 v2, vcc, 0, v2, vcc
	v_mov_b32 v3, 42
	flat_store_dword v[1:2], v3
	s_endpgm
.Lasm_store_end:
	.size	asm_store, .Lasm_store_end-asm_store

	.globl	asm_modes
	.p2align	8
	.type	asm_modes,@function
asm_modes:
	s_nop 0
	s_endpgm
.Lasm_modes_end:
	.size	asm_modes, .Lasm_modes_end-asm_modes

	.rodata
	.p2align	6
.amdhsa_kernel asm_store
	.amdhsa_user_sgpr_private_segment_buffer 1
	.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.amdhsa_next_free_vgpr 4
	.amdhsa_next_free_sgpr 6
	.amdhsa_group_segment_fixed_size 512
	.amdhsa_private_segment_fixed_size 0
	.amdhsa_system_sgpr_workgroup_id_x 1
	.amdhsa_system_vgpr_workitem_id 0
	.amdhsa_kernarg_size 8
.end_amdhsa_kernel

	.p2align	6
.amdhsa_kernel asm_modes
	.amdhsa_user_sgpr_private_segment_buffer 1
	.amdhsa_user_sgpr_dispatch_ptr 1
	.amdhsa_user_sgpr_queue_ptr 1
	.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.amdhsa_user_sgpr_dispatch_id 1
	.amdhsa_user_sgpr_flat_scratch_init 1
	.amdhsa_user_sgpr_private_segment_size 1
	.amdhsa_system_sgpr_private_segment_wavefront_offset 1
	.amdhsa_system_sgpr_workgroup_id_x 1
	.amdhsa_system_sgpr_workgroup_id_y 1
	.amdhsa_system_sgpr_workgroup_id_z 1
	.amdhsa_system_sgpr_workgroup_info 1
	.amdhsa_system_vgpr_workitem_id 2
	.amdhsa_next_free_vgpr 37
	.amdhsa_next_free_sgpr 50
	.amdhsa_reserve_vcc 0
	.amdhsa_reserve_flat_scratch 0
	.amdhsa_private_segment_fixed_size 96
	.amdhsa_group_segment_fixed_size 4096
	.amdhsa_kernarg_size 24
	.amdhsa_float_round_mode_32 1
	.amdhsa_float_round_mode_16_64 2
	.amdhsa_float_denorm_mode_32 0
	.amdhsa_float_denorm_mode_16_64 1
	.amdhsa_dx10_clamp 0
	.amdhsa_ieee_mode 1
	.amdhsa_exception_fp_ieee_invalid_op 1
	.amdhsa_exception_int_div_zero 1
.end_amdhsa_kernel

// Metadata for asm_store only (asm_modes deliberately has none).
.amdgpu_metadata
---
amdhsa.version: [ 1, 1 ]
amdhsa.kernels:
  - .name: asm_store
    .symbol: asm_store.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 512
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 6
    .vgpr_count: 4
    .max_flat_workgroup_size: 128
    .reqd_workgroup_size: [ 128, 1, 1 ]
    .args:
      - .name: out
        .type_name: 'int*'
        .size: 8
        .offset: 0
        .value_kind: global_buffer
        .address_space: global
...
.end_amdgpu_metadata
