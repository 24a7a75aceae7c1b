"""Regression guard for the speed work on gcnemu/timing/model.py (`simulate`): the complete
timing output (cycles, every counter, each wave's start/end cycle and CU) of every corpus
kernel, of mandelbrot 256x192 and of two non-default configurations, pinned to the values
the *unmodified* model computed (recorded once at commit d1c9d1e, before the optimisation,
with ``PYTHONPATH=. python tests/test_timing_pinned.py --record``).

These values are not independent evidence that the model is right: they only say that a
faster replay gives bit-identical results. The model's correctness is checked against the
seed documents and hand derivations in tests/test_timing*.py. When the model's rules are
changed on purpose, re-record and say so in the commit."""
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import gcnemu
from gcnemu.timing.config import TimingConfig
from kernels import corpus

PINS = Path(__file__).parent / "data" / "timing_pins.json"


def _outcome(rep):
    """Everything the model returns: cycles, counters, a digest of the per-wave arrays."""
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(rep.wave_cycles, np.int64).tobytes())
    h.update(np.ascontiguousarray(rep.wave_cu, np.int64).tobytes())
    return {"cycles": int(rep.cycles), "counters": {k: int(v) for k, v in rep.counters.items()},
            "waves": h.hexdigest()}


def _corpus(name, config="xbox-one", **gpu_kw):
    gpu = gcnemu.GPU(config, timing=True, **gpu_kw)
    reports = []
    dispatch = gpu.dispatch

    def keep(*a, **k):
        reports.append(dispatch(*a, **k))
        return reports[-1]

    gpu.dispatch = keep
    corpus.run_case(name, gpu, seed=3)
    return [_outcome(r) for r in reports]


def _mandelbrot(w, h, **gpu_kw):
    gpu = gcnemu.GPU(timing=True, **gpu_kw)
    k = gcnemu.load(str(corpus.hsaco_path("mandelbrot"))).kernel("mandelbrot")
    out = gpu.empty(w * h * 4)
    args = [out, np.float32(-2.2), np.float32(-1.2), np.float32(3.0 / w), np.float32(2.4 / h),
            np.uint32(200)]
    return [_outcome(gpu.dispatch(k, grid=(w, h), block=(16, 8), args=args))]


def _one_cu():
    import dataclasses
    from gcnemu.gpu import PRESETS
    return dataclasses.replace(PRESETS["xbox-one"], name="xbox-one-1cu", compute_units=1)


CASES = {f"corpus/{n}": (lambda n=n: _corpus(n)) for n in corpus.list_kernels()}
CASES["mandelbrot 256x192"] = lambda: _mandelbrot(256, 192)
CASES["one CU: histogram"] = lambda: _corpus("histogram", _one_cu())
CASES["one CU: matmul_tiled"] = lambda: _corpus("matmul_tiled", _one_cu())
CASES["long instructions: nbody"] = lambda: _corpus(
    "nbody", timing_config=TimingConfig(long_instruction_cycles=4))


@pytest.fixture(scope="module")
def pins():
    return json.loads(PINS.read_text())


@pytest.mark.parametrize("case", sorted(CASES))
def test_timing_output_unchanged(case, pins):
    assert CASES[case]() == pins[case]


if __name__ == "__main__" and "--record" in sys.argv:
    PINS.write_text(json.dumps({c: CASES[c]() for c in sorted(CASES)}, indent=1, sort_keys=True)
                    + "\n")
