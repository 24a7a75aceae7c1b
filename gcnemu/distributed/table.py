"""The results table of a sweep: one row (a dict) per run, written as CSV and, when pyarrow
is installed, Parquet."""
from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np

from ..errors import GcnEmuError

#: the columns that describe a run, in this order (a configuration's own options follow
#: ``timing``, the rocprof-named counters come last)
LEADING = ["kernel", "entry", "config", "preset", "timing"]
RESULTS = ["grid", "block", "status", "error", "cycles", "time_us", "clock_mhz", "wall_s",
           "compile_s", "run_s", "waves", "workgroups", "outputs", "host"]


class SweepTable:
    """The rows of a sweep, in the order of its runs. Each row is a dict: the kernel
    (``kernel``: its label, ``entry``: its name in the code), the configuration (``config``,
    ``preset``, ``timing`` and one column per option the configurations set), the launch,
    ``status`` ("pass": every golden output matched, "fail": one did not, "error": the run
    failed, "done": nothing to compare), ``error`` (the first mismatch or the error's text),
    ``cycles`` and ``time_us`` (the cycles at the configuration's clock) in timing mode,
    ``wall_s`` (the emulation's time), ``outputs`` (a SHA-256 prefix of each buffer read
    back), ``host`` (the Dask worker) and the dispatch's rocprof-named counters.
    ``outputs_kept[i]`` holds the final contents of row i's buffers marked ``keep``."""

    def __init__(self):
        self.rows: list[dict] = []
        self.outputs_kept: list[dict] = []

    def add(self, row: dict, kept: dict | None = None) -> None:
        self.rows.append(row)
        self.outputs_kept.append(kept or {})

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def __getitem__(self, i) -> dict:
        return self.rows[i]

    @property
    def columns(self) -> list:
        """Every column any row has, in the order of LEADING, options, RESULTS, counters."""
        seen = []
        for r in self.rows:
            seen += [k for k in r if k not in seen]
        fixed = set(LEADING) | set(RESULTS)
        counters = sorted(k for k in seen if k[:1].isupper())
        options = [k for k in seen if k not in fixed and k not in counters]
        return ([c for c in LEADING if c in seen] + options + [c for c in RESULTS if c in seen]
                + counters)

    def counts(self) -> dict:
        """{status: number of rows}."""
        out = {}
        for r in self.rows:
            out[r["status"]] = out.get(r["status"], 0) + 1
        return out

    def summary(self) -> str:
        """'N runs: a pass, b fail, c error, d done'."""
        c = self.counts()
        return f"{len(self.rows)} runs: " + ", ".join(f"{c[s]} {s}" for s in
                                                      ("pass", "fail", "error", "done") if s in c)

    def failed(self) -> list:
        """The rows whose status is fail or error."""
        return [r for r in self.rows if r["status"] in ("fail", "error")]

    def to_csv(self, path) -> Path:
        """Write the table as CSV (empty cells where a row has no value)."""
        path = Path(path)
        cols = self.columns
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(cols)
            for r in self.rows:
                w.writerow(["" if r.get(c) is None else r.get(c) for c in cols])
        return path

    def to_parquet(self, path) -> Path:
        """Write the table as Parquet (needs pyarrow)."""
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise GcnEmuError("writing Parquet needs pyarrow: pip install pyarrow") from None
        cols = self.columns
        data = {c: [_plain(r.get(c)) for r in self.rows] for c in cols}
        arrays = {}
        for c, vals in data.items():
            try:
                arrays[c] = pa.array(vals)
            except (pa.ArrowInvalid, pa.ArrowTypeError):    # mixed types: as text
                arrays[c] = pa.array([None if v is None else str(v) for v in vals])
        pq.write_table(pa.table(arrays), path)
        return Path(path)

    def write(self, stem) -> list:
        """Write ``stem``.csv, and ``stem``.parquet when pyarrow is installed; the paths."""
        out = [self.to_csv(f"{stem}.csv")]
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            return out
        out.append(self.to_parquet(f"{stem}.parquet"))
        return out

    def to_pandas(self):
        """The table as a pandas DataFrame (needs pandas)."""
        import pandas as pd
        return pd.DataFrame(self.rows, columns=self.columns)

    def format(self, columns=("kernel", "config", "status", "cycles", "time_us", "wall_s"),
               limit: int | None = None) -> str:
        """Some columns as aligned text, one line per row (the first ``limit`` rows)."""
        rows = self.rows if limit is None else self.rows[:limit]
        cells = [list(columns)] + [[_cell(r.get(c)) for c in columns] for r in rows]
        widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
        lines = ["  ".join(v.rjust(w) if i > 1 else v.ljust(w) for i, (v, w) in
                           enumerate(zip(row, widths))).rstrip() for row in cells]
        if limit is not None and len(self.rows) > limit:
            lines.append(f"... and {len(self.rows) - limit} more rows")
        return "\n".join(lines)


def _plain(v):
    """A cell as a plain Python value (numpy scalars become Python numbers)."""
    return v.item() if isinstance(v, np.generic) else v


def _cell(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.4g}" if math.isfinite(v) and abs(v) < 1e5 else f"{v:.6g}"
    return str(v)
