"""``gcnemu asm`` and ``gcnemu disasm``.

    gcnemu asm FILE.s -o FILE.bin      assemble LLVM-syntax gfx7 source to raw machine code
    gcnemu disasm FILE                 disassemble raw code, or the .text of an ELF code object
                                       (--gfx6 for both: GCN 1.0, Southern Islands)
"""
from __future__ import annotations

import sys
from pathlib import Path

from ..errors import GcnEmuError


def _cmd_asm(args) -> int:
    from ..isa import table
    from ..isa.assembler import assemble_with_labels

    src_path = Path(args.file)
    source = src_path.read_text() if args.file != "-" else sys.stdin.read()
    try:
        code, labels = assemble_with_labels(source, table.GFX6 if args.gfx6 else table.GFX7)
    except GcnEmuError as e:
        # compiler-style "FILE:LINE:COLUMN: error: ..." (the message already names line/column)
        loc = ":".join(str(x) for x in (getattr(e, "line", None), getattr(e, "column", None))
                       if x is not None)
        print(f"{args.file}:{loc + ': ' if loc else ' '}error: {e}", file=sys.stderr)
        return 1
    out = Path(args.output) if args.output else src_path.with_suffix(".bin")
    out.write_bytes(code)
    if args.verbose:
        print(f"{out}: {len(code)} bytes, {len(labels)} label(s)")
    return 0


def _elf_text(data: bytes):
    """(.text bytes, {offset in .text: [symbol names]}) of an ELF file, or None if not ELF."""
    if data[:4] != b"\x7fELF":
        return None
    import io

    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    try:
        elf = ELFFile(io.BytesIO(data))
        text = elf.get_section_by_name(".text")
        if text is None:
            raise GcnEmuError("ELF file has no .text section")
        base, size = text["sh_addr"], text["sh_size"]
        names: dict = {}
        symtab = elf.get_section_by_name(".symtab")
        if symtab is not None:
            for sym in symtab.iter_symbols():
                if sym.name and sym["st_info"]["type"] in ("STT_FUNC", "STT_NOTYPE") and \
                        sym["st_shndx"] != "SHN_UNDEF" and base <= sym["st_value"] < base + size \
                        and not sym.name.startswith("$"):
                    names.setdefault(sym["st_value"] - base, []).append(sym.name)
        return text.data(), names
    except (ELFError, ValueError, KeyError) as e:
        raise GcnEmuError(f"malformed ELF file: {e}") from None


def _cmd_disasm(args) -> int:
    from ..isa import table
    from ..isa.disassembler import disassemble_lines

    data = Path(args.file).read_bytes() if args.file != "-" else sys.stdin.buffer.read()
    gen = table.GFX6 if args.gfx6 else table.GFX7
    from ..loader.cal import is_cal_binary, load_cal
    if is_cal_binary(data):
        # a CAL binary: each kernel's .text after a label with its name
        try:
            out = []
            for name, info in sorted(load_cal(data, args.file).items()):
                out.append(f"{name}:")
                # the kernel's own generation (;device:tahiti is gfx6) unless --gfx6 says
                kgen = gen if args.gfx6 else table.gen_of(info.cal.isa)
                for off, text in disassemble_lines(info.code, kgen):
                    out.append(f"  {text:<60} // {off:06x}" if args.offsets else text)
        except GcnEmuError as e:
            print(f"{args.file}: error: {e}", file=sys.stderr)
            return 1
        sys.stdout.write("\n".join(out) + "\n")
        return 0
    try:
        elf = _elf_text(data)
        code, names = elf if elf is not None else (data, {})
        lines = disassemble_lines(code, gen)
    except GcnEmuError as e:
        print(f"{args.file}: error: {e}", file=sys.stderr)
        return 1
    if args.labels:
        from ..isa.disassembler import _with_labels
        from ..isa.assembler import assemble
        labelled = _with_labels(code, lines, gen)
        if labelled is not None and assemble("\n".join(t for _, t in labelled)) == code:
            lines = labelled
    out = []
    for off, text in lines:
        for name in sorted(names.get(off, ())) if not text.endswith(":") else ():
            out.append(f"{name}:")
        if text.endswith(":"):
            out.append(text)
        else:
            out.append(f"  {text:<60} // {off:06x}" if args.offsets else text)
    sys.stdout.write("\n".join(out) + ("\n" if out else ""))
    return 0


def add_parsers(sub) -> None:
    """The asm and disasm subcommands."""
    a = sub.add_parser("asm", help="assemble LLVM-syntax gfx7 source into raw machine code")
    a.add_argument("file", help="assembly source (.s), or - for stdin")
    a.add_argument("-o", "--output", help="output file (default: FILE with .bin suffix)")
    a.add_argument("-v", "--verbose", action="store_true", help="print size and label count")
    a.add_argument("--gfx6", action="store_true",
                   help="assemble for GCN 1.0 (Tahiti/Pitcairn): no GCN 1.1-only instruction")
    a.set_defaults(func=_cmd_asm)

    d = sub.add_parser("disasm", help="disassemble raw gfx7 code or an ELF code object's .text")
    d.add_argument("file", help="raw machine code or ELF code object (.hsaco/.o), or - for stdin")
    d.add_argument("--offsets", action="store_true", help="append each instruction's byte offset")
    d.add_argument("--gfx6", action="store_true",
                   help="decode as GCN 1.0 (Tahiti/Pitcairn); without it, a CAL binary's "
                   "kernels decode as their ;device: says (tahiti: GCN 1.0)")
    d.add_argument("--labels", action="store_true",
                   help="name branch targets (L<offset>:) instead of numeric offsets")
    d.set_defaults(func=_cmd_disasm)
