"""5x5 convolution of a 64x48 float32 image, clamp-to-edge; reference in the kernel's sum
order with unfused multiply-adds (gfx7 v_mad_f32/v_mac_f32), denormals flushed."""
import numpy as np

from kernels._ref import mad32
from kernels.corpus import Case, In, Out

W, H, R = 64, 48, 2


def reference(img, w):
    acc = np.zeros((H, W), np.float32)
    ys = np.arange(H)
    xs = np.arange(W)
    for dy in range(-R, R + 1):
        yy = np.clip(ys + dy, 0, H - 1)
        for dx in range(-R, R + 1):
            xx = np.clip(xs + dx, 0, W - 1)
            wv = np.full((H, W), w[dy + R, dx + R], np.float32)
            acc = mad32(wv, img[yy][:, xx], acc)
    return acc.reshape(-1)


def case(rng):
    img = rng.uniform(0, 1, (H, W)).astype(np.float32)
    w = rng.uniform(-0.5, 0.5, (2 * R + 1, 2 * R + 1)).astype(np.float32)
    return Case("conv2d_5x5", (W, H), (16, 16),
                [In(img), In(w), Out(np.float32, W * H), np.int32(W), np.int32(H)],
                {2: reference(img, w)})
