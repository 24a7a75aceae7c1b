// Integer bit operations and integer built-ins (OpenCL 6.12.3) on int / uint.
__kernel void bitops(__global const uint* a, __global const uint* b, __global uint* out) {
  uint i = get_global_id(0);
  uint x = a[i], y = b[i];
  int sx = (int)x, sy = (int)y;
  __global uint* o = out + 20 * i;
  o[0] = popcount(x);
  o[1] = clz(x);
  o[2] = rotate(x, y);
  o[3] = (x >> (y & 31)) & ((1u << ((y >> 8) & 15)) - 1u);  // bitfield extract via shifts
  o[4] = mul_hi(x, y);
  o[5] = (uint)mul_hi(sx, sy);
  o[6] = (uint)mad24(sx << 8 >> 8, sy << 8 >> 8, sx);
  o[7] = mul24(x & 0xFFFFFFu, y & 0xFFFFFFu);
  o[8] = abs_diff(sx, sy);
  o[9] = hadd(x, y);
  o[10] = rhadd(x, y);
  o[11] = (uint)hadd(sx, sy);
  o[12] = min(x, y) ^ (uint)max(sx, sy);
  o[13] = (uint)clamp(sx, -1000, 1000000);
  o[14] = abs(sx);
  o[15] = (x & ~y) | (x ^ (y << 3));
  o[16] = (uint)(sx >> (y & 31));
  o[17] = mad_hi(x, y, x);
  o[18] = (uint)add_sat(sx, sy) ^ sub_sat(x, y);
  o[19] = upsample((ushort)x, (ushort)y);
}
