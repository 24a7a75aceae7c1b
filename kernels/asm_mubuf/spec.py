"""asm_mubuf: raw (stride 0, offen) and structured (stride 8, idxen) buffer access through
V#s built from kernarg values; 8 waves. Range rules relied on (CLRX GcnMemHandling):
stride 0: out of range when offset (vgpr + inst offset + soffset) >= num_records;
stride != 0 with idxen: out of range when index >= num_records. Out-of-range loads give 0
(sub-dword loads too), out-of-range stores are dropped. buffer_load_sshort sign-extends,
buffer_store_short writes the low 16 bits. All offsets are naturally aligned."""
import numpy as np

from kernels.corpus import Case, In, Out

N = 512
IN_BYTES = (N - 40) * 4
OUT2_RECORDS = N - 100


def reference(a):
    a = a.astype(np.int64)

    def ld(off, size, signed=False):  # little-endian load with the raw range rule
        if off >= IN_BYTES:
            return 0
        word = int(a[off // 4])
        v = (word >> (8 * (off % 4))) & ((1 << (8 * size)) - 1)
        if signed and v >> (8 * size - 1):
            v -= 1 << (8 * size)
        return v

    out = np.zeros(4 * N + 1, np.int64)
    out2 = np.zeros(2 * N, np.int64)
    cnt = 0
    for g in range(N):
        o = 4 * g
        x, nxt = ld(o, 4), ld(o + 4, 4)
        b1, sh = ld(o + 1, 1), ld(o + 2, 2, signed=True)
        y = ld(o + 256, 4)
        out[4 * g: 4 * g + 4] = [x, nxt, (b1 ^ sh) & 0xFFFFFFFF, y & 0xFFFF]
        if g < OUT2_RECORDS:
            out2[2 * g: 2 * g + 2] = [g, g ^ x]
        cnt += x & 15
    out[4 * N] = cnt
    return out.astype(np.uint32), out2.astype(np.uint32)


def case(rng):
    a = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    out, out2 = reference(a)
    return Case("asm_mubuf", (N,), (64,),
                [In(a), Out(np.uint32, 4 * N + 1), Out(np.uint32, 2 * N), np.uint32(IN_BYTES),
                 np.uint32(OUT2_RECORDS), np.uint32(16 * N)], {1: out, 2: out2})
