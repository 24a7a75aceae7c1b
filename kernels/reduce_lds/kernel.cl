// Work-group tree reduction in LDS (a __local pointer argument: dynamic group segment),
// barriers between levels; one partial sum per group. Unsigned adds wrap mod 2**32.
__kernel void reduce_sum(__global const uint* in, __global uint* partial, __local uint* scratch) {
  uint lid = get_local_id(0);
  uint gid = get_global_id(0);
  uint ls = get_local_size(0);
  scratch[lid] = in[gid];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = ls / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partial[get_group_id(0)] = scratch[0];
}
