"""Fingerprint of the timing results of benchmarks/bench_dispatch.py's launches, to check that
a change meant to make timing mode faster leaves every cycle where it was.

    python tools/timing_fingerprint.py before.json             # on the old code
    python tools/timing_fingerprint.py after.json --against before.json

Each launch runs on a fresh ``GPU(timing=True)`` twice in a row (the second dispatch finds
the caches the first left) with ``workers=1`` and again with ``workers=2``; the fingerprint
holds, per dispatch, the total cycles and hashes of ``wave_cycles``, ``wave_cu``, every column
of ``pc_cycles``, ``stalls`` and ``counters``, and a hash of the buffers after both dispatches.
The two worker counts must agree (checked here); ``--against`` names the launches whose
fingerprint differs from an earlier run's and exits with status 1 if any does.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def fingerprint(launch) -> list:
    """The fingerprint of one bench_dispatch Launch (see the module docstring)."""
    import gcnbench

    import gcnemu
    from kernels import corpus

    k = gcnemu.load(str(corpus.hsaco_path(launch.corpus_name))).kernel(launch.symbol)
    per_workers = {}
    for workers in (1, 2):
        gpu = gcnemu.GPU(timing=True)
        args, bufs = gcnbench.device_args(gpu, launch.args)
        fp = []
        for _ in range(2):
            rep = gpu.dispatch(k, grid=launch.grid, block=launch.block, args=args,
                               workers=workers)
            pc = rep.pc_cycles
            fp.append({"cycles": int(rep.cycles), "wave_cycles": _digest(rep.wave_cycles),
                       "wave_cu": _digest(rep.wave_cu),
                       "pc_cycles": _digest(*[pc[n] for n in pc.dtype.names]),
                       "stalls": {n: int(v) for n, v in rep.stalls.items()},
                       "counters": _digest(json.dumps(sorted(rep.counters.items())).encode())})
        fp.append({"buffers": _digest(*[b.to_numpy(np.uint8) for b in bufs.values()])})
        per_workers[workers] = fp
    if per_workers[1] != per_workers[2]:
        raise SystemExit(f"{launch.label}: workers=1 and workers=2 differ:\n{per_workers}")
    return per_workers[1]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", help="JSON file to write the fingerprints to")
    ap.add_argument("--against", help="an earlier run's JSON file to compare with")
    opts = ap.parse_args(argv)
    sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]
    import bench_dispatch

    result = {}
    for launch in bench_dispatch.LAUNCHES:
        result[launch.label] = fingerprint(launch)
        print(f"{launch.label}: cycles {result[launch.label][0]['cycles']}, "
              f"{result[launch.label][1]['cycles']}", flush=True)
    Path(opts.out).write_text(json.dumps(result, indent=1, sort_keys=True))
    if opts.against:
        before = json.loads(Path(opts.against).read_text())
        changed = [k for k in before.keys() | result.keys() if before.get(k) != result.get(k)]
        print("identical" if not changed else "CHANGED: " + ", ".join(sorted(changed)))
        return 1 if changed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
