// Packed binary records (a 15-byte __attribute__((packed)) struct with fields at odd
// offsets) parsed from a byte stream, and written back with modified fields.
typedef struct __attribute__((packed)) {
    uchar type;      // 0
    int value;       // 1
    short delta;     // 5
    float scale;     // 7
    uint crc;        // 11
} record;            // 15 bytes

__kernel void packed_struct(__global record* recs, __global float* out, int n)
{
    int i = get_global_id(0);
    if (i >= n) return;
    record r = recs[i];
    float v = (float)(r.value + r.delta) * r.scale;
    out[i] = r.type == 2 ? -v : v;
    r.value ^= (int)r.crc;
    r.delta = (short)(r.delta >> 1);
    r.type += 1;
    r.crc = r.crc * 2654435761u + r.type;
    recs[i] = r;
}
