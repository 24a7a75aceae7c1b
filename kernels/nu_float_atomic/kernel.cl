// Float accumulation into global memory with the classic atomic_cmpxchg loop (OpenCL 1.2
// has no float atomics), plus a float max done the same way.
inline void atomic_add_f(volatile __global float* p, float v)
{
    union { uint u; float f; } old, nw;
    do {
        old.f = *p;
        nw.f = old.f + v;
    } while (atomic_cmpxchg((volatile __global uint*)p, old.u, nw.u) != old.u);
}
inline void atomic_max_f(volatile __global float* p, float v)
{
    float cur = *p;
    while (v > cur) {
        uint prev = atomic_cmpxchg((volatile __global uint*)p, as_uint(cur), as_uint(v));
        if (prev == as_uint(cur)) break;
        cur = as_float(prev);
    }
}
__kernel void float_atomic(__global const float* x, volatile __global float* bins,
                           volatile __global float* mx, int n)
{
    int i = get_global_id(0);
    if (i >= n) return;
    float v = x[i];
    atomic_add_f(&bins[i & 15], v);
    atomic_max_f(&mx[(i >> 4) & 3], v);
}
