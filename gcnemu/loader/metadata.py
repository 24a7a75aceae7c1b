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
from dataclasses import dataclass, field
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


def _arg_from_v3(d: dict) -> KernelArg:
    try:
        return KernelArg(
            offset=int(d[".offset"]),
            size=int(d[".size"]),
            value_kind=str(d[".value_kind"]),
            name=d.get(".name"),
            type_name=d.get(".type_name"),
            address_space=d.get(".address_space"),
            access=d.get(".access"),
            actual_access=d.get(".actual_access"),
            is_const=bool(d.get(".is_const", False)),
            is_restrict=bool(d.get(".is_restrict", False)),
            is_volatile=bool(d.get(".is_volatile", False)),
            is_pipe=bool(d.get(".is_pipe", False)),
            pointee_align=d.get(".pointee_align"),
        )
    except KeyError as e:
        raise LoaderError(f"kernel argument metadata lacks required key {e.args[0]!r}: {d!r}") from None


def _kernel_from_v3(d: dict) -> dict[str, Any]:
    return {
        "name": d.get(".name"),
        "symbol": d.get(".symbol"),
        "args": [_arg_from_v3(a) for a in d.get(".args", [])],
        "kernarg_segment_size": d.get(".kernarg_segment_size"),
        "kernarg_segment_align": d.get(".kernarg_segment_align"),
        "wavefront_size": d.get(".wavefront_size"),
        "sgpr_count": d.get(".sgpr_count"),
        "vgpr_count": d.get(".vgpr_count"),
        "sgpr_spill_count": d.get(".sgpr_spill_count"),
        "vgpr_spill_count": d.get(".vgpr_spill_count"),
        "private_segment_fixed_size": d.get(".private_segment_fixed_size"),
        "group_segment_fixed_size": d.get(".group_segment_fixed_size"),
        "max_flat_workgroup_size": d.get(".max_flat_workgroup_size"),
        "reqd_workgroup_size": tuple(d[".reqd_workgroup_size"]) if ".reqd_workgroup_size" in d else None,
        "workgroup_size_hint": tuple(d[".workgroup_size_hint"]) if ".workgroup_size_hint" in d else None,
        "language": d.get(".language"),
        "language_version": tuple(d[".language_version"]) if ".language_version" in d else None,
        "uses_dynamic_stack": d.get(".uses_dynamic_stack"),
    }


def parse_msgpack_metadata(desc: bytes) -> dict[str, Any]:
    """Decode an NT_AMDGPU_METADATA msgpack blob into {'version', 'target', 'kernels'}."""
    import msgpack

    try:
        doc = msgpack.unpackb(desc, raw=False, strict_map_key=False)
    except Exception as e:  # msgpack raises several unrelated types
        raise LoaderError(f"NT_AMDGPU_METADATA note is not valid msgpack: {e}") from None
    if not isinstance(doc, dict):
        raise LoaderError("NT_AMDGPU_METADATA note is not a msgpack map")
    return {
        "version": tuple(doc.get("amdhsa.version", ())),
        "target": doc.get("amdhsa.target"),
        "kernels": [_kernel_from_v3(k) for k in doc.get("amdhsa.kernels", [])],
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
    kernels = []
    for k in doc.get("Kernels", []) or []:
        args = []
        offset = 0
        for a in k.get("Args", []) or []:
            size = int(a["Size"])
            align = int(a.get("Align", size if size in (1, 2, 4, 8) else 8))
            offset = _align(offset, align)
            vk = a["ValueKind"]
            args.append(KernelArg(
                offset=offset,
                size=size,
                value_kind=_V2_KIND.get(vk, _snake(vk)),
                name=a.get("Name"),
                type_name=a.get("TypeName"),
                address_space=_snake(a["AddrSpaceQual"]) if "AddrSpaceQual" in a else None,
                access=_snake(a["AccQual"]) if "AccQual" in a else None,
                actual_access=_snake(a["ActualAccQual"]) if "ActualAccQual" in a else None,
                is_const=bool(a.get("IsConst", False)),
                is_restrict=bool(a.get("IsRestrict", False)),
                is_volatile=bool(a.get("IsVolatile", False)),
                is_pipe=bool(a.get("IsPipe", False)),
                pointee_align=a.get("PointeeAlign"),
            ))
            offset += size
        cp = k.get("CodeProps", {}) or {}
        attrs = k.get("Attrs", {}) or {}
        kernels.append({
            "name": k.get("Name"),
            "symbol": k.get("SymbolName"),
            "args": args,
            "kernarg_segment_size": cp.get("KernargSegmentSize"),
            "kernarg_segment_align": cp.get("KernargSegmentAlign"),
            "wavefront_size": cp.get("WavefrontSize"),
            "sgpr_count": cp.get("NumSGPRs"),
            "vgpr_count": cp.get("NumVGPRs"),
            "sgpr_spill_count": cp.get("NumSpilledSGPRs", 0),
            "vgpr_spill_count": cp.get("NumSpilledVGPRs", 0),
            "private_segment_fixed_size": cp.get("PrivateSegmentFixedSize"),
            "group_segment_fixed_size": cp.get("GroupSegmentFixedSize"),
            "max_flat_workgroup_size": cp.get("MaxFlatWorkGroupSize"),
            "reqd_workgroup_size": tuple(attrs["ReqdWorkGroupSize"]) if "ReqdWorkGroupSize" in attrs else None,
            "workgroup_size_hint": tuple(attrs["WorkGroupSizeHint"]) if "WorkGroupSizeHint" in attrs else None,
            "language": k.get("Language"),
            "language_version": tuple(k["LanguageVersion"]) if "LanguageVersion" in k else None,
            "uses_dynamic_stack": cp.get("IsDynamicCallStack"),
        })
    return {"version": tuple(doc.get("Version", ())), "target": None, "kernels": kernels}
