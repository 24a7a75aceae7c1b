// A single work-item kernel (grid 1, block 1) doing serial work, as people write for small
// setup tasks: running prefix sums, min/max search with index, a bubble pass, a checksum.
__kernel void single_item(__global const int* in, int n, __global int* prefix,
                          __global int* stats)
{
    int acc = 0, mn = INT_MAX, mx = INT_MIN, imn = -1, imx = -1;
    uint ck = 0;
    for (int k = 0; k < n; k++) {
        int v = in[k];
        acc += v;
        prefix[k] = acc;
        if (v < mn) { mn = v; imn = k; }
        if (v >= mx) { mx = v; imx = k; }
        ck = rotate(ck, 5u) ^ (uint)v;
    }
    stats[0] = mn; stats[1] = imn; stats[2] = mx; stats[3] = imx; stats[4] = (int)ck;
    stats[5] = get_global_size(0) + get_local_size(0) * 10 + get_num_groups(0) * 100;
}
