"""Mandelbrot iteration counts (PyOpenCL's mandelbrot example style), against numpy."""
import numpy as np
import gcnemu.cl as cl

w, h, maxiter = 64, 32, 40
xs = np.linspace(-2.0, 0.5, w, dtype=np.float32)
ys = np.linspace(-1.0, 1.0, h, dtype=np.float32)
q = (xs[None, :] + 1j * ys[:, None]).astype(np.complex64).ravel()

ctx = cl.create_some_context()
queue = cl.CommandQueue(ctx)
mf = cl.mem_flags
q_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=q)
out_buf = cl.Buffer(ctx, mf.WRITE_ONLY, q.size * 2)
prg = cl.Program(ctx, """
#pragma OPENCL FP_CONTRACT OFF
__kernel void mandelbrot(__global const float2 *q, __global ushort *output, ushort maxiter) {
    int gid = get_global_id(0);
    float nreal, real = 0, imag = 0;
    output[gid] = 0;
    for (int curiter = 0; curiter < maxiter; curiter++) {
        nreal = real * real - imag * imag + q[gid].x;
        imag = 2 * real * imag + q[gid].y;
        real = nreal;
        if (real * real + imag * imag > 4.0f) { output[gid] = curiter; break; }
    }
}
""").build()
prg.mandelbrot(queue, q.shape, (64,), q_buf, out_buf, np.uint16(maxiter))
out = np.empty(q.shape, np.uint16)
cl.enqueue_copy(queue, out, out_buf)

# numpy, the same float32 operations in the same order
want = np.zeros(q.size, np.uint16)
real = np.zeros(q.size, np.float32); imag = np.zeros(q.size, np.float32)
live = np.ones(q.size, bool)
qr, qi = q.real.astype(np.float32), q.imag.astype(np.float32)
for it in range(maxiter):
    nreal = real * real - imag * imag + qr
    imag = np.where(live, np.float32(2) * real * imag + qi, imag)
    real = np.where(live, nreal, real)
    esc = live & (real * real + imag * imag > np.float32(4))
    want[esc] = it
    live &= ~esc
assert np.array_equal(out, want), np.count_nonzero(out != want)
print("mandelbrot ok", int(out.sum()))
