// 8- and 16-bit integer arithmetic on vectors with saturation: add_sat, sub_sat, hadd,
// rhadd, mad_sat, mul_hi, abs, abs_diff, clamp, rotate, upsample, and wrapping char math.
__kernel void sat_char(__global const char4* a, __global const char4* b, __global const uchar4* ua,
                       __global const uchar4* ub, __global const short2* sa,
                       __global const short2* sb, __global char4* oc, __global uchar4* ou,
                       __global short4* os, __global ushort4* ous)
{
    int i = get_global_id(0);
    char4 x = a[i], y = b[i];
    uchar4 ux = ua[i], uy = ub[i];
    short2 s = sa[i], t = sb[i];
    oc[4 * i + 0] = add_sat(x, y);
    oc[4 * i + 1] = sub_sat(x, y);
    oc[4 * i + 2] = hadd(x, y) ^ rhadd(x, y);
    oc[4 * i + 3] = mad_sat(x, y, (char4)(100, -100, 7, -7)) + (x * y);  // wraps
    ou[4 * i + 0] = add_sat(ux, uy);
    ou[4 * i + 1] = sub_sat(ux, uy);
    ou[4 * i + 2] = abs(x) + abs_diff(ux, uy);
    ou[4 * i + 3] = rotate(ux, uy) ^ mul_hi(ux, uy) ^ convert_uchar4(clamp(x, (char4)(-20), (char4)(50)));
    os[2 * i + 0] = (short4)(add_sat(s, t), sub_sat(s, t));
    os[2 * i + 1] = (short4)(mad_sat(s, t, (short2)(-30000, 30000)), mul_hi(s, t));
    ous[2 * i + 0] = upsample(ux, uy);
    ous[2 * i + 1] = convert_ushort4_sat(convert_short4(x) * (short4)(1000)) + abs(convert_short4(y));
}
