"""Tiled matrix multiply with __local tiles (PyOpenCL's matrix-multiply example style)."""
import numpy as np
import gcnemu.cl as cl

TILE = 8
N, K, M = 32, 24, 16
rng = np.random.default_rng(1)
a = rng.standard_normal((N, K)).astype(np.float32)
b = rng.standard_normal((K, M)).astype(np.float32)

ctx = cl.create_some_context()
queue = cl.CommandQueue(ctx)
mf = cl.mem_flags
a_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
b_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b)
c_buf = cl.Buffer(ctx, mf.WRITE_ONLY, N * M * 4)

prg = cl.Program(ctx, """
__kernel void matmul(__global const float *A, __global const float *B, __global float *C,
                     __local float *As, __local float *Bs, int K, int M)
{
    int col = get_global_id(0), row = get_global_id(1);
    int lx = get_local_id(0), ly = get_local_id(1);
    float acc = 0.0f;
    for (int t = 0; t < K; t += TILE) {
        As[ly * TILE + lx] = A[row * K + t + lx];
        Bs[ly * TILE + lx] = B[(t + ly) * M + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; ++k)
            acc += As[ly * TILE + k] * Bs[k * TILE + lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * M + col] = acc;
}
""").build(options=["-DTILE=%d" % TILE])

prg.matmul(queue, (M, N), (TILE, TILE), a_buf, b_buf, c_buf,
           cl.LocalMemory(4 * TILE * TILE), cl.LocalMemory(4 * TILE * TILE),
           np.int32(K), np.int32(M))
c = np.empty((N, M), np.float32)
cl.enqueue_copy(queue, c, c_buf)
assert np.allclose(c, a @ b, rtol=1e-5, atol=1e-5), np.abs(c - a @ b).max()
print("matmul ok", c.shape)
