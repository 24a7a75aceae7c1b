  v_mov_b32_e32 v1, 1.0
  v_add_f32_e32 v2, v1, v0
  v_mul_lo_u32 v3, v2, v1
  v_mul_f32_e32 v4, v2, v3
  s_add_u32 s5, s2, 1
  v_mov_b32_e32 v5, s5
  s_endpgm
