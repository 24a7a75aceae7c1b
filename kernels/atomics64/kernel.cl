#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
// 64-bit global atomics (flat_atomic_*_x2): add, min/max (signed, unsigned), and/or/xor,
// xchg on per-item cells, cmpxchg retry loop.
__kernel void atomics64(__global const long* v, __global long* cell, __global ulong* ucell,
                        __global long* mine) {
  uint i = get_global_id(0);
  long x = v[i];
  atom_add(&cell[0], x);
  atom_min(&cell[1], x);
  atom_max(&cell[2], x);
  atom_min(&ucell[0], (ulong)x);
  atom_max(&ucell[1], (ulong)x);
  atom_and(&ucell[2], (ulong)x | (1ul << (i & 63)));
  atom_or(&ucell[3], 1ul << ((ulong)x & 63));
  atom_xor(&ucell[4], (ulong)x);
  long old = atom_xchg(&mine[i], x);
  mine[get_global_size(0) + i] = old;
  long cur = cell[3];
  while (true) {
    long seen = atom_cmpxchg(&cell[3], cur, cur + (x >> 40));
    if (seen == cur) break;
    cur = seen;
  }
}
