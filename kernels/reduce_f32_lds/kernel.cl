// float32 work-group reduction: each work-item first sums 4 strided inputs, then a tree in
// static __local memory; the last 64 partial sums are finished by the first wave without
// barriers (volatile LDS, "warp-synchronous" style that relies on 64-lane lockstep waves).
#define B 256
__kernel void reduce_f32(__global const float* in, __global float* out) {
  __local volatile float s[B];
  uint lid = get_local_id(0);
  uint base = get_group_id(0) * B * 4;
  float v = in[base + lid];
  v += in[base + lid + B];
  v += in[base + lid + 2 * B];
  v += in[base + lid + 3 * B];
  s[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint st = B / 2; st > 32; st >>= 1) {
    if (lid < st) s[lid] = s[lid] + s[lid + st];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid < 32) {
    s[lid] = s[lid] + s[lid + 32];
    s[lid] = s[lid] + s[lid + 16];
    s[lid] = s[lid] + s[lid + 8];
    s[lid] = s[lid] + s[lid + 4];
    s[lid] = s[lid] + s[lid + 2];
    s[lid] = s[lid] + s[lid + 1];
  }
  if (lid == 0) out[get_group_id(0)] = s[0];
}
