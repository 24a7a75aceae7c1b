"""Kernel timing with events (on gcnemu: simulated cycles of the timing model)."""
import numpy as np
import gcnemu.cl as cl

ctx = cl.create_some_context()
queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
n = 4096
x = np.linspace(0, 1, n, dtype=np.float32)
mf = cl.mem_flags
buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=x)
prg = cl.Program(ctx, """
__kernel void scale(__global float *x, float a) { x[get_global_id(0)] *= a; }
""").build()
evt = prg.scale(queue, (n,), (64,), buf, np.float32(3.0))
evt.wait()
elapsed = evt.profile.end - evt.profile.start
out = np.empty_like(x)
cl.enqueue_copy(queue, out, buf)
assert np.array_equal(out, x * np.float32(3.0))
assert elapsed > 0
print("kernel took %d ns" % elapsed)
