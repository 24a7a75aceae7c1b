// double libm as scientific code uses it, including sin/cos/tan of large arguments (Payne-
// Hanek reduction with v_trig_preop_f64), exp, log, pow, atan2, cbrt, erf, sqrt, fmod.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void math_f64(__global const double* xs, __global const double* ys, __global double* o)
{
    int i = get_global_id(0);
    double x = xs[i], y = ys[i];
    __global double* r = o + 12 * i;
    r[0] = sin(x);
    r[1] = cos(x);
    r[2] = tan(y);
    r[3] = exp(y);
    r[4] = log(fabs(x) + 1e-300);
    r[5] = pow(fabs(y) + 0.5, y * 3.0);
    r[6] = atan2(y, x);
    r[7] = cbrt(x);
    r[8] = erf(y);
    r[9] = log1p(fabs(y));
    r[10] = sinh(y);
    r[11] = asin(y / 50.0);
}
