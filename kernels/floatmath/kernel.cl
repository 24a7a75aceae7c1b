// Exact float math library functions (results exactly representable / correctly rounded):
// floor, ceil, trunc, round, rint, fract, fmod, fmin, fmax, mad, fma, copysign, ldexp, frexp,
// ilogb, fabs, fdim, maxmag, minmag.
__kernel void floatmath(__global const float* a, __global const float* b, __global float* of,
                        __global int* oi) {
  uint i = get_global_id(0);
  float x = a[i], y = b[i];
  __global float* o = of + 17 * i;
  o[0] = floor(x);
  o[1] = ceil(x);
  o[2] = trunc(x);
  o[3] = round(x);
  o[4] = rint(x);
  float ip;
  o[5] = fract(x, &ip);
  o[6] = ip;
  o[7] = fmod(x, y);
  o[8] = fmin(x, y);
  o[9] = fmax(x, y);
  o[10] = mad(x, y, 1.0f);
  o[11] = fma(x, y, -x);
  o[12] = copysign(x, y);
  int e;
  o[13] = frexp(x, &e);
  oi[2 * i] = e;
  oi[2 * i + 1] = ilogb(x);
  o[14] = ldexp(x, (int)(y) % 20);
  o[15] = fdim(x, y) + fabs(y);
  o[16] = maxmag(x, y) - minmag(x, y);
}
