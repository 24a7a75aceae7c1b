// 64-bit atomics on __local memory (cl_khr_int64_base/extended_atomics): add, min/max
// (signed and unsigned), or/and/xor, cmpxchg loop; plus atomic_xchg on a __local and a
// __global float (OpenCL 1.2 allows float xchg).
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
__kernel void local_atom64(__global const long* in, __global long* out, __global float* fx)
{
    __local long sadd, smin, smax, sor, sand, sxor, scas;
    __local ulong umax;
    __local float lf;
    int lid = get_local_id(0);
    if (lid == 0) {
        sadd = 0; smin = LONG_MAX; smax = LONG_MIN; sor = 0; sand = -1; sxor = 0; scas = 1;
        umax = 0; lf = -1.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    long v = in[get_global_id(0)];
    atom_add(&sadd, v >> 8);
    atom_min(&smin, v);
    atom_max(&smax, v);
    atom_max(&umax, (ulong)v);
    atom_or(&sor, v & 0x00ff00ff00ff00ffL);
    atom_and(&sand, v | 0x0101010101010101L);
    atom_xor(&sxor, v);
    long old = scas, assumed;
    do {                                  // scas = max(scas, v ^ K), via cmpxchg
        assumed = old;
        old = atom_cmpxchg(&scas, assumed, max(assumed, v ^ 0x5555aaaa5555aaaaL));
    } while (old != assumed);
    float prev = atomic_xchg(&lf, (float)lid);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        int g = get_group_id(0);
        out[9 * g + 0] = sadd; out[9 * g + 1] = smin; out[9 * g + 2] = smax;
        out[9 * g + 3] = (long)umax; out[9 * g + 4] = sor; out[9 * g + 5] = sand;
        out[9 * g + 6] = sxor;
        out[9 * g + 7] = lf >= 0.0f && lf < 128.0f;
        out[9 * g + 8] = scas;
        atomic_xchg(&fx[g], 2.5f * g);
    }
    (void)prev;
}
