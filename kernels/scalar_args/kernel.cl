#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// Many by-value arguments of mixed types and alignments (kernarg packing), each echoed as a
// 64-bit pattern plus one combined value per work-item.
__kernel void scalar_args(char c, short s, int i, long l, float f, double d, uint u, ulong ul,
                          uchar uc, ushort us, __global ulong* echo, __global double* mix) {
  uint g = get_global_id(0);
  if (g == 0) {
    echo[0] = (ulong)(long)c;
    echo[1] = (ulong)(long)s;
    echo[2] = (ulong)(long)i;
    echo[3] = (ulong)l;
    echo[4] = (ulong)as_uint(f);
    echo[5] = as_ulong(d);
    echo[6] = (ulong)u;
    echo[7] = ul;
    echo[8] = (ulong)uc;
    echo[9] = (ulong)us;
  }
  mix[g] = (double)c * g + (double)s + (double)i * 0.5 + (double)(l >> 20) + (double)f * d +
           (double)(u ^ g) + (double)(ul >> 40) + (double)uc - (double)us;
}
