"""asm_mimg: 2D image_load / image_store with a T# from kernarg memory (s_load_dwordx8).

The image is linear-aligned (TILING_INDEX 8, the CI tile-mode table's LINEAR_ALIGNED entry that
drivers use for linear images), 32-bit UINT texels,
width 64, height 32, pitch 64 texels; texel (x, y) lives at base + 4 * (y * pitch + x).
Buffers must be 256-byte aligned (the T# holds base >> 8). T# template words (GcnMemHandling,
"Image resource format"; base fields zero, patched in by the kernel):
  w0 = 0                               BASE[39:8] (patched)
  w1 = 0x10400000                      BASE[47:40] (patched) | DATA_FORMAT 4 (32) << 20
                                       | NUM_FORMAT 4 (UINT) << 26
  w2 = (W-1) | (H-1) << 14             WIDTH-1, HEIGHT-1
  w3 = 0x90800FAC                      DST_SEL X,Y,Z,W = 4,5,6,7 | TILING_INDEX 8 << 20
                                       | TYPE 9 (2D) << 28
  w4 = (PITCH-1) << 13                 DEPTH-1 = 0 | PITCH-1
  w5 = w6 = w7 = 0
image_load/store with dmask 0x1 move one 32-bit component (no format conversion for UINT)."""
import numpy as np

from kernels.corpus import Case, In, Out

W, H, PITCH = 64, 32, 64
TDESC = [0, 0x10400000, (W - 1) | (H - 1) << 14, 0x90800FAC, (PITCH - 1) << 13, 0, 0, 0]


def case(rng):
    img = rng.integers(0, 2**32, (H, W), dtype=np.uint64).astype(np.uint32)
    mirror = img[:, ::-1]
    dst = (img.astype(np.uint64) + 3 * mirror.astype(np.uint64)).astype(np.uint32)
    args = [In(img), Out(np.uint32, W * H), Out(np.uint32, W * H)]
    args += [np.uint32(w) for w in TDESC] + [np.uint32(W)]
    return Case("asm_mimg", (W, H), (8, 8), args,
                {1: dst.reshape(-1), 2: np.ascontiguousarray(mirror).reshape(-1)},
                note="needs 256-byte aligned device buffers; linear-aligned image (tiling index 8)")
