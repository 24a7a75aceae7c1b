// float32 division, sqrt, rsqrt and libclc transcendentals (exp, exp2, log, log2, sin, cos,
// tan, atan2, pow, cbrt, hypot, native_recip, native_exp2, native_log2).
__kernel void f32_transc(__global const float* a, __global const float* b, __global float* o) {
  uint i = get_global_id(0);
  float x = a[i], y = b[i];
  __global float* r = o + 17 * i;
  r[0] = x / y;
  r[1] = sqrt(x);
  r[2] = rsqrt(x);
  r[3] = exp(y);
  r[4] = exp2(y);
  r[5] = log(x);
  r[6] = log2(x);
  r[7] = sin(y);
  r[8] = cos(y);
  r[9] = tan(y);
  r[10] = atan2(y, x);
  r[11] = pow(x, y);
  r[12] = cbrt(y);
  r[13] = hypot(x, y);
  r[14] = native_recip(x);
  r[15] = native_exp2(y);
  r[16] = native_log2(x);
}
