// One pass of an LSD radix sort over 4-bit digits, within each work-group of 128 keys:
// local histogram via atomic_inc, exclusive scan of the 16 buckets, then a stable rank
// (count of earlier keys with the same digit) to scatter the keys into local memory.
#define B 128
__kernel void radix_pass(__global const uint* keys, __global uint* sorted, __global uint* hist,
                         uint shift)
{
    __local uint k[B];
    __local uint h[16];
    __local uint base[16];
    __local uint outk[B];
    uint lid = get_local_id(0), grp = get_group_id(0);
    if (lid < 16) h[lid] = 0;
    uint key = keys[grp * B + lid];
    k[lid] = key;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint d = (key >> shift) & 15u;
    atomic_inc(&h[d]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        uint s = 0;
        for (int i = 0; i < 16; i++) { base[i] = s; s += h[i]; }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    uint rank = 0;
    for (uint j = 0; j < lid; j++)
        rank += ((k[j] >> shift) & 15u) == d;
    outk[base[d] + rank] = key;
    barrier(CLK_LOCAL_MEM_FENCE);
    sorted[grp * B + lid] = outk[lid];
    if (lid < 16) hist[grp * 16 + lid] = h[lid];
}
