// Vector types the way people use them: float8/uint16 loads, shuffle/shuffle2, as_type
// reinterprets, swizzles (.odd/.even/.hi/.lo/.s0123), float3 arithmetic.
__kernel void vec_shuffle(__global const float8* a, __global const uint16* b,
                          __global const uint8* masks, __global float8* o1,
                          __global uint16* o2, __global float4* o3, __global uint4* o4)
{
    int i = get_global_id(0);
    float8 va = a[i];
    uint16 vb = b[i];
    uint8 m = masks[i];
    // shuffle with a per-item mask (only low 3 bits used for 8-component sources)
    float8 s = shuffle(va, m);
    o1[i] = s;
    // shuffle2 of two uint8 halves, with a 16-component mask
    uint16 m16 = (uint16)(m, m + (uint8)(8));
    uint16 t = shuffle2(vb.lo, vb.hi, m16 ^ (uint16)(3));
    o2[i] = t + (uint16)(vb.even, vb.odd);
    // float3 arithmetic and swizzle reinterprets
    float3 p = va.s012, q = va.s567;
    float3 c = p.yzx * q.zxy;
    float4 r;
    r.xyz = c;
    r.w = as_float((as_uint(va.s3) & 0x7fffffffu) | (vb.s0 & 0x80000000u));
    o3[i] = r.wzyx;
    uint4 u = as_uint4(va.lo) ^ vb.s048c;
    o4[i] = (uint4)(u.x + u.y, u.z - u.w, rotate(u.x, 7u), u.w >> (u.y & 31u));
}
