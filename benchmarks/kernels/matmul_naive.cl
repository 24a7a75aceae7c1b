// The corpus matmul (kernels/matmul_tiled) without LDS tiling: every work-item reads its
// row of A and column of B from global memory. C = A(MxK) * B(KxN), 2D grid (N, M).
__kernel void matmul(__global const float* A, __global const float* B, __global float* C,
                     uint M, uint N, uint K) {
  uint col = get_global_id(0), row = get_global_id(1);
  float acc = 0.0f;
  for (uint k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}
