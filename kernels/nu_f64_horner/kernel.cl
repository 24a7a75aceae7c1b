// Double precision: per-row dot products (a*b+acc contracts to v_fma_f64), Horner
// polynomial written with fma() and with plain a*x+b, and a few libm calls.
__kernel void f64_horner(__global const double* a, __global const double* b,
                         __constant double* coef, int ncoef, __global const double* xs,
                         __global double* dots, __global double* poly, __global double* lib,
                         int len)
{
    int i = get_global_id(0);
    double acc = 0.0;
    for (int k = 0; k < len; k++)
        acc += a[i * len + k] * b[k];
    dots[i] = acc;
    double x = xs[i];
    double p1 = coef[ncoef - 1], p2 = coef[ncoef - 1];
    for (int k = ncoef - 2; k >= 0; k--) {
        p1 = fma(p1, x, coef[k]);
        p2 = p2 * x + coef[k];
    }
    poly[2 * i] = p1;
    poly[2 * i + 1] = p2;
    lib[4 * i + 0] = exp(x);
    lib[4 * i + 1] = log(fabs(x) + 0.5);
    lib[4 * i + 2] = sin(x * 3.0);
    lib[4 * i + 3] = sqrt(fabs(acc));
}
