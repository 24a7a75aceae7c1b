// half storage formats: vload_half4/vload_half8 from packed halves, arithmetic in float,
// vstore_half4 (round to nearest even) and vstore_half4_rtz, vloada_half4 / vstorea_half4.
__kernel void half_vec4(__global const half* src, __global half* dst_rte, __global half* dst_rtz,
                    __global half* dst_a, __global float* f)
{
    int i = get_global_id(0);
    float4 a = vload_half4(i, src);
    float8 b = vload_half8(i, src + 4 * get_global_size(0));
    float4 c = a * b.lo + b.hi;
    vstore_half4(c, i, dst_rte);
    vstore_half4_rtz(c, i, dst_rtz);
    float4 al = vloada_half4(i, src);
    vstorea_half4_rtp(al * 3.0f, i, dst_a);
    vstore4(c, i, f);
}
