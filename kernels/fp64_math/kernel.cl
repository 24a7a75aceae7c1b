#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// Transcendental-free double math: fma, mad, fmin/fmax, floor/ceil/trunc/rint/round, fabs,
// copysign, ldexp, frexp, fmod, comparisons and conversions double <-> int/long/float.
__kernel void fp64_math(__global const double* a, __global const double* b,
                        __global const double* c, __global double* od, __global long* ol) {
  uint i = get_global_id(0);
  double x = a[i], y = b[i], z = c[i];
  __global double* o = od + 14 * i;
  o[0] = fma(x, y, z);
  o[1] = fmin(x, y);
  o[2] = fmax(x, z);
  o[3] = floor(x);
  o[4] = ceil(y);
  o[5] = trunc(z);
  o[6] = rint(x);
  o[7] = round(y);
  o[8] = copysign(fabs(x), y);
  o[9] = ldexp(x, (int)(i % 64) - 32);
  int e;
  o[10] = frexp(y, &e);
  o[11] = fmod(x, y);
  o[12] = (double)(float)z;
  o[13] = x < y ? x * 2.0 : (x == y ? 0.0 : -y);
  ol[3 * i] = e;
  ol[3 * i + 1] = (long)trunc(z * 1024.0);
  ol[3 * i + 2] = (long)(isless(x, y)) + 2 * (long)isgreaterequal(y, z) + 4 * (long)signbit(z);
}
