// 64-bit integer math on ulong/long: mul, mul_hi, shifts (variable), add/sub, comparisons.
__kernel void int64_math(__global const ulong* a, __global const ulong* b, __global ulong* out) {
  uint i = get_global_id(0);
  ulong x = a[i], y = b[i];
  long sx = (long)x, sy = (long)y;
  uint sh = (uint)(y & 63);
  __global ulong* o = out + i * 12;
  o[0] = x + y;
  o[1] = x - y;
  o[2] = x * y;
  o[3] = mul_hi(x, y);
  o[4] = x << sh;
  o[5] = x >> sh;
  o[6] = (ulong)(sx >> sh);
  o[7] = (ulong)(sx < sy) | ((ulong)(x < y) << 1) | ((ulong)(x == y) << 2) | ((ulong)(sx >= sy) << 3);
  o[8] = (ulong)mul_hi(sx, sy);
  o[9] = x > y ? x - y : y - x;
  o[10] = (ulong)max(sx, sy);
  o[11] = (x ^ (y >> 7)) + ((ulong)(uint)x * (ulong)(uint)y);
}
