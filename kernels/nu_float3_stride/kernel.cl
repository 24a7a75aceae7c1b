// float3 arrays in global memory (sizeof(float3) == 16: a stride of 4 floats) versus
// vload3/vstore3 on packed floats, and double3/long3 vload3/vstore3. (Results go to a
// float4 array: clang widens a float3 store to 16 bytes with an undefined 4th word.)
__kernel void float3_stride(__global const float3* a, __global float4* b,
                            __global const float* packed, __global float* packed_out,
                            __global const double* d, __global double* dout,
                            __global const long* l, __global long* lout)
{
    int i = get_global_id(0);
    float3 v = a[i];
    float3 w = vload3(i, packed);
    b[i] = (float4)(v.zxy - w, (float)i);
    vstore3(v * 2.0f + w.yzx, i, packed_out);
    double3 dv = vload3(i, d);
    vstore3(dv.yzx * (double3)(1.5, -2.0, 0.25), i, dout);
    long3 lv = vload3(i, l);
    vstore3(lv.zyx ^ (lv >> (long3)(1, 7, 63)), i, lout);
}
