  v_mov_b32 v4, s0
  v_mov_b32 v5, s1
  s_mov_b32 s2, 4
  v_mov_b32 v1, 0
loop:
  v_add_i32_e32 v1, vcc, v1, v0
  s_sub_u32 s2, s2, 1
  s_cmp_lg_u32 s2, 0
  s_cbranch_scc1 loop
  flat_store_dword v[4:5], v1
  s_endpgm
