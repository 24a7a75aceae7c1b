"""Run piglit's OpenCL program/execute tests (.cl files with a /*! [config] ... !*/ header,
and .program_test files) through gcnemu.cl, and print pass/fail/skip totals with reasons.

    git clone https://gitlab.freedesktop.org/mesa/piglit.git    # once, anywhere
    python tools/piglit_cl.py piglit/tests/cl/program/execute [-v]

Fetches nothing itself. What it reads of piglit's format: [config] (name, clc_version_min,
build_options, kernel_name, dimensions, global_size, local_size, program_source_file,
require_device_extensions) and [test] sections (kernel_name, dimensions, global_size,
local_size, need_image_support, arg_in / arg_out: "IDX buffer TYPE[N] values" with
"repeat" and "tolerance X[ulp]", "IDX TYPE value" scalars, "IDX buffer TYPE[N] random"
skipped; images "IDX image TYPE values image_type 2d image_width W image_height H
image_channel_order O image_channel_data_type T" (the values are the texels' bytes as TYPE,
row after row; an arg_in image is READ_ONLY, an arg_out one WRITE_ONLY and compared after the
run); samplers "IDX sampler normalized_coords B addressing_mode M filter_mode F", arg_in only).
A vector type (float4, int3) has 4 elements per item for 3 and 4, as in OpenCL memory.
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


class Arg(collections.namedtuple("Arg", "idx kind dtype count values tol props")):
    """One parsed argument: ``kind`` is buffer, null, scalar, image or sampler; ``count``
    elements of ``dtype``; ``values`` (None for none given; None entries are not compared);
    ``tol`` (value, in ulp?); ``props`` the image or sampler properties."""

    __slots__ = ()


#: piglit's image and sampler words -> gcnemu.cl attribute names (piglit accepts either case)
IMAGE_PROPS = ("image_type", "image_width", "image_height", "image_channel_order",
               "image_channel_data_type")
SAMPLER_PROPS = ("normalized_coords", "addressing_mode", "filter_mode")
CHANNEL_ORDERS = {"r": "R", "rx": "Rx", "a": "A", "intensity": "INTENSITY",
                  "luminance": "LUMINANCE", "rg": "RG", "rgx": "RGx", "ra": "RA", "rgb": "RGB",
                  "rgbx": "RGBx", "rgba": "RGBA", "argb": "ARGB", "bgra": "BGRA"}
BOOLS = {"0": False, "false": False, "1": True, "true": True}


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


def _props(tokens, names, spec):
    """The ``name value`` pairs that end an image or sampler argument, in piglit's order."""
    if len(tokens) != 2 * len(names) or tokens[0::2] != list(names):
        raise ValueError(f"expected {' '.join(n + ' VALUE' for n in names)} in {spec!r}")
    return dict(zip(tokens[0::2], tokens[1::2]))


def _parse_image(idx, tok, spec, tol):
    dtype, per = _type(tok[2])
    if tok[2].endswith("3"):
        raise Skip("image of a 3-vector type")
    start = len(tok) - 2 * len(IMAGE_PROPS)
    props = _props(tok[start:], IMAGE_PROPS, spec)
    if props["image_type"].lower() != "2d":   # piglit's own runner takes 2d images only
        raise Skip(f"image_type {props['image_type']}")
    w, h = int(props["image_width"], 0), int(props["image_height"], 0)
    count = w * h * per
    rest = tok[3:start]
    if rest and rest[0].lower() == "random":
        raise Skip("random image values")
    if not rest or rest[0].lower() == "null":
        raise ValueError(f"an image argument needs values: {spec!r}")
    repeat = rest[0].lower() == "repeat"
    vals = _values(rest[1:] if repeat else rest, dtype)
    if repeat:
        vals = np.resize(vals, count)
    elif len(vals) != count:
        raise ValueError(f"image of {w}x{h} {tok[2]} texels takes {count} values, "
                         f"not {len(vals)}: {spec!r}")
    return Arg(idx, "image", dtype, count, vals, tol, props)


def parse_arg(spec):
    """An :class:`Arg` of one ``arg_in:`` / ``arg_out:`` value."""
    tol = (0, False)
    m = re.search(r"\btolerance\s+(\S+)(\s*ulp)?", spec)
    if m:
        tol = (float(m.group(1)), bool(m.group(2)))
        spec = spec[:m.start()] + spec[m.end():]
    tok = spec.split()
    idx = int(tok[0])
    if tok[1] == "image":
        return _parse_image(idx, tok, spec, tol)
    if tok[1] == "sampler":
        return Arg(idx, "sampler", None, 0, None, tol, _props(tok[2:], SAMPLER_PROPS, spec))
    if tok[1] == "buffer":
        m = re.fullmatch(r"(\w+)\[(\d+)\]", tok[2])
        dtype, per = _type(m.group(1))
        count = int(m.group(2)) * per
        rest = tok[3:]
        if rest and rest[0].lower() == "null":
            return Arg(idx, "null", dtype, count, None, tol, {})
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
        return Arg(idx, "buffer", dtype, count, vals, tol, {})
    if tok[1] == "local":
        raise Skip("local arguments sized in the test file")
    dtype, per = _type(tok[1])
    return Arg(idx, "scalar", dtype, per, np.resize(_values(tok[2:], dtype), per), tol, {})


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
    if BOOLS.get(cfg.get("need_image_support", "0").lower()) and not ctx.devices[0].image_support:
        return [(path.name, "skip", "the device has no image support")]
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


def _enum(cls, name, what):
    """cl.channel_order / channel_type / addressing_mode / filter_mode value of a piglit word."""
    v = getattr(cls, name, None)
    if not isinstance(v, int):
        raise ValueError(f"{what} {name!r} is not one of OpenCL's")
    return v


def _device_arg(cl, ctx, knl, a, is_in):
    """The kernel argument for ``a``: a Buffer (the arg_in values, or zeros), an Image (the
    arg_in texels, or none for arg_out), a Sampler, a scalar, a LocalMemory or None."""
    if a.kind == "null":       # a __local argument of that size, or a null pointer
        is_local = knl._params[a.idx].value_kind == "dynamic_shared_pointer"
        return cl.LocalMemory(a.count * a.dtype.itemsize) if is_local else None
    if a.kind == "scalar":
        v = _cast(a.values, a.dtype)
        # a vector by value: one numpy void scalar of its bytes (as pyopencl's cltypes)
        return v[0] if a.count == 1 else np.frombuffer(v.tobytes(), np.dtype((np.void, v.nbytes)))[0]
    if a.kind == "sampler":
        if not is_in:
            raise ValueError(f"argument {a.idx}: a sampler is an arg_in only")
        p = a.props
        normalized = BOOLS.get(p["normalized_coords"].lower())
        if normalized is None:
            raise ValueError(f"normalized_coords {p['normalized_coords']!r}: 0, 1, false or true")
        return cl.Sampler(ctx, normalized,
                          _enum(cl.addressing_mode, p["addressing_mode"].upper(), "addressing_mode"),
                          _enum(cl.filter_mode, p["filter_mode"].upper(), "filter_mode"))
    mf = cl.mem_flags
    if a.kind == "image":
        p = a.props
        order = CHANNEL_ORDERS.get(p["image_channel_order"].lower())
        if order is None:
            raise ValueError(f"image_channel_order {p['image_channel_order']!r} is not one of OpenCL's")
        fmt = cl.ImageFormat(_enum(cl.channel_order, order, "image_channel_order"),
                             _enum(cl.channel_type, p["image_channel_data_type"].upper(),
                                   "image_channel_data_type"))
        shape = (int(p["image_width"], 0), int(p["image_height"], 0))
        texel = a.dtype.itemsize * a.count // (shape[0] * shape[1])
        if texel != fmt.itemsize:
            raise ValueError(f"argument {a.idx}: {texel}-byte values for {fmt!r} texels of "
                             f"{fmt.itemsize} bytes")
        if not is_in:
            return cl.Image(ctx, mf.WRITE_ONLY, fmt, shape=shape)
        return cl.Image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, fmt, shape=shape,
                        hostbuf=_cast(a.values, a.dtype))
    host = np.zeros(a.count, a.dtype)
    if is_in:
        host[:] = _cast(a.values, a.dtype)
    return cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=host)


def run_test(cl, ctx, queue, prg, sec, args):
    dims = int(sec.get("dimensions", 1))
    gsize = _ints(sec.get("global_size", "1 0 0"))[:dims]
    offset = _ints(sec["global_offset"])[:dims] if "global_offset" in sec else None
    lsize = _ints(sec["local_size"])[:dims] if "local_size" in sec else None
    knl = getattr(prg, sec["kernel_name"])
    ins, outs = {}, {}
    for kind, spec in args:
        a = parse_arg(spec)
        (ins if kind == "arg_in" else outs)[a.idx] = a
    values = [None] * knl.num_args
    for idx in set(ins) | set(outs):
        a = ins.get(idx) or outs.get(idx)
        if a.kind in ("image", "sampler") and idx in ins and idx in outs:
            raise ValueError(f"argument {idx}: an {a.kind} is arg_in or arg_out, not both")
        values[idx] = _device_arg(cl, ctx, knl, a, idx in ins)
    given = set(ins) | set(outs)
    if any(i not in given for i in range(knl.num_args)):
        raise Skip("an argument the test does not give")
    if lsize is not None and int(np.prod(lsize)) > ctx.devices[0].max_work_group_size:
        raise Skip("local size above the device's max_work_group_size")
    knl(queue, gsize, lsize, *values, global_offset=offset)
    for idx, a in outs.items():
        got = np.empty(a.count, a.dtype)
        cl.enqueue_copy(queue, got, values[idx])
        want, (tol, ulp) = a.values, a.tol
        keep = np.array([x is not None for x in want])
        got, want = got[keep], want[keep]
        if a.dtype.kind == "f":
            w = _cast(want, a.dtype)
            both_nan = np.isnan(got) & np.isnan(w)
            np.seterr(invalid="ignore")   # inf - inf: nan, not within the tolerance
            if ulp:
                diff = np.abs(got.astype(np.float64) - w) / np.spacing(np.abs(w).astype(a.dtype)).astype(np.float64)
            else:
                diff = np.abs(got.astype(np.float64) - w)
            with np.errstate(invalid="ignore"):
                ok = both_nan | (got == w) | (diff <= tol)
        else:
            ok = got == _cast(want, a.dtype)
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
