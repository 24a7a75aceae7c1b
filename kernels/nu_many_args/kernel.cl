// A kernel with 18 arguments of mixed kinds, including vector and struct types by value,
// placed in the kernarg segment by their alignment.
typedef struct { uchar tag; int value; } tagged;
__kernel void many_args(char c, __global int* out, short s, uchar uc, float f, double d,
                        ulong ul, int2 i2, float4 f4, __global const float* in, uint u,
                        ushort us, long l, char3 c3, tagged tg, uint4 u4, double2 d2, int last)
{
    int i = get_global_id(0);
    float x = in[i];
    __global int* o = out + 16 * i;
    o[0] = c + i;
    o[1] = s * i;
    o[2] = uc ^ i;
    o[3] = as_int(x * f);
    o[4] = (int)(d * (double)i);
    o[5] = (int)(ul >> (i & 63));
    o[6] = i2.x * i + i2.y;
    o[7] = as_int(f4.x + f4.y * x + f4.z - f4.w);
    o[8] = (int)(u + us + i);
    o[9] = (int)(l >> 33) + i;
    o[10] = c3.x + c3.y * 256 + c3.z * 65536;
    o[11] = tg.tag + tg.value * i;
    o[12] = (int)(u4.x ^ u4.y ^ u4.z ^ u4.w) + i;
    o[13] = (int)(d2.x * i - d2.y);
    o[14] = last;
    o[15] = (int)sizeof(tagged);
}
