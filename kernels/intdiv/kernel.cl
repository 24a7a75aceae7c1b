// 32-bit signed and unsigned division and remainder (software sequences on GCN), including
// negative operands; plus ulong / long division and remainder.
__kernel void intdiv(__global const int* a, __global const int* b, __global int* out,
                     __global const long* la, __global const long* lb, __global long* lout) {
  uint i = get_global_id(0);
  int x = a[i], y = b[i];
  out[4 * i + 0] = x / y;
  out[4 * i + 1] = x % y;
  out[4 * i + 2] = (int)((uint)x / (uint)y);
  out[4 * i + 3] = (int)((uint)x % (uint)y);
  long lx = la[i], ly = lb[i];
  lout[4 * i + 0] = lx / ly;
  lout[4 * i + 1] = lx % ly;
  lout[4 * i + 2] = (long)((ulong)lx / (ulong)ly);
  lout[4 * i + 3] = (long)((ulong)lx % (ulong)ly);
}
