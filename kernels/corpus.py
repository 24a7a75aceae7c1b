"""The kernel corpus: launch-spec vocabulary, loader, runner and result comparison.

Every kernel lives in ``kernels/<name>/`` with

* ``kernel.cl`` (OpenCL C 1.2) or ``kernel.s`` (hand-written GCN3/gfx7 assembly, LLVM syntax),
* ``kernel.hsaco`` — the committed code object (rebuild with ``python -m kernels.build``),
* ``kernel.lst`` — for OpenCL kernels, the compiler's assembly listing (for reviewers; LLVM 14
  cannot disassemble gfx7),
* ``spec.py`` — ``case(rng) -> Case``: the launch and its golden numpy reference, computed
  independently of any emulator.

Conventions
-----------
``grid`` is the OpenCL *global size in work-items* per dimension (not a count of work-groups);
``block`` is the work-group size. Every ``grid[d]`` is a multiple of ``block[d]`` (OpenCL 1.2).
The global offset is always 0 (``get_global_offset`` returns 0). Kernels that need a tail take
an ``n`` argument and return early.

Arguments are given in kernel order:

* ``In(array)`` — input buffer, copied to the device (the kernel should not change it),
* ``Out(dtype, count)`` — output buffer of ``count`` elements, zero-filled on the device,
* ``InOut(array)`` — buffer copied in, read back and compared,
* ``Local(nbytes)`` — a ``__local`` pointer argument (dynamic group segment),
* numpy scalars (``np.float32(2.0)``, ``np.uint32(n)``, ``np.int8(-3)``, ...) — by-value
  arguments, passed to the dispatch as they are.

``Case.expected`` maps an argument index to the expected final contents of that buffer
(same dtype and element count as the buffer; shape as given). ``ulp == 0`` means bit-exact;
otherwise float buffers may differ by at most ``ulp`` units in the last place (NaN equals any
NaN), integer buffers are always compared exactly.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

KERNELS_DIR = Path(__file__).resolve().parent


# --------------------------------------------------------------------------- spec vocabulary
class In:
    """Input buffer: copied to the device, not compared."""

    def __init__(self, array):
        self.array = np.ascontiguousarray(array)

    @property
    def dtype(self):
        return self.array.dtype

    @property
    def nbytes(self):
        return self.array.nbytes

    def __repr__(self):
        return f"In({self.array.dtype}, {self.array.shape})"


class InOut(In):
    """Buffer copied in, read back after the dispatch and compared with ``expected``."""

    def __repr__(self):
        return f"InOut({self.array.dtype}, {self.array.shape})"


class Out:
    """Output buffer of ``count`` elements of ``dtype``, zero-filled on the device."""

    def __init__(self, dtype, count):
        self.dtype = np.dtype(dtype)
        self.count = int(count)

    @property
    def nbytes(self):
        return self.dtype.itemsize * self.count

    def __repr__(self):
        return f"Out({self.dtype}, {self.count})"


try:  # the emulator's own Local, when it exists
    from gcnemu import Local  # type: ignore[attr-defined]
except Exception:  # pragma: no cover - depends on the emulator's progress

    class Local:
        """A ``__local`` pointer argument: ``nbytes`` of dynamic group segment."""

        def __init__(self, nbytes):
            self.nbytes = int(nbytes)

        def __repr__(self):
            return f"Local({self.nbytes})"


@dataclass
class Case:
    kernel: str  # kernel symbol in the code object
    grid: tuple  # global size in work-items, per dimension
    block: tuple  # work-group size, per dimension
    args: list  # In / Out / InOut / Local / numpy scalars, in kernel argument order
    expected: dict  # argument index -> expected final buffer contents
    ulp: int = 0  # 0: bit-exact; else the max ULP distance for float buffers
    note: str = ""  # why ulp > 0, and anything a reviewer should know
    # Optional per-argument ULP overrides (argument index -> ulp), for kernels that write
    # one exact buffer and one approximate buffer. A value may also be an integer array
    # broadcastable to the expected array's shape (e.g. one bound per column).
    ulp_per_arg: dict = field(default_factory=dict)
    # Optional absolute tolerances (argument index -> atol) for float buffers whose values
    # cancel towards zero, where a ULP bound means nothing: an element passes when it is
    # within the ULP bound OR within atol. Only used with ulp > 0.
    atol: dict = field(default_factory=dict)


# --------------------------------------------------------------------------- corpus access
def list_kernels() -> list[str]:
    """Names of all kernel folders (those with a spec.py), sorted."""
    return sorted(
        p.name
        for p in KERNELS_DIR.iterdir()
        if p.is_dir() and (p / "spec.py").is_file() and not p.name.startswith(("_", "."))
    )


def kernel_dir(name: str) -> Path:
    return KERNELS_DIR / name


def source_path(name: str) -> Path:
    d = kernel_dir(name)
    for fn in ("kernel.cl", "kernel.s"):
        if (d / fn).is_file():
            return d / fn
    raise FileNotFoundError(f"kernel {name!r} has no kernel.cl or kernel.s in {d}")


def hsaco_path(name: str) -> Path:
    return kernel_dir(name) / "kernel.hsaco"


def load_spec(name: str):
    """The spec module of kernel ``name`` (kernels/<name>/spec.py)."""
    return importlib.import_module(f"kernels.{name}.spec")


def make_case(name: str, seed: int = 0) -> Case:
    return load_spec(name).case(np.random.default_rng(seed))


# --------------------------------------------------------------------------- running
def device_args(gpu, case: Case) -> list:
    """``case``'s arguments on ``gpu``: In/InOut arrays copied in, Out buffers zero-filled,
    Local as gcnemu.Local, scalars as they are (for tests that dispatch a case themselves)."""
    import gcnemu
    args = []
    for a in case.args:
        if isinstance(a, (In, InOut)):
            args.append(gpu.to_device(a.array))
        elif isinstance(a, Out):
            args.append(gpu.empty(a.nbytes))
        elif isinstance(a, Local) or type(a).__name__ == "Local":
            args.append(gcnemu.Local(a.nbytes))
        else:
            args.append(a)
    return args


def run_case(name: str, gpu=None, seed: int = 0, **dispatch_options):
    """Run kernel ``name`` on the emulator; returns ``(results, case)``.

    ``dispatch_options`` go to ``gpu.dispatch`` (e.g. ``workers=2``).

    ``results`` maps every Out/InOut argument index to its final contents (dtype and shape
    as ``case.expected`` has them, or the buffer's own when not compared).
    """
    import gcnemu  # the emulator; imported here so the corpus works without it

    case = make_case(name, seed)
    if gpu is None:
        gpu = gcnemu.GPU()
    prog = gcnemu.load(str(hsaco_path(name)))
    local_cls = getattr(gcnemu, "Local", Local)

    dev_args = []
    readback = {}  # index -> (buffer, dtype, shape)
    for i, a in enumerate(case.args):
        if isinstance(a, InOut):
            buf = gpu.to_device(a.array)
            readback[i] = (buf, a.array.dtype, a.array.shape)
            dev_args.append(buf)
        elif isinstance(a, In):
            dev_args.append(gpu.to_device(a.array))
        elif isinstance(a, Out):
            buf = gpu.empty(a.nbytes)
            readback[i] = (buf, a.dtype, (a.count,))
            dev_args.append(buf)
        elif isinstance(a, Local) or type(a).__name__ == "Local":
            dev_args.append(local_cls(a.nbytes))
        elif isinstance(a, np.generic):
            dev_args.append(a)
        else:
            raise TypeError(f"{name}: argument {i} has unsupported type {type(a).__name__}")

    gpu.dispatch(prog.kernel(case.kernel), grid=tuple(case.grid), block=tuple(case.block),
                 args=dev_args, **dispatch_options)

    results = {}
    for i, (buf, dtype, shape) in readback.items():
        arr = np.asarray(buf.to_numpy(dtype))
        want = case.expected.get(i)
        shp = want.shape if want is not None else shape
        results[i] = arr.reshape(-1)[: int(np.prod(shp))].reshape(shp)
    return results, case


# --------------------------------------------------------------------------- comparison
_UINT_FOR = {2: np.uint16, 4: np.uint32, 8: np.uint64}


from gcnemu.golden import ulp_distance  # noqa: E402  (one definition, shared with users)


def compare_results(case: Case, results: dict) -> None:
    """Assert that ``results`` match ``case.expected`` (exact, or within the ULP bound)."""
    for idx, want in case.expected.items():
        if idx not in results:
            raise AssertionError(f"{case.kernel}: no result for argument {idx}")
        got = np.asarray(results[idx])
        want = np.asarray(want)
        if got.dtype != want.dtype:
            got = got.reshape(-1).view(want.dtype) if got.nbytes == want.nbytes else got
        got = got.reshape(want.shape)
        ulp = np.asarray(case.ulp_per_arg.get(idx, case.ulp))
        if want.dtype.kind == "f" and (ulp > 0).any():
            d = ulp_distance(got, want)
            bound = np.broadcast_to(ulp, want.shape).astype(np.uint64)
            badmask = d > bound
            if idx in case.atol:
                with np.errstate(invalid="ignore", over="ignore"):
                    close = np.abs(got.astype(np.float64) - want.astype(np.float64)) <= case.atol[idx]
                badmask &= ~close
            bad = np.nonzero(badmask)[0] if d.ndim == 1 else np.argwhere(badmask)
            if len(bad):
                k = tuple(bad[0]) if d.ndim > 1 else int(bad[0])
                raise AssertionError(
                    f"{case.kernel}: argument {idx}: {len(bad)} of {want.size} elements beyond "
                    f"the ULP bound; first at {k}: got {got[k]!r}, want {want[k]!r}, "
                    f"distance {int(d[k])} ulp, bound {int(bound[k])}")
        elif want.dtype.kind == "f":
            # bit-exact, but any NaN equals any NaN
            gu = got.view(_UINT_FOR[want.dtype.itemsize])
            wu = want.view(_UINT_FOR[want.dtype.itemsize])
            both_nan = np.isnan(got) & np.isnan(want)
            bad = (gu != wu) & ~both_nan
            if bad.any():
                k = tuple(np.argwhere(bad)[0])
                raise AssertionError(
                    f"{case.kernel}: argument {idx}: {int(bad.sum())} of {want.size} elements "
                    f"not bit-exact; first at {k}: got {got[k]!r}, want {want[k]!r}")
        else:
            bad = got != want
            if bad.any():
                k = tuple(np.argwhere(bad)[0])
                raise AssertionError(
                    f"{case.kernel}: argument {idx}: {int(bad.sum())} of {want.size} elements "
                    f"differ; first at {k}: got {got[k]!r}, want {want[k]!r}")


def check(name: str, gpu=None, seed: int = 0):
    """Run and compare one kernel; returns the case."""
    results, case = run_case(name, gpu=gpu, seed=seed)
    compare_results(case, results)
    return case


def main(argv=None) -> int:
    """python -m kernels.corpus [NAME...]: run kernels on the emulator and compare."""
    import sys
    import time

    names = list(sys.argv[1:] if argv is None else argv) or list_kernels()
    failed = 0
    for n in names:
        t0 = time.perf_counter()
        try:
            check(n)
            print(f"PASS {n} ({time.perf_counter() - t0:.1f} s)", flush=True)
        except Exception as e:  # report and continue
            failed += 1
            msg = str(e).splitlines()[0][:400] if str(e) else ""
            print(f"FAIL {n}: {type(e).__name__}: {msg}", flush=True)
    print(f"{len(names) - failed} of {len(names)} kernels pass")
    return 1 if failed else 0


if __name__ == "__main__":
    # run through the package module so spec classes and these are the same objects
    import sys

    from kernels.corpus import main as _main

    sys.exit(_main())
