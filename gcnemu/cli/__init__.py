"""The command line: ``gcnemu asm``, ``gcnemu disasm``, ``gcnemu run``, ``gcnemu stats``,
``gcnemu profile``, ``gcnemu compare``, ``gcnemu sweep``.

Each subcommand lives in a module of this package (isa: asm and disasm; run: run; profile:
stats, profile and compare; sweep: sweep) that adds its parser; the emulator itself is
imported only by the commands that run code.
"""
from __future__ import annotations

import argparse
import sys

from ..errors import GcnEmuError
from . import isa, profile, run, sweep


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__
    p = argparse.ArgumentParser(prog="gcnemu", description="AMD GCN 1.1 (gfx7) emulator tools")
    p.add_argument("--version", action="version", version=f"gcnemu {__version__}")
    p.add_argument("--debug", action="store_true", help="show the Python traceback of an error")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    isa.add_parsers(sub)
    run.add_parser(sub)
    profile.add_parsers(sub)
    sweep.add_parser(sub)
    return p


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except KeyboardInterrupt:
        if args.debug:
            raise
        print("gcnemu: interrupted", file=sys.stderr)
        return 130
    except (OSError, GcnEmuError) as e:
        if args.debug:
            raise
        print(f"gcnemu: error: {_one_line(e)}", file=sys.stderr)
        return 2 if isinstance(e, OSError) else 1
    except Exception as e:       # a bug of gcnemu: one line, the traceback with --debug
        if args.debug:
            raise
        print(f"gcnemu: internal error: {type(e).__name__}: {_one_line(e)} (run with --debug "
              f"for the traceback, and please report it)", file=sys.stderr)
        return 3


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
