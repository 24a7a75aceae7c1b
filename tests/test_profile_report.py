"""`gcnemu profile --report`: a self-contained HTML page that renders in headless Chromium
(Debian's ``chromium``) without console errors; the screenshot the README shows is taken the
same way (tools/report_screenshot.sh)."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from gcnemu.cli import main

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _chromium(tmp_path, url, *extra) -> str:
    """Chromium's log of loading ``url`` headless (console messages are INFO:CONSOLE lines)."""
    profile = tmp_path / "chromium-profile"
    profile.mkdir(exist_ok=True)
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--no-first-run", f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
           *extra, url]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    return r.stdout + r.stderr


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    pytest.importorskip("matplotlib")
    d = tmp_path_factory.mktemp("report")
    m = n = k = 32
    rng = np.random.default_rng(0)
    np.save(d / "a.npy", rng.uniform(-1, 1, (m, k)).astype(np.float32))
    np.save(d / "b.npy", rng.uniform(-1, 1, (k, n)).astype(np.float32))
    out = d / "matmul.html"
    code = main(["profile", str(ROOT / "kernels" / "matmul_tiled" / "kernel.hsaco"), "--kernel",
                 "matmul", "--grid", f"{n}x{m}", "--block", "16x16", "--arg", f"in:{d / 'a.npy'}",
                 "--arg", f"in:{d / 'b.npy'}", "--arg", f"out:{d / 'c.npy'}:f32:{m * n}",
                 "--arg", f"u32:{m}", "--arg", f"u32:{n}", "--arg", f"u32:{k}",
                 "--report", str(out)])
    assert code == 0
    return out


def test_page_is_self_contained(report):
    text = report.read_text()
    for section in ("Kernel statistics", "Occupancy over time", "Stall breakdown",
                    "Wave timeline per SIMD", "Hotspots", "USED_VGPRs", "SQ_WAVES",
                    "ds_read2_b32", "barrier"):
        assert section in text
    assert text.count("<svg") == 4
    # nothing to fetch: no scripts, no external files (SVG namespaces are not fetches)
    assert "<script" not in text
    assert not re.search(r'(src|href)="(?!data:|#)', text)


@pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (apt-get install chromium)")
def test_renders_in_headless_chromium_without_console_errors(report, tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text("<html><body><script>console.error('boom')</script></body></html>")
    assert "CONSOLE" in _chromium(tmp_path, bad.as_uri(), "--dump-dom")   # errors are seen
    shot = tmp_path / "shot.png"
    log = _chromium(tmp_path, report.as_uri(), f"--screenshot={shot}", "--window-size=1280,2400")
    assert "CONSOLE" not in log, log
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20000


def test_resident_waves_per_cycle():
    # the heat map's occupancy against a count cycle by cycle
    from gcnemu.profile.html import resident_waves
    rng = np.random.default_rng(3)
    start = rng.integers(0, 90, 200)
    wc = np.stack([start, start + rng.integers(1, 30, 200)], axis=1)
    cu = rng.integers(0, 3, 200)
    cycles = int(wc.max())
    got = resident_waves(wc, cu, 3, cycles, cycles)
    want = np.zeros((3, cycles))
    for (b, e), c in zip(wc, cu):
        want[c, b:e] += 1
    assert np.allclose(got, want)
    coarse = resident_waves(wc, cu, 3, cycles, 7)     # means over uneven spans
    edges = np.linspace(0, cycles, 8)
    for k in range(7):
        part = [(min(edges[k + 1], i + 1) - max(edges[k], i)) for i in range(cycles)]
        w = np.clip(part, 0, None)
        assert np.allclose(coarse[:, k], (want * w).sum(1) / (edges[k + 1] - edges[k]))
