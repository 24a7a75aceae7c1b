// 3D NDRange: every work-item records its work-item functions.
__kernel void grid3d(__global uint* out) {
  size_t gx = get_global_id(0), gy = get_global_id(1), gz = get_global_id(2);
  size_t flat = (gz * get_global_size(1) + gy) * get_global_size(0) + gx;
  __global uint* o = out + 16 * flat;
  o[0] = get_local_id(0);
  o[1] = get_local_id(1);
  o[2] = get_local_id(2);
  o[3] = get_group_id(0);
  o[4] = get_group_id(1);
  o[5] = get_group_id(2);
  o[6] = get_local_size(0) * 10000 + get_local_size(1) * 100 + get_local_size(2);
  o[7] = get_num_groups(0) * 10000 + get_num_groups(1) * 100 + get_num_groups(2);
  o[8] = get_global_size(0) * 10000 + get_global_size(1) * 100 + get_global_size(2);
  o[9] = get_global_offset(0) + get_global_offset(1) + get_global_offset(2);
  o[10] = get_work_dim();  // 0 in this binary: see spec.py
  o[11] = gx;
  o[12] = gy;
  o[13] = gz;
  o[14] = (uint)flat;
  o[15] = (get_local_id(2) * get_local_size(1) + get_local_id(1)) * get_local_size(0)
          + get_local_id(0);
}
