// 64-bit integer built-ins: popcount, clz, rotate, mul_hi, abs_diff, hadd/rhadd, min/max,
// bitselect, add_sat/sub_sat, and long2 vector select/compare.
__kernel void int64_bits(__global const ulong* a, __global const ulong* b, __global ulong* o) {
  uint i = get_global_id(0);
  ulong x = a[i], y = b[i];
  long sx = (long)x, sy = (long)y;
  __global ulong* r = o + 14 * i;
  r[0] = popcount(x);
  r[1] = clz(x);
  r[2] = rotate(x, y);
  r[3] = (ulong)mul_hi(sx, sy) ^ mul_hi(x, y);
  r[4] = abs_diff(sx, sy);
  r[5] = hadd(x, y);
  r[6] = rhadd(x, y);
  r[7] = min(x, y) ^ (ulong)max(sx, sy);
  r[8] = bitselect(x, y, x ^ (y >> 3));
  r[9] = (ulong)add_sat(sx, sy);
  r[10] = sub_sat(x, y);
  long2 v = (long2)(sx, sy), w = (long2)(sy, sx >> 1);
  long2 m = v < w;
  long2 s = select(w, v, m);
  r[11] = (ulong)s.x;
  r[12] = (ulong)s.y;
  r[13] = (ulong)(m.x + 2 * m.y) ^ (ulong)clz(sx);
}
