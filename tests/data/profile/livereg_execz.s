  v_mov_b32 v1, 0
  v_cmp_gt_u32_e32 vcc, 8, v0
  s_and_saveexec_b64 s[2:3], vcc
  s_cbranch_execz skip
  v_mov_b32 v1, 7
skip:
  s_or_b64 exec, exec, s[2:3]
  flat_store_dword v[2:3], v1
  s_endpgm
