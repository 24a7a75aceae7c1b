// Global atomics on int and uint: min/max (signed and unsigned) into shared cells,
// xchg/cmpxchg on per-item cells, a cmpxchg retry loop on one shared counter, add/sub/
// and/or/xor/inc/dec into shared cells. Final memory contents are order-independent.
__kernel void atomics_global(__global const int* v, __global int* icell, __global uint* ucell,
                             __global int* mine, __global int* old_out) {
  uint i = get_global_id(0);
  int x = v[i];
  atomic_min(&icell[0], x);
  atomic_max(&icell[1], x);
  atomic_min(&ucell[0], (uint)x);
  atomic_max(&ucell[1], (uint)x);
  atomic_add(&icell[2], x);
  atomic_sub(&ucell[2], (uint)x);
  atomic_and(&ucell[3], ~(1u << (i & 31)) | (uint)x);
  atomic_or(&ucell[4], 1u << ((uint)x & 31));
  atomic_xor(&ucell[5], (uint)x);
  atomic_inc(&ucell[6]);
  atomic_dec(&ucell[7]);
  // per-item cells: xchg returns the old value; cmpxchg succeeds only when it matches
  int old = atomic_xchg(&mine[2 * i], x);
  int prev = atomic_cmpxchg(&mine[2 * i + 1], (int)i, x ^ 0x5555);
  old_out[2 * i] = old;
  old_out[2 * i + 1] = prev;
  // lock-free add of (x & 0xff) through a cmpxchg loop on a shared counter
  int cur = icell[3];
  while (true) {
    int seen = atomic_cmpxchg(&icell[3], cur, cur + (x & 0xff));
    if (seen == cur) break;
    cur = seen;
  }
}
