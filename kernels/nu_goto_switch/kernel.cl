// Control flow the way real code has it: switch with fall-through and default, goto out of
// nested loops, continue/break at different depths, a do-while, early returns.
__kernel void goto_switch(__global const int* in, __global int* out, int n)
{
    int i = get_global_id(0);
    if (i >= n) return;
    int v = in[i];
    int acc = 0;
    switch (v & 7) {
    case 0: acc += 1;
    case 1: acc += 10; break;
    case 2:
    case 3: acc = v >> 3; break;
    case 5: acc -= 7;
    default: acc ^= 0x55;
    }
    int found = -1;
    for (int a = 0; a < 8; a++) {
        if (((v >> a) & 3) == 3) continue;
        for (int b = 0; b < 8; b++) {
            if (b == a) continue;
            if ((a * 8 + b) * 37 % 64 == (v & 63)) { found = a * 8 + b; goto done; }
            if (b > 5 && (v & 0x100)) break;
        }
    }
done:;
    int k = 0;
    uint u = (uint)v;
    do { u = (u & 1) ? 3 * u + 1 : u >> 1; k++; } while (u > 1 && k < 50);
    if (v < -1000000) { out[3 * i] = -1; out[3 * i + 1] = -1; out[3 * i + 2] = -1; return; }
    out[3 * i] = acc;
    out[3 * i + 1] = found;
    out[3 * i + 2] = k;
}
