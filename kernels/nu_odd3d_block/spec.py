"""Work-group 7x5x3 (105 items: a 64-lane and a 41-lane wave) on a 14x10x6 grid; __local
neighbour exchange by 3D index; work-item functions with a run-time dimension (dim = 2, so
dim + 1 = 3 is out of range). OpenCL 1.2 6.12.1 says get_global_id(3) is 0, but libclc-14's
amdgcn get_group_id and get_local_id return 1 for an out-of-range dimension (the switch
default in the linked bitcode: `phi i32 [..., 1, %default]`) and get_local_size returns 1,
so the binary computes 1 * 1 + 1 + 0 = 2: the reference follows the binary."""
import numpy as np

from kernels.corpus import Case, In, Out

GX, GY, GZ = 14, 10, 6
LX, LY, LZ = 7, 5, 3
DIM = 2


def case(rng):
    a = rng.integers(-10**5, 10**5, (GZ, GY, GX)).astype(np.int32)
    nb = np.zeros_like(a)
    q = np.zeros((GZ, GY, GX, 8), np.uint32)
    for gz in range(GZ):
        for gy in range(GY):
            for gx in range(GX):
                x, y, z = gx % LX, gy % LY, gz % LZ
                bx, by, bz = gx - x, gy - y, gz - z
                t = lambda zz, yy, xx: int(a[bz + zz, by + yy, bx + xx])  # noqa: E731
                nb[gz, gy, gx] = t(z, y, (x + 1) % 7) - t(z, (y + 4) % 5, x) + 3 * t((z + 2) % 3, y, x)
                q[gz, gy, gx] = [gz, z, gz // LZ, GZ, LZ, GZ // LZ, 0, 2]
    return Case("odd3d_block", (GX, GY, GZ), (LX, LY, LZ),
                [In(a), Out(np.int32, a.size), Out(np.uint32, 8 * a.size), np.uint32(DIM)],
                {1: nb.reshape(-1), 2: q.reshape(-1)})
