"""3D grid 32x12x6 in 8x4x2 blocks (64 work-items: one wave per group; waves whose local ids
run over all three dimensions). Global offset 0.

get_work_dim() is 0, not 3, in this binary: libclc-14 (amdgcn-amdhsa) reads work_dim from
dword 0 of the implicit arguments and the global offsets from dwords 1..3 (clover's layout),
while code object v4 puts hidden_global_offset_x/y/z there as three 64-bit values. With zero
offsets dword 0 (offset_x low half) is 0, and the "offsets" libclc adds are 0 too (see
kernel.lst: s_load_dwordx4 of kernarg+8, s16 -> work_dim)."""
import numpy as np

from kernels.corpus import Case, Out

G = (32, 12, 6)
B = (8, 4, 2)


def reference():
    gz, gy, gx = np.meshgrid(np.arange(G[2]), np.arange(G[1]), np.arange(G[0]), indexing="ij")
    o = np.zeros(G[::-1] + (16,), np.uint32)
    ng = [G[d] // B[d] for d in range(3)]
    o[..., 0] = gx % B[0]
    o[..., 1] = gy % B[1]
    o[..., 2] = gz % B[2]
    o[..., 3] = gx // B[0]
    o[..., 4] = gy // B[1]
    o[..., 5] = gz // B[2]
    o[..., 6] = B[0] * 10000 + B[1] * 100 + B[2]
    o[..., 7] = ng[0] * 10000 + ng[1] * 100 + ng[2]
    o[..., 8] = G[0] * 10000 + G[1] * 100 + G[2]
    o[..., 9] = 0
    o[..., 10] = 0  # libclc reads hidden_global_offset_x[31:0] as work_dim
    o[..., 11] = gx
    o[..., 12] = gy
    o[..., 13] = gz
    o[..., 14] = (gz * G[1] + gy) * G[0] + gx
    o[..., 15] = ((gz % B[2]) * B[1] + gy % B[1]) * B[0] + gx % B[0]
    return o.reshape(-1)


def case(rng):
    n = G[0] * G[1] * G[2]
    return Case("grid3d", G, B, [Out(np.uint32, 16 * n)], {0: reference()})
