"""Fuzz campaigns with a fixed budget, on the bounds-checked build (tools/fuzz.py).

Each campaign runs its cases in a child process with GCNEMU_BOUNDSCHECK=1, where an
out-of-bounds index raises IndexError instead of corrupting memory, and checks that nothing
but the expected gcnemu errors comes out, that no case kills the child or hangs, that no byte
of unmapped GPU memory is written, and that the GPU still computes a saxpy right afterwards.

The campaigns (fuzz.SUITE_CAMPAIGNS) run in one background process that the root conftest.py
starts when the session begins, so that the bounds-checked build compiles (a few minutes the
first time) on one core while the other tests run; it writes a JSON line per campaign to the
file named by GCNEMU_FUZZ_RESULTS, which the tests below wait for (from any xdist worker).
Run alone (``pytest tests/test_fuzz.py -k ...``), the first test starts them itself. Longer
campaigns: ``python tools/fuzz.py MODE --minutes N`` (see its docstring).
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import fuzz  # noqa: E402

CAMPAIGNS = fuzz.SUITE_CAMPAIGNS
#: how long a test waits for the campaigns (they take ~5 minutes of one core, cold)
WAIT_SECONDS = 2400


def _results_file() -> Path:
    path = os.environ.get("GCNEMU_FUZZ_RESULTS")
    if path is None:        # not started by conftest.py: start them here, for this process
        with tempfile.NamedTemporaryFile(prefix="gcnemu-fuzz-", suffix=".jsonl", delete=False) as f:
            path = f.name
        os.environ["GCNEMU_FUZZ_RESULTS"] = path
        fuzz.start_suite_campaigns(Path(path))
    return Path(path)


def _result(mode: str) -> dict:
    path = _results_file()
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        lines = path.read_text().splitlines() if path.exists() else []
        results = {}
        for line in lines:
            if line.endswith("}"):          # a line being written is incomplete
                results.update(json.loads(line))
        if mode in results:
            return results[mode]
        if "end" in results:
            raise AssertionError(f"the fuzz campaigns ended before {mode}:\n{results['end']}")
        time.sleep(1.0)
    raise AssertionError(f"no result of the {mode} campaign after {WAIT_SECONDS} s")


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
    ran = d.get("ran to the end", 0) + d.get("ran to the end with faults", 0)
    assert ran >= 0.1 * CAMPAIGNS["dispatch"]["cases"]
    tags = _result("loader")["tags"]
    assert tags.get("loaded and dispatched", 0) >= 0.1 * CAMPAIGNS["loader"]["cases"]
    # a quarter of the loader's mutants are of the CAL binaries of kernels/_cal
    assert tags.get("CAL binary loaded and dispatched", 0) >= 0.05 * CAMPAIGNS["loader"]["cases"]
    assert tags.get("CAL binary rejected", 0) >= 0.02 * CAMPAIGNS["loader"]["cases"]
