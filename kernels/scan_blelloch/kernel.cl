// Work-efficient (Blelloch) exclusive scan of 512 ints per work-group of 256 in __local
// memory (up-sweep, clear, down-sweep), plus the block totals.
#define N 512
__kernel void scan_blelloch(__global const int* in, __global int* out, __global int* totals) {
  __local int t[N];
  uint lid = get_local_id(0);
  uint base = get_group_id(0) * N;
  t[2 * lid] = in[base + 2 * lid];
  t[2 * lid + 1] = in[base + 2 * lid + 1];
  uint off = 1;
  for (uint d = N >> 1; d > 0; d >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < d) {
      uint ai = off * (2 * lid + 1) - 1, bi = off * (2 * lid + 2) - 1;
      t[bi] += t[ai];
    }
    off <<= 1;
  }
  if (lid == 0) {
    totals[get_group_id(0)] = t[N - 1];
    t[N - 1] = 0;
  }
  for (uint d = 1; d < N; d <<= 1) {
    off >>= 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < d) {
      uint ai = off * (2 * lid + 1) - 1, bi = off * (2 * lid + 2) - 1;
      int v = t[ai];
      t[ai] = t[bi];
      t[bi] += v;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  out[base + 2 * lid] = t[2 * lid];
  out[base + 2 * lid + 1] = t[2 * lid + 1];
}
