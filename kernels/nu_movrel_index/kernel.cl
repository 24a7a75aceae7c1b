// Vectors indexed with per-lane (divergent) indices (float16 v[j], int8 w[m]): dynamic
// extract/insert on register vectors. clang-14 for gfx700 lowers them to v_cndmask_b32
// select chains (~300 of them), not to v_movrels/v_movreld.
__kernel void movrel_index(__global const float16* in, __global const int* idx,
                           __global float* out, __global int* iout)
{
    int i = get_global_id(0);
    float16 v = in[i];
    int8 w = (int8)(0, 1, 4, 9, 16, 25, 36, 49) - (int8)(i);
    int j = idx[i] & 15;
    int m = (idx[i] >> 4) & 15;
    v[j] = v[j] * 2.0f + v[m];
    w[m & 7] += j;
    float s = 0.0f;
    for (int k = 0; k < 16; k++) s = s * 0.5f + v[(k + j) & 15];
    out[2 * i] = v[m];
    out[2 * i + 1] = s;
    iout[i] = w[j & 7] * 100 + w[m & 7];
}
