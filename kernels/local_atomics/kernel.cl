// Atomics on __local memory: add/sub/min/max (int and uint), and/or/xor, xchg and cmpxchg
// (retry loop), with returned values used only in order-independent ways.
__kernel void local_atomics(__global const int* v, __global int* out) {
  __local int c[12];
  uint lid = get_local_id(0);
  if (lid == 0) {
    c[0] = 0; c[1] = 0; c[2] = 0x7fffffff; c[3] = (int)0x80000000;
    c[4] = -1; c[5] = -1; c[6] = 0; c[7] = 0; c[8] = 0; c[9] = 0; c[10] = 0; c[11] = 0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  int x = v[get_global_id(0)];
  atomic_add(&c[0], x);
  atomic_sub(&c[1], x >> 4);
  atomic_min(&c[2], x);
  atomic_max(&c[3], x);
  atomic_min((volatile __local uint*)&c[4], (uint)x);
  atomic_and(&c[5], ~(1 << (lid & 31)) | x);
  atomic_or(&c[6], 1 << ((uint)x & 31));
  atomic_xor(&c[7], x);
  int old = atomic_inc(&c[8]);              // returns 0..ls-1 in some order
  atomic_add(&c[9], old);                   // sum of returned values is order-independent
  atomic_xchg(&c[10], 5);                   // every work-item writes 5
  int cur = c[11];                          // lock-free add of (x & 7) via a cmpxchg loop
  while (true) {
    int seen = atomic_cmpxchg(&c[11], cur, cur + (x & 7));
    if (seen == cur) break;
    cur = seen;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < 12) out[get_group_id(0) * 12 + lid] = c[lid];
}
