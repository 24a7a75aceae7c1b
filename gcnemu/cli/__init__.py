"""The command line: ``gcnemu asm``, ``gcnemu disasm``, ``gcnemu run``.

Each subcommand lives in a module of this package (isa: asm and disasm; run: run) that adds
its parser; the emulator itself is imported only by the commands that run code.
"""
from __future__ import annotations

import argparse
import sys

from ..errors import GcnEmuError
from . import isa, run


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="gcnemu", description="AMD GCN 1.1 (gfx7) emulator tools")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    isa.add_parsers(sub)
    run.add_parser(sub)
    return p


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except OSError as e:
        print(f"gcnemu: error: {e}", file=sys.stderr)
        return 2
    except GcnEmuError as e:
        print(f"gcnemu: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
