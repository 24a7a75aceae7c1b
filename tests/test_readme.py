"""Every example of README.md runs as written, so that the README cannot drift from the code.

Python blocks run in a fresh interpreter from the repository root (a block that defines
``test_*`` functions runs under pytest, with the fixtures of the plugin the package installs);
shell blocks: each ``gcnemu`` command with real paths runs through the entry point (and the
first line of output it shows must match), one with placeholder names (FILE, k.hsaco) is
parsed by the CLI's own parser, and each ``python tools/fuzz.py`` line by fuzz.py's parser.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from gcnemu.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
BLOCKS = [(m.group(1), m.group(2), README[:m.start()].count("\n") + 1)
          for m in re.finditer(r"^```(\w*)\n(.*?)^```", README, re.S | re.M)]
PYTHON = [(text, line) for lang, text, line in BLOCKS if lang == "python"]
ENV = dict(os.environ, PYTHONPATH=str(ROOT))


def _commands(text: str):
    """(command, the output lines shown after it) of a shell block; '\\' joins lines, a '#'
    after two spaces starts a comment, '$ ' marks a command whose output follows."""
    out, lines = [], text.replace("\\\n", " ").splitlines()
    for ln in lines:
        ln = ln.rstrip()
        if ln.startswith("$ ") or not out or not lines[0].startswith("$ "):
            if ln:
                out.append((re.split(r"\s{2,}#", ln.removeprefix("$ "))[0].strip(), []))
        else:
            out[-1][1].append(ln)
    return out


SHELL = [(cmd, shown, line) for lang, text, line in BLOCKS if lang == ""
         for part, shown in _commands(text) for cmd in part.split(" && ")]


def test_the_readme_has_examples():
    assert len(PYTHON) >= 4 and sum(c.startswith("gcnemu ") for c, _, _ in SHELL) >= 5


@pytest.mark.parametrize("text, line", PYTHON, ids=[f"line{ln}" for _, ln in PYTHON])
def test_python_example_runs(text, line, tmp_path):
    if re.search(r"^def test_", text, re.M):
        f = tmp_path / "test_readme_example.py"
        f.write_text(text)
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            "-p", "gcnemu.pytest_plugin", "--rootdir", str(tmp_path), str(f)],
                           cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0 and " passed" in r.stdout, r.stdout[-3000:] + r.stderr[-2000:]
    else:
        r = subprocess.run([sys.executable, "-c", text], cwd=ROOT, env=ENV, capture_output=True,
                           text=True, timeout=600)
        assert r.returncode == 0, f"README line {line}:\n{r.stderr[-3000:]}"


def _placeholder(args) -> bool:
    return any(a in ("FILE", "FILE.s", "FILE.bin", "manifest.yaml") or a.startswith("k.hsaco")
               for a in args)


@pytest.mark.parametrize("cmd, shown, line",
                         [c for c in SHELL if c[0].startswith("gcnemu ")],
                         ids=[f"line{c[2]}" for c in SHELL if c[0].startswith("gcnemu ")])
def test_gcnemu_command_runs(cmd, shown, line, tmp_path):
    args = shlex.split(cmd)[1:]
    if _placeholder(args):
        build_parser().parse_args(args)        # exits (a failed test) on an unknown flag
        return
    args = [str(ROOT / a) if a.startswith(("kernels/", "examples/")) else a for a in args]
    r = subprocess.run([sys.executable, "-m", "gcnemu", *args], cwd=tmp_path, env=ENV,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"README line {line}: {cmd}\n{r.stderr[-3000:]}"
    if shown:
        # the first line shown, up to an ellipsis: the dispatch summary (functional figures)
        want = shown[0].split("...")[0].strip()
        assert r.stdout.splitlines()[0].startswith(want), (r.stdout[:500], want)


@pytest.mark.parametrize("cmd", [c for c, _, _ in SHELL if c.startswith("python tools/fuzz.py")])
def test_fuzz_command_parses(cmd):
    r = subprocess.run([sys.executable, *shlex.split(cmd)[1:], "--help"], cwd=ROOT, env=ENV,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
