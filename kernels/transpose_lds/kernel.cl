// Matrix transpose through a padded 16x17 __local tile (no bank conflicts), 2D grid.
#define T 16
__kernel void transpose(__global const uint* in, __global uint* out, uint width, uint height) {
  __local uint tile[T][T + 1];
  uint x = get_group_id(0) * T + get_local_id(0);
  uint y = get_group_id(1) * T + get_local_id(1);
  tile[get_local_id(1)][get_local_id(0)] = in[y * width + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  x = get_group_id(1) * T + get_local_id(0);
  y = get_group_id(0) * T + get_local_id(1);
  out[y * height + x] = tile[get_local_id(0)][get_local_id(1)];
}
