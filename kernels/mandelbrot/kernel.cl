// Mandelbrot escape-time counts: divergent per-lane loop trip counts, float32.
__kernel void mandelbrot(__global uint* out, float x0, float y0, float dx, float dy, uint maxit) {
  uint px = get_global_id(0), py = get_global_id(1);
  float cx = x0 + dx * (float)px;
  float cy = y0 + dy * (float)py;
  float zx = 0.0f, zy = 0.0f;
  uint it = 0;
  while (it < maxit) {
    float zx2 = zx * zx, zy2 = zy * zy;
    if (zx2 + zy2 > 4.0f) break;
    float t = zx2 - zy2 + cx;
    zy = 2.0f * zx * zy + cy;
    zx = t;
    ++it;
  }
  out[py * get_global_size(0) + px] = it;
}
