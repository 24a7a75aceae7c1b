"""A 256-bin histogram with global atomics, against numpy.bincount."""
import numpy as np
import gcnemu.cl as cl

rng = np.random.default_rng(7)
data = rng.integers(0, 256, 20000, dtype=np.uint8)
ctx = cl.create_some_context()
queue = cl.CommandQueue(ctx)
mf = cl.mem_flags
d_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=data)
h_buf = cl.Buffer(ctx, mf.READ_WRITE, 256 * 4)
cl.enqueue_fill_buffer(queue, h_buf, np.uint32(0), 0, 256 * 4)
prg = cl.Program(ctx, """
__kernel void hist(__global const uchar *d, __global uint *h, uint n) {
    uint i = get_global_id(0);
    if (i < n) atomic_inc(&h[d[i]]);
}
""").build()
prg.hist(queue, (20480,), (256,), d_buf, h_buf, np.uint32(data.size))
h = np.empty(256, np.uint32)
cl.enqueue_copy(queue, h, h_buf)
assert np.array_equal(h, np.bincount(data, minlength=256))
print("histogram ok", h.sum())
