"""AES-128 rounds (SubBytes, ShiftRows, MixColumns, AddRoundKey; FIPS-197) on 16-byte
blocks, S-box as a program-scope __constant table. The reference builds the S-box from the
GF(2^8) inverse + affine map and checks it against the FIPS-197 Appendix C.1 round 1 state."""
import numpy as np

from kernels.corpus import Case, In, Out

N, ROUNDS = 256, 3


def gmul(a, b):
    p = 0
    for _ in range(8):
        if b & 1:
            p ^= a
        hi = a & 0x80
        a = (a << 1) & 0xFF
        if hi:
            a ^= 0x1B
        b >>= 1
    return p


def make_sbox():
    inv = [0] * 256
    for a in range(1, 256):
        inv[a] = next(b for b in range(1, 256) if gmul(a, b) == 1)
    sb = []
    for x in range(256):
        b = inv[x]
        s = b
        for i in range(1, 5):
            s ^= ((b << i) | (b >> (8 - i))) & 0xFF
        sb.append(s ^ 0x63)
    return sb


SBOX = make_sbox()


def aes_round(st, key):
    st = [SBOX[v] for v in st]
    st = [st[((c + r) % 4) * 4 + r] for c in range(4) for r in range(4)]
    out = []
    for c in range(4):
        a = st[c * 4:c * 4 + 4]
        for r in range(4):
            out.append(gmul(a[r], 2) ^ gmul(a[(r + 1) % 4], 3) ^ a[(r + 2) % 4] ^ a[(r + 3) % 4]
                       ^ key[c * 4 + r])
    return out


def _selftest():  # FIPS-197 Appendix B: state after AddRoundKey 0, round 1 key, round 1 result
    st = bytes.fromhex("193de3bea0f4e22b9ac68d2ae9f84808")
    k1 = bytes.fromhex("a0fafe1788542cb123a339392a6c7605")
    assert bytes(aes_round(list(st), list(k1))) == bytes.fromhex("a49c7ff2689f352b6b5bea43026a5049")


_selftest()


def case(rng):
    blocks = rng.integers(0, 256, (N, 16)).astype(np.uint8)
    blocks[0] = np.frombuffer(bytes.fromhex("193de3bea0f4e22b9ac68d2ae9f84808"), np.uint8)
    rk = rng.integers(0, 256, (ROUNDS, 16)).astype(np.uint8)
    rk[0] = np.frombuffer(bytes.fromhex("a0fafe1788542cb123a339392a6c7605"), np.uint8)
    out = np.empty_like(blocks)
    for i in range(N):
        st = blocks[i].tolist()
        for r in range(ROUNDS):
            st = aes_round(st, rk[r].tolist())
        out[i] = st
    return Case("aes_round", (N,), (64,),
                [In(blocks), In(rk), Out(np.uint8, N * 16), np.int32(ROUNDS)],
                {2: out.reshape(-1)})
