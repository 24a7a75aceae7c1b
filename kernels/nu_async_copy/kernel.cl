// async_work_group_copy / async_work_group_strided_copy / wait_group_events: stage a block
// and a strided column of global data into __local, compute, and copy results back.
#define B 128
__kernel void async_copy(__global const float* in, __global const float* cols, __global float* out,
                         int stride)
{
    __local float a[B];
    __local float c[B];
    __local float r[B];
    int lid = get_local_id(0), grp = get_group_id(0);
    event_t e1 = async_work_group_copy(a, in + grp * B, B, 0);
    event_t e2 = async_work_group_strided_copy(c, cols + grp, B, stride, 0);
    wait_group_events(1, &e1);
    wait_group_events(1, &e2);
    r[lid] = a[lid] * 2.0f - c[(lid + 1) % B];
    barrier(CLK_LOCAL_MEM_FENCE);
    event_t e3 = async_work_group_copy(out + grp * B, r, B, 0);
    wait_group_events(1, &e3);
}
