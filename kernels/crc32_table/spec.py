"""CRC-32 of 1024 chunks of 64 bytes (zlib.crc32 is the reference)."""
import zlib

import numpy as np

from kernels.corpus import Case, In, Out

N, CHUNK = 1024, 64


def case(rng):
    data = rng.integers(0, 256, N * CHUNK).astype(np.uint8)
    data[:CHUNK] = 0
    want = np.array([zlib.crc32(data[i * CHUNK:(i + 1) * CHUNK].tobytes()) for i in range(N)],
                    np.uint32)
    return Case("crc32_table", (N,), (64,), [In(data), Out(np.uint32, N), np.uint32(CHUNK)],
                {1: want}, note="needs the code object's .rodata mapped (PC-relative table)")
