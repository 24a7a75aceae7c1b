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

from ..errors import LoaderError

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
