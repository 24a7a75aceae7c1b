"""The README's first two commands, as a new user types them, in a fresh virtualenv.

The virtualenv is new (``python -m venv``) and sees the interpreter's site-packages
(``--system-site-packages``), so the dependencies that ``.ci/run`` installed (numba, numpy,
setuptools and wheel from the ``[test]`` extra) are found there and the test needs no network:
``PIP_NO_INDEX`` forbids downloads and ``PIP_NO_BUILD_ISOLATION`` builds the editable install
with those packages. What is new is what the commands themselves do: pip installs gcnemu into
the virtualenv (its own ``gcnemu`` script and its own editable finder), and that script runs the
built-in example. The numba cache is this checkout's, as it is for a user who runs the command
twice; the cold start is measured in benchmarks/bench_startup.py, not here.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _readme_commands() -> list[str]:
    """The lines of the README's first code block: its first two commands."""
    text = (ROOT / "README.md").read_text()
    block = re.search(r"^```\w*\n(.*?)^```", text, re.S | re.M).group(1)
    return [ln.strip() for ln in block.splitlines() if ln.strip()]


def _venv_env(venv: Path) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PIP_USER", "PYTHONHOME")}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(venv),
               PIP_NO_INDEX="1", PIP_NO_BUILD_ISOLATION="0",
               PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


def test_readme_first_command_in_a_fresh_virtualenv(tmp_path):
    commands = _readme_commands()
    assert commands[0] == "pip install -e . && gcnemu run --example", commands
    assert commands[1].startswith("pip install -e '.[test]' && python -m pytest"), commands

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True, capture_output=True, timeout=300)
    env = _venv_env(venv)
    # the first command exactly as written, then where its `gcnemu` and its gcnemu came from
    r = subprocess.run(["bash", "-c", commands[0] + " && command -v gcnemu && python -c "
                        "'import gcnemu, sys; print(gcnemu.__file__, sys.prefix)'"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    lines = r.stdout.splitlines()
    out = lines[next((i for i, ln in enumerate(lines) if ln.startswith("saxpy:")), 0):]
    assert re.match(r"saxpy: grid \(65536, 1, 1\) block \(256, 1, 1\), 256 workgroups, "
                    r"1024 waves, \d+ wave-instructions in ", out[0]), out
    assert out[1] == "saxpy y = 2*x + y over 65536 floats: matches numpy bit for bit", out
    assert Path(out[2]) == venv / "bin" / "gcnemu", out      # the virtualenv's own script
    module, prefix = out[3].split()
    assert Path(module) == ROOT / "gcnemu" / "__init__.py" and Path(prefix) == venv, out

    # the second command's install half, then its pytest command line with a small selection
    install, pytest_cmd = commands[1].split(" && ")
    r = subprocess.run(["bash", "-c", f"{install} && {pytest_cmd} -q -p no:cacheprovider "
                        "tests/test_imports.py"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0 and re.search(r"\d+ passed", r.stdout), \
        r.stdout[-3000:] + r.stderr[-3000:]
