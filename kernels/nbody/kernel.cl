// All-pairs gravitational acceleration (__builtin_amdgcn_rsqf -> v_rsq_f32) and potential (rsqrt ->
// libclc 1/sqrt: v_sqrt_f32 then an IEEE division with v_div_scale/v_div_fmas/v_div_fixup).
// pos[j] = (x, y, z, mass). Bodies are staged through __local tiles of 64.
#define TILE 64
__kernel void nbody_acc(__global const float4* pos, __global float4* acc, __global float* pot,
                        uint n, float eps2) {
  __local float4 tile[TILE];
  uint i = get_global_id(0);
  float4 pi = pos[i];
  float3 a = (float3)(0.0f);
  float p = 0.0f;
  for (uint t = 0; t < n; t += TILE) {
    tile[get_local_id(0)] = pos[t + get_local_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < TILE; ++j) {
      float4 pj = tile[j];
      float3 d = pj.xyz - pi.xyz;
      float r2 = dot(d, d) + eps2;
#ifdef __AMDGCN__
      float ninv = __builtin_amdgcn_rsqf(r2);  // v_rsq_f32 (libclc native_rsqrt is 1/sqrt)
#else
      float ninv = native_rsqrt(r2);           // other OpenCL implementations (cross-checks)
#endif
      float inv3 = ninv * ninv * ninv;
      a += (pj.w * inv3) * d;
      p += pj.w * rsqrt(r2);          // libclc: v_sqrt_f32 + correctly rounded division
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  acc[i] = (float4)(a, 0.0f);
  pot[i] = p;
}
