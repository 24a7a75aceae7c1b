"""Sum reduction: each workgroup reduces in __local memory, the host adds the partial sums."""
import numpy as np
import gcnemu.cl as cl

n, group = 1 << 14, 128
x = np.arange(n, dtype=np.int32) % 1000 - 500

ctx = cl.create_some_context()
queue = cl.CommandQueue(ctx)
mf = cl.mem_flags
x_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
partial = cl.Buffer(ctx, mf.WRITE_ONLY, 4 * (n // group))
prg = cl.Program(ctx, """
__kernel void reduce(__global const int *x, __global int *out, __local int *tmp) {
    int l = get_local_id(0);
    tmp[l] = x[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (l < s) tmp[l] += tmp[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) out[get_group_id(0)] = tmp[0];
}
""").build()
knl = prg.reduce
knl.set_args(x_buf, partial, cl.LocalMemory(4 * group))
cl.enqueue_nd_range_kernel(queue, knl, (n,), (group,))
sums = np.empty(n // group, np.int32)
cl.enqueue_copy(queue, sums, partial)
assert sums.sum() == x.sum() and np.array_equal(sums, x.reshape(-1, group).sum(axis=1))
print("reduction ok", sums.sum())
