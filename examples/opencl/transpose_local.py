"""Matrix transpose through a padded __local tile (2-D workgroups)."""
import numpy as np
import gcnemu.cl as cl

T = 16
h, w = 48, 32
a = np.arange(h * w, dtype=np.int32).reshape(h, w)
ctx = cl.create_some_context()
queue = cl.CommandQueue(ctx)
mf = cl.mem_flags
a_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
t_buf = cl.Buffer(ctx, mf.WRITE_ONLY, a.nbytes)
prg = cl.Program(ctx, """
__kernel void transpose(__global const int *a, __global int *t, int w, int h) {
    __local int tile[T][T + 1];
    int gx = get_group_id(0) * T, gy = get_group_id(1) * T;
    int lx = get_local_id(0), ly = get_local_id(1);
    tile[ly][lx] = a[(gy + ly) * w + gx + lx];
    barrier(CLK_LOCAL_MEM_FENCE);
    t[(gx + ly) * h + gy + lx] = tile[lx][ly];
}
""").build(["-DT=%d" % T])
prg.transpose(queue, (w, h), (T, T), a_buf, t_buf, np.int32(w), np.int32(h))
t = np.empty((w, h), np.int32)
cl.enqueue_copy(queue, t, t_buf)
assert np.array_equal(t, a.T)
print("transpose ok")
