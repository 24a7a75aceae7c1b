"""The command line's entry points answer at once: ``gcnemu --help``, ``--version`` and
``python -m gcnemu`` do not load numba or the engine (``import gcnemu`` is lazy)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ImportError:                    # Python 3.10
    tomllib = None

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENV = dict(os.environ, PYTHONPATH=str(ROOT))


def _python(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=ENV,
                          cwd=ROOT, timeout=120)


def test_import_loads_neither_numba_nor_the_engine():
    r = _python("-c", "import sys, gcnemu; gcnemu.GcnEmuError; "
                      "print(sorted(m for m in sys.modules if m.split('.')[0] == 'numba' "
                      "or m.startswith('gcnemu.exec')))")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_public_names_import_on_first_use():
    r = _python("-c", "import gcnemu; print(gcnemu.GPU.__module__, gcnemu.load.__module__, "
                      "'GPU' in dir(gcnemu))")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["gcnemu.device", "gcnemu.kernel", "True"]
    r = _python("-c", "import gcnemu; gcnemu.no_such_name")
    assert "has no attribute 'no_such_name'" in r.stderr


@pytest.mark.skipif(tomllib is None, reason="tomllib (Python 3.11) reads pyproject.toml")
def test_version_is_the_package_version():
    want = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    r = _python("-m", "gcnemu", "--version")
    assert r.returncode == 0 and r.stdout.strip() == f"gcnemu {want}"
    r = _python("-c", "import gcnemu; print(gcnemu.__version__)")
    assert r.stdout.strip() == want


def test_help_lists_the_commands_without_loading_numba():
    r = _python("-c", "import sys; from gcnemu.cli import main\n"
                      "try:\n    main(['--help'])\nexcept SystemExit as e:\n    code = e.code\n"
                      "print('numba loaded' if 'numba' in sys.modules else 'numba not loaded', code)")
    assert r.returncode == 0, r.stderr
    assert "asm" in r.stdout and "disasm" in r.stdout and "run" in r.stdout
    assert r.stdout.strip().endswith("numba not loaded 0")
