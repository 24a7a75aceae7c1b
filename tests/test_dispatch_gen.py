"""The committed generated dispatch (gcnemu/exec/dispatch_gen.py) is what tools/gen_dispatch.py
writes from the semantics tables now: an op added to or changed in gcnemu/sem without
regenerating would otherwise run stale code (or be missing from the engine)."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_committed_dispatch_matches_the_generator():
    spec = importlib.util.spec_from_file_location("gen_dispatch", ROOT / "tools" / "gen_dispatch.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    committed = (ROOT / "gcnemu" / "exec" / "dispatch_gen.py").read_text()
    assert gen.render() == committed, "run: python tools/gen_dispatch.py"
