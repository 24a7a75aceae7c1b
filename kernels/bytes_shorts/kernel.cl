// Byte and short memory operations: char/uchar/short/ushort loads (sign/zero extension),
// stores (truncation), and a vector uchar4 load.
__kernel void bytes_shorts(__global const char* c, __global const uchar* uc,
                           __global const short* s, __global const ushort* us,
                           __global const uchar4* v4, __global int* oi, __global char* oc,
                           __global ushort* os, __global uchar* ob, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  int a = c[i], b = uc[i], d = s[i], e = us[i];
  oi[i] = a * 1000003 + b * 65537 + d * 3 + e;
  oc[i] = (char)(a + b);                  // truncating byte store
  os[i] = (ushort)(d * 7 + e);            // truncating short store
  uchar4 q = v4[i];
  ob[4 * i + 0] = q.w;
  ob[4 * i + 1] = q.x + q.y;
  ob[4 * i + 2] = (uchar)(q.z >> 1) | (uchar)(c[i] & 0x80);
  ob[4 * i + 3] = max(q.x, q.z);
}
