// Open-addressing hash-table lookup with linear probing: each lane loops until it finds
// its key or an empty slot, so trip counts and exits are per lane (while + break on data).
#define EMPTY 0xffffffffu
__kernel void hash_probe(__global const uint* tkeys, __global const int* tvals, uint mask,
                         __global const uint* queries, __global int* result,
                         __global int* probes, int n)
{
    int i = get_global_id(0);
    if (i >= n) return;
    uint q = queries[i];
    uint slot = (q * 2654435761u) & mask;
    int count = 0;
    int found = -1;
    while (true) {
        uint k = tkeys[slot];
        count++;
        if (k == q) { found = tvals[slot]; break; }
        if (k == EMPTY) break;
        slot = (slot + 1) & mask;
        if (count > (int)mask) break;
    }
    result[i] = found;
    probes[i] = count;
}
