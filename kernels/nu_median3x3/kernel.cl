// 3x3 median filter with clamp-to-edge: the 9 samples go into a private array that is
// insertion-sorted with data-dependent indices (dynamic private indexing).
__kernel void median3x3(__global const float* src, __global float* dst, int w, int h)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h) return;
    float v[9];
    int n = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int xx = clamp(x + dx, 0, w - 1), yy = clamp(y + dy, 0, h - 1);
            v[n++] = src[yy * w + xx];
        }
    for (int k = 1; k < 9; k++) {
        float key = v[k];
        int j = k - 1;
        while (j >= 0 && v[j] > key) { v[j + 1] = v[j]; j--; }
        v[j + 1] = key;
    }
    dst[y * w + x] = v[4];
}
