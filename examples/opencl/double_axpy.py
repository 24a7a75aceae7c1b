"""Double precision (cl_khr_fp64) y = a*x + y, bit-exact against numpy (no FMA contraction)."""
import numpy as np
import gcnemu.cl as cl

ctx = cl.create_some_context()
assert "cl_khr_fp64" in ctx.devices[0].extensions
queue = cl.CommandQueue(ctx)
x = np.linspace(-1, 1, 3000)
y = np.cos(x)
mf = cl.mem_flags
x_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
y_buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=y)
prg = cl.Program(ctx, """
#pragma OPENCL FP_CONTRACT OFF
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void axpy(double a, __global const double *x, __global double *y) {
    int i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}
""").build(options="-cl-fp32-correctly-rounded-divide-sqrt")
prg.axpy(queue, x.shape, None, np.float64(0.3), x_buf, y_buf)
out = np.empty_like(y)
cl.enqueue_copy(queue, out, y_buf)
assert np.array_equal(out, 0.3 * x + y)
print("double axpy ok")
