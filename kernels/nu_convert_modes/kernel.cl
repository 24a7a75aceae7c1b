// convert_* with explicit rounding modes and saturation between many type pairs:
// double->float (rte/rtz/rtp/rtn), double->int/uint_sat, float->char/uchar/short_sat,
// long->float rounding, uint->float, int->short/char sat, vector conversions.
__kernel void convert_modes(__global const double* d, __global const float* f,
                            __global const long* l, __global float* of, __global int* oi,
                            __global short* os, __global char* oc)
{
    int i = get_global_id(0);
    double x = d[i];
    float y = f[i];
    long z = l[i];
    of[8 * i + 0] = convert_float(x);
    of[8 * i + 1] = convert_float_rtz(x);
    of[8 * i + 2] = convert_float_rtp(x);
    of[8 * i + 3] = convert_float_rtn(x);
    of[8 * i + 4] = convert_float(z);
    of[8 * i + 5] = convert_float_rtz(z);
    of[8 * i + 6] = convert_float_rtn((uint)z);
    of[8 * i + 7] = convert_float_rtp((uint)z);
    oi[4 * i + 0] = convert_int_sat(x);
    oi[4 * i + 1] = convert_int_sat_rte(x);
    oi[4 * i + 2] = (int)convert_uint_sat_rtp(x);
    oi[4 * i + 3] = convert_int_sat((long)(z >> 20));
    os[4 * i + 0] = convert_short_sat_rtn(y);
    os[4 * i + 1] = convert_short_sat(z);
    os[4 * i + 2] = convert_ushort_sat_rte(y);
    os[4 * i + 3] = convert_short_rtz(y * 0.001f);
    char4 c = convert_char4_sat_rte((float4)(y, -y, y * 0.25f, y * 100.0f));
    uchar4 u = convert_uchar4_sat((int4)((int)z, (int)(z >> 8), (int)(z >> 16), (int)(z >> 24)));
    vstore4(c, i, oc);
    vstore4(as_char4(u), i + get_global_size(0), oc);
}
