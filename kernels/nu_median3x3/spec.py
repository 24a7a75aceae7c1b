"""3x3 median filter (clamp-to-edge) on a 37x23 float image; grid (40, 24), block (8, 8),
out-of-range items return. Insertion sort in a private float[9]."""
import numpy as np

from kernels.corpus import Case, In, Out

W, H = 37, 23


def case(rng):
    img = rng.uniform(-100, 100, (H, W)).astype(np.float32)
    img[4:8, 4:8] = 7.0  # plateaus / ties
    p = np.pad(img, 1, mode="edge")
    stack = np.stack([p[1 + dy:1 + dy + H, 1 + dx:1 + dx + W]
                      for dy in (-1, 0, 1) for dx in (-1, 0, 1)])
    med = np.sort(stack, axis=0)[4]
    return Case("median3x3", (40, 24), (8, 8),
                [In(img), Out(np.float32, W * H), np.int32(W), np.int32(H)],
                {1: med.reshape(-1).astype(np.float32)})
