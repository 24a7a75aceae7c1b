// The common pattern `if (gid >= n) return;` before a barrier, with n chosen so that in the
// last work-group whole waves (and part of one wave) have returned when the others reach
// the barrier. OpenCL calls this undefined, real hardware runs it (ended waves leave the
// barrier count). The survivors exchange values through __local memory.
#define B 256
__kernel void tail_barrier(__global const int* in, __global int* out, int n)
{
    __local int buf[B];
    int gid = get_global_id(0), lid = get_local_id(0);
    if (gid >= n) return;
    buf[lid] = in[gid] * 2;
    barrier(CLK_LOCAL_MEM_FENCE);
    int valid = min((int)B, n - (int)get_group_id(0) * B);
    out[gid] = buf[(lid + 1) % valid] + buf[valid - 1 - lid];
}
