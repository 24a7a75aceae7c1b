// Integer hashing as people write it: murmur3 fmix32 and a 32-bit block mix with rotate,
// xorshift32, mul_hi/mad_hi, mul24/mad24, upsample, clz/popcount.
uint fmix32(uint h)
{
    h ^= h >> 16; h *= 0x85ebca6bu;
    h ^= h >> 13; h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}
uint murmur_block(uint h, uint k)
{
    k *= 0xcc9e2d51u; k = rotate(k, 15u); k *= 0x1b873593u;
    h ^= k; h = rotate(h, 13u); h = h * 5u + 0xe6546b64u;
    return h;
}
__kernel void hash_mix(__global const uint* in, __global uint* out, uint seed)
{
    int i = get_global_id(0);
    uint a = in[2 * i], b = in[2 * i + 1];
    uint h = seed;
    h = murmur_block(h, a);
    h = murmur_block(h, b);
    h ^= 8u;
    h = fmix32(h);
    uint x = a | 1u;
    for (int k = 0; k < 5; k++) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; }
    uint mh = mul_hi(a, b);
    uint mah = mad_hi(a, b, h);
    int sa = (int)a, sb = (int)b;
    int smh = mul_hi(sa, sb);
    uint a24 = a & 0xffffffu, b24 = b & 0xffffffu;
    uint m24 = mul24(a24, b24);
    uint md24 = mad24(a24, b24, x);
    int s24 = mul24((int)(a << 8) >> 8, (int)(b << 8) >> 8);
    ulong up = upsample(a, b);
    ushort up16 = upsample((uchar)a, (uchar)b);
    uint bits = (clz(a) << 16) | (popcount(b) << 8) | clz(b & 0xffu);
    out[12 * i + 0] = h;
    out[12 * i + 1] = x;
    out[12 * i + 2] = mh;
    out[12 * i + 3] = mah;
    out[12 * i + 4] = (uint)smh;
    out[12 * i + 5] = m24;
    out[12 * i + 6] = md24;
    out[12 * i + 7] = (uint)s24;
    out[12 * i + 8] = (uint)(up >> 3);
    out[12 * i + 9] = (uint)(up >> 35);
    out[12 * i + 10] = up16;
    out[12 * i + 11] = bits;
}
