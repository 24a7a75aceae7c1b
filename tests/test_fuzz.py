"""Fuzz campaigns with a fixed budget, on the bounds-checked build (tools/fuzz.py).

Each campaign runs its cases in a child process with GCNEMU_BOUNDSCHECK=1, where an
out-of-bounds index raises IndexError instead of corrupting memory, and checks that nothing
but the expected gcnemu errors comes out, that no case kills the child or hangs, that no byte
of unmapped GPU memory is written, and that the GPU still computes a saxpy right afterwards.

The campaigns start when this module is collected, in one background process, so that on a
machine with two cores the bounds-checked build compiles (a few minutes the first time) while
the other tests run; the tests below wait for their campaign's result. Longer campaigns:
``python tools/fuzz.py MODE --minutes N`` (see its docstring).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: (mode, seed, cases, options): what the suite runs (a few minutes of one core in all)
CAMPAIGNS = {
    "decode": dict(seed=1, cases=4000),
    "asm": dict(seed=2, cases=2000),
    "loader": dict(seed=3, cases=600),
    "snippet": dict(seed=4, cases=400, ops="suite"),
    "dispatch": dict(seed=5, cases=500, ops="suite", workers=(1, 2)),
}

_RUNNER = r"""
import json, sys
sys.path[:0] = [{root!r}, {tools!r}]
import fuzz
out = {{}}
for mode, opts in json.loads(sys.argv[1]).items():
    ops = fuzz.SUITE_VALU_OPS if opts.get("ops") == "suite" else None
    c = fuzz.Campaign(mode, opts["seed"], opts["cases"], workers=tuple(opts.get("workers", (1,))),
                      ops=ops)
    r = c.run(log=lambda *a: None)
    out[mode] = dict(cases=r["cases"], restarts=r["restarts"], tags=r["tags"],
                     anomalies=[(case, what[:3000]) for case, what in r["anomalies"]])
    print(json.dumps({{mode: out[mode]}}), flush=True)
"""


def _start():
    src = _RUNNER.format(root=str(ROOT), tools=str(ROOT / "tools"))
    return subprocess.Popen([sys.executable, "-c", src, json.dumps(CAMPAIGNS)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


_campaigns = _start()      # at collection: see the module docstring
_results: dict = {}


def _result(mode: str) -> dict:
    while mode not in _results:
        line = _campaigns.stdout.readline()
        if not line:
            _campaigns.wait()
            raise AssertionError(f"the fuzz campaigns' process ended (status "
                                 f"{_campaigns.returncode}) before {mode}:\n"
                                 f"{_campaigns.stderr.read()[-3000:]}")
        _results.update(json.loads(line))
    return _results[mode]


@pytest.mark.parametrize("mode", list(CAMPAIGNS))
def test_fuzz_campaign_finds_nothing(mode):
    r = _result(mode)
    assert r["cases"] == CAMPAIGNS[mode]["cases"]
    shown = "\n\n".join(f"{json.dumps(case)[:400]}\n{what}" for case, what in r["anomalies"][:3])
    assert not r["anomalies"], f"{len(r['anomalies'])} anomalies, e.g.:\n{shown}"
    assert r["restarts"] == 0


def test_campaigns_reach_past_the_first_instruction():
    """A campaign whose cases all stop at once would find nothing: the dispatch and snippet
    generators run most of their cases to the end or to a later error, and the loader
    campaign dispatches a good share of its mutants."""
    d = _result("dispatch")["tags"]
    assert d.get("ran to the end", 0) + d.get("ran to the end with faults", 0) >= 0.1 * CAMPAIGNS["dispatch"]["cases"]
    assert _result("loader")["tags"].get("loaded and dispatched", 0) >= 0.1 * CAMPAIGNS["loader"]["cases"]
