// __local arrays of sub-dword and wide types in a 32-item work-group (one half-filled
// wave): uchar reversal, short neighbour sums, float4 rotation and a double tree sum.
#define B 32
__kernel void lds_subword(__global const uchar* bytes, __global const short* shorts,
                          __global const float4* f4, __global const double* dbl,
                          __global uchar* ob, __global short* os, __global float4* of,
                          __global double* od)
{
    __local uchar lb[B];
    __local short ls[B + 1];
    __local float4 lf[B];
    __local double ld[B];
    int lid = get_local_id(0), gid = get_global_id(0);
    lb[lid] = bytes[gid];
    ls[lid] = shorts[gid];
    if (lid == 0) ls[B] = (short)-1;
    lf[lid] = f4[gid];
    ld[lid] = dbl[gid];
    barrier(CLK_LOCAL_MEM_FENCE);
    ob[gid] = lb[B - 1 - lid] + lb[(lid * 7) % B];
    os[gid] = (short)(ls[lid] + ls[lid + 1]);
    float4 v = lf[(lid + 5) % B];
    of[gid] = v.yzwx + lf[lid];
    for (int s = B / 2; s > 0; s >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < s) ld[lid] += ld[lid + s];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    od[gid] = ld[0] - dbl[gid];
}
