"""3x3 binomial blur + Sobel |gx|+|gy| (saturated to uchar) on a 45x27 uchar image,
clamp-to-edge; grid (48, 32) rounded up to block (16, 8), items outside return early."""
import numpy as np

from kernels.corpus import Case, In, Out

W, H = 45, 27


def reference(img):
    p = np.pad(img.astype(np.int32), 1, mode="edge")
    P = lambda dy, dx: p[1 + dy:1 + dy + H, 1 + dx:1 + dx + W]  # noqa: E731
    k = {(-1, -1): 1, (-1, 0): 2, (-1, 1): 1, (0, -1): 2, (0, 0): 4, (0, 1): 2,
         (1, -1): 1, (1, 0): 2, (1, 1): 1}
    s = sum(w * P(dy, dx) for (dy, dx), w in k.items())
    blur = ((s + 8) >> 4).astype(np.uint8)
    gx = (P(-1, 1) + 2 * P(0, 1) + P(1, 1)) - (P(-1, -1) + 2 * P(0, -1) + P(1, -1))
    gy = (P(1, -1) + 2 * P(1, 0) + P(1, 1)) - (P(-1, -1) + 2 * P(-1, 0) + P(-1, 1))
    edge = np.minimum(np.abs(gx) + np.abs(gy), 255).astype(np.uint8)
    return blur.reshape(-1), edge.reshape(-1)


def case(rng):
    img = rng.integers(0, 256, (H, W)).astype(np.uint8)
    img[5:12, 10:20] = 255  # hard edges so the Sobel saturates
    img[15:20, 30:44] = 0
    blur, edge = reference(img)
    return Case("blur_sobel", (48, 32), (16, 8),
                [In(img), Out(np.uint8, W * H), Out(np.uint8, W * H), np.int32(W), np.int32(H)],
                {1: blur, 2: edge})
