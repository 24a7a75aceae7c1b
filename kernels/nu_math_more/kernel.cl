// Less common float built-ins, each a long libclc sequence: erf, erfc, tgamma, sinpi,
// cospi, tanpi, atan2pi, pown, powr, hypot, log2, cbrt, exp2, and sin/cos of large
// arguments (table-driven argument reduction).
__kernel void math_more(__global const float* xs, __global const float* ys, __global float* o)
{
    int i = get_global_id(0);
    float x = xs[i], y = ys[i];
    __global float* r = o + 15 * i;
    r[0] = erf(x);
    r[1] = erfc(x);
    r[2] = tgamma(fabs(x) + 0.1f);
    r[3] = sinpi(y);
    r[4] = cospi(y);
    r[5] = tanpi(y * 0.2f);
    r[6] = atan2pi(x, y);
    r[7] = pown(x, i % 9 - 4);
    r[8] = powr(fabs(y) + 0.01f, x);
    r[9] = hypot(x * 1e20f, y * 1e20f);
    r[10] = log2(fabs(x * y));
    r[11] = cbrt(x * y * 100.0f);
    r[12] = exp2(x * 5.0f);
    r[13] = sin(y * 1e5f);
    r[14] = cos(x * 3e6f);
}
