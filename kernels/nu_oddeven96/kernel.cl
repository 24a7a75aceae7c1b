// Odd-even transposition sort of 96 keys per work-group (block 96: a full wave and a
// 32-lane wave), one barrier per phase (96 phases), with keys and a payload in two
// __local arrays; then a __local min/max tree over the third array.
#define B 96
__kernel void oddeven96(__global const int* keys, __global const int* vals,
                        __global int* okeys, __global int* ovals, __global int* minmax)
{
    __local int k[B];
    __local int p[B];
    __local int red[2][B];
    int lid = get_local_id(0), base = get_group_id(0) * B;
    k[lid] = keys[base + lid];
    p[lid] = vals[base + lid];
    red[0][lid] = k[lid];
    red[1][lid] = k[lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int phase = 0; phase < B; phase++) {
        int i = 2 * lid + (phase & 1);
        if (lid < B / 2 && i + 1 < B) {
            int a = k[i], b = k[i + 1];
            if (a > b) {
                k[i] = b; k[i + 1] = a;
                int t = p[i]; p[i] = p[i + 1]; p[i + 1] = t;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    // min/max tree over 96 = 3 * 32 entries
    for (int s = 48; s >= 3; s >>= 1) {
        if (lid < s) {
            red[0][lid] = min(red[0][lid], red[0][lid + s]);
            red[1][lid] = max(red[1][lid], red[1][lid + s]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    okeys[base + lid] = k[lid];
    ovals[base + lid] = p[lid];
    if (lid == 0) {
        minmax[2 * get_group_id(0)] = min(min(red[0][0], red[0][1]), red[0][2]);
        minmax[2 * get_group_id(0) + 1] = max(max(red[1][0], red[1][1]), red[1][2]);
    }
}
