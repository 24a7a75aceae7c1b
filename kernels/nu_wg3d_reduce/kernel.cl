// 3D work-groups of 8x4x6 = 192 items (3 waves): every item writes its local linear id
// position into several __local arrays; then sums along x (per y,z row), along z, and a
// total, with barriers between phases.
#define LX 8
#define LY 4
#define LZ 6
__kernel void wg3d_reduce(__global const int* in, __global int* rows, __global int* cols,
                          __global int* tot, __global int* ids)
{
    __local int tile[LZ][LY][LX];
    __local int rowsum[LZ][LY];
    __local int colsum[LY][LX];
    __local int total;
    int lx = get_local_id(0), ly = get_local_id(1), lz = get_local_id(2);
    int gx = get_global_id(0), gy = get_global_id(1), gz = get_global_id(2);
    int W = get_global_size(0), H = get_global_size(1);
    int gidx = (gz * H + gy) * W + gx;
    int v = in[gidx];
    tile[lz][ly][lx] = v;
    if (lx == 0 && ly == 0 && lz == 0) total = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lx == 0) {
        int s = 0;
        for (int k = 0; k < LX; k++) s += tile[lz][ly][k];
        rowsum[lz][ly] = s;
    }
    if (lz == 0) {
        int s = 0;
        for (int k = 0; k < LZ; k++) s += tile[k][ly][lx] * (k + 1);
        colsum[ly][lx] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lx == 0) atomic_add(&total, rowsum[lz][ly]);
    barrier(CLK_LOCAL_MEM_FENCE);
    int grp = (get_group_id(2) * get_num_groups(1) + get_group_id(1)) * get_num_groups(0)
              + get_group_id(0);
    if (lx == 0) rows[grp * LZ * LY + lz * LY + ly] = rowsum[lz][ly];
    if (lz == 0) cols[grp * LY * LX + ly * LX + lx] = colsum[ly][lx];
    if (lx == 0 && ly == 0 && lz == 0) tot[grp] = total;
    ids[gidx] = (int)((uint)((lz * LY + ly) * LX + lx) | (get_group_id(0) << 8) | (get_group_id(1) << 12)
                      | (get_group_id(2) << 16));
}
