"""enqueue_fill_buffer, buffer-to-buffer copies with offsets, USE_HOST_PTR."""
import numpy as np
import gcnemu.cl as cl

ctx = cl.create_some_context()
queue = cl.CommandQueue(ctx)
mf = cl.mem_flags
a = cl.Buffer(ctx, mf.READ_WRITE | mf.ALLOC_HOST_PTR, 1024)
cl.enqueue_fill_buffer(queue, a, np.uint32(0xDEADBEEF), 0, 1024)
b = cl.Buffer(ctx, mf.READ_WRITE, 1024)
cl.enqueue_fill_buffer(queue, b, np.uint16(7), 0, 1024)
cl.enqueue_copy(queue, b, a, byte_count=64, src_offset=0, dst_offset=128)
got = np.empty(512, np.uint16)
cl.enqueue_copy(queue, got, b)
want = np.full(512, 7, np.uint16)
want[64:96] = np.full(16, 0xDEADBEEF, np.uint32).view(np.uint16)
assert np.array_equal(got, want)

host = np.arange(256, dtype=np.float32)
c = cl.Buffer(ctx, mf.READ_WRITE | mf.USE_HOST_PTR, hostbuf=host)
prg = cl.Program(ctx, "__kernel void neg(__global float *x) { x[get_global_id(0)] = -x[get_global_id(0)]; }").build()
prg.neg(queue, host.shape, None, c)
queue.finish()
assert np.array_equal(host, -np.arange(256, dtype=np.float32))
print("fill/copy ok")
