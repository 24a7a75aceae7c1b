// 5x5 2D convolution (correlation) with clamp-to-edge borders; 2D grid, weights in
// __constant memory. Sum order: dy outer, dx inner.
#define R 2
__kernel void conv2d_5x5(__global const float* img, __constant float* w, __global float* out,
                         int width, int height) {
  int x = get_global_id(0), y = get_global_id(1);
  float acc = 0.0f;
  for (int dy = -R; dy <= R; ++dy) {
    int yy = clamp(y + dy, 0, height - 1);
    for (int dx = -R; dx <= R; ++dx) {
      int xx = clamp(x + dx, 0, width - 1);
      acc += w[(dy + R) * (2 * R + 1) + (dx + R)] * img[yy * width + xx];
    }
  }
  out[y * width + x] = acc;
}
