"""Escape counts on a 128x96 grid over [-2.2, 0.8] x [-1.2, 1.2], 200 iterations max.

The reference repeats the kernel's float32 operation sequence with gfx7 denormal flushing;
mul+add pairs that the compiler contracts to v_mad_f32 round the product on gfx7 (unfused),
so separate float32 roundings are exact."""
import numpy as np

from kernels._ref import ftz32, mad32
from kernels.corpus import Case, Out

W, H, MAXIT = 128, 96, 200
X0, Y0 = np.float32(-2.2), np.float32(-1.2)
DX, DY = np.float32(3.0 / W), np.float32(2.4 / H)


def reference():
    px = np.arange(W, dtype=np.float32)[None, :].repeat(H, 0)
    py = np.arange(H, dtype=np.float32)[:, None].repeat(W, 1)
    cx = mad32(np.full_like(px, DX), px, np.full_like(px, X0))
    cy = mad32(np.full_like(py, DY), py, np.full_like(py, Y0))
    zx = np.zeros_like(cx)
    zy = np.zeros_like(cy)
    it = np.zeros((H, W), np.uint32)
    active = np.ones((H, W), bool)
    for _ in range(MAXIT):
        zx2 = ftz32(zx * zx)
        zy2 = ftz32(zy * zy)
        esc = ftz32(zx2 + zy2) > np.float32(4.0)
        active &= ~esc
        t = ftz32(ftz32(zx2 - zy2) + cx)
        nzy = ftz32(ftz32(ftz32(np.float32(2.0) * zx) * zy) + cy)
        zx = np.where(active, t, zx)
        zy = np.where(active, nzy, zy)
        it += active
    return it.reshape(-1)


def case(rng):
    return Case("mandelbrot", (W, H), (16, 8), [Out(np.uint32, W * H), X0, Y0, DX, DY,
                                               np.uint32(MAXIT)], {0: reference()},
                note="exact: float32 op sequence replayed; check kernel.lst if codegen changes")
