"""Loading AMDHSA ELF code objects (v2, v3, v4; v5 parsed the same way as v4) for gfx7."""
from __future__ import annotations

import io
import os
import struct
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
# ... and of the gfx6 (Southern Islands) family: clang -mcpu=tahiti/pitcairn/... code objects,
# which a gfx6 GPU (GPUConfig.isa) runs with GCN 1.0 semantics and a gfx7 one as GCN 1.1
GFX6_MACHS = {0x20: "gfx600", 0x21: "gfx601", 0x3A: "gfx602"}
# Other machs, only to name them in errors.
_OTHER_MACHS = {0x28: "gfx801", 0x29: "gfx802",
                0x2A: "gfx803", 0x3C: "gfx805", 0x2B: "gfx810", 0x2C: "gfx900", 0x2D: "gfx902",
                0x2E: "gfx904", 0x2F: "gfx906", 0x30: "gfx908", 0x31: "gfx909", 0x3F: "gfx90a",
                0x33: "gfx1010", 0x36: "gfx1030"}
# e_ident[EI_ABIVERSION] -> code object version for ELFOSABI_AMDGPU_HSA.
_ABI_TO_COV = {0: 2, 1: 3, 2: 4, 3: 5}

#: limits on what a code object may ask for (a loaded image is mapped into GPU memory whole):
#: its loadable segments must lie below this virtual address ...
MAX_IMAGE_BYTES = 256 << 20
#: ... and zero-fill (p_memsz beyond p_filesz: .bss) at most this much in all
MAX_ZERO_FILL_BYTES = 16 << 20
#: the largest kernarg segment gcnemu accepts
MAX_KERNARG_BYTES = 1 << 20
#: scratch per work-item: gfx7's COMPUTE_TMPRING_SIZE.WAVESIZE is 13 bits in units of 1 KiB per
#: wave, so a wave has at most 8191 KiB: 131,056 bytes for each of its 64 lanes
MAX_PRIVATE_BYTES = 8191 * 1024 // 64
#: LDS of a workgroup (64 KiB per CU on gfx7)
MAX_GROUP_BYTES = 65536


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
    """Parse an AMDHSA gfx7 (or gfx6) code object (a linked ELF shared object, from a path or
    bytes).

    Checks e_machine (EM_AMDGPU) and the gfx7 or gfx6 mach in e_flags, decodes each kernel's
    descriptor and its metadata, and slices out each kernel's machine code. Raises LoaderError for anything
    that is not such a code object.
    """
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    raw = _read_source(src)
    if raw[:4] != b"\x7fELF":
        raise LoaderError(f"not an ELF file (first bytes {raw[:4]!r}, expected b'\\x7fELF')")
    _check_tables(raw)
    try:
        elf = ELFFile(io.BytesIO(raw))
        return _load(elf, raw)
    except ELFError as e:
        raise LoaderError(f"malformed ELF code object: {e}") from None
    except (ValueError, IndexError, KeyError, UnicodeDecodeError, OverflowError, TypeError,
            AttributeError, struct.error) as e:
        # pyelftools on tables _check_tables lets through (a string table entry, a note)
        raise LoaderError(f"malformed ELF code object: {type(e).__name__}: {e}") from None


def _check_tables(raw: bytes) -> None:
    """Check the ELF64 header, program headers and section headers against the file before
    pyelftools reads them: every table and every segment's and section's bytes inside the
    file, the loaded image within MAX_IMAGE_BYTES and MAX_ZERO_FILL_BYTES. LoaderError names
    the field."""
    n = len(raw)
    if n < 64:
        raise LoaderError(f"ELF file of {n} bytes is shorter than its 64-byte header")
    if raw[4] != 2 or raw[5] != 1:
        raise LoaderError("AMDGPU code objects are 64-bit little-endian ELF "
                          f"(EI_CLASS {raw[4]}, EI_DATA {raw[5]})")
    (phoff, shoff) = struct.unpack_from("<QQ", raw, 0x20)
    phentsize, phnum, shentsize, shnum, shstrndx = struct.unpack_from("<HHHHH", raw, 0x36)

    def table(off, entsize, count, want, what):
        if count and entsize != want:
            raise LoaderError(f"ELF header: {what} entry size {entsize}, expected {want}")
        if count and (off > n or off + entsize * count > n):
            raise LoaderError(f"ELF header: the {what} table ({count} entries at offset {off}) "
                              f"runs past the end of the {n}-byte file")
    table(phoff, phentsize, phnum, 56, "program header")
    table(shoff, shentsize, shnum, 64, "section header")
    if shnum and shstrndx >= shnum:
        raise LoaderError(f"ELF header: e_shstrndx {shstrndx} is not one of the {shnum} sections")
    zero_fill = 0
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz, p_memsz = struct.unpack_from(
            "<IIQQQQQ", raw, phoff + 56 * i)
        if p_offset + p_filesz > n:
            raise LoaderError(f"program header {i}: p_offset {p_offset} + p_filesz {p_filesz} "
                              f"runs past the end of the {n}-byte file")
        if p_type == 1:    # PT_LOAD
            if p_memsz < p_filesz:
                raise LoaderError(f"program header {i}: p_memsz {p_memsz} < p_filesz {p_filesz}")
            if p_vaddr + p_memsz > MAX_IMAGE_BYTES:
                raise LoaderError(f"program header {i}: the segment at p_vaddr 0x{p_vaddr:x} of "
                                  f"p_memsz {p_memsz} ends past the {MAX_IMAGE_BYTES >> 20} MiB "
                                  f"gcnemu maps for a code object image")
            zero_fill += p_memsz - p_filesz
    if zero_fill > MAX_ZERO_FILL_BYTES:
        raise LoaderError(f"the loadable segments zero-fill {zero_fill} bytes (p_memsz beyond "
                          f"p_filesz); gcnemu allows {MAX_ZERO_FILL_BYTES >> 20} MiB")
    for i in range(shnum):
        sh_type, _, _, sh_offset, sh_size, _, _, _, sh_entsize = \
            _section_header(raw, shoff + 64 * i)
        if sh_type != 8 and sh_offset + sh_size > n:   # SHT_NOBITS has no file bytes
            raise LoaderError(f"section header {i}: sh_offset {sh_offset} + sh_size {sh_size} "
                              f"runs past the end of the {n}-byte file")
        if sh_type in (2, 11) and sh_entsize != 24:    # SHT_SYMTAB, SHT_DYNSYM
            raise LoaderError(f"section header {i}: a symbol table with sh_entsize {sh_entsize}, "
                              f"expected 24")


def _section_header(raw: bytes, off: int):
    """(sh_type, sh_flags, sh_addr, sh_offset, sh_size, sh_link, sh_info, sh_addralign,
    sh_entsize) of the ELF64 section header at ``off``."""
    return struct.unpack_from("<IQQQQIIQQ", raw, off + 4)


def _load(elf, raw: bytes) -> CodeObject:
    from elftools.elf.sections import SymbolTableSection

    hdr = elf.header
    machine = hdr["e_machine"]
    if machine not in ("EM_AMDGPU", EM_AMDGPU):
        raise LoaderError(f"ELF e_machine is {machine}, expected EM_AMDGPU (224)")
    if elf.elfclass != 64 or not elf.little_endian:
        raise LoaderError("AMDGPU code objects are 64-bit little-endian ELF")
    mach_val = hdr["e_flags"] & EF_AMDGPU_MACH
    machs = {**GFX7_MACHS, **GFX6_MACHS}
    if mach_val not in machs:
        found = _OTHER_MACHS.get(mach_val, f"unknown mach 0x{mach_val:x}")
        raise LoaderError(
            f"code object is for {found} (e_flags 0x{hdr['e_flags']:x}), but gcnemu emulates "
            f"the gfx7 and gfx6 families ({', '.join(machs.values())})")
    mach = machs[mach_val]
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
    if not isinstance(symtab, SymbolTableSection):
        raise LoaderError(f"section {symtab.name} is of type {symtab['sh_type']}, "
                          "not a symbol table")
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
    _check_kernel(info, km)
    return info


def _check_kernel(info: KernelInfo, km) -> None:
    """The descriptor and the metadata of a kernel agree and stay within the hardware's (and
    gcnemu's documented) limits; LoaderError names the field."""
    name = info.name
    if info.private_segment_fixed_size > MAX_PRIVATE_BYTES:
        raise LoaderError(f"kernel {name}: private_segment_fixed_size "
                          f"{info.private_segment_fixed_size} exceeds gfx7's {MAX_PRIVATE_BYTES} "
                          f"bytes of scratch per work-item")
    if info.group_segment_fixed_size > MAX_GROUP_BYTES:
        raise LoaderError(f"kernel {name}: group_segment_fixed_size "
                          f"{info.group_segment_fixed_size} exceeds the {MAX_GROUP_BYTES} bytes of "
                          f"LDS of a CU")
    size = info.kernarg_segment_size
    if size > MAX_KERNARG_BYTES:
        raise LoaderError(f"kernel {name}: kernarg segment size {size} exceeds gcnemu's limit of "
                          f"{MAX_KERNARG_BYTES} bytes")
    if km is None:
        return
    if info.code_object_version >= 3 and info.kernarg_size and info.kernarg_size != size:
        raise LoaderError(f"kernel {name}: metadata .kernarg_segment_size {size} differs from the "
                          f"kernel descriptor's kernarg_size {info.kernarg_size}")
    for key, desc_value in (("group_segment_fixed_size", info.group_segment_fixed_size),
                            ("private_segment_fixed_size", info.private_segment_fixed_size)):
        if km.get(key) is not None and km[key] != desc_value:
            raise LoaderError(f"kernel {name}: metadata .{key} {km[key]} differs from the kernel "
                              f"descriptor's {desc_value}")
    for key, limit in (("vgpr_count", 256), ("sgpr_count", 112)):
        if km.get(key) is not None and km[key] > limit:
            raise LoaderError(f"kernel {name}: metadata .{key} {km[key]} exceeds the {limit} a "
                              f"gfx7 wave can have")
    for i, a in enumerate(info.args):
        # (LLVM's v5 metadata places hidden arguments past .kernarg_segment_size: the segment
        # a dispatch writes takes the larger of the two)
        if a.offset + a.size > MAX_KERNARG_BYTES or (not a.is_hidden and a.offset + a.size > size):
            raise LoaderError(f"kernel {name}: argument {i} ({a.name or a.value_kind}) at offset "
                              f"{a.offset} of size {a.size} lies outside the {size}-byte kernarg "
                              f"segment")
