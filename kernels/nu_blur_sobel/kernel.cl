// 3x3 binomial blur and Sobel edge magnitude on an 8-bit image with clamp-to-edge,
// non-power-of-two size: the grid is rounded up to the block and out-of-range items return.
__kernel void blur_sobel(__global const uchar* src, __global uchar* blur, __global uchar* edge,
                         int w, int h)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    if (x >= w || y >= h) return;
    int xm = max(x - 1, 0), xp = min(x + 1, w - 1);
    int ym = max(y - 1, 0), yp = min(y + 1, h - 1);
    int p00 = src[ym * w + xm], p01 = src[ym * w + x], p02 = src[ym * w + xp];
    int p10 = src[y * w + xm],  p11 = src[y * w + x],  p12 = src[y * w + xp];
    int p20 = src[yp * w + xm], p21 = src[yp * w + x], p22 = src[yp * w + xp];
    int s = p00 + 2 * p01 + p02 + 2 * p10 + 4 * p11 + 2 * p12 + p20 + 2 * p21 + p22;
    blur[y * w + x] = (uchar)((s + 8) >> 4);
    int gx = (p02 + 2 * p12 + p22) - (p00 + 2 * p10 + p20);
    int gy = (p20 + 2 * p21 + p22) - (p00 + 2 * p01 + p02);
    edge[y * w + x] = convert_uchar_sat(abs(gx) + abs(gy));
}
