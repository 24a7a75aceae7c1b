// saxpy with an n argument and early return for out-of-range ids (grid > n).
__kernel void saxpy(__global float* y, __global const float* x, float a, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  y[i] = a * x[i] + y[i];
}
