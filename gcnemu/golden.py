"""Golden-output verification: run a kernel on buffers and compare with a reference.

    from gcnemu.golden import In, Out, run_kernel, assert_close_ulp
    outs = run_kernel("k.hsaco", "saxpy", grid=(n,), block=(256,),
                      args=[In(x), InOut(y), np.float32(2.0), np.uint32(n)])
    assert_close_ulp(outs[1], 2 * x + y, ulp=0)

The same helpers are pytest fixtures (`run_kernel`, `assert_close_ulp`) of the plugin the
package installs (gcnemu/pytest_plugin.py).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_INT_FOR = {2: np.int16, 4: np.int32, 8: np.int64}
_UINT_FOR = {2: np.uint16, 4: np.uint32, 8: np.uint64}


@dataclass
class In:
    """An input buffer: copied to the device."""

    array: np.ndarray


@dataclass
class InOut:
    """A buffer copied in and read back after the dispatch."""

    array: np.ndarray


@dataclass
class Out:
    """An output buffer of ``count`` elements of ``dtype``, zero-filled, read back."""

    dtype: object
    count: int


def run_kernel(program, kernel: str, grid, block, args, gpu=None, report: bool = False):
    """Dispatch ``kernel`` of ``program`` (a path, bytes or gcnemu.load result) and return
    {argument index: numpy array} for every Out/InOut argument (and the DispatchReport
    when ``report``). Arguments: In/InOut/Out, gcnemu.Local, numpy scalars, Buffers."""
    import gcnemu

    gpu = gpu or gcnemu.GPU()
    prog = program if hasattr(program, "kernel") else gcnemu.load(program)
    dev, back = [], {}
    for i, a in enumerate(args):
        if isinstance(a, (In, InOut)):
            arr = np.ascontiguousarray(a.array)
            buf = gpu.to_device(arr, name=f"arg{i}")
            if isinstance(a, InOut):
                back[i] = buf
            dev.append(buf)
        elif isinstance(a, Out):
            back[i] = buf = gpu.empty(int(a.count), a.dtype, name=f"arg{i}")
            dev.append(buf)
        else:
            dev.append(a)
    rep = gpu.dispatch(prog.kernel(kernel), grid=grid, block=block, args=dev)
    outs = {i: buf.to_numpy() for i, buf in back.items()}     # each of its array's dtype and shape
    return (outs, rep) if report else outs


def ulp_distance(a, b) -> np.ndarray:
    """Elementwise distance in units in the last place of two float16/32/64 arrays.

    Floats are mapped onto a monotonic integer line, so -0 and +0 are 0 apart and distances
    across zero add up; NaN vs NaN is 0, NaN vs a number is the largest uint64.
    """
    a = np.asarray(a)
    b = np.asarray(b)
    if a.dtype != b.dtype or a.dtype.kind != "f":
        raise TypeError(f"ulp_distance needs two arrays of one float dtype, got {a.dtype} and {b.dtype}")
    it = _INT_FOR[a.dtype.itemsize]
    imin = np.iinfo(it).min

    def ordered(x):
        i = np.ascontiguousarray(x).view(it).astype(np.int64)
        return np.where(i < 0, np.int64(imin) - i, i)

    with np.errstate(over="ignore"):
        oa, ob = ordered(a), ordered(b)
        d = np.maximum(oa, ob).view(np.uint64) - np.minimum(oa, ob).view(np.uint64)
    na, nb = np.isnan(a), np.isnan(b)
    d = np.where(na & nb, np.uint64(0), d)
    d = np.where(na ^ nb, np.uint64(np.iinfo(np.uint64).max), d)
    return d.astype(np.uint64)


def assert_close_ulp(actual, expected, ulp=0, what: str = "result", atol=None) -> None:
    """Assert equality: exact for integers, within ``ulp`` units in the last place for floats
    (``ulp=0``: bit-exact, any NaN equal to any NaN; an array broadcast over ``expected``
    gives each element its bound). ``atol``: floats within this absolute distance pass too
    (for values that cancel towards zero, where ULPs mean nothing). The message names the
    first mismatch."""
    got = np.asarray(actual)
    want = np.asarray(expected)
    if got.shape != want.shape:
        raise AssertionError(f"{what}: shape {got.shape} != expected {want.shape}")
    if want.dtype.kind == "f":
        if got.dtype != want.dtype:
            raise AssertionError(f"{what}: dtype {got.dtype} != expected {want.dtype}")
        d = ulp_distance(got, want)
        bound = np.broadcast_to(np.asarray(ulp).astype(np.uint64), want.shape)
        bad = d > bound
        if atol is not None:
            with np.errstate(invalid="ignore", over="ignore"):
                bad &= ~(np.abs(got.astype(np.float64) - want.astype(np.float64)) <= atol)
    else:
        d = None
        bad = got != want
    if bad.any():
        k = tuple(int(i) for i in np.argwhere(bad)[0])
        extra = f", {int(d[k])} ulp apart (bound {int(bound[k])})" if d is not None else ""
        raise AssertionError(f"{what}: {int(bad.sum())} of {want.size} elements differ; first at "
                             f"index {k}: got {got[k]!r}, expected {want[k]!r}{extra}")
