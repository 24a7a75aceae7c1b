// "Last block finishes" reduction: each work-group writes a partial sum, fences, and takes a
// ticket from a global counter; the group that draws the last ticket sums all partials.
__kernel void last_block(__global const int* in, __global int* partial,
                         volatile __global uint* ticket, __global int* result)
{
    __local int sums[128];
    __local int amLast;
    int lid = get_local_id(0);
    sums[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 64; s > 0; s >>= 1) {
        if (lid < s) sums[lid] += sums[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        partial[get_group_id(0)] = sums[0];
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        uint t = atomic_inc(ticket);
        amLast = (t == get_num_groups(0) - 1);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (amLast) {
        int acc = 0;
        for (uint g = lid; g < get_num_groups(0); g += get_local_size(0))
            acc += ((volatile __global int*)partial)[g];
        sums[lid] = acc;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = 64; s > 0; s >>= 1) {
            if (lid < s) sums[lid] += sums[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) { result[0] = sums[0]; result[1] = get_group_id(0) >= 0; *ticket = 0; }
    }
}
