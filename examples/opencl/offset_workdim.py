"""A 2-D launch with a global offset: get_global_id, get_global_offset and get_work_dim."""
import numpy as np
import gcnemu.cl as cl

ctx = cl.create_some_context()
queue = cl.CommandQueue(ctx)
w, h, ox, oy = 16, 8, 5, 3
out = np.zeros((h, w, 4), np.uint32)
buf = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, out.nbytes)
prg = cl.Program(ctx, """
__kernel void ids(__global uint *o) {
    size_t x = get_global_id(0) - get_global_offset(0), y = get_global_id(1) - get_global_offset(1);
    __global uint *p = o + 4 * (y * get_global_size(0) + x);
    p[0] = get_global_id(0); p[1] = get_global_id(1); p[2] = get_work_dim(); p[3] = get_global_offset(1);
}
""").build()
prg.ids(queue, (w, h), (4, 4), buf, global_offset=(ox, oy))
cl.enqueue_copy(queue, out, buf)
yy, xx = np.mgrid[0:h, 0:w]
assert np.array_equal(out[..., 0], xx + ox) and np.array_equal(out[..., 1], yy + oy)
assert (out[..., 2] == 2).all() and (out[..., 3] == oy).all()
print("offset ok")
