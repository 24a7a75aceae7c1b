// float math built-ins: transcendental ones (compared with the OpenCL 1.2 ULP bounds) and
// exactly specified ones (fdim, remainder, remquo, nextafter, modf, logb, maxmag, minmag,
// fabs, copysign, frexp, ldexp).
__kernel void math_ulp(__global const float* xs, __global const float* ys,
                       __global float* approx, __global float* exact, __global int* ints)
{
    int i = get_global_id(0);
    float x = xs[i], y = ys[i];
    float ax = fabs(x);
    __global float* A = approx + 12 * i;
    A[0] = asin(x / 8.0f);
    A[1] = acos(x / 8.0f);
    A[2] = sinh(x);
    A[3] = cosh(x);
    A[4] = tanh(x);
    A[5] = expm1(x);
    A[6] = log1p(ax);
    A[7] = exp10(x);
    A[8] = log10(ax);
    A[9] = asinh(y);
    A[10] = atan(y);
    A[11] = rootn(ax, 3);
    __global float* E = exact + 12 * i;
    E[0] = fdim(x, y);
    E[1] = remainder(x, y);
    int q;
    E[2] = remquo(x, y, &q);
    ints[3 * i] = q < 0 ? -((-q) & 7) : (q & 7);
    E[3] = nextafter(x, y);
    float ip;
    E[4] = modf(x * 3.7f, &ip);
    E[5] = ip;
    E[6] = logb(y);
    E[7] = maxmag(x, y);
    E[8] = minmag(x, y);
    E[9] = copysign(fabs(y), x);
    int e;
    E[10] = frexp(y, &e);
    ints[3 * i + 1] = e;
    E[11] = ldexp(x, (int)(y * 4.0f));
    ints[3 * i + 2] = ilogb(x);
}
