"""OpenCL C to a gfx7 code object, with the installed clang-14, lld-14 and libclc-14.

``gcnemu.load("k.cl", options=["-DN=4"])`` compiles through here. The result is cached by the
hash of the source, the options and the clang version, in ``$GCNEMU_CACHE_DIR/opencl`` (by
default ``~/.cache/gcnemu/opencl``), so a test suite that loads the same file again does not
run clang again. The flags are the ones the repository's corpus is built with
(kernels/build.py uses them too), plus -Wno-linker-warnings: libclc's bitcode says
``amdgcn-unknown-amdhsa`` where clang says ``amdgcn-amd-amdhsa``, and clang warns about the
mismatch on every compile. gcnemu's image built-ins (gcnemu.loader.climage: libclc-14 has
none for amdgcn) are declared in every compile (-include clc_image.h) and linked from their
bitcode (-mlink-builtin-bitcode: only what a kernel calls is linked).
"""
from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Sequence

from ..errors import LoaderError
from .climage import LIBRARY_HEADER, library_source

LIBCLC = "/usr/lib/clc/amdgcn--amdhsa.bc"
CL_FLAGS = [
    "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx700", "-x", "cl", "-cl-std=CL1.2", "-nogpulib",
    "-O2", "-Xclang", "-mlink-builtin-bitcode", "-Xclang", LIBCLC, "-include", "clc/clc.h",
    "-Wno-linker-warnings",
]
#: the image built-ins library (gcnemu.loader.climage) is compiled with these, to bitcode
_LIB_FLAGS = ["-target", "amdgcn-amd-amdhsa", "-mcpu=gfx700", "-x", "cl", "-cl-std=CL1.2",
              "-nogpulib", "-O2", "-include", "clc/clc.h"]
#: what to install where a tool is missing (Debian/Ubuntu package names)
PACKAGES = {"clang-14": "clang-14", "ld.lld-14": "lld-14", LIBCLC: "libclc-14"}


def toolchain() -> tuple[str, str]:
    """(clang, ld.lld) paths; a LoaderError naming the packages to install when absent."""
    clang, lld = shutil.which("clang-14"), shutil.which("ld.lld-14")
    missing = [name for name, found in (("clang-14", clang), ("ld.lld-14", lld),
                                        (LIBCLC, os.path.isfile(LIBCLC))) if not found]
    if missing:
        raise LoaderError("compiling OpenCL C needs " + ", ".join(missing) + ": install "
                          + " ".join(PACKAGES[m] for m in missing)
                          + " (apt-get install ...), or load a compiled code object")
    return clang, lld


def cache_dir() -> Path:
    base = os.environ.get("GCNEMU_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache",
                                                              "gcnemu")
    return Path(base) / "opencl"


def _write_cached(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)         # atomic: another process may write the same entry
    except OSError:
        pass                          # a read-only home: compile again next time


def image_library(clang: str) -> tuple[Path, str]:
    """(path, content key) of the bitcode of gcnemu's OpenCL image built-ins
    (gcnemu.loader.climage), compiled once per library source and clang version and kept in
    the cache directory (a temporary file where that is read-only)."""
    source = library_source()
    key = hashlib.sha256("\0".join([source, LIBRARY_HEADER.read_text(), *_LIB_FLAGS,
                                    _clang_version(clang)]).encode()).hexdigest()
    path = cache_dir() / f"clc_image-{key[:32]}.bc"
    if path.is_file():
        return path, key
    with tempfile.TemporaryDirectory() as td:
        src, out = Path(td) / "clc_image.cl", Path(td) / "clc_image.bc"
        src.write_text(source)
        r = subprocess.run([clang, *_LIB_FLAGS, "-include", str(LIBRARY_HEADER), "-c",
                            "-emit-llvm", str(src), "-o", str(out)], capture_output=True, text=True)
        if r.returncode:
            raise LoaderError(f"clang-14 could not compile gcnemu's image library:\n{r.stderr}")
        data = out.read_bytes()
    _write_cached(path, data)
    if not path.is_file():
        path = Path(tempfile.mkdtemp()) / path.name
        path.write_bytes(data)
    return path, key


@functools.lru_cache(maxsize=None)     # one `clang --version` a process, not one a load
def _clang_version(clang: str) -> str:
    return subprocess.run([clang, "--version"], capture_output=True, text=True).stdout


def compile_opencl(source: str, options: Sequence[str] = (), name: str = "kernel.cl",
                   include_dir: str | os.PathLike | None = None) -> bytes:
    """The code object (ELF bytes) of OpenCL C ``source``, compiled with ``options`` (such as
    ``-DN=4``) added to the flags above; ``include_dir`` is searched by #include. A compile
    error is a LoaderError with clang's messages."""
    options = [str(o) for o in options]
    clang, lld = toolchain()
    image_lib, image_key = image_library(clang)
    flags = [*CL_FLAGS, "-include", str(LIBRARY_HEADER), "-Xclang", "-mlink-builtin-bitcode",
             "-Xclang", str(image_lib)]
    key = hashlib.sha256("\0".join([source, *CL_FLAGS, image_key, "--", *options,
                                    str(include_dir or ""), _clang_version(clang)]
                                   ).encode()).hexdigest()
    cached = cache_dir() / f"{key}.hsaco"
    if cached.is_file():
        return cached.read_bytes()
    with tempfile.TemporaryDirectory() as td:
        src = Path(td) / (Path(name).stem + ".cl")
        src.write_text(source)
        obj, out = Path(td) / "kernel.o", Path(td) / "kernel.hsaco"
        inc = ["-I", str(include_dir)] if include_dir else []
        r = subprocess.run([clang, *flags, *inc, *options, "-c", src.name, "-o", str(obj)],
                           cwd=td, capture_output=True, text=True)
        if r.returncode:
            text = r.stderr.replace(str(src), name).replace(src.name, name).strip()
            raise LoaderError(f"clang-14 could not compile {name}:\n{text}")
        r = subprocess.run([lld, "-shared", str(obj), "-o", str(out)], cwd=td,
                           capture_output=True, text=True)
        if r.returncode:
            raise LoaderError(f"ld.lld-14 could not link {name}:\n{r.stderr.strip()}")
        data = out.read_bytes()
    _write_cached(cached, data)
    return data
