// Loops with data-dependent trip counts, continue and break (nested), plus a Collatz
// step count: divergent control flow with the EXEC mask stack.
__kernel void loops_break(__global const uint* in, __global uint* out, uint limit) {
  uint i = get_global_id(0);
  uint x = in[i];
  uint acc = 0;
  for (uint k = 0; k < (x & 63); ++k) {
    if ((k ^ x) & 1) continue;
    acc += k * (x >> 8 & 0xff);
    if (acc > limit) break;
    for (uint j = 0; j < 4; ++j) {
      if (((x >> j) & 3) == 3) break;
      acc ^= j << k % 13;
    }
  }
  uint n = (x >> 16) | 1, steps = 0;
  while (n != 1 && steps < 500) {
    n = (n & 1) ? 3 * n + 1 : n >> 1;
    ++steps;
  }
  out[2 * i] = acc;
  out[2 * i + 1] = steps;
}
