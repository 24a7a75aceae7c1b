"""AMD Catalyst / CAL ELF binaries (what the AMD APP SDK OpenCL driver emits for Southern and
Sea Islands GPUs).

Format (facts from Multi2Sim's src/arch/southern-islands/asm/Binary.cc and the binaries of
../shared/reference/amd-app-sdk-2.5; no code taken from there):

* the outer ELF32 (e_machine 0x3fd) has a symbol ``__OpenCL_<k>_kernel`` per kernel whose
  bytes (in the section of its st_shndx, at st_value, st_size long) are an inner ELF, and a
  symbol ``__OpenCL_<k>_metadata`` whose bytes are the argument metadata text
  (``;pointer:name:type:1:1:cb1_offset:uav:uav_id:size:RW:0:0``, ``;value:name:type:count:1:
  cb1_offset``, ``;memory:datareqd``, ...);
* the inner ELF has a PT_LOPROC+2 program header, the encoding dictionary: entries of five
  uint32 (machine, type, offset, size, flags); the machine-26 entry's file range holds one
  PT_NOTE and one PT_LOAD segment; ``.text`` (the GCN code) and ``.data`` lie in the PT_LOAD;
* the outer symbol ``__OpenCL_2_global`` (when the program has constant data) holds the
  initial bytes of constant buffer 2; the inner ``.data`` is that buffer's full extent;
* the PT_NOTE holds "ATI CAL" notes; type 1 (ProgInfo) is a list of (address, value) uint32
  pairs: 0x80001000 the user-element count, then 4 per element (data class, API slot, first
  user SGPR, SGPR count); 0x00002e13 COMPUTE_PGM_RSRC2; 0x80001041/0x80001042 the VGPR and
  SGPR counts; 0x80001043 FloatMode, 0x80001044 IeeeMode (MODE = FloatMode | IeeeMode << 9);
  0x80000082 the LDS bytes used.
"""
from __future__ import annotations

import dataclasses
import re
import struct
from dataclasses import dataclass, field

from ..errors import DecodeError, LoaderError

EM_CAL_OUTER = 0x3FD
PT_NOTE, PT_LOAD, PT_ENCODING_DICTIONARY = 4, 1, 0x70000002
MACHINE_GCN = 26
NOTE_PROGINFO = 1

PI_USER_ELEMENT_COUNT = 0x80001000
PI_RSRC2 = 0x00002E13
PI_NUM_VGPRS, PI_NUM_SGPRS = 0x80001041, 0x80001042
PI_FLOAT_MODE, PI_IEEE_MODE = 0x80001043, 0x80001044
PI_LDS_SIZE_USED = 0x80000082

#: the ``;device:`` of the metadata -> the instruction set of the code: Southern Islands
#: (GCN 1.0) and Sea Islands (GCN 1.1) chips of the Catalyst driver's CAL targets
DEVICE_ISA = {**{d: "gfx6" for d in ("tahiti", "pitcairn", "capeverde", "oland", "hainan")},
              **{d: "gfx7" for d in ("bonaire", "hawaii", "kalindi", "mullins", "spectre",
                                     "spooky")}}

#: user element data classes: the AMD shader compiler's E_SC_USER_DATA_CLASS numbering, as
#: the binaries use it (their code loads a T# through class 17, 16-byte V#s through class 20
#: and UAV T#/V#s through class 23). Multi2Sim's BinaryUserData enum has the same names but
#: is one off from 16 on (its WorkGroup.cc: "PTR_VERTEX_BUFFER_TABLE doesn't match binary")
USER_ELEMENT_CLASSES = dict(enumerate((
    "IMM_RESOURCE", "IMM_SAMPLER", "IMM_CONST_BUFFER", "IMM_VERTEX_BUFFER", "IMM_UAV",
    "IMM_ALU_FLOAT_CONST", "IMM_ALU_BOOL32_CONST", "IMM_GDS_COUNTER_RANGE", "IMM_GDS_MEMORY_RANGE",
    "IMM_GWS_BASE", "IMM_WORK_ITEM_RANGE", "IMM_WORK_GROUP_RANGE", "IMM_DISPATCH_ID",
    "IMM_SCRATCH_BUFFER", "IMM_HEAP_BUFFER", "IMM_KERNEL_ARG", "SUB_PTR_FETCH_SHADER",
    "PTR_RESOURCE_TABLE", "PTR_INTERNAL_RESOURCE_TABLE", "PTR_SAMPLER_TABLE",
    "PTR_CONST_BUFFER_TABLE", "PTR_VERTEX_BUFFER_TABLE", "PTR_SO_BUFFER_TABLE", "PTR_UAV_TABLE",
    "PTR_INTERNAL_GLOBAL_TABLE", "PTR_EXTENDED_USER_DATA", "PTR_INDIRECT_RESOURCE",
    "PTR_INDIRECT_INTERNAL_RESOURCE", "PTR_INDIRECT_UAV")))
#: the classes this loader can launch, and the SGPRs each takes: an immediate descriptor (a
#: constant buffer's or a UAV's V#) is 4, a table pointer 2
SUPPORTED_CLASSES = {"IMM_CONST_BUFFER": 4, "IMM_UAV": 4, "IMM_SAMPLER": 4, "PTR_UAV_TABLE": 2,
                     "PTR_RESOURCE_TABLE": 2,
                     "PTR_CONST_BUFFER_TABLE": 2}
MAX_USER_ELEMENTS = 16
UAV_TABLE_ENTRIES, UAV_ENTRY_BYTES = 16, 32
CB_ENTRY_BYTES = 16
RESOURCE_TABLE_ENTRIES, RESOURCE_ENTRY_BYTES = 16, 32
#: image dimensions of the metadata -> their number of coordinates
IMAGE_DIMS = {"1D": 1, "2D": 2, "3D": 3}
#: CB1 bytes an image argument takes: width, height, depth, channel data type, channel order
#: (the CL_ values), as uint32, the rest zero
IMAGE_CB1_BYTES = 32
#: the sampler values (;sampler:name:id:1:VALUE) the AMD APP SDK 2.5 compiler writes, decoded:
#: its CLK_ bits are not those of today's headers (libclc, clang), and the one value the
#: collection holds, 22, is CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP |
#: CLK_FILTER_NEAREST in the sources of both SimpleImage and MatrixMulImage. Others are
#: refused rather than guessed
KNOWN_SAMPLERS = {22: (False, "CLAMP", "NEAREST")}
#: sizes of the metadata's scalar types
_TYPE_SIZES = {"i8": 1, "u8": 1, "i16": 2, "u16": 2, "i32": 4, "u32": 4, "float": 4,
               "i64": 8, "u64": 8, "double": 8}
_TYPE_NAMES = {"i8": "char", "u8": "uchar", "i16": "short", "u16": "ushort", "i32": "int",
               "u32": "uint", "float": "float", "i64": "long", "u64": "ulong", "double": "double"}


@dataclass
class CalArg:
    """One kernel argument of the CAL metadata: ``kind`` is 'uav' (a global pointer: its byte
    offset in memory goes to CB1, the UAV table entry ``uav`` describes all memory), 'local'
    (a __local pointer: its LDS offset goes to CB1), 'value' (a scalar or vector: its bytes
    go to CB1) or 'struct' (a struct by value, ``size`` bytes: the caller's bytes go to CB1)."""
    name: str
    kind: str
    type: str
    cb1_offset: int
    size: int           # bytes written to CB1
    count: int = 1
    uav: int = -1
    access: str = ""


@dataclass
class CalKernel:
    """What the CAL launch needs beyond the KernelInfo fields."""
    user_elements: list          # (class name, api slot, first SGPR, count)
    args: list[CalArg]
    datareqd: bool
    data: bytes                  # constant buffer 2: the inner .data, __OpenCL_2_global at its start
    hwlocal: int                 # static LDS bytes of ;memory:hwlocal
    lds_used: int                # ProgInfo AMU_ABI_LDS_SIZE_USED
    float_mode: int
    ieee_mode: int
    proginfo: dict = field(default_factory=dict)
    device: str = ""             # ;device: of the metadata (e.g. tahiti)
    isa: str = "gfx7"            # "gfx6" or "gfx7": what DEVICE_ISA says of the device
    samplers: dict = field(default_factory=dict)   # sampler id -> its value (;sampler:)


class _Elf32:
    """The headers of a little-endian ELF32 image, every table checked against the image."""

    def __init__(self, raw: bytes, what: str):
        self.raw, self.what = raw, what
        if len(raw) < 52 or raw[:4] != b"\x7fELF":
            raise LoaderError(f"{what}: not an ELF file (bad magic or shorter than 52 bytes)")
        if raw[4] != 1 or raw[5] != 1:
            raise LoaderError(f"{what}: EI_CLASS {raw[4]} / EI_DATA {raw[5]}: a CAL binary is ELF32 little-endian")
        (self.e_type, self.e_machine, _v, _entry, phoff, shoff, self.e_flags, _eh, phentsize, phnum,
         shentsize, shnum, shstrndx) = struct.unpack_from("<HHIIIIIHHHHHH", raw, 16)
        self.ph = [struct.unpack_from("<8I", raw, phoff + 32 * i)
                   for i in range(self._table(phoff, phnum, phentsize, 32, "program header table"))]
        self.sh = [struct.unpack_from("<10I", raw, shoff + 40 * i)
                   for i in range(self._table(shoff, shnum, shentsize, 40, "section header table"))]
        for i, p in enumerate(self.ph):
            self.check_range(p[1], p[4], f"program header {i} (p_offset/p_filesz)")
        for i, s in enumerate(self.sh):
            if s[1] != 8:   # SHT_NOBITS has no file bytes
                self.check_range(s[4], s[5], f"section header {i} (sh_offset/sh_size)")
        self.names = []
        if self.sh:
            if shstrndx >= len(self.sh):
                raise LoaderError(f"{what}: e_shstrndx {shstrndx} is not a section (there are {len(self.sh)})")
            so, ss = self.sh[shstrndx][4], self.sh[shstrndx][5]
            self.names = [self.cstr(so, ss, s[0], f"section {i} name") for i, s in enumerate(self.sh)]

    def _table(self, off, num, entsize, want, what) -> int:
        if num == 0:
            return 0
        if entsize != want:
            raise LoaderError(f"{self.what}: {what} entry size {entsize}, expected {want}")
        self.check_range(off, num * want, what)
        return num

    def check_range(self, off: int, size: int, what: str) -> None:
        if off + size > len(self.raw):
            raise LoaderError(f"{self.what}: {what} 0x{off:x}+0x{size:x} runs past the end of "
                              f"the {len(self.raw)}-byte file")

    def cstr(self, table_off: int, table_size: int, idx: int, what: str) -> str:
        if idx >= table_size:
            raise LoaderError(f"{self.what}: {what}: string index {idx} outside its table of {table_size} bytes")
        end = self.raw.find(b"\0", table_off + idx, table_off + table_size)
        if end < 0:
            raise LoaderError(f"{self.what}: {what}: string not terminated inside its table")
        return self.raw[table_off + idx:end].decode("latin1")

    def section(self, name: str):
        for s, n in zip(self.sh, self.names):
            if n == name:
                return s
        return None

    def bytes_of(self, s) -> bytes:
        return self.raw[s[4]:s[4] + s[5]]


def sampler_ssharp(value: int, what: str) -> list:
    """The S# of a sampler value of the CAL metadata (see KNOWN_SAMPLERS)."""
    from .climage import ADDRESSING, FILTERS, NORMALIZED_COORDS, sampler_words
    if value not in KNOWN_SAMPLERS:
        raise LoaderError(f"{what}: sampler value {value}: the AMD compiler's encoding of it is not "
                          f"known (known: {sorted(KNOWN_SAMPLERS)})")
    norm, addr, filt = KNOWN_SAMPLERS[value]
    return sampler_words((NORMALIZED_COORDS if norm else 0) | ADDRESSING[addr] | FILTERS[filt])


def is_cal_binary(raw: bytes) -> bool:
    """Whether ``raw`` looks like a CAL ELF (ELF32, e_machine 0x3fd)."""
    return len(raw) >= 20 and raw[:4] == b"\x7fELF" and raw[4] == 1 and \
        struct.unpack_from("<H", raw, 18)[0] == EM_CAL_OUTER


def _symbols(elf: _Elf32):
    symtab, strtab = elf.section(".symtab"), elf.section(".strtab")
    if symtab is None or strtab is None:
        raise LoaderError(f"{elf.what}: no .symtab/.strtab: cannot find the __OpenCL_<k>_kernel symbols")
    for i in range(symtab[5] // 16):
        name, value, size, _info, _other, shndx = struct.unpack_from("<IIIBBH", elf.raw, symtab[4] + 16 * i)
        yield elf.cstr(strtab[4], strtab[5], name, f"symbol {i} name"), value, size, shndx


def _symbol_bytes(elf: _Elf32, sym: str, value: int, size: int, shndx: int) -> bytes:
    if shndx >= len(elf.sh):
        raise LoaderError(f"{elf.what}: symbol {sym}: st_shndx {shndx} is not a section")
    s = elf.sh[shndx]
    if value + size > s[5]:
        raise LoaderError(f"{elf.what}: symbol {sym}: st_value 0x{value:x} + st_size 0x{size:x} "
                          f"runs past its section {elf.names[shndx]!r} of 0x{s[5]:x} bytes")
    return elf.raw[s[4] + value:s[4] + value + size]


def _refuse_private_uav(meta: str, elems, text: bytes, what: str) -> None:
    """A LoaderError for a kernel that reaches its private memory (``;memory:uavprivate:N``
    with N > 0, through UAV ``;privateid:``): gcnemu does not set that UAV up (every UAV table
    entry describes all of GPU memory), so its accesses would land at the start of memory.
    Kernels that declare private memory but never load that UAV's descriptor (the compiler
    kept the arrays in registers) load: the code is searched for a descriptor load from the
    UAV table at the private entry, or at an offset computed at run time."""
    size = re.search(r"^;memory:uavprivate:(\d+)", meta, re.M)
    if size is None or int(size.group(1)) == 0:
        return
    pid = re.search(r"^;privateid:(\d+)", meta, re.M)
    pid = int(pid.group(1)) if pid else 8
    refuse = LoaderError(f"{what}: the kernel uses {size.group(1)} bytes of private memory per "
                         f"work-item (;memory:uavprivate, UAV {pid}), which gcnemu's CAL loader "
                         f"does not support")
    if any(c == "IMM_UAV" and s == pid for c, s, _f, _n in elems):
        raise refuse
    tables = {f for c, _s, f, _n in elems if c == "PTR_UAV_TABLE"}
    if not tables:
        return
    from ..isa.decoder import decode
    try:
        code = decode(text)
    except DecodeError:
        return          # the dispatch names the undefined instruction
    entry_dwords = 32 // 4
    for ins in code:
        if not ins.name.startswith("s_load_dword") or 2 * ins.fields.get("sbase", -1) not in tables:
            continue
        if not ins.fields.get("imm", 1) or \
                pid * entry_dwords <= ins.fields.get("offset", 0) < (pid + 1) * entry_dwords:
            raise refuse


def parse_metadata(text: str, what: str):
    """(args, datareqd, hwlocal, device, samplers) from the metadata text."""
    args, datareqd, hwlocal, device, samplers = [], False, 0, "", {}
    for line in text.splitlines():
        f = line.strip().lstrip(";").split(":")
        try:
            if f[0] == "pointer":
                name, typ, off, space = f[1], f[2], int(f[5]), f[6]
                if space == "uav":
                    args.append(CalArg(name, "uav", typ, off, 4, uav=int(f[7]), access=f[9]))
                elif space == "hl":
                    args.append(CalArg(name, "local", typ, off, 4, access=f[9]))
                else:
                    raise LoaderError(f"{what}: argument {name}: pointer to {space!r} memory is not supported "
                                      f"(only uav and hl)")
            elif f[0] == "value":
                name, typ, count, off = f[1], f[2], int(f[3]), int(f[5])
                if typ == "struct":
                    # a struct by value: its bytes (``count`` of them) go to CB1 as they are
                    if not 1 <= count <= 65536 - 64:
                        raise LoaderError(f"{what}: argument {name}: struct size {count} outside 1..65472")
                    args.append(CalArg(name, "struct", typ, off, count))
                    continue
                if typ not in _TYPE_SIZES:
                    raise LoaderError(f"{what}: argument {name}: value type {typ!r} is not one of {sorted(_TYPE_SIZES)}")
                if not 1 <= count <= 16:
                    raise LoaderError(f"{what}: argument {name}: vector size {count} outside 1..16")
                args.append(CalArg(name, "value", typ, off, _TYPE_SIZES[typ] * count, count=count))
            elif f[0] == "memory" and f[1] == "datareqd":
                datareqd = True
            elif f[0] == "memory" and f[1] == "hwlocal":
                hwlocal = int(f[2])
            elif f[0] == "device":
                device = f[1]
            elif f[0] == "image":
                # ;image:name:dim:access:id:1:cb1_offset: a read-only image is resource ``id``
                # (its T# in the resource table), a write-only one UAV ``id`` (its T# in the
                # UAV table), as the compiled code loads them
                name, dim, acc, rid, off = f[1], f[2], f[3], int(f[4]), int(f[6])
                if dim not in IMAGE_DIMS:
                    raise LoaderError(f"{what}: argument {name}: image dimension {dim!r}, supported "
                                      f"{sorted(IMAGE_DIMS)}")
                if acc not in ("RO", "WO"):
                    raise LoaderError(f"{what}: argument {name}: image access {acc!r}, supported RO, WO")
                args.append(CalArg(name, "image", dim, off, IMAGE_CB1_BYTES, uav=rid, access=acc))
            elif f[0] == "sampler":
                # ;sampler:name:id:1:value: a sampler the kernel source declares (constant)
                sid, const, value = int(f[2]), f[3], int(f[4])
                if const != "1":
                    raise LoaderError(f"{what}: sampler {f[1]}: sampler arguments are not supported, only "
                                      f"samplers declared in the kernel source ({line.strip()})")
                samplers[sid] = value
            elif f[0] in ("counter",):
                raise LoaderError(f"{what}: {f[0]} arguments are not supported ({line.strip()})")
        except (IndexError, ValueError):
            raise LoaderError(f"{what}: malformed metadata line {line.strip()!r}") from None
    for a in args:
        if not 0 <= a.cb1_offset <= 65536 - max(64, a.size):
            raise LoaderError(f"{what}: argument {a.name}: CB1 offset {a.cb1_offset} outside 0..65472")
        resource = a.kind == "image" and a.access == "RO"
        top = RESOURCE_TABLE_ENTRIES if resource else UAV_TABLE_ENTRIES
        if a.kind in ("uav", "image") and not 0 <= a.uav < top:
            raise LoaderError(f"{what}: argument {a.name}: {'resource' if resource else 'UAV'} id "
                              f"{a.uav} outside 0..{top - 1}")
    # an image's table entry holds its own T#: no other argument may use that entry (buffer
    # arguments may share UAV entries, every one of which is all of memory)
    for img in (a for a in args if a.kind == "image"):
        for b in args:
            if b is not img and b.uav == img.uav and (
                    b.kind == "image" and b.access == img.access or b.kind == "uav" and img.access == "WO"):
                raise LoaderError(f"{what}: arguments {img.name} and {b.name} share "
                                  f"{'resource' if img.access == 'RO' else 'UAV'} {img.uav}")
    if not 0 <= hwlocal <= 65536:
        raise LoaderError(f"{what}: ;memory:hwlocal {hwlocal} outside 0..65536")
    return args, datareqd, hwlocal, device, samplers


def _parse_inner(raw: bytes, what: str):
    """(.text, .data, proginfo dict) of the machine-26 entry of an inner ELF."""
    elf = _Elf32(raw, what)
    dicts = [p for p in elf.ph if p[0] == PT_ENCODING_DICTIONARY]
    if len(dicts) != 1:
        raise LoaderError(f"{what}: {len(dicts)} encoding dictionaries (PT_LOPROC+2 program headers), expected 1")
    d = dicts[0]
    if d[4] % 20:
        raise LoaderError(f"{what}: encoding dictionary p_filesz {d[4]} is not a multiple of 20")
    entries = [struct.unpack_from("<5I", raw, d[1] + 20 * i) for i in range(d[4] // 20)]
    gcn = [e for e in entries if e[0] == MACHINE_GCN]
    if len(gcn) != 1:
        raise LoaderError(f"{what}: encoding dictionary has {len(gcn)} entries for machine {MACHINE_GCN} "
                          f"(machines: {[e[0] for e in entries]}), expected 1")
    _m, _t, doff, dsize, _fl = gcn[0]
    elf.check_range(doff, dsize, f"machine-{MACHINE_GCN} encoding entry (d_offset/d_size)")
    segs = [p for p in elf.ph if doff <= p[1] < doff + dsize and p[0] in (PT_NOTE, PT_LOAD)]
    notes = [p for p in segs if p[0] == PT_NOTE]
    loads = [p for p in segs if p[0] == PT_LOAD]
    if len(notes) != 1 or len(loads) != 1:
        raise LoaderError(f"{what}: machine-{MACHINE_GCN} entry has {len(notes)} PT_NOTE and {len(loads)} "
                          f"PT_LOAD segments, expected one of each")
    for p, nm in ((notes[0], "PT_NOTE"), (loads[0], "PT_LOAD")):
        if p[1] + p[4] > doff + dsize:
            raise LoaderError(f"{what}: {nm} segment runs past the machine-{MACHINE_GCN} entry")
    proginfo, seen = {}, False
    off, end = notes[0][1], notes[0][1] + notes[0][4]
    while off < end:
        if off + 12 > end:
            raise LoaderError(f"{what}: note header at 0x{off:x} truncated by the PT_NOTE end 0x{end:x}")
        namesz, descsz, ntype = struct.unpack_from("<3I", raw, off)
        desc_off = off + 12 + ((namesz + 3) & ~3)
        nxt = desc_off + ((descsz + 3) & ~3)
        if desc_off + descsz > end:
            raise LoaderError(f"{what}: note at 0x{off:x} (type {ntype}): n_namesz {namesz} and "
                              f"n_descsz {descsz} run past the PT_NOTE end 0x{end:x}")
        if ntype == NOTE_PROGINFO:
            if descsz % 8:
                raise LoaderError(f"{what}: ProgInfo note size {descsz} is not a multiple of 8")
            seen = True
            for a, v in struct.iter_unpack("<II", raw[desc_off:desc_off + descsz]):
                proginfo.setdefault(a, v)
        off = nxt
    if not seen:
        raise LoaderError(f"{what}: no ProgInfo note (type {NOTE_PROGINFO}) in the PT_NOTE segment")
    lo, lsz = loads[0][1], loads[0][4]
    text = data = None
    for s, n in zip(elf.sh, elf.names):
        if lo <= s[4] < lo + lsz:
            if s[4] + s[5] > lo + lsz:
                raise LoaderError(f"{what}: section {n} runs past the PT_LOAD segment")
            if n == ".text":
                text = elf.bytes_of(s)
            elif n == ".data":
                data = elf.bytes_of(s)
    if text is None:
        raise LoaderError(f"{what}: no .text section inside the machine-{MACHINE_GCN} PT_LOAD segment")
    return text, data or b"", proginfo


def _field(pi: dict, addr: int, name: str, what: str) -> int:
    if addr not in pi:
        raise LoaderError(f"{what}: ProgInfo has no {name} (0x{addr:08x})")
    return pi[addr]


def load_cal(raw: bytes, what: str = "CAL binary"):
    """{kernel name: KernelInfo} of a CAL ELF; each KernelInfo carries a CalKernel in ``.cal``."""
    from .codeobject import KernelInfo
    from .descriptor import RSRC2_FIELDS, _bits
    outer = _Elf32(bytes(raw), what)
    if outer.e_machine != EM_CAL_OUTER:
        raise LoaderError(f"{what}: e_machine 0x{outer.e_machine:x}, a CAL binary has 0x{EM_CAL_OUTER:x}")
    syms = {n: (v, s, x) for n, v, s, x in _symbols(outer)}
    # __OpenCL_<n>_global: the initial contents of constant buffer n (the program's constant
    # data, e.g. the tables of the compiler's exp/log/pow); the inner .data is the space the
    # kernel sees (zeros in the binary)
    globals_ = {}
    for sym, loc in syms.items():
        m = re.fullmatch(r"__OpenCL_(\d+)_global", sym)
        if m:
            if int(m.group(1)) != 2:
                raise LoaderError(f"{what}: {sym}: global data for constant buffer {m.group(1)}; "
                                  f"supported: constant buffer 2")
            globals_[2] = _symbol_bytes(outer, sym, *loc)
    kernels = {}
    for sym, (value, size, shndx) in syms.items():
        m = re.fullmatch(r"__OpenCL_(.+)_kernel", sym)
        if not m:
            continue
        name = m.group(1)
        kwhat = f"{what}: kernel {name}"
        inner = _symbol_bytes(outer, sym, value, size, shndx)
        text, data, pi = _parse_inner(inner, kwhat + " (inner ELF)")
        if 2 in globals_:
            init = globals_[2]
            data = init + data[len(init):]
        meta = syms.get(f"__OpenCL_{name}_metadata")
        if meta is None:
            raise LoaderError(f"{kwhat}: no __OpenCL_{name}_metadata symbol (the argument metadata)")
        meta_text = _symbol_bytes(outer, f"__OpenCL_{name}_metadata", *meta).decode("latin1")
        args, datareqd, hwlocal, device, samplers = parse_metadata(meta_text, kwhat + " metadata")
        count = _field(pi, PI_USER_ELEMENT_COUNT, "AMU_ABI_USER_ELEMENT_COUNT", kwhat)
        if count > MAX_USER_ELEMENTS:
            raise LoaderError(f"{kwhat}: AMU_ABI_USER_ELEMENT_COUNT {count} exceeds {MAX_USER_ELEMENTS}")
        elems = []
        for k in range(count):
            cls, slot, first, n = (_field(pi, PI_USER_ELEMENT_COUNT + 1 + 4 * k + j,
                                          f"AMU_ABI_USER_ELEMENTS_{k}_DWORD{j}", kwhat) for j in range(4))
            cname = USER_ELEMENT_CLASSES.get(cls, f"class {cls}")
            if cname not in SUPPORTED_CLASSES:
                raise LoaderError(f"{kwhat}: user element {k} has data class {cname}; supported: "
                                  f"{sorted(SUPPORTED_CLASSES)}")
            if n != SUPPORTED_CLASSES[cname]:
                raise LoaderError(f"{kwhat}: user element {k} ({cname}) takes {n} SGPRs "
                                  f"(AMU_ABI_USER_ELEMENTS_{k}_DWORD3), expected {SUPPORTED_CLASSES[cname]}")
            if first + n > 16:
                raise LoaderError(f"{kwhat}: user element {k} ({cname}) s[{first}:{first + n - 1}] "
                                  f"(AMU_ABI_USER_ELEMENTS_{k}_DWORD2) is beyond the 16 user SGPRs")
            if cname == "IMM_CONST_BUFFER" and slot > 2:
                raise LoaderError(f"{kwhat}: user element {k}: constant buffer slot {slot}, supported 0..2")
            if cname == "IMM_UAV" and slot >= UAV_TABLE_ENTRIES:
                raise LoaderError(f"{kwhat}: user element {k}: UAV slot {slot}, supported 0..{UAV_TABLE_ENTRIES - 1}")
            if cname == "IMM_SAMPLER" and slot not in samplers:
                raise LoaderError(f"{kwhat}: user element {k} wants sampler {slot}, which the metadata "
                                  f"does not declare (;sampler:)")
            if cname == "IMM_SAMPLER":
                sampler_ssharp(samplers[slot], f"{kwhat}: sampler {slot}")      # known value?
            if cname == "IMM_CONST_BUFFER" and slot == 2 and not data:
                raise LoaderError(f"{kwhat}: user element {k} wants constant buffer 2 but the binary "
                                  f"has no .data for it")
            elems.append((cname, slot, first, n))
        rsrc2 = _field(pi, PI_RSRC2, "COMPUTE_PGM_RSRC2", kwhat)
        r2 = _bits(rsrc2, RSRC2_FIELDS)
        used = max([0] + [f + n for _c, _s, f, n in elems])
        if used > r2["user_sgpr_count"]:
            raise LoaderError(f"{kwhat}: user elements reach s{used - 1} but COMPUTE_PGM_RSRC2.USER_SGPR "
                              f"is {r2['user_sgpr_count']}")
        vgprs = _field(pi, PI_NUM_VGPRS, "NUM_VGPRS", kwhat)
        sgprs = _field(pi, PI_NUM_SGPRS, "NUM_SGPRS", kwhat)
        if not 1 <= vgprs <= 256:
            raise LoaderError(f"{kwhat}: NUM_VGPRS {vgprs} outside 1..256")
        if not 1 <= sgprs <= 104:
            raise LoaderError(f"{kwhat}: NUM_SGPRS {sgprs} outside 1..104")
        fmode = _field(pi, PI_FLOAT_MODE, "FloatMode", kwhat)
        ieee = _field(pi, PI_IEEE_MODE, "IeeeMode", kwhat)
        if fmode > 0xFF or ieee > 1:
            raise LoaderError(f"{kwhat}: FloatMode 0x{fmode:x} / IeeeMode {ieee} outside 8 bits / 0..1")
        lds_used = pi.get(PI_LDS_SIZE_USED, 0)
        lds = r2["granulated_lds_size"] * 256
        if lds > 65536 or lds_used > 65536:
            raise LoaderError(f"{kwhat}: LDS size {max(lds, lds_used)} (rsrc2 / AMU_ABI_LDS_SIZE_USED) exceeds 64 KiB")
        fields = {f.name: 0 for f in dataclasses.fields(KernelInfo) if f.default is dataclasses.MISSING}
        fields.update(r2)
        fields.update(name=name, code=text, entry_address=0, descriptor_address=0, descriptor=b"",
                      code_object_version=0, vgpr_count=vgprs, sgpr_count=sgprs,
                      mode_register=fmode | ieee << 9, compute_pgm_rsrc2=rsrc2,
                      float_round_mode_32=fmode & 3, float_round_mode_16_64=(fmode >> 2) & 3,
                      float_denorm_mode_32=(fmode >> 4) & 3, float_denorm_mode_16_64=(fmode >> 6) & 3,
                      enable_ieee_mode=ieee, group_segment_fixed_size=hwlocal)
        _refuse_private_uav(meta_text, elems, text, kwhat)
        info = KernelInfo(**fields)
        info.cal = CalKernel(elems, args, datareqd, data, hwlocal, max(lds_used, lds), fmode, ieee, pi,
                             device, DEVICE_ISA.get(device, "gfx7"), samplers)
        kernels[name] = info
    if not kernels:
        raise LoaderError(f"{what}: no __OpenCL_<kernel>_kernel symbols: not an OpenCL CAL binary")
    return kernels


# --- the CAL launch ABI ---------------------------------------------------------------------

def _image_object(v, what: str) -> list:
    """The 13 dwords of gcnemu's image object (T#, width, height, depth, channel data type,
    channel order: gcnemu.loader.climage.image_object_words) an image argument names: the
    Buffer holding such an object, or a gcnemu.cl.Image (its ``gcnemu_object``) made on the
    GPU the kernel runs on."""
    from ..errors import DispatchError
    from .climage import IMAGE_OBJECT_DWORDS
    obj = getattr(v, "gcnemu_object", v)
    if not hasattr(obj, "to_numpy") or getattr(obj, "nbytes", 0) != 4 * IMAGE_OBJECT_DWORDS:
        raise DispatchError(f"{what}: expected a gcnemu.cl.Image (or its gcnemu_object Buffer), "
                            f"got {type(v).__name__}")
    return [int(x) for x in obj.to_numpy(dtype="uint32")]


#: a constant buffer is an array of 16-byte (float4) constants: the compiler indexes its
#: tables with idxen buffer loads (index = byte offset >> 4, offset = byte offset & 12)
CB_STRIDE = 16


def cb_vsharp(address: int, size: int):
    """The V# of a constant buffer of ``size`` bytes at ``address``: stride 16, num_records
    the size in bytes (what s_buffer_load bounds its byte offsets by; an idxen load's index
    is then bounded loosely, by the same number)."""
    from ..mem.descriptors import encode_vsharp
    return encode_vsharp(address, size, CB_STRIDE)


#: byte offsets of the launch blob written per dispatch: UAV table (16 entries of 32 bytes),
#: constant buffer table (16 V# of 16 bytes), resource table (16 T# of 32 bytes), CB0, CB1,
#: then CB2
UAV_TABLE_OFFSET, CB_TABLE_OFFSET, RESOURCE_TABLE_OFFSET, CB0_OFFSET, CB1_OFFSET = 0, 512, 768, 1280, 1536
CB0_BYTES = 160
CB1_ALIGN = 256


class CalLaunchLayout:
    """The memory a CAL dispatch reads, as one blob (the "kernarg" region of the launch):
    the UAV table (16 entries of 32 bytes, a V# in the first 16 bytes of each: base = the start
    of GPU memory, so that a pointer argument is its buffer's offset in memory), the constant
    buffer table (entry n the V# of constant buffer n, for PTR_CONST_BUFFER_TABLE), the
    resource table (the T# of read-only image n in entry n; a write-only image's T# is its UAV
    table entry), constant buffer 0 (global size, work dimensions, local size, group counts, 0.0 0.5 1.0 2.0 at byte
    80), constant buffer 1 (the arguments at their metadata offsets) and, for ``datareqd``
    kernels, constant buffer 2 (the binary's .data)."""

    def __init__(self, info, grid, block, ndim: int):
        import numpy as np
        from ..mem.descriptors import encode_vsharp
        from ..mem.space import BASE
        self.info, self.cal, self.base = info, info.cal, BASE
        cal = self.cal
        g = tuple(grid) + (1,) * (3 - len(grid))
        b = tuple(block) + (1,) * (3 - len(block))
        cb0 = bytearray(CB0_BYTES)
        struct.pack_into("<4I", cb0, 0, g[0], g[1], g[2], ndim)
        struct.pack_into("<4I", cb0, 16, b[0], b[1], b[2], 0)
        struct.pack_into("<4I", cb0, 32, *(-(-g[i] // b[i]) for i in range(3)), 0)
        struct.pack_into("<4f", cb0, 80, 0.0, 0.5, 1.0, 2.0)
        self.cb1_bytes = -(-max([16] + [a.cb1_offset + max(16, a.size) for a in cal.args]) // CB1_ALIGN) * CB1_ALIGN
        self.cb2_offset = CB1_OFFSET + self.cb1_bytes
        # CB2 is the .data: for the kernels that name it and for those that reach constant
        # buffers through the table (the compiler reads its literal tables from CB2)
        cb2 = cal.data if any(c == "IMM_CONST_BUFFER" and s == 2 or c == "PTR_CONST_BUFFER_TABLE"
                              for c, s, _f, _n in cal.user_elements) else b""
        self.size = self.cb2_offset + len(cb2)
        blob = bytearray(self.size)
        uav = encode_vsharp(BASE, 0xFFFFFFFF).tobytes()
        for i in range(UAV_TABLE_ENTRIES):
            blob[UAV_TABLE_OFFSET + UAV_ENTRY_BYTES * i:UAV_TABLE_OFFSET + UAV_ENTRY_BYTES * i + 16] = uav
        blob[CB0_OFFSET:CB0_OFFSET + CB0_BYTES] = cb0
        blob[self.cb2_offset:self.size] = cb2
        self.ncb = 3 if cb2 else 2
        self.template = bytes(blob)
        self._np = np

    def cb_range(self, slot: int):
        """(offset in the blob, bytes) of constant buffer ``slot`` (0..2)."""
        return [(CB0_OFFSET, CB0_BYTES), (CB1_OFFSET, self.cb1_bytes),
                (self.cb2_offset, self.size - self.cb2_offset)][slot]

    def user_sgprs(self, blob_address: int):
        """[(what, first SGPR, count, value)] of the user elements for a blob at ``blob_address``:
        a table pointer is its address, an immediate descriptor the V# its table holds (as
        Multi2Sim's Wavefront::setSRegWithUAV / setSRegWithConstantBuffer copy it)."""
        from ..mem.descriptors import encode_vsharp
        out = []
        for cls, slot, first, n in self.cal.user_elements:
            if cls == "PTR_UAV_TABLE":
                out.append(("cal_uav_table", first, n, blob_address + UAV_TABLE_OFFSET))
            elif cls == "PTR_CONST_BUFFER_TABLE":
                out.append(("cal_cb_table", first, n, blob_address + CB_TABLE_OFFSET))
            elif cls == "PTR_RESOURCE_TABLE":
                out.append(("cal_resource_table", first, n, blob_address + RESOURCE_TABLE_OFFSET))
            elif cls == "IMM_SAMPLER":
                w = sampler_ssharp(self.cal.samplers[slot], f"kernel {self.info.name}")
                out.append((f"cal_sampler{slot}", first, n, sum(int(x) << (32 * i) for i, x in enumerate(w))))
            elif cls == "IMM_UAV":
                # every UAV is all of GPU memory (pointer arguments are offsets into it)
                w = encode_vsharp(self.base, 0xFFFFFFFF)
                out.append((f"cal_uav{slot}", first, n, sum(int(x) << (32 * i) for i, x in enumerate(w))))
            else:
                off, size = self.cb_range(slot)
                w = cb_vsharp(blob_address + off, size)
                out.append((f"cal_cb{slot}", first, n, sum(int(x) << (32 * i) for i, x in enumerate(w))))
        return out

    def relocate(self, blob: bytes, blob_address: int) -> bytes:
        """``blob`` with what depends on where it lies in memory filled in: the constant
        buffer table (its V#s hold the absolute addresses of CB0..CB2)."""
        out = bytearray(blob)
        for slot in range(self.ncb):
            off, size = self.cb_range(slot)
            at = CB_TABLE_OFFSET + CB_ENTRY_BYTES * slot
            out[at:at + CB_ENTRY_BYTES] = cb_vsharp(blob_address + off, size).tobytes()
        return bytes(out)

    def build(self, args) -> bytes:
        from ..errors import DispatchError
        import operator
        np = self._np
        info, cal = self.info, self.cal
        if len(args) != len(cal.args):
            sig = ", ".join(f"{a.type}{'*' if a.kind in ('uav', 'local') else ''} {a.name}" for a in cal.args)
            raise DispatchError(f"kernel {info.name}({sig}) takes {len(cal.args)} arguments, got {len(args)}")
        blob = bytearray(self.template)
        for i, (a, v) in enumerate(zip(cal.args, args)):
            what = f"kernel {info.name} argument {i} ({a.name}: {a.kind} {a.type})"
            at = CB1_OFFSET + a.cb1_offset
            if a.kind in ("uav", "local"):
                if a.kind == "uav" and not hasattr(v, "address") and not isinstance(v, (int, np.integer)):
                    raise DispatchError(f"{what}: expected a Buffer, got {type(v).__name__}")
                if a.kind == "local" and (hasattr(v, "address") or isinstance(v, (bool, float))):
                    raise DispatchError(f"{what} is a __local pointer: pass gcnemu.Local(nbytes)")
                addr = operator.index(getattr(v, "address", v))
                rel = addr - self.base if a.kind == "uav" else addr
                if not 0 <= rel <= 0xFFFFFFFF:
                    raise DispatchError(f"{what}: address 0x{addr:x} is not within 4 GiB of the "
                                        f"UAV base 0x{self.base:x}")
                struct.pack_into("<I", blob, at, rel)
                continue
            if a.kind == "image":
                words = _image_object(v, what)
                at_t = (RESOURCE_TABLE_OFFSET + RESOURCE_ENTRY_BYTES * a.uav if a.access == "RO"
                        else UAV_TABLE_OFFSET + UAV_ENTRY_BYTES * a.uav)
                blob[at_t:at_t + 32] = struct.pack("<8I", *words[:8])
                struct.pack_into("<5I", blob, at, *words[8:13])
                continue
            if a.kind == "struct":
                # the struct's bytes as the kernel's compiler laid them out: bytes, or a numpy
                # (structured) array or scalar of exactly that size
                raw = v.tobytes() if isinstance(v, (np.ndarray, np.generic)) else v
                if not isinstance(raw, (bytes, bytearray, memoryview)):
                    raise DispatchError(f"{what}: a struct of {a.size} bytes: pass bytes or a numpy "
                                        f"structured value, got {type(v).__name__}")
                if len(raw) != a.size:
                    raise DispatchError(f"{what}: a struct of {a.size} bytes, got {len(raw)} bytes")
                blob[at:at + a.size] = raw
                continue
            scalar = {"float": np.float32, "double": np.float64, "i8": np.int8, "u8": np.uint8,
                      "i16": np.int16, "u16": np.uint16, "i32": np.int32, "u32": np.uint32,
                      "i64": np.int64, "u64": np.uint64}[a.type]
            arr = np.asarray(v)
            if arr.dtype.kind == "f" and a.type not in ("float", "double"):
                raise DispatchError(f"{what}: expected an integer, got {arr.dtype}")
            if arr.dtype.kind not in "fiub":
                raise DispatchError(f"{what}: expected a number, got {type(v).__name__}")
            if arr.size != a.count:
                raise DispatchError(f"{what}: expected {a.count} values, got {arr.size}")
            if arr.dtype.kind in "iu" and a.type not in ("float", "double"):
                info_ = np.iinfo(scalar)
                if arr.min() < min(info_.min, 0) or arr.max() > info_.max:
                    raise DispatchError(f"{what}: value {v} does not fit in {a.type}")
                if a.type.startswith("u") and arr.min() < 0:
                    raise DispatchError(f"{what}: negative value {v} for the unsigned {a.type}")
            blob[at:at + a.size] = arr.astype(scalar).tobytes()
        return bytes(blob)
