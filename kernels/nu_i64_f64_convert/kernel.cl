// 64-bit integer <-> floating conversions, done in software on gfx7: long/ulong -> double
// (default rte and rtz/rtp/rtn), long/ulong -> float, double -> long/ulong with _sat and
// rounding modes.
__kernel void i64_f64_convert(__global const long* l, __global const double* d,
                              __global double* od, __global float* of, __global long* ol)
{
    int i = get_global_id(0);
    long x = l[i];
    ulong ux = (ulong)x;
    double y = d[i];
    od[6 * i + 0] = convert_double(x);
    od[6 * i + 1] = convert_double(ux);
    od[6 * i + 2] = convert_double_rtz(x);
    od[6 * i + 3] = convert_double_rtp(ux >> 1);
    od[6 * i + 4] = convert_double_rtn(x);
    od[6 * i + 5] = (double)(x >> 11);  // exact
    of[4 * i + 0] = convert_float(x);
    of[4 * i + 1] = convert_float(ux);
    of[4 * i + 2] = (float)(x >> 40);
    of[4 * i + 3] = (float)(ux >> 3);
    ol[5 * i + 0] = convert_long_sat(y);
    ol[5 * i + 1] = (long)convert_ulong_sat(y);
    ol[5 * i + 2] = convert_long_sat_rte(y);
    ol[5 * i + 3] = convert_long_sat_rtn(y * 0.5);
    ol[5 * i + 4] = (long)convert_ulong_sat_rtp(y);
}
