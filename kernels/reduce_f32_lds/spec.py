"""float32 sums of 16 blocks of 1024 values (256 work-items, 4 loads each, then an LDS tree).
The reference repeats the kernel's exact summation order in float32, so it is bit-exact
(float adds are IEEE round-to-nearest; inputs and partial sums are far from denormal).
The final six steps run without barriers inside wave 0: lanes 0..31 read s[lid + k] that
lanes < 32 of the same wave wrote in the previous step; with lockstep 64-lane execution each
step reads values from before that step's writes (the reference models exactly that).
This is GCN-specific (not portable OpenCL): CPU OpenCL (pocl) gives other sums."""
import numpy as np

from kernels.corpus import Case, In, Out

B, G = 256, 16


def reference(x):
    out = np.empty(G, np.float32)
    for g in range(G):
        blk = x[g * 4 * B:(g + 1) * 4 * B]
        s = blk[:B] + blk[B:2 * B]
        s = s + blk[2 * B:3 * B]
        s = s + blk[3 * B:]
        st = B // 2
        while st > 32:
            s[:st] = s[:st] + s[st:2 * st]
            st //= 2
        for k in (32, 16, 8, 4, 2, 1):
            s[:32] = s[:32] + s[k:k + 32].copy()  # all lanes read, then all lanes write
        out[g] = s[0]
    return out


def case(rng):
    x = rng.uniform(-1, 1, G * 4 * B).astype(np.float32)
    return Case("reduce_f32", (G * B,), (B,), [In(x), Out(np.float32, G)], {1: reference(x)})
