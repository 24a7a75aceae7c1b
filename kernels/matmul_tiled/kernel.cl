// C = A(MxK) * B(KxN), 16x16 tiles staged in __local memory with barriers. 2D grid (N, M).
#define T 16
__kernel void matmul(__global const float* A, __global const float* B, __global float* C,
                     uint M, uint N, uint K) {
  __local float As[T][T];
  __local float Bs[T][T];
  uint tx = get_local_id(0), ty = get_local_id(1);
  uint col = get_global_id(0), row = get_global_id(1);
  float acc = 0.0f;
  for (uint t = 0; t < K; t += T) {
    As[ty][tx] = A[row * K + t + tx];
    Bs[ty][tx] = B[(t + ty) * N + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  C[row * N + col] = acc;
}
