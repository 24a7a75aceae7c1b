"""Run piglit's OpenCL program/execute tests (.cl files with a /*! [config] ... !*/ header,
and .program_test files) through gcnemu.cl, and print pass/fail/skip totals with reasons.

    git clone https://gitlab.freedesktop.org/mesa/piglit.git    # once, anywhere
    python tools/piglit_cl.py piglit/tests/cl/program/execute [-v]

Fetches nothing itself. What it reads of piglit's format: [config] (name, clc_version_min,
build_options, kernel_name, dimensions, global_size, local_size, program_source_file,
require_device_extensions) and [test] sections (kernel_name, dimensions, global_size,
local_size, arg_in / arg_out: "IDX buffer TYPE[N] values" with "repeat" and "tolerance
X[ulp]", "IDX TYPE value" scalars, "IDX buffer TYPE[N] random" skipped). A vector type
(float4, int3) has 4 elements per item for 3 and 4, as in OpenCL memory.
"""
from __future__ import annotations

import argparse
import collections
import re
import sys
from pathlib import Path

import numpy as np

TYPES = {"char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16,
         "int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64,
         "float": np.float32, "double": np.float64, "half": np.float16}


class Skip(Exception):
    pass


def parse_sections(text):
    sections, cur = [], None
    text = re.sub(r"\\[ \t]*(#[^\n]*)?\n", " ", text)     # a '\' at the end of a line continues it
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip() if not raw.strip().startswith("#") else ""
        if not line:
            continue
        m = re.fullmatch(r"\[(\w+)\]", line)
        if m:
            cur = (m.group(1), collections.OrderedDict(), [])
            sections.append(cur)
            continue
        if cur is None or ":" not in line:
            continue
        k, v = (s.strip() for s in line.split(":", 1))
        if k in ("arg_in", "arg_out"):
            cur[2].append((k, v))
        else:
            cur[1][k] = v
    return sections


def _type(name):
    m = re.fullmatch(r"([a-z]+)(\d*)", name)
    if not m or m.group(1) not in TYPES:
        raise Skip(f"type {name}")
    n = int(m.group(2) or 1)
    return np.dtype(TYPES[m.group(1)]), (4 if n == 3 else n)


def _values(tokens, dtype):
    out = []
    for t in tokens:
        t = t.lower()
        if dtype.kind == "f":
            out.append(float(t) if not t.startswith(("0x", "-0x")) else float.fromhex(t))
        else:
            out.append(int(t, 0))
    return np.array(out, dtype=np.float64 if dtype.kind == "f" else object)


def parse_arg(spec):
    """(index, kind, dtype, count, values or None, tolerance (value, ulp?))"""
    tol = (0, False)
    m = re.search(r"\btolerance\s+(\S+)(\s*ulp)?", spec)
    if m:
        tol = (float(m.group(1)), bool(m.group(2)))
        spec = spec[:m.start()]
    tok = spec.split()
    idx = int(tok[0])
    if tok[1] == "buffer":
        m = re.fullmatch(r"(\w+)\[(\d+)\]", tok[2])
        dtype, per = _type(m.group(1))
        count = int(m.group(2)) * per
        rest = tok[3:]
        if rest and rest[0].lower() == "null":
            return idx, "null", dtype, count, None, tol
        if rest and rest[0] == "random":
            raise Skip("random buffer values")
        repeat = bool(rest) and rest[0] == "repeat"
        if repeat:
            rest = rest[1:]
        vals = _values(rest, dtype)
        if m.group(1).endswith("3"):
            # a 3-vector takes 4 elements in memory; the file gives 3 values an item, and
            # the padding element is not compared (marked None)
            items = int(m.group(2))
            vals = np.resize(vals, 3 * items).reshape(items, 3) if (repeat or len(vals) < 3 * items) \
                else vals.reshape(items, 3)
            vals = np.concatenate([vals, np.full((items, 1), None, object)], axis=1).ravel()
        elif repeat or (len(vals) and len(vals) < count):
            vals = np.resize(vals, count)
        return idx, "buffer", dtype, count, vals, tol
    if tok[1] == "local":
        raise Skip("local arguments sized in the test file")
    dtype, per = _type(tok[1])
    return idx, "scalar", dtype, per, np.resize(_values(tok[2:], dtype), per), tol


def _cast(vals, dtype):
    """Values of a test file as ``dtype``: integers wrap to its width as C's conversions do
    (piglit writes 153 for a char of bits 0x99); None (vec3 padding) is 0."""
    vals = [0 if x is None else x for x in vals]
    if dtype.kind in "iu":
        mask = (1 << 8 * dtype.itemsize) - 1
        return np.array([int(x) & mask for x in vals], np.uint64).astype(
            np.dtype(f"u{dtype.itemsize}")).view(dtype)
    return np.array(vals, np.float64).astype(dtype)


def _ints(s):
    return [int(x) for x in s.split()]


def run_file(path: Path, cl, ctx, queue):
    """[(test name, 'pass'|'fail'|'skip', reason)]"""
    text = path.read_text()
    if path.suffix == ".cl":
        m = re.search(r"/\*!(.*?)!\*/", text, re.S)
        if not m:
            return [(path.name, "skip", "no /*! config !*/ header")]
        sections, source = parse_sections(m.group(1)), text
    else:
        sections = parse_sections(text)
        cfg = dict(sections[0][1]) if sections else {}
        if "program_source_file" not in cfg:
            return [(path.name, "skip", "program_test without program_source_file")]
        source = (path.parent / cfg["program_source_file"]).read_text()
    cfg = next((s[1] for s in sections if s[0] == "config"), {})
    if float(cfg.get("clc_version_min", 10)) > 12:
        return [(path.name, "skip", "needs OpenCL C > 1.2")]
    ext = cfg.get("require_device_extensions", "")
    missing = [e for e in ext.split() if e not in ctx.devices[0].extensions]
    if missing:
        return [(path.name, "skip", f"extension {missing[0]}")]
    try:
        prg = cl.Program(ctx, source).build(options=cfg.get("build_options", ""))
    except cl.RuntimeError as e:
        first = [ln for ln in str(e).splitlines() if "error" in ln][:1]
        return [(path.name, "fail", f"build: {first[0] if first else e}")]
    results = []
    for kind, sec, args in sections:
        if kind != "test":
            continue
        name = f"{path.name}: {sec.get('name', '?')}"
        try:
            results.append((name, *run_test(cl, ctx, queue, prg, {**cfg, **sec}, args)))
        except Skip as e:
            results.append((name, "skip", str(e)))
        except cl.Error as e:
            results.append((name, "fail", str(e).splitlines()[0][:200]))
    return results


def run_test(cl, ctx, queue, prg, sec, args):
    dims = int(sec.get("dimensions", 1))
    gsize = _ints(sec.get("global_size", "1 0 0"))[:dims]
    offset = _ints(sec["global_offset"])[:dims] if "global_offset" in sec else None
    lsize = _ints(sec["local_size"])[:dims] if "local_size" in sec else None
    knl = getattr(prg, sec["kernel_name"])
    ins, outs = {}, {}
    for kind, spec in args:
        a = parse_arg(spec)
        (ins if kind == "arg_in" else outs)[a[0]] = a
    values = [None] * knl.num_args
    for idx in set(ins) | set(outs):
        src = ins.get(idx) or outs.get(idx)
        _, k, dtype, count, vals, _ = src
        if k == "null":       # a __local argument of that size, or a null pointer
            is_local = knl._params[idx].value_kind == "dynamic_shared_pointer"
            values[idx] = cl.LocalMemory(count * dtype.itemsize) if is_local else None
            continue
        if k == "scalar":
            v = _cast(vals, dtype)
            # a vector by value: one numpy void scalar of its bytes (as pyopencl's cltypes)
            values[idx] = v[0] if count == 1 else np.frombuffer(
                v.tobytes(), np.dtype((np.void, v.nbytes)))[0]
            continue
        host = np.zeros(count, dtype)
        if idx in ins:
            host[:] = _cast(ins[idx][4], dtype)
        values[idx] = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
    given = set(ins) | set(outs)
    if any(i not in given for i in range(knl.num_args)):
        raise Skip("an argument the test does not give")
    if lsize is not None and int(np.prod(lsize)) > ctx.devices[0].max_work_group_size:
        raise Skip(f"local size above the device's max_work_group_size")
    knl(queue, gsize, lsize, *values, global_offset=offset)
    for idx, (_, k, dtype, count, want, (tol, ulp)) in outs.items():
        got = np.empty(count, dtype)
        cl.enqueue_copy(queue, got, values[idx])
        keep = np.array([x is not None for x in want])
        got, want = got[keep], want[keep]
        if dtype.kind == "f":
            w = _cast(want, dtype)
            both_nan = np.isnan(got) & np.isnan(w)
            np.seterr(invalid="ignore")   # inf - inf: nan, not within the tolerance
            if ulp:
                diff = np.abs(got.astype(np.float64) - w) / np.spacing(np.abs(w).astype(dtype)).astype(np.float64)
            else:
                diff = np.abs(got.astype(np.float64) - w)
            with np.errstate(invalid="ignore"):
                ok = both_nan | (got == w) | (diff <= tol)
        else:
            ok = got == _cast(want, dtype)
        if not ok.all():
            i = int(np.argmin(ok))
            return "fail", f"argument {idx} element {i}: got {got[i]}, expected {want[i]}"
    return "pass", ""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", help="piglit test files or folders (tests/cl/program/execute)")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    import gcnemu.cl as cl
    files = []
    for p in map(Path, a.paths):
        files += sorted(p.rglob("*.cl")) + sorted(p.rglob("*.program_test")) if p.is_dir() else [p]
    ctx = cl.create_some_context()
    queue = cl.CommandQueue(ctx)
    totals, reasons = collections.Counter(), collections.Counter()
    for f in files:
        try:
            res = run_file(f, cl, ctx, queue)
        except Skip as e:
            res = [(f.name, "skip", str(e))]
        except Exception as e:      # a parse error of this runner: counted, named
            res = [(f.name, "fail", f"runner: {type(e).__name__}: {e}")]
        for name, status, why in res:
            totals[status] += 1
            if status == "skip":
                reasons[why] += 1
            if a.verbose or status == "fail":
                print(f"{status}: {name} {why}")
    print(f"pass {totals['pass']}, fail {totals['fail']}, skip {totals['skip']}")
    for why, n in reasons.most_common():
        print(f"  skip {n}: {why}")
    return 1 if totals["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
