// Geometric and common functions as graphics/physics code uses them: dot, cross, length,
// normalize, distance on float3/float4; mix, smoothstep, step, clamp, sign, degrees,
// fract and sincos with private out-pointers.
__kernel void geometric(__global const float4* a, __global const float4* b, __global float* s,
                        __global float4* v)
{
    int i = get_global_id(0);
    float4 p = a[i], q = b[i];
    float3 p3 = p.xyz, q3 = q.xyz;
    __global float* o = s + 10 * i;
    o[0] = dot(p, q);
    o[1] = dot(p3, q3);
    o[2] = length(p3);
    o[3] = distance(p, q);
    o[4] = length(p.xy);
    float fl;
    o[5] = fract(p.x * 10.0f, &fl);
    o[6] = fl;
    float c;
    o[7] = sincos(q.w, &c);
    o[8] = c;
    o[9] = degrees(p.w) + sign(q.x) + step(0.5f, p.y);
    v[4 * i + 0] = (float4)(cross(p3, q3), 0.0f);
    v[4 * i + 1] = (float4)(normalize(p3), 1.0f);
    v[4 * i + 2] = mix(p, q, (float4)(0.25f));
    v[4 * i + 3] = smoothstep((float4)(-1.0f), (float4)(1.0f), p) + clamp(q, -0.5f, 0.5f);
}
