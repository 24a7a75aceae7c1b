// Work-group of 100 (two waves: 64 + a 36-lane tail wave with partial EXEC), LDS reduction
// over a non-power-of-two size, barriers across both waves.
__kernel void tail_waves(__global const int* in, __global int* out, __global int* sums) {
  __local int s[128];
  uint lid = get_local_id(0), ls = get_local_size(0);
  uint gid = get_global_id(0);
  int v = in[gid];
  out[gid] = v * (int)lid - (int)get_group_id(0);
  s[lid] = v;
  if (lid < 128 - ls) s[ls + lid] = 0;  // pad to 128
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint st = 64; st > 0; st >>= 1) {
    if (lid < st) s[lid] += s[lid + st];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == ls - 1) sums[get_group_id(0)] = s[0];
}
