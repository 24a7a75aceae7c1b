"""The test suite's set-up: this checkout first on sys.path, gcnemu's fixtures (the plugin
the package installs, gcnemu/pytest_plugin.py, also when this checkout is not installed), and
the fuzz campaigns of tests/test_fuzz.py started in the background."""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

pytest_plugins = ["gcnemu.pytest_plugin"]   # the entry point's name too: registered once


# --- tests/test_fuzz.py's campaigns, started once per session ----------------------------------
def _runs_fuzz_tests(config) -> bool:
    """Whether this session is likely to run tests/test_fuzz.py (no -k or -m filter, and a
    path argument that contains it)."""
    if config.option.keyword or config.option.markexpr:
        return False
    target = ROOT / "tests" / "test_fuzz.py"
    for arg in config.args:
        path = Path(arg.split("::")[0]).resolve()
        if path == target or path in target.parents:
            return True
    return False


def pytest_configure(config):
    """Start the fuzz campaigns in the background before the tests (and xdist's workers,
    which inherit GCNEMU_FUZZ_RESULTS) start: tests/test_fuzz.py explains why."""
    if hasattr(config, "workerinput") or "GCNEMU_FUZZ_RESULTS" in os.environ \
            or not _runs_fuzz_tests(config):
        return
    sys.path.insert(0, str(ROOT / "tools"))
    import fuzz
    with tempfile.NamedTemporaryFile(prefix="gcnemu-fuzz-", suffix=".jsonl", delete=False) as f:
        results = Path(f.name)
    os.environ["GCNEMU_FUZZ_RESULTS"] = str(results)
    config._gcnemu_fuzz = (fuzz.start_suite_campaigns(results), results)


def pytest_unconfigure(config):
    started = getattr(config, "_gcnemu_fuzz", None)
    if started:
        proc, results = started
        if proc.poll() is None:
            proc.kill()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            pass
        results.unlink(missing_ok=True)
        del os.environ["GCNEMU_FUZZ_RESULTS"]
