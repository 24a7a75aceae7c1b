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
        lines = [{"KERNEL": c, **{r["KERNEL"]: r[c] for r in rows}} for c in S.COLUMNS[1:]]
        _write(_table(lines, ["KERNEL"] + [r["KERNEL"] for r in rows]) + "\n"
               + f"(occupancy on the {args.gpu} preset: waves per SIMD of "
               f"{PRESETS[args.gpu].waves_per_simd}, for a workgroup of THREADS_PER_WORKGROUP)\n",
               args.output)
    return 0


def cmd_profile(args) -> int:
    from ..profile import counters as C
    from .run import check_faults, dispatch_from_args

    if args.list_counters:
        print("\n".join(C.available()))
        return 0
    pmc = C.parse_pmc(args.pmc)
    rep, kernel, gpu, writeback = dispatch_from_args(args, timing=True)
    check_faults(rep, args)
    import numpy as np
    for buf, path in writeback:
        np.save(path, buf.to_numpy())
    rows = [C.result_row(rep, kernel, gpu.config, pmc)]
    print(rep.summary())
    print(_table([{"counter": k, "value": v} for k, v in rows[0].items()], ["counter", "value"]))
    if args.output:
        _write(C.results_csv(rows), args.output)
        print(f"results: {args.output}")
    if args.json:
        _write(C.results_json(rows), args.json)
        print(f"results: {args.json}")
    pcs = None
    if args.hotspots or args.report:
        from ..profile.hotspots import format_hotspots, pc_cycles
        pcs = pc_cycles(rep, kernel, gpu)
        if args.hotspots:
            print(format_hotspots(pcs, rep, args.hotspots, args.hotspots_limit))
    if args.trace:
        from ..profile.trace import write_trace
        print(write_trace(args.trace, rep, kernel, gpu.config, args.trace_level, gpu))
    if args.report:
        from ..profile.html import write_report
        print(write_report(args.report, rep, kernel, gpu, rows[0], pcs))
    return 0


def cmd_compare(args) -> int:
    from ..profile import counters as C
    from .run import check_faults, dispatch_from_args

    pmc = C.parse_pmc(args.pmc)
    cols = {}
    for spec in args.variants:
        path, sep, name = spec.rpartition(":")
        if not sep or not path or not name:
            raise GcnEmuError(f"variant {spec!r}: expected FILE:KERNEL, e.g. k.hsaco:matmul")
        args.file, args.kernel = path, name
        rep, kernel, gpu, _ = dispatch_from_args(args, timing=True)
        check_faults(rep, args)
        row = C.result_row(rep, kernel, gpu.config, ["GRBM_GUI_ACTIVE"] + pmc)
        row["time_us"] = round(rep.cycles / gpu.config.clock_mhz, 3)
        label = spec if spec not in cols else f"{spec} #{len(cols) + 1}"
        cols[label] = row
    names = list(next(iter(cols.values())))
    base = next(iter(cols.values()))
    lines = []
    for n in names[1:]:
        line = {"": n}
        for spec, row in cols.items():
            v = row[n]
            line[spec] = v
        if len(cols) == 2 and isinstance(base[n], (int, float)) and not isinstance(base[n], bool):
            other = list(cols.values())[1][n]
            line["B/A"] = f"{other / base[n]:.3f}" if base[n] else "-"
        lines.append(line)
    print(_table(lines, [""] + list(cols) + (["B/A"] if len(cols) == 2 else [])))
    return 0


#: the --help text: the module docstring's examples
_HELP = __doc__.split("\n\nThe profiling logic")[0] + """

Dispatch arguments (--arg) take the forms of `gcnemu run --help`."""


def add_parsers(sub) -> None:
    """The stats, profile and compare subcommands."""
    s = sub.add_parser("stats", help="kernel statistics (RGA's columns), occupancy, live registers",
                       description=_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
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

    from .run import add_dispatch_arguments, add_trace_arguments
    p = sub.add_parser("profile", help="run a dispatch in timing mode: rocprof counters, hotspots, "
                       "trace, HTML report", description=_HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_dispatch_arguments(p)
    p.add_argument("--pmc", action="append", metavar="NAMES",
                   help="counters and derived metrics, comma-separated (rocprof names; default: "
                        "cycles, waves, instruction counts and every derived metric)")
    p.add_argument("--list-counters", action="store_true",
                   help="list the counters and derived metrics --pmc takes, and exit")
    p.add_argument("-o", "--output", metavar="results.csv", help="write rocprof's results.csv")
    p.add_argument("--json", metavar="FILE", help="write the same rows as JSON")
    p.add_argument("--hotspots", nargs="?", const="hot", choices=("hot", "program"),
                   help="print the disassembly with cycles per instruction and stall reasons, "
                        "hottest first (default) or in program order")
    p.add_argument("--hotspots-limit", type=int, metavar="N", help="print the N first lines only")
    add_trace_arguments(p)
    p.add_argument("--report", metavar="OUT.html", help="write a self-contained HTML report "
                   "(plots need the optional extra [report]: matplotlib)")
    p.set_defaults(func=cmd_profile)

    c = sub.add_parser("compare", help="run kernel variants in timing mode: cycles and counters "
                       "side by side", description=_HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("variants", nargs="+", metavar="FILE:KERNEL",
                   help="the variants (same arguments for each)")
    add_dispatch_arguments(c, with_file=False)
    c.add_argument("--pmc", action="append", metavar="NAMES", help="counters (as profile)")
    c.set_defaults(func=cmd_compare)
