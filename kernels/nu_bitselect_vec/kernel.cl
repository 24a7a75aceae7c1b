// select / bitselect on vectors, vector relational functions (-1/0 per component),
// ternaries on vectors, any/all, and short8/char16/long2 selects keyed by the MSB.
__kernel void bitselect_vec(__global const float4* a, __global const float4* b,
                            __global const uint4* m, __global const char16* c,
                            __global const long2* l, __global float4* of, __global int4* oi,
                            __global char16* oc, __global long2* ol)
{
    int i = get_global_id(0);
    float4 x = a[i], y = b[i];
    uint4 mk = m[i];
    of[3 * i + 0] = bitselect(x, y, as_float4(mk));
    of[3 * i + 1] = select(x, y, isgreater(x, y));
    of[3 * i + 2] = select(fmin(x, y), fmax(x, y), as_int4(mk) < 0);
    int4 r = isless(x, y) + 2 * islessgreater(x, y) + 4 * isnan(x * y) + 8 * isordered(x, y);
    oi[2 * i + 0] = r;
    oi[2 * i + 1] = (int4)(any(isless(x, y)), all(isless(x, y)), any(as_int4(mk) > 0),
                           all(mk > (uint4)(0x10000000u)));
    char16 cv = c[i];
    char16 d = cv * (char16)(3);
    oc[i] = select(cv, d, cv) ^ bitselect(cv, d, (char16)(0x5a));
    long2 lv = l[i];
    ol[i] = select(lv, -lv, lv) + (lv > (long2)(0) ? (long2)(1) : (long2)(2));
}
