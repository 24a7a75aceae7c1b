// 64-bit integer work with data-dependent operands: division and remainder by variable
// 64-bit divisors (signed and unsigned), shifts by variable amounts 0..63, rotate, clz.
__kernel void i64_divshift(__global const ulong* a, __global const ulong* b,
                           __global const uint* sh, __global ulong* out)
{
    int i = get_global_id(0);
    ulong x = a[i], y = b[i];
    long sx = (long)x, sy = (long)y;
    uint s = sh[i] & 63u;
    ulong q = y ? x / y : 0xdeadbeefUL;
    ulong r = y ? x % y : 0;
    long sq = (sy == 0 || (sy == -1 && sx == LONG_MIN)) ? 0 : sx / sy;
    long sr = (sy == 0 || sy == -1) ? 0 : sx % sy;
    out[8 * i + 0] = q;
    out[8 * i + 1] = r;
    out[8 * i + 2] = (ulong)sq;
    out[8 * i + 3] = (ulong)sr;
    out[8 * i + 4] = x << s;
    out[8 * i + 5] = x >> s;
    out[8 * i + 6] = (ulong)(sx >> s);
    out[8 * i + 7] = rotate(x, (ulong)s) ^ ((ulong)clz(y) << 56) ^ (x >> (64 - s - (s == 0)));
}
