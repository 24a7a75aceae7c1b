// vloadn / vstoren at element (not vector) alignment, and wide vector types: float3 (12-byte
// stride), uchar16, short8, int2; exercises dwordx2/x3/x4 and sub-dword memory ops.
__kernel void vload_store(__global const float* f, __global const uchar* b,
                          __global const short* s, __global float* of, __global uchar* ob,
                          __global short* os, __global int* oi) {
  uint i = get_global_id(0);
  float3 v3 = vload3(i, f + 1);            // misaligned by one float
  float4 v4 = vload4(0, f + 3 * i + 2);
  vstore3(v3 * 2.0f + v4.xyz, i, of);
  uchar16 c = vload16(i, b);
  uchar16 r = c.sfedcba9876543210 + (uchar16)(1);
  vstore16(r, i, ob);
  short8 h = vload8(0, s + 8 * i + 1);     // misaligned by one short
  vstore8(h.s10325476 - (short8)(3), i, os);
  int2 d = (int2)(c.s0 + c.sf, h.s7 * 2);
  vstore2(d, i, oi);
}
