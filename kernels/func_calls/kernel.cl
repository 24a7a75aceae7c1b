// Non-inlined function calls: s_swappc_b64 / s_setpc_b64, the call stack in scratch
// (private segment, stack pointer s32), arguments and returns in VGPRs, callee-saved
// registers (SGPR spills to VGPR lanes with v_writelane / v_readlane), a private array
// passed by pointer to a callee.
__attribute__((noinline)) uint mix(uint a, uint b, uint c) {
  a -= c; a ^= (c << 4) | (c >> 28); c += b;
  b -= a; b ^= (a << 6) | (a >> 26); a += c;
  c -= b; c ^= (b << 8) | (b >> 24); b += a;
  return a ^ b ^ c;
}

__attribute__((noinline)) void fill(uint* p, uint n, uint seed) {
  for (uint k = 0; k < n; ++k) p[k] = mix(seed, k, seed ^ k);
}

__attribute__((noinline)) float poly(float x, int deg) {
  float r = 1.0f;
  for (int k = 0; k < deg; ++k) r = r * x + (float)k;   // x is a small integer: exact
  return r;
}

__kernel void func_calls(__global const uint* in, __global uint* out, __global float* fout) {
  uint i = get_global_id(0);
  uint v = in[i];
  uint buf[24];
  fill(buf, 8 + (v & 15), v);
  uint acc = 0;
  for (uint k = 0; k < 8 + (v & 15); ++k) acc += buf[k] * (k + 1);
  out[i] = mix(acc, v, i);
  fout[i] = poly((float)((int)(v & 7) - 3), (int)((v >> 3) & 7));
}
