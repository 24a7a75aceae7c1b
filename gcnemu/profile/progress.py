"""A progress bar for long dispatches: tqdm (the optional extra ``[report]``), shown on
stderr only when stdout is a terminal and once a dispatch has run for more than a second."""
from __future__ import annotations

import sys
import time

#: seconds a dispatch runs before its bar appears
DELAY = 1.0


class DispatchProgress:
    """A GPU.on_progress callback that draws a tqdm bar of batches done, from DELAY seconds
    after it was made on; nothing when stdout is not a TTY or tqdm is not installed."""

    def __init__(self, label: str, enabled: bool | None = None, stream=None):
        self.label = label
        self.start = time.monotonic()
        self.enabled = sys.stdout.isatty() if enabled is None else enabled
        self.stream = stream
        self.bar = None

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            if time.monotonic() - self.start < DELAY or done >= total:
                return
            try:
                from tqdm import tqdm
            except ImportError:
                self.enabled = False
                return
            self.bar = tqdm(total=total, initial=done, desc=self.label, unit="batch",
                            file=self.stream or sys.stderr, leave=False)
            return
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def dispatch_with_progress(gpu, kernel, grid, block, args, enabled: bool | None = None,
                           stream=None, **options):
    """gpu.dispatch(kernel, grid, block, args, strict=False, **options) with a
    DispatchProgress bar."""
    bar = DispatchProgress(kernel.name, enabled, stream)
    old = gpu.on_progress
    gpu.on_progress = bar
    try:
        return gpu.dispatch(kernel, grid=grid, block=block, args=args, strict=False, **options)
    finally:
        gpu.on_progress = old
        bar.close()
