// A private array indexed by runtime values: too large and dynamically indexed to live in
// VGPRs, so it is placed in scratch (private segment: MUBUF buffer_store/load_dword with the
// private segment buffer descriptor and the wave's scratch offset).
#define P 96
__kernel void scratch_spill(__global const uint* seed, __global const uint* idx,
                            __global uint* out) {
  uint g = get_global_id(0);
  uint priv[P];
  uint s = seed[g];
  for (uint k = 0; k < P; ++k) {
    s = s * 1664525u + 1013904223u;
    priv[k] = s;
  }
  uint acc = 0;
  for (uint k = 0; k < 16; ++k) {
    uint j = (idx[g] + k * 7) % P;
    priv[(j * 5) % P] ^= acc;
    acc += priv[j] >> (k & 7);
  }
  out[g] = acc ^ priv[idx[g] % P];
}
