"""Loading AMDHSA ELF code objects (v2, v3, v4; v5 parsed the same way as v4) for gfx7."""
from __future__ import annotations

import io
import os
from dataclasses import dataclass, field
from typing import Any, Optional, Union

from ..errors import LoaderError
from .descriptor import (
    AMD_KERNEL_CODE_T_SIZE,
    KERNEL_DESCRIPTOR_SIZE,
    decode_amd_kernel_code_t,
    decode_kernel_descriptor,
)
from .metadata import (
    NT_AMD_HSA_ISA_NAME,
    NT_AMD_HSA_METADATA,
    NT_AMDGPU_METADATA,
    KernelArg,
    parse_msgpack_metadata,
    parse_notes,
    parse_yaml_metadata,
)

EM_AMDGPU = 224
ELFOSABI_AMDGPU_HSA = 64
EF_AMDGPU_MACH = 0xFF
# e_flags mach values of the gfx7 (Sea Islands) family, from LLVM's ELF.h.
GFX7_MACHS = {0x22: "gfx700", 0x23: "gfx701", 0x24: "gfx702", 0x25: "gfx703", 0x26: "gfx704", 0x3B: "gfx705"}
# Other machs, only to name them in errors.
_OTHER_MACHS = {0x20: "gfx600", 0x21: "gfx601", 0x3A: "gfx602", 0x28: "gfx801", 0x29: "gfx802",
                0x2A: "gfx803", 0x3C: "gfx805", 0x2B: "gfx810", 0x2C: "gfx900", 0x2D: "gfx902",
                0x2E: "gfx904", 0x2F: "gfx906", 0x30: "gfx908", 0x31: "gfx909", 0x3F: "gfx90a",
                0x33: "gfx1010", 0x36: "gfx1030"}
# e_ident[EI_ABIVERSION] -> code object version for ELFOSABI_AMDGPU_HSA.
_ABI_TO_COV = {0: 2, 1: 3, 2: 4, 3: 5}


@dataclass
class KernelInfo:
    """Everything the dispatcher needs to launch one kernel of a code object.

    Descriptor fields keep the AMDGPUUsage names. ``vgpr_count``/``sgpr_count`` are derived from
    the granulated rsrc1 fields (granules of 4 VGPRs / 8 SGPRs); the metadata's exact counts are
    in ``metadata_vgpr_count``/``metadata_sgpr_count``. ``mode_register`` is the MODE value the
    wave starts with. Metadata fields are None for code objects without metadata (hand-written
    assembly without ``.amdgpu_metadata``).
    """

    name: str
    code: bytes
    entry_address: int
    descriptor_address: int  # the kernel object: .kd symbol (v3+) or amd_kernel_code_t (v2)
    descriptor: bytes
    code_object_version: int
    # kernel descriptor
    group_segment_fixed_size: int
    private_segment_fixed_size: int
    kernarg_size: int
    kernel_code_entry_byte_offset: int
    compute_pgm_rsrc1: int
    compute_pgm_rsrc2: int
    compute_pgm_rsrc3: int
    kernel_code_properties: int
    # compute_pgm_rsrc1
    granulated_workitem_vgpr_count: int
    granulated_wavefront_sgpr_count: int
    priority: int
    float_round_mode_32: int
    float_round_mode_16_64: int
    float_denorm_mode_32: int
    float_denorm_mode_16_64: int
    priv: int
    enable_dx10_clamp: int
    debug_mode: int
    enable_ieee_mode: int
    bulky: int
    cdbg_user: int
    vgpr_count: int
    sgpr_count: int
    mode_register: int
    # compute_pgm_rsrc2
    enable_private_segment: int
    user_sgpr_count: int
    enable_trap_handler: int
    enable_sgpr_workgroup_id_x: int
    enable_sgpr_workgroup_id_y: int
    enable_sgpr_workgroup_id_z: int
    enable_sgpr_workgroup_info: int
    enable_vgpr_workitem_id: int
    enable_exception_address_watch: int
    enable_exception_memory: int
    granulated_lds_size: int
    enable_exception_ieee_754_fp_invalid_operation: int
    enable_exception_fp_denormal_source: int
    enable_exception_ieee_754_fp_division_by_zero: int
    enable_exception_ieee_754_fp_overflow: int
    enable_exception_ieee_754_fp_underflow: int
    enable_exception_ieee_754_fp_inexact: int
    enable_exception_int_divide_by_zero: int
    # kernel_code_properties
    enable_sgpr_private_segment_buffer: int
    enable_sgpr_dispatch_ptr: int
    enable_sgpr_queue_ptr: int
    enable_sgpr_kernarg_segment_ptr: int
    enable_sgpr_dispatch_id: int
    enable_sgpr_flat_scratch_init: int
    enable_sgpr_private_segment_size: int
    uses_dynamic_stack: int = 0
    enable_wavefront_size32: int = 0
    # v2 only (amd_kernel_code_t); always 0 for v3+
    enable_sgpr_grid_workgroup_count_x: int = 0
    enable_sgpr_grid_workgroup_count_y: int = 0
    enable_sgpr_grid_workgroup_count_z: int = 0
    # metadata
    args: list[KernelArg] = field(default_factory=list)
    kernarg_segment_size: Optional[int] = None
    kernarg_segment_align: Optional[int] = None
    wavefront_size: int = 64
    metadata_sgpr_count: Optional[int] = None
    metadata_vgpr_count: Optional[int] = None
    sgpr_spill_count: Optional[int] = None
    vgpr_spill_count: Optional[int] = None
    max_flat_workgroup_size: Optional[int] = None
    reqd_workgroup_size: Optional[tuple[int, int, int]] = None
    workgroup_size_hint: Optional[tuple[int, int, int]] = None
    language: Optional[str] = None
    has_metadata: bool = False
    extra: dict[str, Any] = field(default_factory=dict)  # v2-only and unmapped descriptor fields

    @property
    def explicit_args(self) -> list[KernelArg]:
        """The arguments the caller supplies (value kinds not starting with 'hidden_')."""
        return [a for a in self.args if not a.is_hidden]

    @property
    def lds_size(self) -> int:
        """Statically allocated LDS bytes (group_segment_fixed_size)."""
        return self.group_segment_fixed_size


@dataclass
class CodeObject:
    """A loaded code object: its kernels and the loaded image of its .text section."""

    kernels: dict[str, KernelInfo]
    text: bytes
    text_address: int
    code_object_version: int
    target: str
    mach: str
    metadata_version: tuple = ()
    #: the loaded image: (virtual address, bytes of memsz, zero-filled past filesz) per PT_LOAD
    segments: list = field(default_factory=list)

    def kernel(self, name: str) -> KernelInfo:
        """Return the kernel called ``name``; LoaderError lists the existing names if absent."""
        try:
            return self.kernels[name]
        except KeyError:
            raise LoaderError(
                f"no kernel named {name!r} in code object; kernels: {sorted(self.kernels) or 'none'}"
            ) from None


class _Image:
    """Virtual-address view of the PT_LOAD segments of an ELF file."""

    def __init__(self, elf, raw: bytes):
        self.segs = []
        for seg in elf.iter_segments():
            if seg["p_type"] == "PT_LOAD":
                self.segs.append((seg["p_vaddr"], seg["p_memsz"], seg["p_offset"], seg["p_filesz"]))
        self.raw = raw

    def read(self, addr: int, n: int, what: str) -> bytes:
        for vaddr, memsz, off, filesz in self.segs:
            if vaddr <= addr and addr + n <= vaddr + memsz:
                rel = addr - vaddr
                data = self.raw[off + rel: off + min(rel + n, filesz)] if rel < filesz else b""
                return data + b"\0" * (n - len(data))
        raise LoaderError(f"{what} at 0x{addr:x} (+{n} bytes) is outside every loadable segment")


def _read_source(src: Union[str, os.PathLike, bytes, bytearray, memoryview]) -> bytes:
    if isinstance(src, (bytes, bytearray, memoryview)):
        return bytes(src)
    if isinstance(src, (str, os.PathLike)):
        try:
            with open(src, "rb") as f:
                return f.read()
        except OSError as e:
            raise LoaderError(f"cannot read code object {os.fspath(src)!r}: {e.strerror}") from None
    raise LoaderError(f"load_code_object expects a path or bytes, got {type(src).__name__}")


def load_code_object(src: Union[str, os.PathLike, bytes]) -> CodeObject:
    """Parse an AMDHSA gfx7 code object (a linked ELF shared object, from a path or bytes).

    Checks e_machine (EM_AMDGPU) and the gfx7 mach in e_flags, decodes each kernel's descriptor
    and its metadata, and slices out each kernel's machine code. Raises LoaderError for anything
    that is not such a code object.
    """
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    raw = _read_source(src)
    if raw[:4] != b"\x7fELF":
        raise LoaderError(f"not an ELF file (first bytes {raw[:4]!r}, expected b'\\x7fELF')")
    try:
        elf = ELFFile(io.BytesIO(raw))
        return _load(elf, raw)
    except ELFError as e:
        raise LoaderError(f"malformed ELF code object: {e}") from None
    except (ValueError, IndexError, KeyError, UnicodeDecodeError) as e:
        # pyelftools/struct errors on truncated or corrupted tables.
        raise LoaderError(f"malformed ELF code object: {type(e).__name__}: {e}") from None


def _load(elf, raw: bytes) -> CodeObject:
    hdr = elf.header
    machine = hdr["e_machine"]
    if machine not in ("EM_AMDGPU", EM_AMDGPU):
        raise LoaderError(f"ELF e_machine is {machine}, expected EM_AMDGPU (224)")
    if elf.elfclass != 64 or not elf.little_endian:
        raise LoaderError("AMDGPU code objects are 64-bit little-endian ELF")
    mach_val = hdr["e_flags"] & EF_AMDGPU_MACH
    if mach_val not in GFX7_MACHS:
        found = _OTHER_MACHS.get(mach_val, f"unknown mach 0x{mach_val:x}")
        raise LoaderError(
            f"code object is for {found} (e_flags 0x{hdr['e_flags']:x}), "
            f"but gcnemu emulates the gfx7 family ({', '.join(GFX7_MACHS.values())})")
    mach = GFX7_MACHS[mach_val]
    if hdr["e_type"] not in ("ET_DYN", "ET_EXEC"):
        raise LoaderError(f"ELF type is {hdr['e_type']}; link the object first (ld.lld-14 -shared k.o -o k.hsaco)")
    # Raw e_ident bytes: pyelftools names OS/ABI 64 after ARM (ELFOSABI_ARM_AEABI).
    osabi = raw[7]
    abiver = raw[8]
    if osabi != ELFOSABI_AMDGPU_HSA:
        raise LoaderError(f"ELF OS/ABI is {osabi}, expected ELFOSABI_AMDGPU_HSA (64)")
    cov = _ABI_TO_COV.get(abiver)
    if cov is None:
        raise LoaderError(f"unsupported AMDHSA ABI version {abiver} (known: code object v2-v5)")

    # Notes (from sections, or PT_NOTE segments when sections are stripped).
    notes = []
    secs = [s for s in elf.iter_sections() if s["sh_type"] == "SHT_NOTE"]
    if secs:
        for s in secs:
            notes += parse_notes(s.data())
    else:
        for seg in elf.iter_segments():
            if seg["p_type"] == "PT_NOTE":
                notes += parse_notes(seg.data())
    meta = None
    target = None
    for owner, ntype, desc in notes:
        if owner == "AMDGPU" and ntype == NT_AMDGPU_METADATA:
            meta = parse_msgpack_metadata(desc)
        elif owner == "AMD" and ntype == NT_AMD_HSA_METADATA:
            meta = parse_yaml_metadata(desc)
        elif owner == "AMD" and ntype == NT_AMD_HSA_ISA_NAME:
            target = desc.rstrip(b"\0").decode("ascii", "replace")
    if meta and meta.get("target"):
        target = meta["target"]
    if not target:
        target = f"amdgcn-amd-amdhsa--{mach}"

    text_sec = elf.get_section_by_name(".text")
    if text_sec is None:
        raise LoaderError("code object has no .text section")
    text = text_sec.data()
    text_addr = text_sec["sh_addr"]
    text_end = text_addr + len(text)

    image = _Image(elf, raw)
    symtab = elf.get_section_by_name(".symtab") or elf.get_section_by_name(".dynsym")
    if symtab is None:
        raise LoaderError("code object has no symbol table (.symtab/.dynsym)")
    syms = {}
    for s in symtab.iter_symbols():
        if s.name:
            syms[s.name] = s

    meta_by_name = {}
    if meta:
        for km in meta["kernels"]:
            meta_by_name[km["name"]] = km

    kernels: dict[str, KernelInfo] = {}
    if cov == 2:
        for name, s in syms.items():
            t = s["st_info"]["type"]
            if t in ("STT_LOOS", 10, "STT_AMDGPU_HSA_KERNEL"):
                addr = s["st_value"]
                desc = image.read(addr, AMD_KERNEL_CODE_T_SIZE, f"amd_kernel_code_t of {name}")
                fields = decode_amd_kernel_code_t(desc)
                end = addr + s["st_size"] if s["st_size"] else text_end
                kernels[name] = _make_kernel(name, addr, desc, fields, end, text, text_addr, cov,
                                             meta_by_name.get(name))
    else:
        for name, s in syms.items():
            if not name.endswith(".kd"):
                continue
            kname = name[:-3]
            addr = s["st_value"]
            if s["st_size"] and s["st_size"] != KERNEL_DESCRIPTOR_SIZE:
                raise LoaderError(f"kernel descriptor {name} has size {s['st_size']}, expected 64")
            desc = image.read(addr, KERNEL_DESCRIPTOR_SIZE, f"kernel descriptor {name}")
            fields = decode_kernel_descriptor(desc)
            entry = addr + fields["kernel_code_entry_byte_offset"]
            fsym = syms.get(kname)
            if fsym is not None and fsym["st_value"] == entry and fsym["st_size"]:
                end = entry + fsym["st_size"]
            else:
                end = text_end
            kernels[kname] = _make_kernel(kname, addr, desc, fields, end, text, text_addr, cov,
                                          meta_by_name.get(kname))
    if not kernels:
        raise LoaderError("code object defines no kernels (no NAME.kd descriptors / HSA kernel symbols)")
    segments = [(vaddr, image.read(vaddr, memsz, "PT_LOAD segment")) for vaddr, memsz, _, _ in image.segs]
    return CodeObject(kernels=kernels, text=text, text_address=text_addr, code_object_version=cov,
                      target=target, mach=mach, metadata_version=meta["version"] if meta else (),
                      segments=segments)


_DESC_KEYS = set(KernelInfo.__dataclass_fields__)


def _make_kernel(name, desc_addr, desc, fields, end, text, text_addr, cov, km) -> KernelInfo:
    entry = desc_addr + fields["kernel_code_entry_byte_offset"]
    text_end = text_addr + len(text)
    if not (text_addr <= entry < text_end):
        raise LoaderError(f"kernel {name}: entry point 0x{entry:x} is outside .text "
                          f"[0x{text_addr:x}, 0x{text_end:x})")
    end = min(end, text_end)
    code = text[entry - text_addr: end - text_addr]
    kw = {k: v for k, v in fields.items() if k in _DESC_KEYS}
    extra = {k: v for k, v in fields.items() if k not in _DESC_KEYS}
    info = KernelInfo(name=name, code=code, entry_address=entry, descriptor_address=desc_addr,
                      descriptor=bytes(desc), code_object_version=cov, extra=extra, **kw)
    if km is not None:
        info.has_metadata = True
        info.args = km["args"]
        info.kernarg_segment_size = km["kernarg_segment_size"]
        info.kernarg_segment_align = km["kernarg_segment_align"]
        info.wavefront_size = km["wavefront_size"] or 64
        info.metadata_sgpr_count = km["sgpr_count"]
        info.metadata_vgpr_count = km["vgpr_count"]
        info.sgpr_spill_count = km["sgpr_spill_count"]
        info.vgpr_spill_count = km["vgpr_spill_count"]
        info.max_flat_workgroup_size = km["max_flat_workgroup_size"]
        info.reqd_workgroup_size = km["reqd_workgroup_size"]
        info.workgroup_size_hint = km["workgroup_size_hint"]
        info.language = km["language"]
    if info.kernarg_segment_size is None:
        info.kernarg_segment_size = info.kernarg_size
    if info.kernarg_segment_align is None:
        info.kernarg_segment_align = 16 if cov >= 3 else 1 << fields.get("kernarg_segment_alignment_log2", 4)
    return info
