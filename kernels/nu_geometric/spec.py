"""Geometric/common built-ins: dot (float4, float3), length, distance, normalize, cross,
mix, smoothstep, clamp, step, sign, degrees, fract + floor, sincos. References in float64;
libclc's length/distance/normalize use scaled sums of squares and v_sqrt_f32, sums are
contracted to v_mac_f32, so these columns get 4 ulp plus an absolute tolerance of 8 float
epsilons times the magnitude of the summed terms where components cancel (dot, cross, mix,
degrees+sign+step). sin/cos: OpenCL 1.2 bound 4 ulp. fract/floor/sign/step are exact."""
import numpy as np

from kernels._ref import ftz32
from kernels.corpus import Case, In, Out

N = 256
EPS = float(np.finfo(np.float32).eps)


def case(rng):
    p = rng.uniform(-10, 10, (N, 4)).astype(np.float32)
    q = rng.uniform(-10, 10, (N, 4)).astype(np.float32)
    q[:, 3] = rng.uniform(-3, 3, N)
    p[:4, 0] = [0.05, -0.05, -0.3, 1.0]
    P, Q = p.astype(np.float64), q.astype(np.float64)
    s = np.zeros((N, 10))
    s_atol = np.zeros((N, 10))
    s[:, 0] = (P * Q).sum(1)
    s_atol[:, 0] = 8 * EPS * np.abs(P * Q).sum(1)
    s[:, 1] = (P[:, :3] * Q[:, :3]).sum(1)
    s_atol[:, 1] = 8 * EPS * np.abs(P[:, :3] * Q[:, :3]).sum(1)
    s[:, 2] = np.sqrt((P[:, :3] ** 2).sum(1))
    d = (p - q).astype(np.float64)
    s[:, 3] = np.sqrt((d ** 2).sum(1))
    s[:, 4] = np.sqrt((P[:, :2] ** 2).sum(1))
    v10 = ftz32(p[:, 0] * np.float32(10))
    fl = np.floor(v10)
    s[:, 5] = np.minimum(ftz32(v10 - fl), np.float32(float.fromhex("0x1.fffffep-1")))
    s[:, 6] = fl
    s[:, 7] = np.sin(Q[:, 3])
    s[:, 8] = np.cos(Q[:, 3])
    s[:, 9] = np.degrees(P[:, 3]) + np.sign(Q[:, 0]) + (P[:, 1] >= 0.5)
    s_atol[:, 9] = 8 * EPS * (np.abs(np.degrees(P[:, 3])) + 2)
    s_ulp = np.array([4, 4, 4, 4, 4, 0, 0, 4, 4, 4])
    v = np.zeros((N, 4, 4))
    v_atol = np.zeros((N, 4, 4))
    a3, b3 = P[:, :3], Q[:, :3]
    v[:, 0, :3] = np.cross(a3, b3)
    terms = np.abs(a3[:, [1, 2, 0]] * b3[:, [2, 0, 1]]) + np.abs(a3[:, [2, 0, 1]] * b3[:, [1, 2, 0]])
    v_atol[:, 0, :3] = 8 * EPS * terms
    v[:, 1, :3] = a3 / np.sqrt((a3 ** 2).sum(1))[:, None]
    v[:, 1, 3] = 1.0
    v[:, 2] = P + (Q - P) * 0.25
    v_atol[:, 2] = 8 * EPS * (np.abs(P) + np.abs(Q))
    t = np.clip((P + 1) / 2, 0, 1)
    v[:, 3] = t * t * (3 - 2 * t) + np.clip(Q, -0.5, 0.5)
    v_atol[:, 3] = 8 * EPS
    return Case("geometric", (N,), (64,),
                [In(p), In(q), Out(np.float32, 10 * N), Out(np.float32, 16 * N)],
                {2: s.astype(np.float32), 3: v.astype(np.float32).reshape(N, 16)}, ulp=4,
                ulp_per_arg={2: s_ulp}, atol={2: s_atol, 3: v_atol.reshape(N, 16)},
                note="libclc geometric functions (scaled length, v_sqrt_f32, contracted sums): "
                     "4 ulp + cancellation atol; sin/cos OpenCL 1.2 bound 4 ulp")
