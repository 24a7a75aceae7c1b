"""``gcnemu stats``, ``gcnemu profile`` and ``gcnemu compare``: profiling from the command line.

    gcnemu stats k.hsaco                 RGA's statistics per kernel, with occupancy
    gcnemu stats k.hsaco --csv -o s.csv  the same as CSV (RGA's column names)
    gcnemu stats k.s --livereg           live VGPRs/SGPRs per instruction, with the peak
    gcnemu profile k.hsaco --kernel K --grid N ... --pmc SQ_WAVES,SQ_INSTS_VALU \\
        -o results.csv --json results.json --hotspots --trace t.json --report r.html
    gcnemu compare a.hsaco:kern b.hsaco:kern --grid N ...   variants side by side

The profiling logic lives in gcnemu/profile/; this module parses arguments and prints.
"""
from __future__ import annotations

import argparse
import sys

from ..errors import GcnEmuError


def _table(rows: list, columns) -> str:
    """Columns of text, one line per row (the first row is the header)."""
    cells = [[str(c) for c in columns]] + [[str(r.get(c, "")) for c in columns] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(row, widths))).rstrip()
                     for row in cells)


def _write(text: str, path) -> None:
    if path:
        with open(path, "w", newline="") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


def _select(kernels: list, name) -> list:
    if name is None:
        return kernels
    chosen = [k for k in kernels if k.name == name]
    if not chosen:
        raise GcnEmuError(f"no kernel named {name!r}; kernels: {', '.join(k.name for k in kernels)}")
    return chosen


def cmd_stats(args) -> int:
    from ..hardware import PRESETS
    from ..profile import stats as S

    if args.gpu not in PRESETS:
        raise GcnEmuError(f"unknown GPU preset {args.gpu!r}; presets: {', '.join(PRESETS)}")
    kernels = _select(S.load_kernels(args.file, args.build_option), args.kernel)
    if args.livereg:
        out = []
        for k in kernels:
            out.append(S.format_livereg(S.live_registers(k), k.name))
        _write("\n\n".join(out) + "\n", args.output)
        return 0
    rows = [S.kernel_stats(k, args.gpu) for k in kernels]
    if args.csv:
        import csv
        import io
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=S.COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
        _write(buf.getvalue(), args.output)
    else:
        # a terminal table: one line per statistic, one column per kernel
        lines = [{"": c, **{r["KERNEL"]: r[c] for r in rows}} for c in S.COLUMNS[1:]]
        _write(_table(lines, [""] + [r["KERNEL"] for r in rows]) + "\n"
               + f"(occupancy on the {args.gpu} preset: waves per SIMD of "
               f"{PRESETS[args.gpu].waves_per_simd}, for a workgroup of THREADS_PER_WORKGROUP)\n",
               args.output)
    return 0


def add_parsers(sub) -> None:
    """The stats, profile and compare subcommands."""
    s = sub.add_parser("stats", help="kernel statistics (RGA's columns), occupancy, live registers",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("file", help="code object (.hsaco), CAL binary, OpenCL C (.cl) or assembly (.s)")
    s.add_argument("--kernel", help="only this kernel (default: all)")
    s.add_argument("--csv", action="store_true", help="CSV with RGA's column names")
    s.add_argument("--livereg", action="store_true",
                   help="live VGPRs and SGPRs per instruction, with the peak (RGA's --livereg)")
    s.add_argument("-o", "--output", help="write to this file instead of stdout")
    s.add_argument("--gpu", default="xbox-one", help="GPU preset for occupancy (default xbox-one)")
    s.add_argument("--build-option", action="append", metavar="OPT",
                   help="a clang option for a .cl file (repeatable)")
    s.set_defaults(func=cmd_stats)
