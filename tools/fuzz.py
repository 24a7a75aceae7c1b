"""Fuzz campaigns against gcnemu, run in bounds-checked child processes.

    python tools/fuzz.py dispatch --minutes 10 --workers 1,2    # random instruction sequences
    python tools/fuzz.py snippet --minutes 2
    python tools/fuzz.py loader --cases 4000                     # mutated code objects
    python tools/fuzz.py loader-cal --cases 4000                 # mutated CAL binaries only
    python tools/fuzz.py decode --cases 20000                    # decoder and disassembler
    python tools/fuzz.py asm --cases 5000                        # mutated assembly lines
    python tools/fuzz.py asm-diff --cases 5000                   # ... against llvm-mc

Each campaign runs its cases in a child process with ``GCNEMU_BOUNDSCHECK=1`` (every numba
function checks its indices: an out-of-bounds access raises IndexError instead of corrupting
memory). The parent hands the child one case at a time, so a case that kills the child (a
signal, a hang past the time limit) is known; the parent restarts the child and goes on. A
case slower than ``case_timeout`` runs again in a fresh child with ``confirm_timeout`` (it may
have been compiling a part of the bounds-checked build). What counts as an anomaly:

* any exception that is not a ``gcnemu.GcnEmuError`` (for the loader: not a ``LoaderError``);
* a signal, or a case running past its time limit;
* for dispatches: a changed canary (every byte of GPU memory that no allocation maps is filled
  with a pattern before the dispatch and must hold it after: writes to unmapped memory are
  dropped), a later dispatch on the same GPU that gives wrong results, or a loader mutant that
  makes the GPU allocate far more than its segments need.

Anomalies are minimised (instructions, or mutated bytes, dropped one at a time while the
anomaly stays) and written with the command that reproduces them to ``--out`` (default
``fuzz-findings/``). The exit status is 1 when there were anomalies.

The generators are also used by tests/test_fuzz.py with a fixed budget.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: the families random programs are drawn from, with their weight
FAMILY_WEIGHTS = {"SOP2": 6, "SOPK": 3, "SOP1": 5, "SOPC": 3, "SOPP": 4, "SMRD": 4, "VOP1": 6,
                  "VOPC": 4, "VOP2": 6, "VOP3": 8, "VINTRP": 1, "DS": 5, "FLAT": 5, "MUBUF": 3,
                  "MTBUF": 2, "MIMG": 2, "EXP": 1}
_VALU_FAMILIES = ("VOP1", "VOP2", "VOPC", "VOP3")
#: VALU ops of the suite's short campaigns (tests/test_fuzz.py): common ones of every operand
#: shape, so that the bounds-checked build compiles a few dozen op kernels, not all 600
SUITE_VALU_OPS = (
    "v_mov_b32", "v_add_i32", "v_addc_u32", "v_sub_i32", "v_and_b32", "v_or_b32", "v_xor_b32",
    "v_lshlrev_b32", "v_lshrrev_b32", "v_ashrrev_i32", "v_mul_lo_u32", "v_mul_hi_u32",
    "v_mad_u32_u24", "v_bfe_u32", "v_bfi_b32", "v_cndmask_b32", "v_add_f32", "v_mul_f32",
    "v_mac_f32", "v_mad_f32", "v_fma_f32", "v_rcp_f32", "v_sqrt_f32", "v_cvt_f32_u32",
    "v_cvt_u32_f32", "v_cmp_eq_u32", "v_cmp_lt_f32", "v_cmpx_gt_u32", "v_cmp_class_f32",
    "v_add_f64", "v_fma_f64", "v_lshl_b64", "v_mad_u64_u32", "v_div_scale_f32",
    "v_div_fmas_f32", "v_div_fixup_f32", "v_readlane_b32", "v_writelane_b32",
    "v_readfirstlane_b32", "v_movrels_b32", "v_movreld_b32", "v_mqsad_u32_u8", "v_nop")
#: SOPP instructions that would end or stall a fuzz wave without finding anything
_QUIET_SOPP = {"s_sleep", "s_sethalt"}


# --- generators ---------------------------------------------------------------------------
def _defs(gen=None):
    from gcnemu.isa import table
    gen = gen or table.GFX7
    out = {}
    for d in table.instructions():
        if gen in d.gens:
            out.setdefault(d.encoding, []).append(d)
    return out


def random_instruction(rng: random.Random, defs=None, ops=None, vgprs=16, sgprs=104) -> bytes:
    """The bytes of one random instruction that decodes for gfx7: a random opcode of a random
    family (``ops``: VALU instructions only among these mnemonics, to bound what a short
    campaign compiles), every other field random, a random literal where the instruction has
    one. Most register fields are kept inside ``vgprs`` and ``sgprs``."""
    from gcnemu.isa.decoder import decode_one
    from gcnemu.isa.encoding import LAYOUTS
    defs = defs or _defs()
    fams = [f for f in FAMILY_WEIGHTS if f in defs]
    while True:
        fam = rng.choices(fams, [FAMILY_WEIGHTS[f] for f in fams])[0]
        choices = [d for d in defs[fam] if ops is None or fam not in _VALU_FAMILIES or d.name in ops]
        if not choices:
            continue
        d = rng.choice(choices)
        if d.name in _QUIET_SOPP:
            continue
        size, match, mask, fields = LAYOUTS[fam]
        word = rng.getrandbits(8 * size)
        word = (word & ~mask) | match
        for name, lo, width in fields:
            if name == "op":
                word = (word & ~(((1 << width) - 1) << lo)) | (d.opcode << lo)
        if rng.random() < 0.85:
            word = _tame(rng, fam, word, fields, vgprs, sgprs)
        code = word.to_bytes(size, "little") + rng.getrandbits(32).to_bytes(4, "little")
        try:
            ins = decode_one(code, 0)
        except Exception:
            continue
        return code[:ins.size]


def _tame(rng, fam, word, fields, vgprs, sgprs):
    """Bring register fields into the ranges compilers use (most of the time), so that cases go
    past their first instruction: wholly random fields fail on the first register check."""
    for name, lo, width in fields:
        if name in ("vdst", "vaddr", "vdata", "addr", "data", "data0", "data1", "vsrc",
                    "vsrc0", "vsrc1", "vsrc2", "vsrc3"):
            v = rng.randrange(0, max(1, min(16, vgprs - 4)))
        elif name in ("sdst", "sbase", "srsrc", "ssamp"):
            room = max(1, min(12, sgprs - 8))
            v = rng.randrange(0, room) if name == "sdst" else rng.randrange(0, max(1, room // 4))
        elif name in ("src0", "src1", "src2"):
            v = rng.choice([256 + rng.randrange(0, max(1, min(16, vgprs - 2))),
                            rng.randrange(0, max(1, min(12, sgprs - 2))), rng.randrange(128, 209),
                            106, 126, 255, 240])
            if width == 8:
                v &= 0xFF
        elif name in ("ssrc0", "ssrc1"):
            v = rng.choice([rng.randrange(0, max(1, min(12, sgprs - 2))), rng.randrange(128, 209),
                            106, 124, 126, 255])
        elif name == "simm16" and fam == "SOPP":
            v = rng.choice([0, 1, 2, rng.randrange(0, 8), 0xFFFE])
        else:
            continue
        word = (word & ~(((1 << width) - 1) << lo)) | ((v & ((1 << width) - 1)) << lo)
    return word


def random_program(rng: random.Random, n: int, defs=None, ops=None, vgprs=16, sgprs=104) -> bytes:
    """``n`` random instructions and an s_endpgm."""
    defs = defs or _defs()
    return b"".join(random_instruction(rng, defs, ops, vgprs, sgprs) for _ in range(n)) + \
        (0xBF810000).to_bytes(4, "little")


def split_instructions(code: bytes) -> list:
    """A program's instructions, as byte strings."""
    from gcnemu.isa.decoder import decode
    return [code[i.offset:i.offset + i.size] for i in decode(code)]


# --- running one case (in the child) -------------------------------------------------------
CANARY = 0xA5


def fill_canary(mem):
    """Fill every byte of the backing array that no allocation maps with CANARY; returns the
    pages filled (for canary_intact)."""
    import numpy as np
    from gcnemu.mem.space import PAGE_SHIFT
    pages = mem.mapped == 0
    mem.data[np.repeat(pages, 1 << PAGE_SHIFT)[:mem.data.size]] = CANARY
    return pages


def canary_intact(mem, pages) -> bool:
    """Whether the pages fill_canary filled and that are still unmapped hold CANARY (pages
    mapped since then, and the backing array's growth, are not looked at)."""
    import numpy as np
    from gcnemu.mem.space import PAGE_SHIFT
    n = min(pages.size, mem.mapped.size)
    still = pages[:n] & (mem.mapped[:n] == 0)
    check = np.repeat(still, 1 << PAGE_SHIFT)
    return bool(np.all(mem.data[:check.size][check] == CANARY))


def raw_kernel(code: bytes, vgprs: int = 16, sgprs: int = 104, lds: int = 0):
    """A kernel of raw machine code with the assembly launch state of gcnemu.load (s[0:1] the
    kernarg pointer, s2..s4 the workgroup ids, v0..v2 the work-item ids)."""
    from gcnemu.kernel import LoadedProgram, assembly_kernel_info
    info = dataclasses.replace(assembly_kernel_info("fuzz", code), vgpr_count=vgprs,
                               sgpr_count=sgprs, group_segment_fixed_size=lds)
    return LoadedProgram(None, {"fuzz": info}).kernel("fuzz")


_SAXPY_GPU = {}


def _check_gpu_still_works(gpu) -> str:
    """'' if a saxpy dispatch on the GPU gives numpy's bits, else what went wrong."""
    import numpy as np
    import gcnemu
    from kernels import corpus
    k = _SAXPY_GPU.get("k")
    if k is None:
        k = _SAXPY_GPU["k"] = gcnemu.load(str(corpus.hsaco_path("saxpy"))).kernel("saxpy")
    x = np.arange(256, dtype=np.float32)
    y = gpu.to_device(np.ones(256, np.float32))
    gpu.dispatch(k, grid=(256,), block=(64,), args=[y, gpu.to_device(x), np.float32(3), np.uint32(256)])
    got = y.to_numpy(np.float32)
    if not np.array_equal(got, np.float32(3) * x + np.float32(1)):
        return "a saxpy after the case gives wrong results"
    return ""


def run_dispatch_case(case: dict) -> str:
    """Run one random program as a dispatch; '' when it behaved, else the anomaly."""
    import numpy as np
    import gcnemu
    code = bytes.fromhex(case["code"])
    gpu = gcnemu.GPU(step_limit=case.get("step_limit", 20000), waves_per_batch=case.get("wpb", 8))
    out = gpu.to_device(np.arange(4096, dtype=np.uint32), name="out")
    k = raw_kernel(code, case["vgprs"], case["sgprs"], case.get("lds", 0))
    pages = fill_canary(gpu.memory)
    try:
        rep = gpu.dispatch(k, grid=(case["grid"],), block=(case["block"],),
                           args=[out, out, np.uint32(7)], strict=False,
                           workers=case.get("workers", 1))
        tag = "ran to the end" + (" with faults" if rep.faults else "")
    except gcnemu.GcnEmuError as e:
        tag = f"stopped by {type(e).__name__}"
    if not canary_intact(gpu.memory, pages):
        return "canary changed: a byte of unmapped GPU memory was written"
    return _check_gpu_still_works(gpu), tag


def run_snippet_case(case: dict) -> str:
    import numpy as np
    import gcnemu
    code = bytes.fromhex(case["code"])
    try:
        st = gcnemu.run_snippet(code, vgpr={i: np.arange(64, dtype=np.uint32) * (i + 1) for i in range(8)},
                                num_vgprs=case["vgprs"], num_sgprs=case["sgprs"], step_limit=20000)
        return "", f"ran to the end ({st.status})"
    except gcnemu.GcnEmuError as e:
        return "", f"stopped by {type(e).__name__}"


def run_decode_case(case: dict) -> str:
    from gcnemu.errors import DecodeError
    from gcnemu.isa.disassembler import disassemble_lines
    try:
        disassemble_lines(bytes.fromhex(case["code"]))
    except DecodeError:
        pass
    return ""


def run_asm_case(case: dict) -> str:
    import gcnemu
    try:
        gcnemu.assemble(case["text"])
    except gcnemu.GcnEmuError:
        pass
    return ""


#: a code object may map this much more GPU memory than its file bytes: its zero-fill
#: (codeobject.MAX_ZERO_FILL_BYTES) and a batch's scratch (launch.MAX_BATCH_SCRATCH_BYTES)
LOADER_ALLOC_SLACK = (16 << 20) + (64 << 20)


def run_loader_case(case: dict) -> str:
    """Load a mutant (only LoaderError may come out), then dispatch each kernel once (any
    GcnEmuError may), watching how much GPU memory the dispatch needs."""
    import numpy as np
    import gcnemu
    from gcnemu.errors import LoaderError
    data = bytes.fromhex(case["data"])
    what = "CAL binary " if case.get("kind", "").startswith("cal") else ""
    try:
        prog = gcnemu.load(data)
        kernels = [prog.kernel(name) for name in prog.kernel_names]
    except LoaderError:
        return "", what + "rejected"
    except Exception as e:
        return f"loading raised {type(e).__name__}, not LoaderError: {e}"
    for k in kernels:
        gpu = gcnemu.GPU(step_limit=5000)
        before = gpu.memory.size
        out = gpu.to_device(np.zeros(1024, np.uint32))
        cal = getattr(k.info, "cal", None)
        if cal is not None:     # a CAL kernel: its arguments come from the metadata
            args = [out if a.kind == "uav" else gcnemu.Local(256) if a.kind == "local"
                    else np.ones(a.count, np.uint8 if a.type in ("i8", "u8") else np.uint16
                                 if a.type in ("i16", "u16") else np.uint32) for a in cal.args]
            args = [a[0] if isinstance(a, np.ndarray) and a.size == 1 else a for a in args]
        else:
            args = [out] * sum(1 for a in k.info.args if not a.is_hidden)
        try:
            gpu.dispatch(k, grid=(64,), block=(64,), args=args, strict=False)
        except gcnemu.GcnEmuError:
            pass
        if gpu.memory.size - before > len(data) + LOADER_ALLOC_SLACK:
            return f"the GPU grew by {gpu.memory.size - before} bytes for a {len(data)}-byte code object"
    return "", what + "loaded and dispatched"


RUNNERS = {"dispatch": run_dispatch_case, "snippet": run_snippet_case, "decode": run_decode_case,
           "asm": run_asm_case, "loader": run_loader_case, "loader-cal": run_loader_case}


def child_main(mode: str) -> None:
    """Run the cases the parent writes, one per line of stdin, answering one line each."""
    run = RUNNERS[mode]
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)                 # anything else printed goes to the log, not the answers
    for line in sys.stdin:
        case = json.loads(line)
        tag = ""
        try:
            what = run(case)
            if isinstance(what, tuple):
                what, tag = what
        except BaseException as e:   # anything but the errors a runner expects is an anomaly
            what = f"{type(e).__name__}: {e}\n" + "".join(traceback.format_exc(limit=6))
        answers.write(json.dumps({"id": case["id"], "anomaly": what, "tag": tag}) + "\n")
        answers.flush()


# --- case generators (in the parent) --------------------------------------------------------
def dispatch_cases(seed: int, workers=(1, 2), ops=None):
    rng = random.Random(seed)
    defs = _defs()
    i = 0
    while True:
        block = rng.choice([64, 128, 192, 256, 1, 33])
        vgprs, sgprs = rng.choice([4, 16, 32, 128, 256, 256]), rng.choice([8, 16, 48, 104, 104])
        yield {"id": i, "mode": "dispatch",
               "code": random_program(rng, rng.randrange(1, 24), defs, ops, vgprs, sgprs).hex(),
               "vgprs": vgprs, "sgprs": sgprs,
               "grid": block * rng.choice([1, 2, 3, 9]), "block": block,
               "lds": rng.choice([0, 0, 256, 4096]), "workers": rng.choice(list(workers))}
        i += 1


def snippet_cases(seed: int, ops=None):
    rng = random.Random(seed)
    defs = _defs()
    i = 0
    while True:
        vgprs, sgprs = rng.choice([8, 32, 256]), rng.choice([8, 32, 104])
        yield {"id": i, "mode": "snippet",
               "code": random_program(rng, rng.randrange(1, 24), defs, ops, vgprs, sgprs).hex(),
               "vgprs": vgprs, "sgprs": sgprs}
        i += 1


def decode_cases(seed: int):
    rng = random.Random(seed)
    defs = _defs()
    i = 0
    while True:
        if rng.random() < 0.5:
            code = rng.randbytes(4 * rng.randrange(1, 9) + rng.randrange(4))   # ragged ends too
        else:
            code = bytearray(random_program(rng, rng.randrange(1, 10), defs))
            for _ in range(rng.randrange(1, 4)):
                code[rng.randrange(len(code))] = rng.randrange(256)
            code = bytes(code[:rng.randrange(1, len(code) + 1)])
        yield {"id": i, "mode": "decode", "code": code.hex()}
        i += 1


def asm_cases(seed: int):
    rng = random.Random(seed)
    path = ROOT.parent / "shared" / "reference" / "llvm-mc-tests" / "gfx7_asm_all.s"
    lines = [ln.split("//")[0].strip() for ln in path.read_text().splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith(("//", "."))]
    junk = [",", ":", "[", "]", "-", "--", "0x", "#", "v[1:]", "s[", "offset:", " ", "1e9", "-0.0",
            "0.5", "vcc", "off", "glc", "abs(", "|", "neg("]
    i = 0
    while True:
        text = list(rng.choice(lines))
        for _ in range(rng.randrange(0, 4)):     # 0: a line as LLVM's tests have it
            pos = rng.randrange(len(text) + 1)
            r = rng.random()
            if r < 0.4 and text:
                del text[min(pos, len(text) - 1)]
            elif r < 0.8:
                text[pos:pos] = rng.choice(junk)
            else:
                text[pos:pos] = chr(rng.randrange(32, 127))
        yield {"id": i, "mode": "asm", "text": "".join(text)}
        i += 1


def loader_cases(seed: int):
    """Mutants of the corpus code objects: random bytes, ELF header and section-table fields,
    note and metadata bytes, kernel descriptors, truncations; one case in four mutates a CAL
    binary of kernels/_cal instead (see cal_loader_cases)."""
    rng = random.Random(seed)
    sources = sorted((ROOT / "kernels").glob("*/kernel.hsaco"))
    blobs = [p.read_bytes() for p in sources]
    cal = cal_loader_cases(seed + 1)
    i = 0
    while True:
        if rng.random() < 0.25:
            yield dict(next(cal), id=i)
            i += 1
            continue
        data = bytearray(rng.choice(blobs))
        kind = rng.choice(["bytes", "header", "sections", "notes", "descriptor", "truncate",
                           "field64"])
        if kind == "truncate":
            data = data[:rng.randrange(0, len(data))]
        elif kind == "header":
            for _ in range(rng.randrange(1, 4)):
                data[rng.randrange(0, 64)] = rng.randrange(256)
        elif kind == "field64":
            # a 64-bit field of the ELF header or a section header set to an extreme value
            shoff = int.from_bytes(data[0x28:0x30], "little")
            base = rng.choice([0x18, 0x20, 0x28, shoff + 64 * rng.randrange(1, 8) + rng.choice([0x10, 0x18, 0x20])])
            val = rng.choice([2 ** 63, 2 ** 64 - 1, 2 ** 40, 2 ** 31, len(data) * 2])
            if base + 8 <= len(data):
                data[base:base + 8] = val.to_bytes(8, "little")
        else:
            region = {"bytes": (0, len(data)), "sections": (int.from_bytes(data[0x28:0x30], "little"), len(data)),
                      "notes": _section(data, ".note"), "descriptor": _section(data, ".rodata")}[kind]
            lo, hi = region
            lo, hi = max(0, min(lo, len(data))), max(0, min(hi, len(data)))
            for _ in range(rng.randrange(1, 6)):
                if hi > lo:
                    data[rng.randrange(lo, hi)] = rng.randrange(256)
        yield {"id": i, "mode": "loader", "kind": kind, "data": bytes(data).hex()}
        i += 1


_ELF32_HEADER = (("e_ident[EI_CLASS]", 4, 1), ("e_ident[EI_DATA]", 5, 1), ("e_type", 16, 2),
                 ("e_machine", 18, 2), ("e_version", 20, 4), ("e_entry", 24, 4), ("e_phoff", 28, 4),
                 ("e_shoff", 32, 4), ("e_flags", 36, 4), ("e_ehsize", 40, 2),
                 ("e_phentsize", 42, 2), ("e_phnum", 44, 2), ("e_shentsize", 46, 2),
                 ("e_shnum", 48, 2), ("e_shstrndx", 50, 2))
_PHDR32 = ("p_type", "p_offset", "p_vaddr", "p_paddr", "p_filesz", "p_memsz", "p_flags", "p_align")
_SHDR32 = ("sh_name", "sh_type", "sh_flags", "sh_addr", "sh_offset", "sh_size", "sh_link",
           "sh_info", "sh_addralign", "sh_entsize")
_SYM32 = (("st_name", 0, 4), ("st_value", 4, 4), ("st_size", 8, 4), ("st_info", 12, 1),
          ("st_other", 13, 1), ("st_shndx", 14, 2))
_DICT_ENTRY = ("d_machine", "d_type", "d_offset", "d_size", "d_flags")


def _elf32_fields(raw: bytes, base: int, what: str, out: list):
    """Append (group, name, file offset, size) of every field of the ELF32 image at ``base``
    (header, program and section headers, symbols); returns the section headers read."""
    import struct
    u16 = lambda o: struct.unpack_from("<H", raw, base + o)[0]   # noqa: E731
    u32 = lambda o: struct.unpack_from("<I", raw, base + o)[0]   # noqa: E731
    for name, off, size in _ELF32_HEADER:
        out.append(("header", f"{what} {name}", base + off, size))
    phoff, phnum, shoff, shnum = u32(28), u16(44), u32(32), u16(48)
    phdrs, shdrs = [], []
    for i in range(phnum):
        o = phoff + 32 * i
        phdrs.append(struct.unpack_from("<8I", raw, base + o))
        for j, n in enumerate(_PHDR32):
            out.append(("table", f"{what} program header {i} {n}", base + o + 4 * j, 4))
    for i in range(shnum):
        o = shoff + 40 * i
        shdrs.append(struct.unpack_from("<10I", raw, base + o))
        for j, n in enumerate(_SHDR32):
            out.append(("table", f"{what} section header {i} {n}", base + o + 4 * j, 4))
    for i, sh in enumerate(shdrs):
        if sh[1] == 2:                                 # SHT_SYMTAB
            for k in range(sh[5] // 16):
                for n, off, size in _SYM32:
                    out.append(("table", f"{what} symbol {k} {n}", base + sh[4] + 16 * k + off, size))
    return phdrs, shdrs


def cal_fields(raw: bytes) -> list:
    """Every field of a CAL ELF as (group, name, file offset, size): the outer ELF's header,
    program/section headers and symbols; each inner ELF's (found through the
    ``__OpenCL_<k>_kernel`` symbols) with its encoding-dictionary entries, note headers and
    ProgInfo (address, value) pairs; and the metadata text of each kernel ("metadata", whole
    range). Written from the ELF32 layout, independently of gcnemu/loader/cal.py."""
    import struct
    out = []
    _phdrs, shdrs = _elf32_fields(raw, 0, "outer ELF", out)
    for sh in shdrs:
        if sh[1] != 2:
            continue
        link = shdrs[sh[6]]
        for k in range(sh[5] // 16):
            name_i, value, size, _i, _o, shndx = struct.unpack_from("<IIIBBH", raw, sh[4] + 16 * k)
            name = raw[link[4] + name_i:raw.index(b"\0", link[4] + name_i)].decode("latin1")
            at = shdrs[shndx][4] + value if shndx < len(shdrs) else None
            if at is None or not name.startswith("__OpenCL_"):
                continue
            if name.endswith("_metadata"):
                out.append(("metadata", f"{name} text", at, size))
            elif name.endswith("_kernel"):
                kname = name[len("__OpenCL_"):-len("_kernel")]
                what = f"inner ELF of {kname}"
                iphdrs, _ = _elf32_fields(raw, at, what, out)
                for p in iphdrs:
                    if p[0] == 0x70000002:             # the encoding dictionary
                        for e in range(p[4] // 20):
                            for j, n in enumerate(_DICT_ENTRY):
                                out.append(("table", f"{what} encoding entry {e} {n}",
                                            at + p[1] + 20 * e + 4 * j, 4))
                    elif p[0] == 4:                    # PT_NOTE: note headers and ProgInfo
                        off, end = at + p[1], at + p[1] + p[4]
                        while off + 12 <= end:
                            namesz, descsz, ntype = struct.unpack_from("<3I", raw, off)
                            for j, n in enumerate(("n_namesz", "n_descsz", "n_type")):
                                out.append(("note", f"{what} note type {ntype} {n}", off + 4 * j, 4))
                            desc = off + 12 + ((namesz + 3) & ~3)
                            if ntype == 1:
                                for q in range(descsz // 8):
                                    a = struct.unpack_from("<I", raw, desc + 8 * q)[0]
                                    out.append(("proginfo", f"{what} ProgInfo 0x{a:08x} value",
                                                desc + 8 * q + 4, 4))
                                    out.append(("proginfo", f"{what} ProgInfo entry {q} address",
                                                desc + 8 * q, 4))
                            off = desc + ((descsz + 3) & ~3)
    return out


def cal_loader_cases(seed: int):
    """Mutants of the CAL binaries of kernels/_cal: one field (of cal_fields: a header, table,
    encoding-dictionary, note or ProgInfo field) set to an extreme or nearby value, a number
    of the metadata text changed, random bytes, or a truncation."""
    import re
    rng = random.Random(seed)
    blobs = [p.read_bytes() for p in sorted((ROOT / "kernels" / "_cal").glob("*.bin"))]
    fields = [cal_fields(b) for b in blobs]
    i = 0
    while True:
        b = rng.randrange(len(blobs))
        data = bytearray(blobs[b])
        kind = rng.choice(["header", "table", "table", "note", "proginfo", "proginfo", "metadata",
                           "bytes", "truncate"])
        what = kind
        if kind == "truncate":
            data = data[:rng.randrange(0, len(data))]
        elif kind == "bytes":
            for _ in range(rng.randrange(1, 6)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        elif kind == "metadata":
            _g, what, at, size = rng.choice([f for f in fields[b] if f[0] == "metadata"])
            text = data[at:at + size].decode("latin1")
            nums = list(re.finditer(r"\d+", text))
            m = rng.choice(nums)
            new = str(rng.choice([0, 1, 15, 16, 17, 255, 65536, 2 ** 31, 2 ** 32, 10 ** 30,
                                  int(m.group()) + rng.choice([-1, 1])]))
            text = text[:m.start()] + new + text[m.end():]
            what = f"{what}: {m.group()} -> {new}"
            # the symbol's size stays: a longer number pushes the end of the text out of it
            data[at:at + size] = text.encode("latin1")[:size].ljust(size, b"\0")
        else:
            _g, what, at, size = rng.choice([f for f in fields[b] if f[0] == kind])
            old = int.from_bytes(data[at:at + size], "little")
            top = (1 << 8 * size) - 1
            val = rng.choice([0, 1, top, top >> 1, (top >> 1) + 1, old + 1, old - 1, old * 2,
                              len(data), len(data) - 1, rng.randrange(top + 1)]) & top
            data[at:at + size] = val.to_bytes(size, "little")
            what = f"{what}: 0x{old:x} -> 0x{val:x}"
        yield {"id": i, "mode": "loader", "kind": f"cal {kind}", "field": what, "data": bytes(data).hex()}
        i += 1


def _section(data: bytes, name: str):
    """(start, end) file offsets of a section of an ELF64 file, or the whole file."""
    try:
        shoff = int.from_bytes(data[0x28:0x30], "little")
        shnum = int.from_bytes(data[0x3C:0x3E], "little")
        shstrndx = int.from_bytes(data[0x3E:0x40], "little")
        def sh(i):
            o = shoff + 64 * i
            return (int.from_bytes(data[o:o + 4], "little"), int.from_bytes(data[o + 0x18:o + 0x20], "little"),
                    int.from_bytes(data[o + 0x20:o + 0x28], "little"))
        _, stro, _ = sh(shstrndx)
        for i in range(shnum):
            nm, off, size = sh(i)
            s = data[stro + nm:stro + nm + 32].split(b"\0")[0].decode("ascii", "replace")
            if s == name:
                return off, off + size
    except Exception:
        pass
    return 0, len(data)


def llvm_mc_encoding(line: str):
    """llvm-mc's encoding (bytes) of one line of assembly (b"" for a line with no instruction,
    such as a comment), or None where it reports an error."""
    import re
    try:
        p = subprocess.run(["llvm-mc", "-arch=amdgcn", "-mcpu=bonaire", "-show-encoding"],
                           input=line + "\n", capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return None
    if p.returncode or "error:" in p.stderr:
        return None
    encs = re.findall(r"encoding: \[([^\]]*)\]", p.stdout)
    return b"".join(bytes(int(x, 16) for x in e.split(",")) for e in encs if e)


def asm_differential(seed: int, n: int) -> dict:
    """Mutated lines of LLVM's gfx7 tests, each assembled by gcnemu and by llvm-mc:
    {'lines', 'both', 'llvm_only', 'gcnemu_only' (accepted by gcnemu, rejected by llvm-mc:
    anomalies), 'different' (both accept, other bytes: anomalies)}."""
    import gcnemu
    gen = asm_cases(seed)
    lines = [next(gen)["text"] for _ in range(n)]
    lines = [ln for ln in lines if "\n" not in ln]
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(2) as pool:
        ref = list(pool.map(llvm_mc_encoding, lines))
    out = {"lines": len(lines), "both": 0, "llvm_only": 0, "gcnemu_only": [], "different": []}
    for ln, want in zip(lines, ref):
        try:
            got = gcnemu.assemble(ln)
        except gcnemu.GcnEmuError:
            got = None
        if got is None and want is None:
            continue
        if got is None:
            out["llvm_only"] += 1
        elif want is None:
            out["gcnemu_only"].append(ln)
        elif got != want:
            out["different"].append((ln, got.hex(), want.hex()))
        else:
            out["both"] += 1
    return out


GENERATORS = {"dispatch": dispatch_cases, "snippet": snippet_cases, "decode": decode_cases,
              "asm": asm_cases, "loader": loader_cases, "loader-cal": cal_loader_cases}


# --- the parent: run cases in a child, restart it after a crash -----------------------------
@dataclasses.dataclass
class Campaign:
    mode: str
    seed: int = 0
    cases: int | None = None         #: stop after this many cases ...
    seconds: float | None = None     #: ... or after this long
    case_timeout: float = 120.0      #: a case running longer is a hang, once confirmed ...
    confirm_timeout: float = 1800.0  #: ... by a rerun in a fresh child, given this long: the
    #: first case that needs a memory family or op kernel compiles it in the bounds-checked build
    #: (minutes on a busy machine), and a killed child leaves nothing in the cache
    workers: tuple = (1, 2)
    ops: tuple | None = None
    env: dict = dataclasses.field(default_factory=dict)
    given: list | None = None        #: run these cases instead of generated ones

    def run(self, log=print) -> dict:
        """Run the campaign; returns {'cases', 'anomalies': [(case, what)], 'restarts' (children
        that died or hung), 'rechecked' (slow cases run again in a fresh child), 'tags',
        'seconds'}."""
        import select
        import tempfile
        gen = GENERATORS[self.mode]
        kwargs = {}
        if self.mode == "dispatch":
            kwargs = dict(workers=self.workers, ops=set(self.ops) if self.ops else None)
        elif self.mode == "snippet":
            kwargs = dict(ops=set(self.ops) if self.ops else None)
        cases = iter(self.given) if self.given is not None else gen(self.seed, **kwargs)
        anomalies, done, restarts, rechecked, tags = [], 0, 0, 0, {}
        start = time.monotonic()
        env = dict(os.environ, GCNEMU_BOUNDSCHECK="1", PYTHONPATH=str(ROOT), **self.env)
        finished = False
        retry = None                 # a case that timed out, to be run again in a fresh child
        while not finished:
            log_file = tempfile.TemporaryFile("w+")
            child = subprocess.Popen([sys.executable, __file__, "--child", self.mode],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log_file,
                                     text=True, env=env, cwd=str(ROOT))
            crashed = None
            first_answered = False
            try:
                while True:
                    confirming, case = retry is not None, retry
                    retry = None
                    if not confirming:
                        if (self.cases is not None and done >= self.cases) or \
                                (self.seconds is not None and time.monotonic() - start >= self.seconds):
                            finished = True
                            break
                        case = next(cases, None)
                        if case is None:
                            finished = True
                            break
                        done += 1
                    child.stdin.write(json.dumps(case) + "\n")
                    child.stdin.flush()
                    # a child's first case loads (or compiles) the bounds-checked build
                    limit = self.confirm_timeout if confirming or not first_answered \
                        else self.case_timeout
                    ready, _, _ = select.select([child.stdout], [], [], limit)
                    line = child.stdout.readline() if ready else ""
                    if not line:
                        if not ready:
                            child.kill()
                            crashed = f"case ran longer than {limit:.0f} s"
                            if not confirming and first_answered:
                                retry, crashed = case, None
                                rechecked += 1
                                log(f"case {case['id']}: over {limit:.0f} s; again in a fresh child")
                                break
                        else:
                            child.wait(30)
                            crashed = f"the child died with {_signal_name(child.returncode)}"
                        log_file.seek(0)
                        anomalies.append((case, crashed + "\n" + log_file.read()[-3000:]))
                        log(f"case {case['id']}: {crashed}")
                        break
                    first_answered = True
                    res = json.loads(line)
                    if res.get("tag"):
                        tags[res["tag"]] = tags.get(res["tag"], 0) + 1
                    if res["anomaly"]:
                        anomalies.append((case, res["anomaly"]))
                        log(f"case {case['id']}: {res['anomaly'].splitlines()[0]}")
            finally:
                if child.poll() is None:
                    child.stdin.close()
                    try:
                        child.wait(60)
                    except subprocess.TimeoutExpired:
                        child.kill()
                log_file.close()
            if crashed:
                restarts += 1
        return {"cases": done, "anomalies": anomalies, "restarts": restarts, "tags": tags,
                "rechecked": rechecked, "seconds": time.monotonic() - start}


def _signal_name(rc: int) -> str:
    if rc is not None and rc < 0:
        try:
            return f"signal {signal.Signals(-rc).name}"
        except ValueError:
            return f"signal {-rc}"
    return f"exit status {rc}"


def minimise(case: dict, still_fails) -> dict:
    """Drop instructions (dispatch, snippet) one at a time while ``still_fails(case)``."""
    if case["mode"] not in ("dispatch", "snippet"):
        return case
    parts = split_instructions(bytes.fromhex(case["code"]))[:-1]
    i = 0
    while i < len(parts):
        trial = dict(case, code=(b"".join(parts[:i] + parts[i + 1:]) + (0xBF810000).to_bytes(4, "little")).hex())
        if still_fails(trial):
            parts.pop(i)
            case = trial
        else:
            i += 1
    return case


def _fails_alone(case: dict) -> bool:
    """Whether the case alone shows an anomaly in a fresh child."""
    return bool(Campaign(case["mode"], given=[dict(case, id=0)]).run(log=lambda *_: None)["anomalies"])


#: the campaigns of the test suite (tests/test_fuzz.py): a fixed budget, a few minutes of one
#: core in all, most of it compiling the bounds-checked build the first time
SUITE_CAMPAIGNS = {
    "decode": dict(seed=1, cases=4000),
    "asm": dict(seed=2, cases=2000),
    "loader": dict(seed=3, cases=600),
    "snippet": dict(seed=4, cases=400, ops="suite"),
    "dispatch": dict(seed=5, cases=500, ops="suite", workers=(1, 2)),
}


def run_suite_campaigns(results: Path) -> None:
    """Run SUITE_CAMPAIGNS one after another, appending one JSON line per campaign to
    ``results`` ({mode: {'cases', 'restarts', 'rechecked', 'tags', 'anomalies'}}), then
    {"end": null}, or {"end": traceback} when the runner itself fails."""
    def write(obj):
        with open(results, "a") as f:
            f.write(json.dumps(obj) + "\n")
    try:
        for mode, opts in SUITE_CAMPAIGNS.items():
            ops = SUITE_VALU_OPS if opts.get("ops") == "suite" else None
            r = Campaign(mode, opts["seed"], opts["cases"], workers=tuple(opts.get("workers", (1,))),
                         ops=ops).run(log=lambda *a: None)
            write({mode: dict(cases=r["cases"], restarts=r["restarts"], rechecked=r["rechecked"],
                              tags=r["tags"],
                              anomalies=[(case, what[:3000]) for case, what in r["anomalies"]])})
        write({"end": None})
    except BaseException:
        write({"end": traceback.format_exc()})
        raise


def start_suite_campaigns(results: Path) -> subprocess.Popen:
    """Start run_suite_campaigns(results) in a background process (the test suite's conftest
    does, so that the campaigns run on a second core while the other tests run)."""
    return subprocess.Popen([sys.executable, __file__, "--suite", str(results)], cwd=str(ROOT),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main(argv=None) -> int:
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "--child":
        child_main(sys.argv[2])
        return 0
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "--suite":
        run_suite_campaigns(Path(sys.argv[2]))
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("mode", choices=sorted(GENERATORS) + ["asm-diff"])
    p.add_argument("--minutes", type=float, help="run this long")
    p.add_argument("--cases", type=int, help="run this many cases")
    p.add_argument("--seed", type=int, default=int(time.time()))
    p.add_argument("--workers", default="1,2", help="dispatch workers to draw from")
    p.add_argument("--out", default="fuzz-findings", help="folder for minimised reproducers")
    args = p.parse_args(argv)
    if args.minutes is None and args.cases is None:
        args.minutes = 1.0
    if args.mode == "asm-diff":
        r = asm_differential(args.seed, args.cases or 2000)
        print(f"asm-diff: {r['lines']} lines (seed {args.seed}): {r['both']} assembled alike, "
              f"{r['llvm_only']} rejected by gcnemu only, {len(r['gcnemu_only'])} accepted by "
              f"gcnemu only, {len(r['different'])} encoded differently")
        for ln in r["gcnemu_only"]:
            print("  accepted by gcnemu only:", ln)
        for ln, got, want in r["different"]:
            print(f"  {ln}: gcnemu {got}, llvm-mc {want}")
        return 1 if r["gcnemu_only"] or r["different"] else 0
    camp = Campaign(args.mode, args.seed, args.cases, args.minutes * 60 if args.minutes else None,
                    workers=tuple(int(x) for x in args.workers.split(",")))
    res = camp.run()
    print(f"{args.mode}: {res['cases']} cases in {res['seconds']:.0f} s (seed {args.seed}), "
          f"{len(res['anomalies'])} anomalies, {res['restarts']} child restarts, "
          f"{res['rechecked']} slow cases rerun"
          + "".join(f", {n} {t}" for t, n in sorted(res["tags"].items())))
    if res["anomalies"]:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        for case, what in res["anomalies"]:
            small = minimise(case, _fails_alone)
            f = out / f"{args.mode}-{args.seed}-{case['id']}.json"
            f.write_text(json.dumps({"case": small, "anomaly": what}, indent=1))
            print(f"  {f}: {what.splitlines()[0]}")
    return 1 if res["anomalies"] else 0


if __name__ == "__main__":
    sys.exit(main())
