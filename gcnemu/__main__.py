"""``python -m gcnemu``: the command line (gcnemu.cli)."""
import sys

from .cli import main

sys.exit(main())
