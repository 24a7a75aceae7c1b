// Test kernels for tests/test_loader.py. Values the tests check are forced here.

// Plain global-buffer kernel with by-value args of several sizes.
__kernel void vadd(__global const float *a, __global const float *b,
                   __global float *c, uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        c[i] = a[i] + b[i];
}

// reqd_work_group_size (64,1,1), 1000 bytes of __local (250 floats) and a
// dynamic __local pointer argument; char/short/long/double by-value args.
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void lds_kernel(__global int *out, __local int *dyn, char c, short s, long l, double d)
{
    __local float tile[250];
    uint lid = get_local_id(0);
    tile[lid] = (float)lid;
    dyn[lid] = (int)lid;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = (int)tile[63 - lid] + dyn[lid] + c + s + (int)l + (int)d;
}

// A private array indexed dynamically forces scratch (private segment).
__kernel void scratch_kernel(__global int *out, __global const int *idx)
{
    int priv[64];
    uint g = get_global_id(0);
    for (int i = 0; i < 64; i++)
        priv[i] = i * (int)g;
    out[g] = priv[idx[g] & 63];
}

// 3-D ids: enables workgroup_id y/z and workitem id vgprs y/z.
__kernel void ids3d(__global uint *out)
{
    uint x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    uint w = get_global_size(0), h = get_global_size(1);
    out[(z * h + y) * w + x] = get_group_id(0) + get_group_id(1) * 100 + get_group_id(2) * 10000
                               + get_local_id(1) + get_local_id(2);
}
