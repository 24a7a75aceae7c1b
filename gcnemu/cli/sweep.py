"""`gcnemu sweep`: every kernel of a run manifest on every configuration, on Dask.

    gcnemu sweep manifest.yaml                      # a LocalCluster sized to this machine
    gcnemu sweep manifest.yaml --workers 4          # ... of 4 worker processes
    gcnemu sweep manifest.yaml --scheduler tcp://scheduler:8786   # an existing cluster
    gcnemu sweep manifest.yaml --serial             # in this process, one run after another

Writes the results table, one row per (kernel x configuration) run, to OUTPUT.csv (and
OUTPUT.parquet when pyarrow is installed; OUTPUT: the manifest's `output`, or --output), and
outputs marked `keep: true` to OUTPUT-outputs/KERNEL/CONFIG/NAME.npy. Prints a progress bar
on a terminal and a summary. The exit status is 0 when every run passed (or had nothing to
compare), 1 otherwise. Without dask installed the sweep runs serially and says how to
install the extra. The manifest's format: examples/sweep/manifest.yaml and
gcnemu/distributed/manifest.py.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np


def cmd_sweep(args) -> int:
    from ..distributed import load_manifest, sweep
    manifest = load_manifest(args.manifest)
    runs = manifest.runs()
    stem = args.output or manifest.output
    if args.serial:
        client = "serial"
    else:
        client = args.scheduler
    where = ("in this process" if args.serial else f"on {args.scheduler}" if args.scheduler
             else "on a local cluster")
    print(f"gcnemu sweep: {len(manifest.kernels)} kernel(s) x {len(manifest.configurations)} "
          f"configuration(s) = {len(runs)} runs {where}", flush=True)
    table = sweep(runs, client=client, n_workers=args.workers,
                  progress=True if args.progress else None)
    paths = table.write(stem)
    for i, kept in enumerate(table.outputs_kept):
        row = table[i]
        for name, arr in kept.items():
            d = Path(f"{stem}-outputs") / row["kernel"] / row["config"]
            d.mkdir(parents=True, exist_ok=True)
            np.save(d / f"{name}.npy", arr)
    print(table.format(limit=args.show))
    for r in table.failed()[:10]:
        print(f"{r['status']}: {r['kernel']} on {r['config']}: {r['error']}")
    print(f"{table.summary()}; table: {', '.join(map(str, paths))}")
    return 1 if table.failed() else 0


def add_parser(sub) -> None:
    r = sub.add_parser("sweep", help="run a manifest's kernels x configurations on Dask",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("manifest", help="the run manifest (.yaml, or .toml)")
    where = r.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="an existing Dask scheduler, e.g. tcp://scheduler:8786")
    where.add_argument("--workers", type=int, metavar="N",
                       help="worker processes of the local cluster (default: one per CPU)")
    where.add_argument("--serial", action="store_true",
                       help="run in this process, one run after another")
    r.add_argument("--output", metavar="STEM", help="the table's path without suffix "
                   "(default: the manifest's output)")
    r.add_argument("--progress", action="store_true",
                   help="show the progress bar even when stderr is not a terminal")
    r.add_argument("--show", type=int, default=40, metavar="N",
                   help="rows of the table to print (default 40)")
    r.set_defaults(func=cmd_sweep)
