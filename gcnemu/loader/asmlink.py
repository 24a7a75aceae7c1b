"""Link an assembled object (gcnemu.isa.assembler.AsmObject) into a gfx7 code object, laid out
as ``llvm-mc -filetype=obj`` + ``ld.lld-14 -shared`` lay it out.

This is what lets ``gcnemu.load("k.s")`` take what ``clang -S`` writes: the kernel descriptors
of the ``.amdhsa_kernel`` blocks are encoded (descriptor.encode_kernel_descriptor), the
``.amdgpu_metadata`` YAML becomes the msgpack note of code object v4
(metadata.metadata_msgpack_from_yaml), and the sections are placed at the addresses ld.lld
gives them, so that the kernel descriptors (kernel_code_entry_byte_offset included), the
PC-relative relocations (``sym@rel32@lo``/``@hi``) and so the code bytes equal those of the
llvm-mc + ld.lld build. ld.lld's layout of a shared object for AMDGPU: the ELF and program
headers (8 of them; 7 without a note), then in a read-only segment .note, .dynsym, .gnu.hash,
.hash, .dynstr and .rodata; .text in the next segment at the next page plus the offset within
the page (4 KiB pages, -z noseparate-code); .dynamic in a third (RELRO) segment. The dynamic
symbol table holds the global symbols of default or protected visibility (the kernels and
their descriptors), as ld.lld's does.

Sections that are not loaded (``.AMDGPU.csdata``, clang -g's ``.debug_*``) are read and
dropped: no dispatch reads them. Supported: code in .text (and .text.*), read-only data in
.rodata (and .rodata.*);
writable data (.data, .bss) is an error, as are relocations other than @rel32@lo/@rel32@hi
against symbols defined in the file.
"""
from __future__ import annotations

import struct

from ..errors import AssemblerError
from .codeobject import GFX7_MACHS, ELFOSABI_AMDGPU_HSA, EM_AMDGPU
from .descriptor import encode_kernel_descriptor
from .metadata import NT_AMDGPU_METADATA, metadata_msgpack_from_yaml

PAGE = 4096
_VIS = {"default": 0, "internal": 1, "hidden": 2, "protected": 3}
_TYPE = {"notype": 0, "object": 1, "func": 2}
_BIND = {"local": 0, "global": 1, "weak": 2}
_CODE_OBJECT_V4_ABI = 2


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def _note(owner: bytes, ntype: int, desc: bytes) -> bytes:
    name = owner + b"\0"
    return (struct.pack("<III", len(name), len(desc), ntype) + name + bytes(-len(name) % 4)
            + desc + bytes(-len(desc) % 4))


def _mach(obj) -> int:
    by_name = {v: k for k, v in GFX7_MACHS.items()}
    if obj.target is None:
        return by_name["gfx700"]
    target, line = obj.target
    proc = target.rsplit("-", 1)[-1].split(":")[0]
    if not target.startswith("amdgcn-amd-amdhsa--") or proc not in by_name:
        raise AssemblerError(f".amdgcn_target \"{target}\": gcnemu assembles for "
                             f"amdgcn-amd-amdhsa--{{{', '.join(GFX7_MACHS.values())}}} (gfx7)",
                             line)
    return by_name[proc]


def _sysv_hash(name: bytes) -> int:
    h = 0
    for c in name:
        h = (h << 4) + c
        g = h & 0xF0000000
        if g:
            h ^= g >> 24
        h &= ~g
    return h & 0xFFFFFFFF


def _gnu_hash(name: bytes) -> int:
    h = 5381
    for c in name:
        h = (h * 33 + c) & 0xFFFFFFFF
    return h


def _output_section(name: str, flags: str, where) -> str | None:
    """The output section an input section goes to (None: not loaded)."""
    if "a" not in flags:
        return None
    if "w" in flags:
        raise AssemblerError(f"section {name} is writable: gcnemu links code (.text) and "
                             f"read-only data (.rodata) only", *where)
    return ".text" if "x" in flags else ".rodata"


def link_object(obj) -> bytes:
    """The ELF bytes of the code object that ``obj`` (an AsmObject with at least one
    ``.amdhsa_kernel``) links into. Problems are AssemblerErrors naming the line."""
    mach = _mach(obj)
    syms = obj.symbols
    first_line = {}
    for s in syms.values():
        if s.section is not None:
            first_line.setdefault(s.section, s.line)
    # input sections -> output sections, in input order, each at its alignment
    layout: dict = {".rodata": [], ".text": []}
    for name, data in obj.sections.items():
        out = _output_section(name, obj.flags[name], (first_line.get(name),))
        if out is not None and (data or any(s.section == name for s in syms.values())):
            layout[out].append(name)
    sections = {n: bytearray(d) for n, d in obj.sections.items()}
    for k in obj.kernels:
        ks = syms.get(k.name)
        if ks is None or ks.section is None:
            raise AssemblerError(f".amdhsa_kernel {k.name}: no label {k.name} (the kernel's "
                                 f"code) in the file", k.line)
        if "x" not in obj.flags[ks.section]:
            raise AssemblerError(f".amdhsa_kernel {k.name}: label {k.name} is in section "
                                 f"{ks.section}, not in code", k.line)
        if _output_section(k.section, obj.flags[k.section], (k.line,)) is None:
            raise AssemblerError(f".amdhsa_kernel {k.name} is in section {k.section}, which is "
                                 f"not loaded (put it in .rodata)", k.line)
        sections[k.section][k.offset:k.offset + 64] = encode_kernel_descriptor(
            k.name, k.directives, k.line)
    note = b""
    if obj.metadata is not None:
        note = _note(b"AMDGPU", NT_AMDGPU_METADATA, metadata_msgpack_from_yaml(*obj.metadata))

    defined = [s for s in syms.values() if s.section is not None and not s.name.startswith(".L")
               and _output_section(s.section, obj.flags[s.section], (s.line,)) is not None]
    dynamic = [s for s in defined if s.binding != "local" and s.visibility in
               ("default", "protected")]
    ndyn = len(dynamic) + 1
    nbuckets = max(len(dynamic) // 4, 1)
    mask_words = 1 << (len(dynamic) * 12 // 64).bit_length()   # llvm::NextPowerOf2
    # llvm-mc writes the global symbols sorted by name; ld.lld adds their names to .dynstr in
    # that order, then orders .dynsym by .gnu.hash bucket
    dynamic.sort(key=lambda s: s.name.encode())
    dynstr = bytearray(b"\0")
    dyn_name = {}
    for s in dynamic:
        dyn_name[s.name] = len(dynstr)
        dynstr += s.name.encode() + b"\0"
    dynamic.sort(key=lambda s: _gnu_hash(s.name.encode()) % nbuckets)

    # addresses, as ld.lld assigns them
    phnum = 8 if note else 7
    dot = 64 + 56 * phnum
    addr = {}

    def place(name, size, align):
        nonlocal dot
        dot = _align(dot, align)
        addr[name] = dot
        dot += size

    if note:
        place(".note", len(note), 4)
    place(".dynsym", 24 * ndyn, 8)
    gnu_hash_size = 16 + 8 * mask_words + 4 * nbuckets + 4 * len(dynamic)
    place(".gnu.hash", gnu_hash_size, 8)
    place(".hash", 4 * (2 + 2 * ndyn), 4)
    place(".dynstr", len(dynstr), 1)
    outdata = {}
    inaddr = {}
    for out in (".rodata", ".text"):
        if out == ".text":
            ro_end = dot
            dot = _align(dot, PAGE) + dot % PAGE
        align = max([obj.align[n] for n in layout[out]] + [1])
        dot = _align(dot, align)
        base = dot
        buf = bytearray()
        for n in layout[out]:
            pad = -len(buf) % obj.align[n]
            buf += (b"\0" * pad) if out == ".rodata" else _nops(pad)
            inaddr[n] = base + len(buf)
            buf += sections[n]
        addr[out] = base
        outdata[out] = buf
        dot = base + len(buf)
    text_end = dot
    dot = _align(dot, PAGE) + dot % PAGE
    place(".dynamic", 16 * 7, 8)

    def sym_addr(s):
        return inaddr[s.section] + s.offset

    for r in obj.relocs:
        s = syms.get(r.symbol)
        if s is None or s.section is None:
            raise AssemblerError(f"undefined symbol '{r.symbol}' (gcnemu links one file)",
                                 r.line, r.column)
        if s.binding != "local" and s.visibility == "default":
            raise AssemblerError(f"relocation {r.symbol}@{r.kind.replace('_', '@')} against a "
                                 f"global symbol of default visibility (preemptible in a "
                                 f"shared object): mark it .hidden or .protected", r.line,
                                 r.column)
        if r.section not in inaddr:
            continue                      # a section that is not loaded
        p = inaddr[r.section] + r.offset
        v = (sym_addr(s) + r.addend - p) & ((1 << 64) - 1)
        v = v & 0xFFFFFFFF if r.kind == "rel32_lo" else v >> 32
        out = ".text" if r.section in layout[".text"] else ".rodata"
        o = p - addr[out]
        outdata[out][o:o + 4] = v.to_bytes(4, "little")
    for k in obj.kernels:
        kd, ks = syms[k.name + ".kd"], syms[k.name]
        o = sym_addr(kd) - addr[".rodata"]
        outdata[".rodata"][o + 16:o + 24] = struct.pack("<q", sym_addr(ks) - sym_addr(kd))

    # tables
    shndx = {}
    names = ([".note"] if note else []) + [".dynsym", ".gnu.hash", ".hash", ".dynstr",
                                           ".rodata", ".text", ".dynamic", ".symtab",
                                           ".shstrtab", ".strtab"]
    for i, n in enumerate(names, 1):
        shndx[n] = i

    def out_of(s):
        return ".text" if s.section in layout[".text"] else ".rodata"

    def sym_entry(name_off, s):
        bind = _BIND[s.binding] if s.visibility not in ("hidden", "internal") else 0
        return struct.pack("<IBBHQQ", name_off, bind << 4 | _TYPE[s.type], _VIS[s.visibility],
                           shndx[out_of(s)], sym_addr(s), s.size)

    dynsym = bytearray(24)
    for s in dynamic:
        dynsym += sym_entry(dyn_name[s.name], s)
    hashes = [_gnu_hash(s.name.encode()) for s in dynamic]
    bloom = [0] * mask_words
    for h in hashes:
        bloom[(h // 64) % mask_words] |= 1 << (h % 64) | 1 << ((h >> 26) % 64)
    buckets = [0] * nbuckets
    chains = []
    for i, h in enumerate(hashes):
        b = h % nbuckets
        if not buckets[b]:
            buckets[b] = i + 1
        last = i + 1 == len(hashes) or hashes[i + 1] % nbuckets != b
        chains.append(h & ~1 | int(last))
    gnu_hash = struct.pack("<IIII", nbuckets, 1, mask_words, 26) + \
        struct.pack(f"<{mask_words}Q", *bloom) + struct.pack(f"<{nbuckets}I", *buckets) + \
        struct.pack(f"<{len(chains)}I", *chains)
    sysv_buckets, sysv_chain = [0] * ndyn, [0] * ndyn
    for i, s in enumerate(dynamic, 1):
        b = _sysv_hash(s.name.encode()) % ndyn
        sysv_chain[i] = sysv_buckets[b]
        sysv_buckets[b] = i
    sysv = struct.pack(f"<II{ndyn}I{ndyn}I", ndyn, ndyn, *sysv_buckets, *sysv_chain)
    dynamic_sec = struct.pack("<14Q", 6, addr[".dynsym"], 11, 24, 5, addr[".dynstr"],
                              10, len(dynstr), 0x6FFFFEF5, addr[".gnu.hash"], 4, addr[".hash"],
                              0, 0)
    strtab = bytearray(b"\0")
    symtab = bytearray(24)
    ordered = sorted(defined, key=lambda s: s.binding != "local" and s.visibility not in
                     ("hidden", "internal"))
    first_global = 1
    for s in ordered:
        if s.binding == "local" or s.visibility in ("hidden", "internal"):
            first_global += 1
        symtab += sym_entry(len(strtab), s)
        strtab += s.name.encode() + b"\0"
    shstrtab = bytearray(b"\0")
    shname = {}
    for n in names:
        shname[n] = len(shstrtab)
        shstrtab += n.encode() + b"\0"

    # the file: offsets equal addresses in the first segment; a later segment starts at the
    # offset that is its address modulo the page size
    out = bytearray(64 + 56 * phnum)
    file_off = {}

    def put(name, data, align, address=None):
        if address is None:
            out.extend(bytes(-len(out) % align))
        else:
            out.extend(bytes((address - len(out)) % PAGE))
        file_off[name] = len(out)
        out.extend(data)

    contents = {".note": note, ".dynsym": dynsym, ".gnu.hash": gnu_hash, ".hash": sysv,
                ".dynstr": dynstr, ".rodata": outdata[".rodata"]}
    for n in names[:names.index(".rodata") + 1]:
        out.extend(bytes(addr[n] - len(out)))
        file_off[n] = len(out)
        out.extend(contents[n])
    put(".text", outdata[".text"], 1, addr[".text"])
    put(".dynamic", dynamic_sec, 1, addr[".dynamic"])
    put(".symtab", symtab, 8)
    put(".shstrtab", shstrtab, 1)
    put(".strtab", strtab, 1)
    out.extend(bytes(-len(out) % 8))
    shoff = len(out)
    # section headers: (name, type, flags, addr, offset, size, link, info, align, entsize)
    heads = [(0,) * 10]
    spec = {".note": (7, 2, 4, 0, 0, 0), ".dynsym": (11, 2, 8, shndx[".dynstr"], 1, 24),
            ".gnu.hash": (0x6FFFFFF6, 2, 8, shndx[".dynsym"], 0, 0),
            ".hash": (5, 2, 4, shndx[".dynsym"], 0, 4), ".dynstr": (3, 2, 1, 0, 0, 0),
            ".rodata": (1, 2, max([obj.align[n] for n in layout[".rodata"]] + [1]), 0, 0, 0),
            ".text": (1, 6, max([obj.align[n] for n in layout[".text"]] + [1]), 0, 0, 0),
            ".dynamic": (6, 3, 8, shndx[".dynstr"], 0, 16),
            ".symtab": (2, 0, 8, shndx[".strtab"], first_global, 24),
            ".shstrtab": (3, 0, 1, 0, 0, 0), ".strtab": (3, 0, 1, 0, 0, 0)}
    sizes = {".note": len(note), ".dynsym": len(dynsym), ".gnu.hash": len(gnu_hash),
             ".hash": len(sysv), ".dynstr": len(dynstr), ".rodata": len(outdata[".rodata"]),
             ".text": len(outdata[".text"]), ".dynamic": len(dynamic_sec),
             ".symtab": len(symtab), ".shstrtab": len(shstrtab), ".strtab": len(strtab)}
    for n in names:
        t, fl, al, link, info, ent = spec[n]
        heads.append((shname[n], t, fl, addr.get(n, 0), file_off[n], sizes[n], link, info, al,
                      ent))
    for h in heads:
        out += struct.pack("<IIQQQQIIQQ", *h)
    # program headers: (type, flags, offset, vaddr, filesz, memsz, align)
    dyn_a, dyn_o = addr[".dynamic"], file_off[".dynamic"]
    phdrs = [(6, 4, 64, 64, 56 * phnum, 56 * phnum, 8),
             (1, 4, 0, 0, ro_end, ro_end, PAGE),
             (1, 5, file_off[".text"], addr[".text"], text_end - addr[".text"],
              text_end - addr[".text"], PAGE),
             (1, 6, dyn_o, dyn_a, len(dynamic_sec), len(dynamic_sec), PAGE),
             (2, 6, dyn_o, dyn_a, len(dynamic_sec), len(dynamic_sec), 8),
             (0x6474E552, 4, dyn_o, dyn_a, len(dynamic_sec),
              _align(dyn_a + len(dynamic_sec), PAGE) - dyn_a, 1),
             (0x6474E551, 6, 0, 0, 0, 0, 0)]
    if note:
        phdrs.append((4, 4, addr[".note"], addr[".note"], len(note), len(note), 4))
    for i, (t, fl, off, va, fs, ms, al) in enumerate(phdrs):
        struct.pack_into("<IIQQQQQQ", out, 64 + 56 * i, t, fl, off, va, va, fs, ms, al)
    ident = b"\x7fELF" + bytes([2, 1, 1, ELFOSABI_AMDGPU_HSA, _CODE_OBJECT_V4_ABI]) + bytes(7)
    struct.pack_into("<16sHHIQQQIHHHHHH", out, 0, ident, 3, EM_AMDGPU, 1, 0, 64, shoff, mach,
                     64, 56, phnum, 64, len(heads), shndx[".shstrtab"])
    return bytes(out)


def _nops(n: int) -> bytes:
    """Padding between code sections: s_nop 0 words, as llvm-mc and ld.lld pad code."""
    return (0xBF800000).to_bytes(4, "little") * (n // 4) + bytes(n % 4)
