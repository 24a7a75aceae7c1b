#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// f64 arithmetic: add, sub, mul, division (v_div_scale/v_div_fmas/v_div_fixup_f64), sqrt.
__kernel void fp64_arith(__global const double* a, __global const double* b,
                         __global double* sum, __global double* prod, __global double* quot,
                         __global double* root, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  double x = a[i], y = b[i];
  sum[i] = x + y - 0.5 * y;
  prod[i] = x * y;
  quot[i] = x / y;
  root[i] = sqrt(fabs(x));
}
