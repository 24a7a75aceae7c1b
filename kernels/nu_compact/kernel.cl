// Stream compaction: keep elements that are not multiples of 3, in order, per work-group.
// Flags are prefix-summed in LDS (Hillis-Steele, double buffered); a local atomic counts the
// kept elements and a global atomic accumulates the total.
#define B 256
__kernel void compact(__global const int* in, __global int* out, __global int* counts,
                      __global int* total)
{
    __local int buf[2][B];
    __local int cnt;
    int lid = get_local_id(0), gid = get_global_id(0), grp = get_group_id(0);
    if (lid == 0) cnt = 0;
    int v = in[gid];
    int keep = (v % 3) != 0;
    buf[0][lid] = keep;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (keep) atomic_inc(&cnt);
    int src = 0;
    for (int off = 1; off < B; off <<= 1) {
        int t = buf[src][lid];
        if (lid >= off) t += buf[src][lid - off];
        buf[1 - src][lid] = t;
        src = 1 - src;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    int pos = buf[src][lid] - keep;  // exclusive
    if (keep) out[grp * B + pos] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        counts[grp] = cnt;
        atomic_add(total, cnt);
    }
}
