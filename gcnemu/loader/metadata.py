"""Kernel metadata from the code object's notes.

* v3+/v4/v5: an ``NT_AMDGPU_METADATA`` (type 32, owner "AMDGPU") note holding a msgpack map
  (``amdhsa.version``, ``amdhsa.target`` (v4+), ``amdhsa.kernels``).
* v2: an ``NT_AMD_HSA_METADATA`` (type 10, owner "AMD") note holding YAML with CamelCase keys
  and argument offsets implied by each argument's ``Align``. It is normalised here to the v3
  field names so that the rest of gcnemu sees one shape.
"""
from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from typing import Any, Optional

from ..errors import AssemblerError, LoaderError

NT_AMD_HSA_CODE_OBJECT_VERSION = 1
NT_AMD_HSA_ISA_VERSION = 3
NT_AMD_HSA_METADATA = 10
NT_AMD_HSA_ISA_NAME = 11
NT_AMDGPU_METADATA = 32


@dataclass
class KernelArg:
    """One kernel argument as described by the metadata (v3 names; v2 is translated).

    ``value_kind`` is one of the AMDGPUUsage strings: 'by_value', 'global_buffer',
    'dynamic_shared_pointer', 'image', 'sampler', 'pipe', 'queue', 'hidden_global_offset_x/y/z',
    'hidden_none', 'hidden_printf_buffer', 'hidden_hostcall_buffer', 'hidden_default_queue',
    'hidden_completion_action', 'hidden_multigrid_sync_arg', and for v5 'hidden_block_count_x'...
    ``offset`` is the byte offset in the kernarg segment.
    """

    offset: int
    size: int
    value_kind: str
    name: Optional[str] = None
    type_name: Optional[str] = None
    address_space: Optional[str] = None
    access: Optional[str] = None
    actual_access: Optional[str] = None
    is_const: bool = False
    is_restrict: bool = False
    is_volatile: bool = False
    is_pipe: bool = False
    pointee_align: Optional[int] = None

    @property
    def is_hidden(self) -> bool:
        """True for arguments the runtime fills (value kinds starting with 'hidden_')."""
        return self.value_kind.startswith("hidden_")


def parse_notes(data: bytes) -> list[tuple[str, int, bytes]]:
    """Split an ELF note section/segment into (owner, type, desc) triples."""
    notes = []
    pos = 0
    while pos + 12 <= len(data):
        namesz, descsz, ntype = struct.unpack_from("<III", data, pos)
        pos += 12
        name_end = pos + namesz
        desc_start = (name_end + 3) & ~3
        desc_end = desc_start + descsz
        if desc_end > len(data):
            raise LoaderError(f"malformed ELF note at offset {pos - 12}: descriptor runs past the end")
        owner = data[pos:name_end].rstrip(b"\0").decode("ascii", "replace")
        notes.append((owner, ntype, data[desc_start:desc_end]))
        pos = (desc_end + 3) & ~3
    return notes


#: the largest value a size, offset or count field of the metadata may hold: sizes past this are
#: no kernel's (the kernarg segment of a dispatch is checked against its own limit)
_MAX_FIELD = 1 << 32


class _Fields:
    """Typed reads of one metadata map, each failure a LoaderError naming the map and key."""

    def __init__(self, d, where: str):
        if not isinstance(d, dict):
            raise LoaderError(f"{where} must be a map, not {type(d).__name__}")
        self.d, self.where = d, where

    def _bad(self, key, want):
        return LoaderError(f"{self.where}: {key} must be {want}, got {self.d[key]!r}")

    def int(self, key, required=False, lo=0, hi=_MAX_FIELD):
        if key not in self.d:
            if required:
                raise LoaderError(f"{self.where} lacks the required key {key!r}")
            return None
        v = self.d[key]
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise self._bad(key, f"an integer in [{lo}, {hi}]")
        return v

    def str(self, key, required=False):
        if key not in self.d:
            if required:
                raise LoaderError(f"{self.where} lacks the required key {key!r}")
            return None
        if not isinstance(self.d[key], str):
            raise self._bad(key, "a string")
        return self.d[key]

    def flag(self, key):
        v = self.d.get(key, False)
        if not isinstance(v, (bool, int)) or isinstance(v, int) and v not in (0, 1):
            raise self._bad(key, "true or false")
        return bool(v)

    def ints(self, key, n=None, lo=0, hi=_MAX_FIELD):
        if key not in self.d:
            return None
        v = self.d[key]
        if not isinstance(v, (list, tuple)) or (n is not None and len(v) != n) or \
                any(isinstance(x, bool) or not isinstance(x, int) or not lo <= x <= hi for x in v):
            raise self._bad(key, f"a list of {n or 'some'} integers in [{lo}, {hi}]")
        return tuple(v)

    def maps(self, key):
        v = self.d.get(key, [])
        if not isinstance(v, (list, tuple)):
            raise self._bad(key, "a list")
        return v


def _arg_from_v3(d: dict, where: str) -> KernelArg:
    f = _Fields(d, where)
    return KernelArg(
        offset=f.int(".offset", required=True),
        size=f.int(".size", required=True),
        value_kind=f.str(".value_kind", required=True),
        name=f.str(".name"),
        type_name=f.str(".type_name"),
        address_space=f.str(".address_space"),
        access=f.str(".access"),
        actual_access=f.str(".actual_access"),
        is_const=f.flag(".is_const"),
        is_restrict=f.flag(".is_restrict"),
        is_volatile=f.flag(".is_volatile"),
        is_pipe=f.flag(".is_pipe"),
        pointee_align=f.int(".pointee_align", lo=1),
    )


def _kernel_from_v3(d: dict, where: str) -> dict[str, Any]:
    f = _Fields(d, where)
    name = f.str(".name", required=True)
    where = f"kernel {name!r} metadata"
    f.where = where
    return {
        "name": name,
        "symbol": f.str(".symbol"),
        "args": [_arg_from_v3(a, f"{where}: argument {i}") for i, a in enumerate(f.maps(".args"))],
        "kernarg_segment_size": f.int(".kernarg_segment_size"),
        "kernarg_segment_align": f.int(".kernarg_segment_align", lo=1),
        "wavefront_size": f.int(".wavefront_size", lo=1),
        "sgpr_count": f.int(".sgpr_count"),
        "vgpr_count": f.int(".vgpr_count"),
        "sgpr_spill_count": f.int(".sgpr_spill_count"),
        "vgpr_spill_count": f.int(".vgpr_spill_count"),
        "private_segment_fixed_size": f.int(".private_segment_fixed_size"),
        "group_segment_fixed_size": f.int(".group_segment_fixed_size"),
        "max_flat_workgroup_size": f.int(".max_flat_workgroup_size", lo=1),
        "reqd_workgroup_size": f.ints(".reqd_workgroup_size", 3, lo=1),
        "workgroup_size_hint": f.ints(".workgroup_size_hint", 3, lo=1),
        "language": f.str(".language"),
        "language_version": f.ints(".language_version"),
        "uses_dynamic_stack": f.flag(".uses_dynamic_stack"),
    }


def parse_msgpack_metadata(desc: bytes) -> dict[str, Any]:
    """Decode an NT_AMDGPU_METADATA msgpack blob into {'version', 'target', 'kernels'}."""
    import msgpack

    try:
        doc = msgpack.unpackb(desc, raw=False, strict_map_key=False)
    except Exception as e:  # msgpack raises several unrelated types
        raise LoaderError(f"NT_AMDGPU_METADATA note is not valid msgpack: {e}") from None
    f = _Fields(doc, "NT_AMDGPU_METADATA")
    return {
        "version": f.ints("amdhsa.version") or (),
        "target": f.str("amdhsa.target"),
        "kernels": [_kernel_from_v3(k, f"amdhsa.kernels[{i}]")
                    for i, k in enumerate(f.maps("amdhsa.kernels"))],
    }


# v2 YAML ValueKind -> v3 value_kind where the mechanical CamelCase -> snake_case is wrong.
_V2_KIND = {
    "HiddenMultiGridSyncArg": "hidden_multigrid_sync_arg",
    "HiddenHostcallBuffer": "hidden_hostcall_buffer",
}


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def _llvm_yaml_loader(yaml):
    """A SafeLoader for LLVM's YAML: no YAML-1.1 booleans (an argument called 'on' or 'y' stays
    a string; LLVM writes true/false for flags) and LLVM's explicit '!str' tag."""

    class LLVMYamlLoader(yaml.SafeLoader):
        pass

    LLVMYamlLoader.yaml_implicit_resolvers = {
        k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:bool"]
        for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
    LLVMYamlLoader.add_implicit_resolver(
        "tag:yaml.org,2002:bool", re.compile(r"^(?:true|false)$"), list("tf"))
    LLVMYamlLoader.add_constructor("!str", lambda loader, node: loader.construct_scalar(node))
    return LLVMYamlLoader


def parse_yaml_metadata(desc: bytes) -> dict[str, Any]:
    """Decode a v2 NT_AMD_HSA_METADATA YAML document; offsets are computed from Align."""
    try:
        import yaml
    except ImportError:  # pragma: no cover - pyyaml is present where clang-built v2 is tested
        raise LoaderError("code object v2 metadata is YAML; install PyYAML to load it") from None
    try:
        doc = yaml.load(desc.rstrip(b"\0").decode("utf-8"), Loader=_llvm_yaml_loader(yaml))
    except Exception as e:
        raise LoaderError(f"NT_AMD_HSA_METADATA note is not valid YAML: {e}") from None
    top = _Fields(doc, "NT_AMD_HSA_METADATA")
    kernels = []
    for ki, k in enumerate(top.maps("Kernels") or []):
        kf = _Fields(k, f"Kernels[{ki}]")
        name = kf.str("Name", required=True)
        where = f"kernel {name!r} metadata"
        args = []
        offset = 0
        for ai, a in enumerate(_Fields(k, where).maps("Args") or []):
            af = _Fields(a, f"{where}: argument {ai}")
            size = af.int("Size", required=True)
            align = af.int("Align", lo=1, hi=1 << 16)
            if align is None:
                align = size if size in (1, 2, 4, 8) else 8
            offset = _align(offset, align)
            vk = af.str("ValueKind", required=True)
            qual = {key: _snake(af.str(key)) if key in a else None
                    for key in ("AddrSpaceQual", "AccQual", "ActualAccQual")}
            args.append(KernelArg(
                offset=offset,
                size=size,
                value_kind=_V2_KIND.get(vk, _snake(vk)),
                name=af.str("Name"),
                type_name=af.str("TypeName"),
                address_space=qual["AddrSpaceQual"],
                access=qual["AccQual"],
                actual_access=qual["ActualAccQual"],
                is_const=af.flag("IsConst"),
                is_restrict=af.flag("IsRestrict"),
                is_volatile=af.flag("IsVolatile"),
                is_pipe=af.flag("IsPipe"),
                pointee_align=af.int("PointeeAlign", lo=1),
            ))
            offset += size
        cp = _Fields(k.get("CodeProps") or {}, f"{where}: CodeProps")
        attrs = _Fields(k.get("Attrs") or {}, f"{where}: Attrs")
        kernels.append({
            "name": name,
            "symbol": kf.str("SymbolName"),
            "args": args,
            "kernarg_segment_size": cp.int("KernargSegmentSize"),
            "kernarg_segment_align": cp.int("KernargSegmentAlign", lo=1),
            "wavefront_size": cp.int("WavefrontSize", lo=1),
            "sgpr_count": cp.int("NumSGPRs"),
            "vgpr_count": cp.int("NumVGPRs"),
            "sgpr_spill_count": cp.int("NumSpilledSGPRs") or 0,
            "vgpr_spill_count": cp.int("NumSpilledVGPRs") or 0,
            "private_segment_fixed_size": cp.int("PrivateSegmentFixedSize"),
            "group_segment_fixed_size": cp.int("GroupSegmentFixedSize"),
            "max_flat_workgroup_size": cp.int("MaxFlatWorkGroupSize", lo=1),
            "reqd_workgroup_size": attrs.ints("ReqdWorkGroupSize", 3, lo=1),
            "workgroup_size_hint": attrs.ints("WorkGroupSizeHint", 3, lo=1),
            "language": kf.str("Language"),
            "language_version": kf.ints("LanguageVersion"),
            "uses_dynamic_stack": cp.flag("IsDynamicCallStack"),
        })
    return {"version": top.ints("Version") or (), "target": None, "kernels": kernels}


# ---------------------------------------------------------------------------------------------
# .amdgpu_metadata (YAML in assembly) to the msgpack of the NT_AMDGPU_METADATA note, as llvm-mc
# 14 makes it: scalars typed as LLVM's msgpack::DocNode::fromString types them, the document
# checked as LLVM 14's HSAMD::V3::MetadataVerifier checks it (not strict), maps written with
# their keys sorted, every number in its smallest encoding.

_BOOL_WORDS = {w: True for w in ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on",
                                 "On", "ON")}
_BOOL_WORDS.update({w: False for w in ("n", "N", "no", "No", "NO", "false", "False", "FALSE",
                                       "off", "Off", "OFF")})
_UINT_RE = re.compile(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO]?[0-7]*|[1-9][0-9]*)$")


class _Float:
    """A float scalar: llvm-mc 14 writes it as msgpack nil."""

    def __eq__(self, other):
        return isinstance(other, _Float)

    def __hash__(self):
        return 0


def _llvm_uint(s: str):
    if not _UINT_RE.match(s):
        return None
    low = s.lower()
    base = 16 if low.startswith("0x") else 2 if low.startswith("0b") else \
        8 if low.startswith("0o") or (len(s) > 1 and s[0] == "0") else 10
    digits = s[2:] if low.startswith(("0x", "0b", "0o")) else s
    v = int(digits or "0", base) if digits or base == 8 else None
    return v if v is not None and v < (1 << 64) else None


def _llvm_scalar(s: str, tag: str):
    """The value LLVM 14 gives a YAML scalar (msgpack::DocNode::fromString): an unsigned,
    then a signed integer, a boolean (YAML 1.1 words), a float, else a string; an explicit
    tag (!int, !bool, !float, !str, !nil) picks the type."""
    if tag in ("!str",):
        return s
    if tag == "!nil":
        return None
    if tag in ("", "!int"):
        v = _llvm_uint(s)
        if v is None and s.startswith("-"):
            v = _llvm_uint(s[1:])
            v = -v if v is not None and v <= (1 << 63) else None
        if v is not None:
            return v
        if tag:
            raise ValueError("invalid number")
    if tag in ("", "!bool"):
        if s in _BOOL_WORDS:
            return _BOOL_WORDS[s]
        if tag:
            raise ValueError("invalid boolean")
    if tag in ("", "!float"):
        try:
            if "_" not in s and s.strip() == s and s:
                float.fromhex(s) if re.match(r"[-+]?0[xX]", s) else float(s)
                return _Float()
        except ValueError:
            pass
        if tag:
            raise ValueError("invalid floating point number")
        if s == "":
            return None
    if tag not in ("", "!str"):
        raise ValueError(f"unsupported tag {tag}")
    return s


def _yaml_doc(node, first_line):
    """(value, line) tree of a composed YAML node: dicts of {key: (value, line)}, lists of
    (value, line), scalars typed as LLVM types them."""
    import yaml

    line = first_line + node.start_mark.line
    if isinstance(node, yaml.MappingNode):
        out = {}
        for k, v in node.value:
            key = _yaml_doc(k, first_line)[0]
            if isinstance(key, (dict, list)):
                raise AssemblerError(".amdgpu_metadata: a map key must be a scalar",
                                     first_line + k.start_mark.line)
            out[key] = _yaml_doc(v, first_line)
        return out, line
    if isinstance(node, yaml.SequenceNode):
        return [_yaml_doc(v, first_line) for v in node.value], line
    tag = node.tag if node.tag.startswith("!") else ""
    try:
        return _llvm_scalar(node.value, tag), line
    except ValueError as e:
        raise AssemblerError(f".amdgpu_metadata: '{node.value}': {e}", line) from None


#: value kinds llvm-mc 14 accepts for an argument
_V3_VALUE_KINDS = frozenset((
    "by_value", "global_buffer", "dynamic_shared_pointer", "sampler", "image", "pipe", "queue",
    "hidden_global_offset_x", "hidden_global_offset_y", "hidden_global_offset_z", "hidden_none",
    "hidden_printf_buffer", "hidden_hostcall_buffer", "hidden_default_queue",
    "hidden_completion_action", "hidden_multigrid_sync_arg", "hidden_block_count_x",
    "hidden_block_count_y", "hidden_block_count_z", "hidden_group_size_x",
    "hidden_group_size_y", "hidden_group_size_z", "hidden_remainder_x", "hidden_remainder_y",
    "hidden_remainder_z", "hidden_grid_dims", "hidden_private_base", "hidden_shared_base",
    "hidden_queue_ptr"))
_ACCESS = ("read_only", "write_only", "read_write")
#: (key, required, type, allowed values or array length) as LLVM 14's verifier checks them
_ARG_SCHEMA = (
    (".name", False, "str", None), (".type_name", False, "str", None),
    (".size", True, "int", None), (".offset", True, "int", None),
    (".value_kind", True, "str", _V3_VALUE_KINDS), (".pointee_align", False, "int", None),
    (".address_space", False, "str", ("private", "global", "constant", "local", "generic",
                                       "region")),
    (".access", False, "str", _ACCESS), (".actual_access", False, "str", _ACCESS),
    (".is_const", False, "bool", None), (".is_restrict", False, "bool", None),
    (".is_volatile", False, "bool", None), (".is_pipe", False, "bool", None))
_KERNEL_SCHEMA = (
    (".name", True, "str", None), (".symbol", True, "str", None),
    (".language", False, "str", ("OpenCL C", "OpenCL C++", "HCC", "HIP", "OpenMP",
                                 "Assembler")),
    (".language_version", False, "ints", 2), (".args", False, "args", None),
    (".reqd_workgroup_size", False, "ints", 3), (".workgroup_size_hint", False, "ints", 3),
    (".vec_type_hint", False, "str", None), (".device_enqueue_symbol", False, "str", None),
    (".kernarg_segment_size", True, "int", None), (".group_segment_fixed_size", True, "int", None),
    (".private_segment_fixed_size", True, "int", None), (".kernarg_segment_align", True, "int", None),
    (".wavefront_size", True, "int", None), (".sgpr_count", True, "int", None),
    (".vgpr_count", True, "int", None), (".max_flat_workgroup_size", True, "int", None),
    (".sgpr_spill_count", False, "int", None), (".vgpr_spill_count", False, "int", None))


def _check_map(m, line, schema, where):
    if not isinstance(m, dict):
        raise AssemblerError(f".amdgpu_metadata: {where} must be a map", line)
    for key, required, kind, allowed in schema:
        if key not in m:
            if required:
                raise AssemblerError(f".amdgpu_metadata: {where} has no {key} (llvm-mc "
                                     f"requires it)", line)
            continue
        v, vline = m[key]
        if kind in ("int", "str") and isinstance(v, str) and kind == "int":
            try:       # as the verifier (not strict): a string is typed again
                v2 = _llvm_scalar(v, "")
            except ValueError:
                v2 = v
            if isinstance(v2, int) and not isinstance(v2, bool):
                m[key] = (v2, vline)
                v = v2
        ok = {"int": isinstance(v, int) and not isinstance(v, bool),
              "str": isinstance(v, str) and (allowed is None or v in allowed),
              "bool": isinstance(v, bool),
              "ints": isinstance(v, list) and len(v) == allowed and all(
                  isinstance(x, int) and not isinstance(x, bool) for x, _ in v),
              "args": isinstance(v, list)}[kind]
        if not ok:
            want = {"int": "an integer", "bool": "true or false",
                    "str": "one of " + ", ".join(sorted(allowed)) if allowed else "a string",
                    "ints": f"a list of {allowed} integers", "args": "a list of maps"}[kind]
            raise AssemblerError(f".amdgpu_metadata: {where}: {key} must be {want}", vline)
        if kind == "args":
            for i, (a, aline) in enumerate(v):
                _check_map(a, aline, _ARG_SCHEMA, f"{where}, argument {i}")


def _plain(v):
    if isinstance(v, tuple):
        v = v[0]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def _msgpack_key(k):
    # msgpack::DocNode order: by type (Int, UInt, Nil, Boolean, Float, String), then value
    if isinstance(k, bool):
        return (3, k)
    if isinstance(k, int):
        return (0, k) if k < 0 else (1, k)
    if k is None:
        return (2, 0)
    if isinstance(k, _Float):
        return (4, 0)
    return (5, k.encode())


def _pack(v, out: bytearray):
    """LLVM's msgpack::Writer (not 'compatible': str8 is used)."""
    if v is None or isinstance(v, _Float):
        out.append(0xC0)
    elif isinstance(v, bool):
        out.append(0xC3 if v else 0xC2)
    elif isinstance(v, int):
        if v >= 0:
            for lim, head, n in ((0x7F, None, 0), (0xFF, 0xCC, 1), (0xFFFF, 0xCD, 2),
                                 (0xFFFFFFFF, 0xCE, 4), ((1 << 64) - 1, 0xCF, 8)):
                if v <= lim:
                    out += bytes([v]) if head is None else bytes([head]) + v.to_bytes(n, "big")
                    break
        elif v >= -32:
            out.append(v & 0xFF)
        else:
            for lo, head, n in ((-128, 0xD0, 1), (-32768, 0xD1, 2), (-(1 << 31), 0xD2, 4),
                                (-(1 << 63), 0xD3, 8)):
                if v >= lo:
                    out += bytes([head]) + v.to_bytes(n, "big", signed=True)
                    break
    elif isinstance(v, str):
        b = v.encode()
        n = len(b)
        out += bytes([0xA0 | n]) if n < 32 else bytes([0xD9, n]) if n < 256 else \
            bytes([0xDA]) + n.to_bytes(2, "big") if n < 65536 else bytes([0xDB]) + n.to_bytes(4, "big")
        out += b
    elif isinstance(v, list):
        n = len(v)
        out += bytes([0x90 | n]) if n < 16 else bytes([0xDC]) + n.to_bytes(2, "big") \
            if n < 65536 else bytes([0xDD]) + n.to_bytes(4, "big")
        for x in v:
            _pack(x, out)
    else:
        n = len(v)
        out += bytes([0x80 | n]) if n < 16 else bytes([0xDE]) + n.to_bytes(2, "big") \
            if n < 65536 else bytes([0xDF]) + n.to_bytes(4, "big")
        for k in sorted(v, key=_msgpack_key):
            _pack(k, out)
            _pack(v[k], out)


def metadata_msgpack_from_yaml(text: str, first_line: int = 1) -> bytes:
    """The NT_AMDGPU_METADATA descriptor (msgpack) of an ``.amdgpu_metadata`` YAML document,
    byte for byte what llvm-mc 14 writes. ``first_line`` is the source line of the document's
    first line; AssemblerError names the line of a problem."""
    import yaml

    try:
        node = yaml.compose(text, Loader=yaml.BaseLoader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise AssemblerError(f".amdgpu_metadata is not valid YAML: "
                             f"{getattr(e, 'problem', None) or e}",
                             first_line + mark.line if mark else first_line) from None
    if node is None:
        raise AssemblerError(".amdgpu_metadata is empty", first_line)
    doc, line = _yaml_doc(node, first_line)
    if not isinstance(doc, dict):
        raise AssemblerError(".amdgpu_metadata must be a map (amdhsa.version, amdhsa.kernels)",
                             line)
    for key in ("amdhsa.version", "amdhsa.kernels"):
        if key not in doc:
            raise AssemblerError(f".amdgpu_metadata has no {key}", line)
    ver, vline = doc["amdhsa.version"]
    if not (isinstance(ver, list) and len(ver) == 2 and all(
            isinstance(x, int) and not isinstance(x, bool) for x, _ in ver)):
        raise AssemblerError(".amdgpu_metadata: amdhsa.version must be two integers", vline)
    if "amdhsa.printf" in doc:
        pv, pline = doc["amdhsa.printf"]
        if not isinstance(pv, list) or not all(isinstance(x, str) for x, _ in pv):
            raise AssemblerError(".amdgpu_metadata: amdhsa.printf must be a list of strings",
                                 pline)
    kernels, kline = doc["amdhsa.kernels"]
    if not isinstance(kernels, list):
        raise AssemblerError(".amdgpu_metadata: amdhsa.kernels must be a list of maps", kline)
    for i, (k, kl) in enumerate(kernels):
        name = k.get(".name", ("?",))[0] if isinstance(k, dict) else "?"
        _check_map(k, kl, _KERNEL_SCHEMA, f"kernel {i} ({name})")
    out = bytearray()
    _pack(_plain(doc), out)
    return bytes(out)
