// Two dynamic __local arguments of different element types next to a static __local array:
// the dispatcher must place each Local(nbytes) and pass its LDS offset in the kernarg.
__kernel void lds_two_locals(__global const float* f, __global const int* k, __local float* lf,
                             __global float* of, __local int* li, __global int* oi) {
  __local int stat[64];
  uint lid = get_local_id(0), ls = get_local_size(0), g = get_global_id(0);
  lf[lid] = f[g];
  li[ls - 1 - lid] = k[g];
  if (lid < 64) stat[lid] = (int)lid * 3;
  barrier(CLK_LOCAL_MEM_FENCE);
  of[g] = lf[ls - 1 - lid] * 2.0f + (float)stat[lid % 64];
  oi[g] = li[lid] ^ stat[(lid * 7) % 64];
}
