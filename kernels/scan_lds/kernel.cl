// Work-group inclusive prefix sum (Hillis-Steele, double-buffered in static __local memory).
#define B 256
__kernel void scan_inclusive(__global const uint* in, __global uint* out) {
  __local uint buf[2][B];
  uint lid = get_local_id(0);
  uint gid = get_global_id(0);
  int cur = 0;
  buf[0][lid] = in[gid];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint off = 1; off < B; off <<= 1) {
    uint v = buf[cur][lid];
    if (lid >= off) v += buf[cur][lid - off];
    buf[1 - cur][lid] = v;
    cur = 1 - cur;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[gid] = buf[cur][lid];
}
