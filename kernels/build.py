"""Rebuild the kernel corpus code objects from their sources.

    python -m kernels.build            # rebuild every kernels/<name>/kernel.hsaco (+ kernel.lst)
    python -m kernels.build NAME...    # only these
    python -m kernels.build --check    # rebuild into a temp dir; report committed binaries
                                       # whose .text / .rodata (kernel descriptors) / .note
                                       # (metadata) differ. Exit 1 on any difference.
    python -m kernels.build --inventory  # instruction mnemonics per kernel, by family
                                         # (from kernel.lst / kernel.s: llvm-objdump-14
                                         # cannot disassemble gfx7)

OpenCL C (exactly the design doc's command):
    clang-14 -target amdgcn-amd-amdhsa -mcpu=gfx700 -x cl -cl-std=CL1.2 -nogpulib -O2
      -Xclang -mlink-builtin-bitcode -Xclang /usr/lib/clc/amdgcn--amdhsa.bc -include clc/clc.h
      -c kernel.cl -o kernel.o && ld.lld-14 -shared kernel.o -o kernel.hsaco
  plus the same flags with -S for kernel.lst (the compiler's assembly listing, for review).
Assembly:
    llvm-mc -triple amdgcn-amd-amdhsa -mcpu=gfx700 -filetype=obj kernel.s -o kernel.o
      && ld.lld-14 -shared kernel.o -o kernel.hsaco
If the tools are missing the build is skipped with a message (exit 0).
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

from kernels.corpus import KERNELS_DIR, list_kernels, source_path

from gcnemu.loader.opencl import CL_FLAGS, LIBCLC   # the flags gcnemu.load("k.cl") uses
COMPARED_SECTIONS = (".text", ".rodata", ".note")


def _which(*names):
    for n in names:
        p = shutil.which(n)
        if p:
            return p
    return None


def tools():
    """(clang, llvm-mc, ld.lld) paths, or None entries when absent."""
    return (_which("clang-14"), _which("llvm-mc-14", "llvm-mc"), _which("ld.lld-14"))


def tools_missing() -> str | None:
    clang, mc, lld = tools()
    missing = [n for n, p in (("clang-14", clang), ("llvm-mc", mc), ("ld.lld-14", lld)) if not p]
    if not Path(LIBCLC).is_file():
        missing.append(LIBCLC)
    return ", ".join(missing) if missing else None


def _run(cmd, cwd):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"command failed ({r.returncode}): {' '.join(map(str, cmd))}\n"
                           f"{r.stdout}{r.stderr}")
    return r


def build_one(name: str, outdir: Path | None = None, listing: bool = True) -> Path:
    """Build kernels/<name>'s source into ``outdir`` (default: its own folder)."""
    clang, mc, lld = tools()
    src = source_path(name)
    outdir = Path(outdir) if outdir else src.parent
    outdir.mkdir(parents=True, exist_ok=True)
    hsaco = outdir / "kernel.hsaco"
    with tempfile.TemporaryDirectory() as td:
        obj = Path(td) / "kernel.o"
        if src.suffix == ".cl":
            # run in the source folder with a relative file name: no absolute paths leak in
            _run([clang, *CL_FLAGS, "-c", src.name, "-o", str(obj)], cwd=src.parent)
            if listing:
                _run([clang, *CL_FLAGS, "-S", src.name, "-o", str(outdir / "kernel.lst")],
                     cwd=src.parent)
        else:
            _run([mc, "-triple", "amdgcn-amd-amdhsa", "-mcpu=gfx700", "-filetype=obj",
                  src.name, "-o", str(obj)], cwd=src.parent)
        _run([lld, "-shared", str(obj), "-o", str(hsaco)], cwd=src.parent)
    return hsaco


# --------------------------------------------------------------------------- ELF sections
def elf_sections(path) -> dict[str, bytes]:
    """Section name -> bytes for an ELF64 little-endian file (minimal reader, no deps)."""
    data = Path(path).read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError(f"{path}: not an ELF64 little-endian file")
    e_shoff = struct.unpack_from("<Q", data, 0x28)[0]
    e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    hdrs = []
    for i in range(e_shnum):
        off = e_shoff + i * e_shentsize
        sh_name, sh_type, _flags, _addr, sh_offset, sh_size = struct.unpack_from(
            "<IIQQQQ", data, off)
        hdrs.append((sh_name, sh_type, sh_offset, sh_size))
    stroff, strsize = hdrs[e_shstrndx][2], hdrs[e_shstrndx][3]
    strtab = data[stroff: stroff + strsize]
    out = {}
    for sh_name, sh_type, sh_offset, sh_size in hdrs:
        nm = strtab[sh_name: strtab.index(b"\0", sh_name)].decode()
        out[nm] = b"" if sh_type == 8 else data[sh_offset: sh_offset + sh_size]  # 8 = NOBITS
    return out


def diff_code_objects(a, b) -> list[str]:
    """Names of the compared sections that differ between code objects ``a`` and ``b``."""
    sa, sb = elf_sections(a), elf_sections(b)
    return [s for s in COMPARED_SECTIONS if sa.get(s) != sb.get(s)]


def check(names=None) -> dict[str, list[str]]:
    """Rebuild into a temp dir; {name: differing sections} for binaries that differ."""
    names = names or list_kernels()
    bad = {}
    with tempfile.TemporaryDirectory() as td:
        for n in names:
            committed = KERNELS_DIR / n / "kernel.hsaco"
            if not committed.is_file():
                bad[n] = ["<no committed kernel.hsaco>"]
                continue
            try:
                fresh = build_one(n, Path(td) / n, listing=False)
            except RuntimeError as e:
                bad[n] = [f"<build failed: {e}>"]
                continue
            d = diff_code_objects(committed, fresh)
            if d:
                bad[n] = d
    return bad


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--inventory" in argv:  # instruction families per kernel, from the listings/sources
        print(inventory())
        return 0
    do_check = "--check" in argv
    names = [a for a in argv if not a.startswith("-")] or list_kernels()
    missing = tools_missing()
    if missing:
        print(f"kernels.build: skipped, missing tools: {missing}")
        return 0
    if do_check:
        bad = check(names)
        for n, secs in bad.items():
            print(f"DIFFERS {n}: {', '.join(secs)}")
        print(f"checked {len(names)} kernels, {len(bad)} differ")
        return 1 if bad else 0
    for n in names:
        build_one(n)
        print(f"built {n}")
    return 0



# --------------------------------------------------------------------------- inventory
_FAMILIES = (
    ("SMRD", ("s_load_", "s_buffer_load_", "s_memtime", "s_dcache")),
    ("SOPP", ("s_branch", "s_cbranch", "s_waitcnt", "s_barrier", "s_endpgm", "s_nop",
              "s_sethalt", "s_sleep", "s_setprio", "s_sendmsg", "s_trap", "s_icache", "s_ttrace")),
    ("SALU", ("s_",)),
    ("VOPC", ("v_cmp",)),
    ("VALU", ("v_",)),
    ("DS", ("ds_",)),
    ("FLAT", ("flat_",)),
    ("MUBUF", ("buffer_",)),
    ("MTBUF", ("tbuffer_",)),
    ("MIMG", ("image_",)),
)


def mnemonics(name: str) -> list[str]:
    """Instruction mnemonics in a kernel's assembly (kernel.lst for OpenCL, kernel.s for asm)."""
    import re

    src = source_path(name)
    text = (src.parent / "kernel.lst").read_text() if src.suffix == ".cl" else src.read_text()
    names = []
    for line in text.splitlines():
        m = re.match(r"\s+([sv]_[a-z0-9_]+|ds_[a-z0-9_]+|flat_[a-z0-9_]+|buffer_[a-z0-9_]+|"
                     r"tbuffer_[a-z0-9_]+|image_[a-z0-9_]+)\b", line)
        if m:
            names.append(re.sub(r"_e(32|64)$", "", m.group(1)))
    return names


def families(name: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for mn in sorted(set(mnemonics(name))):
        for fam, prefixes in _FAMILIES:
            if mn.startswith(prefixes):
                out.setdefault(fam, []).append(mn)
                break
    return out


def inventory() -> str:
    lines = []
    for n in list_kernels():
        fams = families(n)
        kind = "OpenCL C" if source_path(n).suffix == ".cl" else "GCN asm"
        total = sum(len(v) for v in fams.values())
        lines.append(f"## {n} ({kind}, {total} distinct mnemonics)")
        for fam, _ in _FAMILIES:
            if fam in fams:
                lines.append(f"- {fam}: {' '.join(fams[fam])}")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
