"""RC4 (KSA + 40 keystream bytes) per work-item with a 256-byte private S-box: dynamic
byte indexing into scratch. Key 0 is "Secret" (keystream 04D46B053CA87B59, the well-known
test vector)."""
import numpy as np

from kernels.corpus import Case, In, Out

N, KEYLEN, NB = 128, 6, 40


def rc4(key, nbytes):
    S = list(range(256))
    j = 0
    for i in range(256):
        j = (j + S[i] + key[i % len(key)]) & 0xFF
        S[i], S[j] = S[j], S[i]
    a = b = 0
    out = []
    for _ in range(nbytes):
        a = (a + 1) & 0xFF
        b = (b + S[a]) & 0xFF
        S[a], S[b] = S[b], S[a]
        out.append(S[(S[a] + S[b]) & 0xFF])
    return out


assert bytes(rc4(b"Secret", 8)).hex() == "04d46b053ca87b59"


def case(rng):
    keys = rng.integers(0, 256, (N, KEYLEN)).astype(np.uint8)
    keys[0] = list(b"Secret")
    stream = np.array([rc4(k.tolist(), NB) for k in keys], np.uint8)
    return Case("rc4_private", (N,), (64,),
                [In(keys), np.int32(KEYLEN), Out(np.uint8, N * NB), np.int32(NB)],
                {2: stream.reshape(-1)})
