"""n-body accelerations and potentials for 512 bodies (work-group 64, tiles of 64).

__builtin_amdgcn_rsqf compiles to v_rsq_f32 (libclc native_rsqrt is the same as rsqrt) and libclc's rsqrt to v_sqrt_f32 followed by a correctly
rounded division; v_rsq_f32 and v_sqrt_f32 are approximations (about 1 ulp, not correctly
rounded), so the result is not bit-reproducible from IEEE float32. The reference is computed in float64 and
rounded. Potentials are sums of positive terms: allowed 64 ulp (512 terms each off by a
couple of ulp of the term, plus float32 summation error vs the float64 reference). The
acceleration components cancel, so a ULP bound is meaningless near zero: compared with an
absolute tolerance derived from the sum of term magnitudes (atol), or within 64 ulp."""
import numpy as np

from kernels.corpus import Case, In, Out

N, BLOCK = 512, 64
EPS2 = np.float32(0.01)


def reference(pos):
    p = pos.astype(np.float64)
    d = p[None, :, :3] - p[:, None, :3]  # [i, j, 3]
    r2 = (d * d).sum(-1) + float(EPS2)
    inv = 1.0 / np.sqrt(r2)
    m = p[None, :, 3]
    acc = ((m * inv ** 3)[..., None] * d).sum(1)
    mag = ((m * inv ** 3)[..., None] * np.abs(d)).sum(1)  # sum of |terms| per component
    pot = (m * inv).sum(1)
    acc4 = np.zeros((N, 4), np.float32)
    acc4[:, :3] = acc
    return acc4, pot.astype(np.float32), mag


def case(rng):
    pos = np.empty((N, 4), np.float32)
    pos[:, :3] = rng.uniform(-1, 1, (N, 3))
    pos[:, 3] = rng.uniform(0.5, 1.5, N)
    acc, pot, mag = reference(pos)
    atol = float(mag.max()) * 2.0 ** -17  # ~ N * 2**-23 relative error on the term sum
    return Case("nbody_acc", (N,), (BLOCK,),
                [In(pos), Out(np.float32, N * 4), Out(np.float32, N), np.uint32(N), EPS2],
                {1: acc.reshape(-1), 2: pot}, ulp=64, atol={1: atol},
                note="v_rsq_f32 is approximate (~1 ulp); float64 reference rounded to float32; "
                     "potentials 64 ulp; accelerations 64 ulp or atol (they cancel)")
