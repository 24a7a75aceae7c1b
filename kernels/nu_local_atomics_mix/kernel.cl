// __local atomics of every kind whose final value does not depend on the order:
// min/max (signed and unsigned), or/and/xor, add/sub, inc/dec, and an xchg/cmpxchg pair
// used as a lock-free "first writer wins" flag. Block 192 (three waves).
__kernel void local_atomics_mix(__global const int* in, __global int* out)
{
    __local int smin, smax, sor, sand, sxor, sadd, cnt, flag;
    __local uint umin, umax;
    int lid = get_local_id(0);
    if (lid == 0) {
        smin = INT_MAX; smax = INT_MIN; sor = 0; sand = -1; sxor = 0; sadd = 0; cnt = 1000;
        flag = -1; umin = UINT_MAX; umax = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int v = in[get_global_id(0)];
    atomic_min(&smin, v);
    atomic_max(&smax, v);
    atomic_min(&umin, (uint)v);
    atomic_max(&umax, (uint)v);
    atomic_or(&sor, v & 0x0f0f0f0f);
    atomic_and(&sand, v | 0x10000000);
    atomic_xor(&sxor, v);
    if (v & 1) atomic_add(&sadd, v >> 4); else atomic_sub(&sadd, v >> 6);
    if (v & 2) atomic_inc(&cnt); else atomic_dec(&cnt);
    int won = (v & 0xff) == 0x5a ? atomic_cmpxchg(&flag, -1, lid) : -2;
    barrier(CLK_LOCAL_MEM_FENCE);
    int o = get_group_id(0) * 11;
    if (lid == 0) {
        out[o + 0] = smin; out[o + 1] = smax; out[o + 2] = (int)umin; out[o + 3] = (int)umax;
        out[o + 4] = sor; out[o + 5] = sand; out[o + 6] = sxor; out[o + 7] = sadd;
        out[o + 8] = cnt;
        out[o + 9] = atomic_xchg(&flag, 7) >= 0;
        out[o + 10] = flag;
    }
    (void)won;
}
