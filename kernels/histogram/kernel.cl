// 256-bin byte histogram: per-group counts with atomic_inc on __local, then atomic_add of
// the group's counts into the global histogram.
__kernel void histogram256(__global const uchar* data, uint n, __global uint* hist) {
  __local uint lh[256];
  uint lid = get_local_id(0);
  lh[lid] = 0;  // work-group size is 256
  barrier(CLK_LOCAL_MEM_FENCE);
  uint stride = get_global_size(0);
  for (uint i = get_global_id(0); i < n; i += stride) atomic_inc(&lh[data[i]]);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lh[lid]) atomic_add(&hist[lid], lh[lid]);
}
