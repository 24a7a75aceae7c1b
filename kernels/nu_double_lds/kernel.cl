// Doubles in __local memory: 2D 16x16 work-group transposes a double tile through a
// padded __local array and computes per-row sums with a shared second array.
#define T 16
__kernel void double_lds(__global const double* in, __global double* out, __global double* rowsum,
                         int n)
{
    __local double tile[T][T + 1];
    __local double rs[T];
    int lx = get_local_id(0), ly = get_local_id(1);
    int gx = get_group_id(0) * T + lx, gy = get_group_id(1) * T + ly;
    tile[ly][lx] = in[gy * n + gx];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lx == 0) {
        double s = 0.0;
        for (int k = 0; k < T; k++) s += tile[ly][k] * (double)(k + 1);
        rs[ly] = s;
    }
    int tx = get_group_id(1) * T + lx, ty = get_group_id(0) * T + ly;
    out[ty * n + tx] = tile[lx][ly];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (ly == 0 && lx == 0) {
        double s = 0.0;
        for (int k = 0; k < T; k++) s += rs[k];
        rowsum[get_group_id(1) * get_num_groups(0) + get_group_id(0)] = s;
    }
}
