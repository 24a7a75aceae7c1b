"""Kernels and loading: code objects and assembly files become kernels ready to dispatch.

    prog = gcnemu.load("k.hsaco")       # a code object (path or bytes), or a .s file
    kernel = prog.kernel("saxpy")

A Kernel holds the loader's KernelInfo (descriptor, metadata, launch state) and the decoded
program (gcnemu/exec/program.py); the facts of its code that launches need (whether its
workgroups may run on several workers, whether it reaches GDS) are worked out once.
"""
from __future__ import annotations

import collections
import hashlib
import os
import threading
from dataclasses import dataclass

from .errors import AssemblerError, DecodeError, LoaderError
from .exec.program import Program, build_program
from .isa import table
from .isa.decoder import decode_one
from .loader.codeobject import CodeObject, KernelInfo, load_code_object
from .loader.opencl import compile_opencl


@dataclass(frozen=True)
class ProgramSource:
    """What ``load`` made a program from, in a form another process can load again (Dask
    workers of gcnemu.distributed and of a sharded dispatch): the bytes of a code object or
    CAL binary (``kind`` "binary"; an OpenCL C file's compiled code object, with ``libclc``),
    or assembly text (``kind`` "asm", the kernel named ``name``)."""

    kind: str
    data: bytes
    name: str = ""
    libclc: bool = False

    @property
    def digest(self) -> str:
        """A content hash: equal sources load equal programs (workers cache by it)."""
        h = hashlib.sha256(self.kind.encode() + b"\0" + self.name.encode() + b"\0" +
                           bytes([self.libclc]) + self.data)
        return h.hexdigest()

    def load(self) -> "LoadedProgram":
        """Load the program again (in this or another process)."""
        if self.kind == "asm":
            from .isa.assembler import assemble
            prog = LoadedProgram(None, {self.name: assembly_kernel_info(
                self.name, assemble(self.data.decode()))})
        elif self.kind == "binary":
            prog = load(self.data)
            prog.libclc = self.libclc
        else:
            raise LoaderError(f"unknown program source kind {self.kind!r}")
        prog.source = self
        return prog


#: programs loaded by load_cached in this process, by source digest, most recent last
_LOADED: "collections.OrderedDict[str, LoadedProgram]" = collections.OrderedDict()
_LOADED_LOCK = threading.Lock()
#: load_cached keeps this many programs
KEEP_LOADED = 64


def load_cached(source: ProgramSource) -> "LoadedProgram":
    """``source.load()``, once per process for each source (a Dask worker loads and decodes
    each code object of a sweep or sharded dispatch once, and keeps the VALU op kernels its
    programs bound)."""
    key = source.digest
    with _LOADED_LOCK:
        prog = _LOADED.get(key)
        if prog is not None:
            _LOADED.move_to_end(key)
            return prog
    prog = source.load()
    with _LOADED_LOCK:
        _LOADED[key] = prog
        while len(_LOADED) > KEEP_LOADED:
            _LOADED.popitem(last=False)
    return prog


class Kernel:
    """A kernel ready to dispatch: its descriptor/metadata, the decoded program holding its
    code (for a code object: all of .text, so calls to other functions work) and the program
    row where it starts."""

    def __init__(self, info: KernelInfo, program: Program, code_object: CodeObject | None = None,
                 entry_row: int = 0, code_address: int = 0, redecode=None):
        self.info = info
        self.program = program
        self.name = info.name
        self.code_object = code_object
        self.entry_row = entry_row
        self.code_address = code_address   #: code-object address of the program's first byte
        self._code_facts = None            #: see code_facts
        #: compiled by gcnemu from OpenCL C against libclc-14: dispatch lays the implicit
        #: arguments out as libclc reads them (see GPU.dispatch, implicit_args)
        self.libclc = False
        #: what the kernel's program was loaded from (ProgramSource), for other processes;
        #: None for kernels made by hand
        self.source = None
        #: gen -> (program, entry row) decoded for another generation (see for_gen)
        self._redecode = redecode
        self._gens = {table.GFX7: self}

    def for_gen(self, gen: str) -> "Kernel":
        """This kernel with its code decoded for generation ``gen`` (table.GFX6 for a gfx6 GPU:
        the GCN 1.0 opcodes and semantics, see GPUConfig.isa); LoaderError naming the
        instruction where the code holds one that generation lacks. Kept once decoded."""
        k = self._gens.get(gen)
        if k is None:
            if self._redecode is None:
                program, row = decode_text(self.info.code, 0, self.name, gen), 0
            else:
                program, row = self._redecode(gen)
            k = Kernel(self.info, program, self.code_object, row, self.code_address)
            k.libclc, k._gens, k.source = self.libclc, self._gens, self.source
            self._gens[gen] = k
        return k

    def __repr__(self) -> str:
        return f"Kernel({self.name!r}, {len(self.program.instructions)} instructions)"

    def code_facts(self) -> tuple[str, bool]:
        """(why its workgroups must run on one worker or '', whether it can reach GDS): facts of
        the kernel's code that every launch needs, worked out once per program."""
        prog = self.program
        if self._code_facts is None or self._code_facts[0] is not prog:
            self._code_facts = (prog, _needs_serial(prog), _uses_gds(prog))
        return self._code_facts[1:]


class LoadedProgram:
    """A loaded code object (or assembled source): its kernels by name."""

    def __init__(self, code_object: CodeObject | None, kernels: dict, libclc: bool = False):
        self.code_object = code_object
        self.libclc = libclc
        #: what it was loaded from (ProgramSource; set by load), or None
        self.source = None
        self._infos = kernels
        self._kernels: dict[str, Kernel] = {}
        self._text_program: dict = {}   #: gen -> Program of all of .text

    @property
    def kernel_names(self) -> list[str]:
        return sorted(self._infos)

    def kernel(self, name: str) -> Kernel:
        """The kernel called ``name`` (LoaderError listing the names that exist)."""
        if name not in self._kernels:
            if name not in self._infos:
                raise LoaderError(f"no kernel named {name!r}; kernels: {self.kernel_names or 'none'}")
            info = self._infos[name]
            co = self.code_object
            prog = None
            if co is not None and co.text_address <= info.entry_address < co.text_address + len(co.text):
                try:
                    prog = self._text()
                except LoaderError:
                    # .text is not pure code (code object v2 keeps amd_kernel_code_t headers
                    # there): decode this kernel's own bytes only
                    prog = None
            if prog is not None:
                def entry(prog):
                    row = prog.pc_index.get(info.entry_address - co.text_address)
                    if row is None:
                        raise LoaderError(f"kernel {name}: entry 0x{info.entry_address:x} is not "
                                          f"at an instruction boundary of .text")
                    return row

                def redecode(gen):       # .text decoded for another generation (for_gen)
                    p = self._text(gen)
                    return p, entry(p)
                self._kernels[name] = Kernel(info, prog, co, entry(prog), co.text_address,
                                             redecode=redecode)
            else:
                self._kernels[name] = Kernel(info, decode_kernel(info, info.code), co, 0,
                                             info.entry_address)
            self._kernels[name].libclc = self.libclc
            self._kernels[name].source = self.source
        return self._kernels[name]

    def _text(self, gen: str = table.GFX7) -> Program:
        """All of .text decoded once per generation (kernels and the functions they call)."""
        if gen not in self._text_program:
            co = self.code_object
            entries = [i.entry_address - co.text_address for i in self._infos.values()]
            self._text_program[gen] = decode_text(co.text, max(entries), "code object .text", gen)
        return self._text_program[gen]


def decode_kernel(info: KernelInfo, code: bytes) -> Program:
    """Decode one kernel's code; padding that does not decode after an s_endpgm ends it."""
    return decode_text(code, 0, info.name)


def decode_text(code: bytes, last_entry: int, name: str, gen: str = table.GFX7) -> Program:
    """Decode a code block for generation ``gen``. Bytes that do not decode after an s_endpgm
    that follows the last entry point (alignment padding, data) end the program; anything
    else undecodable is an error naming the offset."""
    out, pc, seen_end = [], 0, False
    while pc < len(code):
        try:
            ins = decode_one(code, pc, gen)
        except DecodeError as e:
            if seen_end:
                break
            raise LoaderError(f"{name}: {e}") from None
        out.append(ins)
        seen_end = seen_end or (ins.name == "s_endpgm" and pc >= last_entry)
        pc += ins.size
    return build_program(out, name, gen)


def load(src, options=None) -> LoadedProgram:
    """Load a code object (path or bytes), a CAL ELF binary of AMD's Catalyst OpenCL driver
    (path or bytes; see gcnemu.loader.cal), an OpenCL C file (path ending in .cl: compiled with
    clang-14, lld-14 and libclc-14, and cached; ``options`` such as ``["-DN=4"]`` go to clang;
    see gcnemu.loader.opencl) or a GCN assembly file (path ending in .s).

    An assembly file with ``.amdhsa_kernel`` blocks (what ``clang -S`` writes, or hand-written
    in that form, with ``.amdgpu_metadata``) is assembled and linked into a code object laid
    out as llvm-mc and ld.lld-14 make it (see gcnemu.loader.asmlink). Assembly files without
    AMDHSA directives become one kernel named after the file whose launch state is: s[0:1] = kernarg segment pointer, s2/s3/s4 = workgroup id x/y/z,
    v0/v1/v2 = work-item id x/y/z, 104 SGPRs and 256 VGPRs available.
    """
    is_path = isinstance(src, (str, os.PathLike))
    if options is not None and not (is_path and str(src).endswith(".cl")):
        raise LoaderError("load(..., options=...) is for OpenCL C files (.cl) only")
    if is_path and str(src).endswith(".cl"):
        if isinstance(options, str):
            raise LoaderError("options is a list of clang arguments, e.g. ['-DN=4'], not a string")
        try:
            text = open(src).read()
        except OSError as e:
            raise LoaderError(f"cannot read {src}: {e.strerror}") from None
        binary = compile_opencl(text, options or (), name=os.path.basename(str(src)),
                                include_dir=os.path.dirname(os.path.abspath(src)))
        co = load_code_object(binary)
        prog = LoadedProgram(co, co.kernels, libclc=True)
        prog.source = ProgramSource("binary", bytes(binary), libclc=True)
        return prog
    if is_path and str(src).endswith(".s"):
        return _load_assembly(str(src))
    from .loader.cal import is_cal_binary, load_cal
    raw = src
    if is_path:
        try:
            with open(src, "rb") as f:
                raw = f.read(20)
        except OSError:
            raw = b""           # load_code_object names the problem
    if isinstance(raw, (bytes, bytearray, memoryview)) and is_cal_binary(bytes(raw[:20])):
        if is_path:
            with open(src, "rb") as f:
                raw = f.read()
        prog = LoadedProgram(None, load_cal(bytes(raw), str(src) if is_path else "CAL binary"))
        prog.source = ProgramSource("binary", bytes(raw))
        return prog
    co = load_code_object(src)
    prog = LoadedProgram(co, co.kernels)
    if is_path:
        with open(src, "rb") as f:
            raw = f.read()      # load_code_object read it (and named any problem) already
    prog.source = ProgramSource("binary", bytes(raw))
    return prog


def _load_assembly(path: str) -> LoadedProgram:
    """load() of a .s file: a code object when it has .amdhsa_kernel blocks, else raw code."""
    from .isa.assembler import assemble_object
    from .loader.asmlink import link_object

    try:
        text = open(path).read()
    except OSError as e:
        raise LoaderError(f"cannot read {path}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise LoaderError(f"{path} is not a text file: {e}") from None
    try:
        obj = assemble_object(text)
        if obj.kernels:
            linked = link_object(obj)
            co = load_code_object(linked)
            prog = LoadedProgram(co, co.kernels)
            prog.source = ProgramSource("binary", bytes(linked))
            return prog
        if obj.metadata is not None:
            raise AssemblerError(".amdgpu_metadata describes kernels, but the file has no "
                                 ".amdhsa_kernel block (the kernel descriptor)", obj.metadata[1] - 1)
        code, _labels = obj.machine_code()
    except AssemblerError as e:
        raise AssemblerError(e.message, e.line, e.column, source=path) from None
    name = os.path.splitext(os.path.basename(path))[0]
    prog = LoadedProgram(None, {name: assembly_kernel_info(name, code)})
    prog.source = ProgramSource("asm", text.encode(), name)
    return prog


def assembly_kernel_info(name: str, code: bytes) -> KernelInfo:
    """A KernelInfo for raw assembled code (the launch state described in `load`)."""
    import dataclasses
    fields = {f.name: 0 for f in dataclasses.fields(KernelInfo) if f.default is dataclasses.MISSING}
    fields.update(name=name, code=code, entry_address=0, descriptor_address=0, descriptor=b"",
                  code_object_version=0, vgpr_count=256, sgpr_count=104, mode_register=0x3F0,
                  user_sgpr_count=2, enable_sgpr_kernarg_segment_ptr=1, enable_sgpr_workgroup_id_x=1,
                  enable_sgpr_workgroup_id_y=1, enable_sgpr_workgroup_id_z=1,
                  enable_vgpr_workitem_id=2, enable_dx10_clamp=1, enable_ieee_mode=1,
                  float_denorm_mode_32=3, float_denorm_mode_16_64=3)
    return KernelInfo(**fields)



#: global atomic ops whose results do not depend on their order: the ops of one class commute
#: with each other (add and sub are both modular additions); different classes do not
_COMMUTING_ATOMICS = {"add": "add", "sub": "add", "and": "and", "or": "or", "xor": "xor",
                      "smin": "smin", "umin": "umin", "smax": "smax", "umax": "umax"}


def _uses_gds(prog: Program) -> bool:
    """Whether a program has a DS instruction that can reach GDS."""
    return any(ins.defn.encoding == "DS" and (ins.fields.get("gds") or ins.name.startswith(("ds_gws", "ds_ordered")))
               for ins in prog.instructions)


def _needs_serial(prog: Program) -> str:
    """Why a program's workgroups must run in order on one worker ('' if they need not).

    Workgroups of a race-free kernel only interact through global atomics and GDS; everything
    else they write lands at distinct addresses, so running batches on two threads gives the
    same bits. Global atomics are made thread-safe by memory.mem_atomic (a host compare-and-
    swap), so their final memory contents do not depend on the interleaving when they do not
    return the old value (GLC=0) and all of them belong to one commuting class of the same
    width (e.g. only atomic adds/subs of dwords, as a histogram does). Any other atomic (one
    that returns the old value, swap, cmpswap, inc/dec, float ops, or a mix of classes) makes
    the result order-dependent, and GDS state is kept per worker: such kernels run serially.
    """
    if _uses_gds(prog):
        return "uses GDS (kept per worker)"
    return _global_atomics(prog)[0]


def global_atomic_class(prog: Program) -> tuple[str, int] | None:
    """(operation, bytes) of the global atomics of a program whose workgroups may run apart
    (see _needs_serial): "add" (add and sub), "and", "or", "xor", "smin", "umin", "smax" or
    "umax", on 4 or 8 bytes; None when it has none. How shards of a sharded dispatch that
    updated the same word combine (gcnemu/shards.py)."""
    reason, classes = _global_atomics(prog)
    if reason or not classes:
        return None
    op, wide = next(iter(classes))
    return op, 8 if wide else 4


def _global_atomics(prog: Program) -> tuple[str, set]:
    """(why the order of the program's global atomics can show, or ''; their classes
    {(commuting class, 64-bit)})."""
    classes = set()
    for ins in prog.instructions:
        n = ins.name
        if ins.defn.encoding == "DS":
            continue   # LDS atomics stay within one workgroup, which one worker runs
        if "_atomic_" not in n:
            continue
        op = n.split("_atomic_", 1)[1]
        wide = op.endswith("_x2")
        op = op[:-3] if wide else op
        if ins.fields.get("glc"):
            return f"uses {n} with glc (returns the old value: the order of atomics shows)", classes
        if op not in _COMMUTING_ATOMICS:
            return f"uses {n} (the order of {op} atomics changes the result)", classes
        classes.add((_COMMUTING_ATOMICS[op], wide))
        if len(classes) > 1:
            return f"uses {n} together with other kinds of global atomics (they do not commute)", classes
    return "", classes

