  v_cmp_gt_u32_e32 vcc, 16, v0
  s_and_saveexec_b64 s[10:11], vcc
  v_add_f32_e32 v1, v0, v0
  v_mul_f32_e32 v1, v1, v1
  v_readfirstlane_b32 s12, v1
  v_cmpx_gt_u32_e32 vcc, 4, v0
  v_mov_b32_e32 v2, v1
  s_or_b64 exec, exec, s[10:11]
  v_mov_b32_e32 v3, 0
  s_endpgm
