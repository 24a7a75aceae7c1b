// Bitonic sort of each 512-element block in __local memory; 256 work-items per group,
// each compares one pair per step. Ascending.
#define B 512
__kernel void bitonic_sort(__global uint* data) {
  __local uint s[B];
  uint lid = get_local_id(0);
  uint base = get_group_id(0) * B;
  s[lid] = data[base + lid];
  s[lid + B / 2] = data[base + lid + B / 2];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint size = 2; size <= B; size <<= 1) {
    for (uint stride = size / 2; stride > 0; stride >>= 1) {
      uint pos = 2 * lid - (lid & (stride - 1));
      bool up = ((pos & size) == 0);
      uint a = s[pos], b = s[pos + stride];
      if ((a > b) == up) { s[pos] = b; s[pos + stride] = a; }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
  data[base + lid] = s[lid];
  data[base + lid + B / 2] = s[lid + B / 2];
}
