// A 3D work-group of 7x5x3 = 105 items (a full wave + a 41-lane wave) on a 14x10x6 grid;
// neighbours exchanged through __local memory by 3D index, and work-item functions queried
// with a run-time dimension index (including 3, out of range: 0 or 1 per OpenCL 1.2).
__kernel void odd3d_block(__global const int* in, __global int* nb, __global uint* q, uint dim)
{
    __local int t[3][5][7];
    int x = get_local_id(0), y = get_local_id(1), z = get_local_id(2);
    size_t gx = get_global_id(0), gy = get_global_id(1), gz = get_global_id(2);
    size_t W = get_global_size(0), H = get_global_size(1);
    size_t g = (gz * H + gy) * W + gx;
    t[z][y][x] = in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    int s = t[z][y][(x + 1) % 7] - t[z][(y + 4) % 5][x] + 3 * t[(z + 2) % 3][y][x];
    nb[g] = s;
    __global uint* o = q + 8 * g;
    o[0] = get_global_id(dim);
    o[1] = get_local_id(dim);
    o[2] = get_group_id(dim);
    o[3] = get_global_size(dim);
    o[4] = get_local_size(dim);
    o[5] = get_num_groups(dim);
    o[6] = get_global_offset(dim);
    o[7] = get_global_id(dim + 1);
}
