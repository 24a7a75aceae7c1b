"""The run manifest of a sweep: kernels with their arguments and golden outputs, and the GPU
configurations to run each of them on (YAML, or TOML for a path ending in .toml).

    output: results               # results.csv (and results.parquet with pyarrow)
    time_limit: 60                # seconds per run (default: none); step_limit too
    configurations:
      - {name: xbox-one, preset: xbox-one}
      - {name: dram-300, preset: xbox-one, timing_config: {dram_latency: 300}}
      - {name: 8-cus, preset: xbox-one, num_cus: 8}    # any other key goes to GPU(...)
    kernels:
      - name: saxpy
        code: kernels/saxpy/kernel.hsaco     # code object, CAL .bin, OpenCL C .cl or .s
        grid: 4096
        block: 256
        args:
          - {inout: y.npy, golden: y_golden.npy}
          - {in: x.npy}
          - {f32: 2.0}
          - {u32: 4096}
      - corpus: [mandelbrot, matmul_tiled]   # gcnemu's corpus kernels (a source checkout)

``examples/sweep/manifest.yaml`` is a complete one; ``load_manifest`` documents every key.
Relative paths are relative to the manifest's folder. Everything is read and checked here,
on the client: the workers get arrays and code-object bytes, never paths.
"""
from __future__ import annotations

import inspect
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..dtypes import SCALAR_TYPES, element_dtype
from ..errors import GcnEmuError
from ..kernel import ProgramSource

#: by-value argument kinds: the manifest's name -> numpy type (as `gcnemu run --arg`)
#: what a configuration holds besides the keyword arguments of GPU(...)
_CONFIG_KEYS = {"name", "preset", "timing", "timing_config", "workers"}
_ARG_EXTRAS = {"golden", "ulp", "atol", "keep", "name", "dtype", "shape"}


class ManifestError(GcnEmuError):
    """A manifest that cannot be read: the message names the file and the entry."""


@dataclass
class Argument:
    """One kernel argument of a run. ``kind``: "in" (``array`` copied in), "inout" (copied
    in, read back), "out" (a zero-filled buffer of ``dtype`` and ``shape``, read back),
    "local" (``nbytes`` of LDS per workgroup) or "scalar" (``value``, a numpy scalar).
    A buffer read back is compared with ``golden`` (exact for integers; floats within
    ``ulp`` units in the last place, an int or an array broadcast over it, or within
    ``atol``) and, with ``keep``, returned to the client."""

    kind: str
    name: str = ""
    array: np.ndarray | None = None
    dtype: np.dtype | None = None
    shape: tuple = ()
    nbytes: int = 0
    value: object = None
    golden: np.ndarray | None = None
    ulp: object = 0
    atol: float | None = None
    keep: bool = False


@dataclass
class KernelSpec:
    """A kernel and its launch: ``source`` (gcnemu.kernel.ProgramSource), the kernel's
    ``entry`` name, grid and block (work-items, as gpu.dispatch takes them), arguments."""

    name: str
    source: ProgramSource
    entry: str
    grid: tuple
    block: tuple
    args: list
    offset: tuple | None = None


@dataclass
class Configuration:
    """A GPU configuration: ``preset`` (gcnemu.PRESETS), ``timing`` (cycles and timing
    counters; on by default in a sweep), ``timing_config`` (gcnemu.timing.TimingConfig
    fields), ``workers`` (dispatch(workers=)) and ``options``: any other keyword argument of
    GPU(...), passed as it is (step_limit, time_limit, waves_per_batch, and the timing
    overrides a GPU takes)."""

    name: str
    preset: str = "xbox-one"
    timing: bool = True
    timing_config: dict = field(default_factory=dict)
    workers: int = 1
    options: dict = field(default_factory=dict)

    def make_gpu(self):
        """A new GPU of this configuration."""
        from ..device import GPU
        kw = dict(self.options)
        if self.timing_config:
            from ..timing.config import TimingConfig
            kw["timing_config"] = TimingConfig(**self.timing_config)
        return GPU(self.preset, timing=self.timing, **kw)

    def columns(self) -> dict:
        """The configuration as results-table columns (options by name, timing_config
        fields as timing_config.FIELD)."""
        out = {"config": self.name, "preset": self.preset, "timing": self.timing}
        out.update(self.options)
        out.update({f"timing_config.{k}": v for k, v in self.timing_config.items()})
        if self.workers != 1:
            out["workers"] = self.workers
        return out

    def check(self, where: str) -> None:
        """Raise ManifestError (naming ``where``) when GPU(...) cannot take this."""
        from ..device import GPU, OVERRIDES
        params = inspect.signature(GPU).parameters
        unknown = [k for k in self.options if k not in params and k not in OVERRIDES]
        if unknown:
            known = [p for p in params if p not in ("preset", "timing", "overrides")]
            raise ManifestError(f"{where}: GPU(...) does not take these options: "
                                f"{', '.join(unknown)} (it takes {', '.join(known)} and the "
                                f"preset overrides {', '.join(OVERRIDES)})")
        try:
            inspect.signature(GPU).bind(self.preset, timing=self.timing, **self.options)
        except TypeError as e:
            raise ManifestError(f"{where}: GPU(...) does not take these options: {e}") from None
        if self.timing_config:
            from ..timing.config import TimingConfig
            if not self.timing:
                raise ManifestError(f"{where}: timing_config needs timing: true")
            try:
                TimingConfig(**self.timing_config)
            except TypeError as e:
                raise ManifestError(f"{where}: timing_config: {e}") from None


@dataclass
class Run:
    """One row of a sweep: a kernel on a configuration."""

    kernel: KernelSpec
    config: Configuration


@dataclass
class Manifest:
    """A parsed manifest: every kernel runs on every configuration (``runs()``)."""

    kernels: list
    configurations: list
    output: str = "results"
    path: Path | None = None

    def runs(self) -> list:
        """The (kernel x configuration) runs, kernel by kernel."""
        return [Run(k, c) for k in self.kernels for c in self.configurations]


def load_manifest(path) -> Manifest:
    """Read and check a manifest (YAML; TOML when the name ends in .toml).

    Top level: ``kernels`` (a list), ``configurations`` (a list; default one xbox-one
    configuration), ``output`` (the results table's path without suffix; default the
    manifest's name beside it), ``time_limit`` and ``step_limit`` (defaults for every
    configuration that does not set them), ``seed`` (for corpus kernels; default 0).

    A configuration: ``name`` (default: the preset's name), ``preset``, ``timing`` (default
    true), ``timing_config`` (a table of gcnemu.timing.TimingConfig fields), ``workers``, and
    any other key as a keyword argument of gcnemu.GPU.

    A kernel: ``code`` (a path: code object, CAL binary, .cl compiled here with
    ``build_options``, or .s), ``kernel`` (its name in the code; default ``name``), ``name``
    (the table's label; default the kernel's), ``grid``, ``block`` (an int or a list of up to
    3), ``offset``, and ``args`` in kernel order, each one table:
    ``{in: PATH.npy}``, ``{inout: PATH.npy}``, ``{out: NAME, dtype: f32, shape: [N, M]}``,
    ``{local: NBYTES}``, or a scalar ``{f32: 2.0}`` (i8 ... u64, f16, f32, f64); buffers read
    back may add ``golden: PATH.npy`` (the expected contents), ``ulp``, ``atol`` and
    ``keep: true`` (write the final contents beside the table). Or ``corpus: NAME`` (or a
    list): kernels of gcnemu's corpus (kernels/ of a source checkout) with their references.
    """
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise ManifestError(f"cannot read manifest {path}: {e.strerror}") from None
    try:
        if path.suffix == ".toml":
            import tomllib
            doc = tomllib.loads(text)
        else:
            import yaml
            doc = yaml.safe_load(text)
    except Exception as e:        # the parsers' own errors name line and column
        raise ManifestError(f"{path}: {e}") from None
    return parse_manifest(doc, path.parent, path)


def parse_manifest(doc, base: Path, path: Path | None = None) -> Manifest:
    """A Manifest from a parsed document (paths relative to ``base``)."""
    where = str(path) if path else "manifest"
    if not isinstance(doc, dict):
        raise ManifestError(f"{where}: a manifest is a mapping with 'kernels' and "
                            f"'configurations', not {type(doc).__name__}")
    _no_unknown(doc, {"kernels", "configurations", "output", "time_limit", "step_limit",
                      "seed"}, where)
    defaults = {k: doc[k] for k in ("time_limit", "step_limit") if k in doc}
    configs = []
    for i, c in enumerate(_list(doc.get("configurations") or [{}], f"{where}: configurations")):
        configs.append(_configuration(c, defaults, f"{where}: configurations[{i}]"))
    names = [c.name for c in configs]
    for n in names:
        if names.count(n) > 1:
            raise ManifestError(f"{where}: configuration name {n!r} is used twice: give each "
                                f"a name")
    kernels = []
    seed = int(doc.get("seed", 0))
    for i, k in enumerate(_list(doc.get("kernels"), f"{where}: kernels")):
        w = f"{where}: kernels[{i}]"
        if isinstance(k, dict) and "corpus" in k:
            _no_unknown(k, {"corpus", "seed"}, w)
            names_ = k["corpus"] if isinstance(k["corpus"], list) else [k["corpus"]]
            try:
                kernels += [corpus_kernel(str(n), int(k.get("seed", seed))) for n in names_]
            except ManifestError as e:
                raise ManifestError(f"{w}: {e}") from None
        else:
            kernels.append(_kernel(k, base, w))
    if not kernels:
        raise ManifestError(f"{where}: no kernels")
    out = doc.get("output") or (path.stem if path else "results")
    return Manifest(kernels, configs, str(base / out), path)


def _configuration(c, defaults, where) -> Configuration:
    if not isinstance(c, dict):
        raise ManifestError(f"{where}: a configuration is a mapping, not {c!r}")
    preset = str(c.get("preset", "xbox-one"))
    options = {k: v for k, v in c.items() if k not in _CONFIG_KEYS}
    for k, v in defaults.items():
        options.setdefault(k, v)
    cfg = Configuration(str(c.get("name", preset)), preset, bool(c.get("timing", True)),
                        dict(c.get("timing_config") or {}), int(c.get("workers", 1)), options)
    from ..hardware import PRESETS
    if preset not in PRESETS:
        raise ManifestError(f"{where}: unknown preset {preset!r}; presets: {sorted(PRESETS)}")
    cfg.check(where)
    return cfg


def _kernel(k, base: Path, where) -> KernelSpec:
    if not isinstance(k, dict) or "code" not in k:
        raise ManifestError(f"{where}: a kernel is a mapping with 'code' (or 'corpus'), not {k!r}")
    _no_unknown(k, {"code", "kernel", "name", "grid", "block", "offset", "args",
                    "build_options"}, where)
    code = _path(base, k["code"])
    from ..kernel import load
    try:
        prog = load(str(code), options=k.get("build_options")) if str(code).endswith(".cl") \
            else load(str(code))
    except GcnEmuError as e:
        raise ManifestError(f"{where}: {e}") from None
    entry = str(k.get("kernel") or k.get("name") or "")
    if not entry:
        if len(prog.kernel_names) != 1:
            raise ManifestError(f"{where}: say which kernel ('kernel:'); {code} has "
                                f"{prog.kernel_names}")
        entry = prog.kernel_names[0]
    if entry not in prog.kernel_names:
        raise ManifestError(f"{where}: {code} has no kernel {entry!r}; kernels: "
                            f"{prog.kernel_names}")
    for what in ("grid", "args"):
        if what not in k:
            raise ManifestError(f"{where}: '{what}' is missing")
    args = [_argument(a, base, f"{where}.args[{j}]") for j, a in enumerate(_list(k["args"], where))]
    grid = _dims(k["grid"], f"{where}.grid")
    block = _dims(k.get("block", [min(grid[0], 64)] + [1] * (len(grid) - 1)), f"{where}.block")
    offset = _dims(k["offset"], f"{where}.offset", zero=True) if "offset" in k else None
    return KernelSpec(str(k.get("name") or entry), prog.source, entry, grid, block, args, offset)


def _argument(a, base: Path, where) -> Argument:
    if not isinstance(a, dict):
        raise ManifestError(f"{where}: an argument is a mapping such as {{in: x.npy}} or "
                            f"{{u32: 4}}, not {a!r}")
    kinds = [k for k in a if k not in _ARG_EXTRAS]
    if len(kinds) != 1:
        raise ManifestError(f"{where}: one of in, inout, out, local, {', '.join(SCALAR_TYPES)} "
                            f"(got {kinds or 'none'})")
    kind = kinds[0]
    v = a[kind]
    if kind in SCALAR_TYPES:
        _no_unknown(a, {kind}, where)
        t = SCALAR_TYPES[kind]
        try:
            return Argument("scalar", kind, value=t(v) if kind.startswith("f") else t(int(v)))
        except (TypeError, ValueError, OverflowError):
            raise ManifestError(f"{where}: {v!r} is not a valid {kind}") from None
    if kind == "local":
        _no_unknown(a, {"local"}, where)
        return Argument("local", "local", nbytes=int(v))
    if kind in ("in", "inout"):
        _no_unknown(a, {kind} | ({"golden", "ulp", "atol", "keep", "name"} if kind == "inout"
                                 else {"name"}), where)
        arr = _npy(base, v, where)
        arg = Argument(kind, str(a.get("name") or Path(str(v)).stem), array=arr)
    elif kind == "out":
        _no_unknown(a, {"out", "dtype", "shape", "golden", "ulp", "atol", "keep"}, where)
        if "dtype" not in a or "shape" not in a:
            raise ManifestError(f"{where}: an out buffer needs dtype and shape")
        dt = element_dtype(a["dtype"])
        if dt is None:
            raise ManifestError(f"{where}: unknown dtype {a['dtype']!r}; use one of "
                                f"{', '.join(SCALAR_TYPES)} or a numpy name such as float32")
        arg = Argument("out", str(v), dtype=dt, shape=_dims(a["shape"], f"{where}.shape", most=8))
    else:
        raise ManifestError(f"{where}: unknown argument kind {kind!r}; kinds: in, inout, out, "
                            f"local, {', '.join(SCALAR_TYPES)}")
    if "golden" in a:
        arg.golden = _npy(base, a["golden"], f"{where}.golden")
    arg.ulp = a.get("ulp", 0)
    arg.atol = a.get("atol")
    arg.keep = bool(a.get("keep", False))
    return arg


def corpus_kernel(name: str, seed: int = 0, keep: bool = False) -> KernelSpec:
    """Kernel ``name`` of gcnemu's corpus (kernels/<name>/ of a source checkout) as a sweep
    kernel: its committed code object, the launch and arguments of its spec, and its numpy
    reference as the golden outputs (``keep``: return every output to the client)."""
    try:
        from kernels import corpus
    except ImportError:
        raise ManifestError(f"corpus kernel {name!r}: the corpus is the kernels/ folder of "
                            f"gcnemu's source checkout; run from there (or put it on "
                            f"PYTHONPATH)") from None
    if name not in corpus.list_kernels():
        raise ManifestError(f"no corpus kernel {name!r}; kernels: {corpus.list_kernels()}")
    case = corpus.make_case(name, seed)
    code = corpus.hsaco_path(name).read_bytes()
    args = []
    for i, a in enumerate(case.args):
        want = case.expected.get(i)
        extra = dict(golden=None if want is None else np.asarray(want),
                     ulp=case.ulp_per_arg.get(i, case.ulp), atol=case.atol.get(i), keep=keep)
        if isinstance(a, corpus.InOut):
            args.append(Argument("inout", f"arg{i}", array=a.array, **extra))
        elif isinstance(a, corpus.In):
            args.append(Argument("in", f"arg{i}", array=a.array))
        elif isinstance(a, corpus.Out):
            args.append(Argument("out", f"arg{i}", dtype=a.dtype, shape=(a.count,), **extra))
        elif isinstance(a, np.generic):
            args.append(Argument("scalar", f"arg{i}", value=a))
        else:                                  # Local
            args.append(Argument("local", f"arg{i}", nbytes=int(a.nbytes)))
    return KernelSpec(name, ProgramSource("binary", code), case.kernel, tuple(case.grid),
                      tuple(case.block), args)


def _no_unknown(d: dict, known: set, where: str) -> None:
    extra = sorted(set(d) - known)
    if extra:
        raise ManifestError(f"{where}: unknown key(s) {extra}; known: {sorted(known)}")


def _list(v, where):
    if not isinstance(v, list):
        raise ManifestError(f"{where}: a list is needed, not {type(v).__name__}")
    return v


def _dims(v, where, most: int = 3, zero: bool = False) -> tuple:
    dims = v if isinstance(v, list) else [v]
    if not 1 <= len(dims) <= most or not all(isinstance(d, int) and not isinstance(d, bool)
                                              and d >= (0 if zero else 1) for d in dims):
        raise ManifestError(f"{where}: 1 to {most} {'non-negative' if zero else 'positive'} "
                            f"integers, not {v!r}")
    return tuple(dims)


def _path(base: Path, p) -> Path:
    return Path(p) if os.path.isabs(str(p)) else base / str(p)


def _npy(base: Path, p, where) -> np.ndarray:
    path = _path(base, p)
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise ManifestError(f"{where}: cannot read {path}: {e}") from None
