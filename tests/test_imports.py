"""The house's import rules, read from the sources with `ast` (nothing is imported):

* imports go one way, down the tiers below: a module may import modules of its own tier or of
  lower ones, never of a higher one; every module of gcnemu/ belongs to a tier;
* no circles: no module imports (directly or through others) a module that imports it back;
* module-level imports stand at the top of a file, after its docstring only.

Imports inside functions (the lazy ones) count for the first two rules. Importing
``gcnemu.a.b`` runs ``gcnemu/a/__init__.py`` first, so it counts as importing the package
``gcnemu.a`` too, when the importer is not in that package (and never the root package: it
runs before any submodule).
"""
from __future__ import annotations

import ast
from fnmatch import fnmatch
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "gcnemu"

#: the tiers, lowest first (see the README's map of the house)
TIERS = [
    ("foundation: errors, scalar types and the ISA as data",
     ["gcnemu.errors", "gcnemu.dtypes", "gcnemu.isa", "gcnemu.isa.*", "gcnemu.exec", "gcnemu.mem",
      "gcnemu.sem", "gcnemu.sanitize", "gcnemu.sanitize.findings"]),
    ("layouts and compile helpers", ["gcnemu.exec.layout", "gcnemu.exec.jit", "gcnemu.exec.lanes",
                                     "gcnemu.timing", "gcnemu.timing.config"]),
    ("semantics, memory model, loader", ["gcnemu.sem.*", "gcnemu.loader", "gcnemu.loader.*",
                                         "gcnemu.exec.state", "gcnemu.mem.space",
                                         "gcnemu.mem.descriptors", "gcnemu.mem.atomics",
                                         "gcnemu.mem.subops", "gcnemu.mem.formats",
                                         "gcnemu.mem.access", "gcnemu.hardware"]),
    ("memory families", ["gcnemu.mem.*", "gcnemu.timing.trace", "gcnemu.sanitize.record"]),
    ("exec: decode, engine, op kernels, cycle model, sanitizer analyses",
     ["gcnemu.exec.*", "gcnemu.timing.*", "gcnemu.sanitize.*"]),
    ("launch", ["gcnemu.kernel", "gcnemu.report", "gcnemu.workers", "gcnemu.launch",
                "gcnemu.shards", "gcnemu.coherency"]),
    ("API", ["gcnemu", "gcnemu.device", "gcnemu.queue", "gcnemu.snippet", "gcnemu.golden", "gcnemu.examples",
             "gcnemu.distributed", "gcnemu.distributed.*"]),
    ("front ends on the API: PyOpenCL's", ["gcnemu.cl", "gcnemu.cl.*"]),
    ("profiling and the pytest plugin", ["gcnemu.profile", "gcnemu.profile.*",
                                         "gcnemu.pytest_plugin"]),
    ("CLI", ["gcnemu.cli", "gcnemu.cli.*", "gcnemu.__main__"]),
]


def _module_names(root: Path) -> dict:
    """module name -> file, for every .py under ``root`` (a package directory)."""
    out = {}
    for f in sorted(root.rglob("*.py")):
        parts = list(f.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = f
    return out


def _resolve(module: str, is_package: bool, node: ast.ImportFrom | ast.Import, known) -> list:
    """The modules of ``known`` an import statement of ``module`` loads."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in known]
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[:len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    out = []
    for a in node.names:
        if f"{target}.{a.name}" in known:
            out.append(f"{target}.{a.name}")      # from package import module
        elif target in known:
            out.append(target)
    return out


def _with_packages(name: str, importer: str) -> list:
    """``name`` and the packages above it whose __init__ importing it runs: not the root, and
    none that holds the importer (its __init__ runs before the importer anyway)."""
    parts = name.split(".")
    above = [".".join(parts[:i]) for i in range(2, len(parts))]
    return [p for p in above if not importer.startswith(p + ".")] + [name]


def read_imports(root: Path) -> tuple[dict, list]:
    """({module: {modules it imports}}, [problems with imports placed below other code])."""
    modules = _module_names(root)
    graph, late = {}, []
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        deps = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for dep in _resolve(name, path.name == "__init__.py", node, modules):
                    deps.update(_with_packages(dep, name))
        deps.discard(name)
        graph[name] = deps
        body = tree.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]
        seen_code = None
        for node in body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                if seen_code is not None:
                    late.append(f"{path.relative_to(root.parent)}:{node.lineno}: module-level import "
                                f"after other code (line {seen_code})")
            elif seen_code is None:
                seen_code = node.lineno
    return graph, late


def find_cycle(graph: dict) -> list | None:
    """One import circle [a, b, ..., a], or None."""
    state, stack = {}, []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                return stack[stack.index(d):] + [d]
            if d not in state:
                c = visit(d)
                if c:
                    return c
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            c = visit(m)
            if c:
                return c
    return None


def tier_of(module: str, tiers=TIERS) -> int | None:
    """The tier of a module: the first tier with an exact name, else the first pattern match."""
    for i, (_, patterns) in enumerate(tiers):
        if module in patterns:
            return i
    for i, (_, patterns) in enumerate(tiers):
        if any(fnmatch(module, p) for p in patterns if "*" in p):
            return i
    return None


def import_problems(root: Path, tiers=TIERS) -> list:
    """Every broken rule of the module docstring, as text (empty: the house is in order)."""
    graph, problems = read_imports(root)
    for m in sorted(graph):
        t = tier_of(m, tiers)
        if t is None:
            problems.append(f"{m} belongs to no tier: add it to TIERS in tests/test_imports.py")
            continue
        for d in sorted(graph[m]):
            td = tier_of(d, tiers)
            if td is not None and td > t:
                problems.append(f"{m} ({tiers[t][0]}) imports {d}, which is higher "
                                f"({tiers[td][0]})")
    cycle = find_cycle(graph)
    if cycle:
        problems.append("import circle: " + " -> ".join(cycle))
    return problems


def test_gcnemu_imports_go_one_way_without_circles():
    problems = import_problems(PACKAGE)
    assert not problems, "\n".join(problems)


# --- the checker itself, on small trees made here --------------------------------------------
def _tree(tmp_path, files: dict) -> Path:
    root = tmp_path / "gcnemu"
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


SMALL_TIERS = [("low", ["gcnemu.errors", "gcnemu.exec", "gcnemu.exec.layout"]),
               ("high", ["gcnemu", "gcnemu.exec.engine"])]


def test_checker_accepts_a_tree_in_order(tmp_path):
    root = _tree(tmp_path, {"__init__.py": "from .exec.engine import run\n",
                            "errors.py": '"""doc"""\nclass E(Exception):\n    pass\n',
                            "exec/__init__.py": "",
                            "exec/layout.py": "from ..errors import E\nX = 1\n",
                            "exec/engine.py": "from . import layout\n\n\ndef run():\n"
                                              "    from ..errors import E\n"})
    assert import_problems(root, SMALL_TIERS) == []


@pytest.mark.parametrize("circle", ["direct", "lazy", "through a package"])
def test_checker_finds_a_circle(tmp_path, circle):
    files = {"__init__.py": "", "errors.py": "", "exec/__init__.py": "", "mem/__init__.py": "",
             "exec/layout.py": "", "exec/engine.py": "from ..mem.ds import f\n",
             "mem/ds.py": {"direct": "from ..exec.engine import run\n",
                           "lazy": "def f():\n    from ..exec import engine\n",
                           "through a package": "from ..exec.layout import X\n"}[circle]}
    if circle == "through a package":
        files["exec/__init__.py"] = "from . import engine\n"   # importing exec.layout runs it
    root = _tree(tmp_path, files)
    tiers = [("one", ["gcnemu", "gcnemu.*"])]   # one tier: only the circle can be wrong
    problems = import_problems(root, tiers)
    assert len(problems) == 1 and problems[0].startswith("import circle: "), problems
    assert "gcnemu.mem.ds" in problems[0] and "gcnemu.exec.engine" in problems[0]


def test_checker_finds_an_import_up_the_tiers_and_a_late_import(tmp_path):
    root = _tree(tmp_path, {"__init__.py": "", "errors.py": "",
                            "exec/__init__.py": "",
                            "exec/layout.py": '"""doc"""\nX = 1\nfrom . import engine\n',
                            "exec/engine.py": "", "stray.py": ""})
    problems = import_problems(root, SMALL_TIERS)
    assert any("gcnemu.exec.layout (low) imports gcnemu.exec.engine, which is higher (high)" in p
               for p in problems)
    assert any("exec/layout.py:3: module-level import after other code (line 2)" in p
               for p in problems)
    assert any(p.startswith("gcnemu.stray belongs to no tier") for p in problems)


def test_every_folder_of_modules_is_a_package():
    """pyproject.toml installs the packages setuptools finds: a folder of modules without an
    __init__.py would be left out of a wheel while an editable install still imports it."""
    folders = {f.parent for f in PACKAGE.rglob("*.py")}
    missing = sorted(str(d.relative_to(PACKAGE.parent)) for d in folders
                     if not (d / "__init__.py").exists())
    assert not missing, f"folders without __init__.py: {missing}"
