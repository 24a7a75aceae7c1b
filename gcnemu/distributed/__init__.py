"""Sweeps on Dask: many (kernel x GPU configuration) runs on a cluster, one results table.

    import gcnemu
    table = gcnemu.sweep("manifest.yaml")            # a LocalCluster sized to the machine
    table = gcnemu.sweep(runs, client=Client("tcp://scheduler:8786"))
    table.write("results")                           # results.csv (+ .parquet with pyarrow)

``gcnemu sweep manifest.yaml`` is the same from the command line (gcnemu/cli/sweep.py). The
manifest (gcnemu/distributed/manifest.py, examples/sweep/) lists kernels, their arguments
and golden outputs, and the configurations (presets, timing parameters, any keyword of
GPU(...)). A sharded dispatch of one large kernel is ``gpu.dispatch(..., client=client)``
(gcnemu/shards.py). dask and distributed are an optional extra (``pip install
'gcnemu[dask]'``); without them a sweep runs in this process, one run after another.
"""
from __future__ import annotations

from .manifest import (Argument, Configuration, KernelSpec, Manifest, ManifestError, Run,
                       corpus_kernel, load_manifest)
from .sweep import local_cluster, run_one, sweep
from .table import SweepTable

__all__ = ["sweep", "load_manifest", "Manifest", "ManifestError", "Run", "KernelSpec",
           "Configuration", "Argument", "SweepTable", "corpus_kernel", "local_cluster",
           "run_one"]
