"""char4/uchar4/short2 saturating and half-add built-ins (OpenCL 1.2 6.12.3), vector char
arithmetic wraps (no integer promotion for vectors), abs() returns the unsigned type."""
import numpy as np

from kernels.corpus import Case, In, Out

N = 256


def case(rng):
    x = rng.integers(-128, 128, (N, 4)).astype(np.int8)
    y = rng.integers(-128, 128, (N, 4)).astype(np.int8)
    x[0], y[0] = [-128, 127, -128, 127], [-128, 127, 127, -1]
    ux = rng.integers(0, 256, (N, 4)).astype(np.uint8)
    uy = rng.integers(0, 256, (N, 4)).astype(np.uint8)
    s = rng.integers(-32768, 32768, (N, 2)).astype(np.int16)
    t = rng.integers(-32768, 32768, (N, 2)).astype(np.int16)
    X, Y, UX, UY, S, T = (v.astype(np.int64) for v in (x, y, ux, uy, s, t))
    oc = np.stack([
        np.clip(X + Y, -128, 127),
        np.clip(X - Y, -128, 127),
        ((X + Y) >> 1) ^ ((X + Y + 1) >> 1),
        np.clip(X * Y + np.array([100, -100, 7, -7]), -128, 127) + X * Y,
    ], axis=1).astype(np.int64)
    oc = (oc & 0xFF).astype(np.uint8).view(np.int8)
    rot = UY & 7
    ou = np.stack([
        np.minimum(UX + UY, 255),
        np.maximum(UX - UY, 0),
        np.abs(X) + np.abs(UX - UY),
        (((UX << rot) | (UX >> (8 - rot))) & 0xFF) ^ ((UX * UY) >> 8) ^ (np.clip(X, -20, 50) & 0xFF),
    ], axis=1)
    ou = (ou & 0xFF).astype(np.uint8)
    os_ = np.concatenate([np.clip(S + T, -32768, 32767), np.clip(S - T, -32768, 32767),
                          np.clip(S * T + np.array([-30000, 30000]), -32768, 32767),
                          (S * T) >> 16], axis=1)
    os_ = (os_ & 0xFFFF).astype(np.uint16).view(np.int16)
    xs1000 = ((X * 1000) & 0xFFFF).astype(np.uint16).view(np.int16).astype(np.int64)
    ous = np.concatenate([(UX << 8) | UY, np.maximum(xs1000, 0) + np.abs(Y)], axis=1)
    ous = (ous & 0xFFFF).astype(np.uint16)
    return Case("sat_char", (N,), (64,),
                [In(x), In(y), In(ux), In(uy), In(s), In(t), Out(np.int8, 16 * N),
                 Out(np.uint8, 16 * N), Out(np.int16, 8 * N), Out(np.uint16, 8 * N)],
                {6: oc.reshape(-1), 7: ou.reshape(-1), 8: os_.reshape(-1), 9: ous.reshape(-1)})
