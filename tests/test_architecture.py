"""The architecture holds: the import-linter contracts (pyproject.toml) are kept, no module import
cycle exists (function-level and TYPE_CHECKING imports count), the benchmark scripts import each
other without cycles either, the wheel holds the product only (bench, perturb, suites; never the
lab in benchmarks/), argparse lives only in bench.cli, no function is longer than 80 lines, and no
file is named after a development round."""
import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bench", "perturb", "suites")
MAX_FUNCTION_LINES = 80  # a function past this is split along what it does


def _sources():
    for pkg in PACKAGES:
        yield from sorted((ROOT / pkg).rglob("*.py"))


def test_layers_contract_is_kept():
    pytest.importorskip("importlinter")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    exe = Path(sys.executable).with_name("lint-imports")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "importlinter.cli"]
    proc = subprocess.run(cmd + ["--no-cache"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def _cycles(graph):
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_no_import_cycles():
    grimp = pytest.importorskip("grimp")
    sys.path.insert(0, str(ROOT))
    try:
        g = grimp.build_graph(*PACKAGES, cache_dir=None)
    finally:
        sys.path.remove(str(ROOT))
    graph = {m: set(g.find_modules_directly_imported_by(m)) for m in g.modules}
    assert _cycles(graph) == []
    # the cycle finder itself finds a planted cycle
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]


def test_benchmarks_have_no_import_cycles():
    """benchmarks/ is a package whose scripts share helpers (benchmarks.common, backtrans_common)
    instead of importing each other in a circle."""
    grimp = pytest.importorskip("grimp")
    sys.path.insert(0, str(ROOT))
    try:
        g = grimp.build_graph("benchmarks", cache_dir=None)
    finally:
        sys.path.remove(str(ROOT))
    graph = {m: set(g.find_modules_directly_imported_by(m)) for m in g.modules}
    assert len(graph) > 20 and "benchmarks.backtrans_common" in graph["benchmarks.backtrans_dev"]
    assert _cycles(graph) == []


def test_no_file_is_named_after_a_round():
    """Development rounds are history (the git log): scripts, modules, tests and
    labelled sets are named after what they hold, a sample by its provenance column."""
    named = [p.relative_to(ROOT).as_posix() for top in ("benchmarks", "bench", "perturb", "suites", "tests")
             for p in (ROOT / top).rglob("*") if "__pycache__" not in p.parts and re.search(r"round[-_ ]?\d", p.name)]
    assert named == []


def test_argparse_only_in_the_cli():
    offenders = []
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            if "argparse" in names and not rel.startswith("bench/cli/"):
                offenders.append(rel)
    assert offenders == []


def long_functions(path: Path, limit: int = MAX_FUNCTION_LINES):
    """``(name, lines)`` of every function or method of ``path`` longer than ``limit`` lines, nested
    ones included (a nested function counts in its own and in its parent's length)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(node.name, node.end_lineno - node.lineno + 1) for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 > limit]


def test_no_function_is_longer_than_80_lines():
    offenders = [f"{p.relative_to(ROOT).as_posix()}:{name}:{n}" for p in _sources() for name, n in long_functions(p)]
    assert offenders == [], f"{len(offenders)} functions over {MAX_FUNCTION_LINES} lines (file:function:lines): " + \
        ", ".join(offenders)


def test_long_functions_finds_81_lines_not_80_and_nested_functions(tmp_path):
    """The rule's own check: a function of 81 lines is found, one of 80 is not, a long nested one is."""
    def body(n, indent):
        return "".join(f"{indent}x{k} = {k}\n" for k in range(n))

    src = ("@dec\ndef short():\n" + body(79, "    ") + "def long():\n" + body(80, "    ")
           + "class C:\n    def m(self):\n        def inner():\n" + body(80, "            "))
    f = tmp_path / "m.py"
    f.write_text(src)
    assert dict(long_functions(f)) == {"long": 81, "m": 82, "inner": 81}


def _pyproject():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_wheel_lists_every_product_package_and_no_lab():
    """setuptools installs exactly the packages of bench, perturb and suites (every folder with an
    __init__.py): no package of benchmarks/ (tuning code, studies), and as package data only fitted weights
    the product reads at run time (the labelled sets stay in benchmarks/data)."""
    setup = _pyproject()["tool"]["setuptools"]
    on_disk = sorted(".".join(d.relative_to(ROOT).parts) for pkg in PACKAGES
                     for d in [ROOT / pkg, *sorted((ROOT / pkg).rglob("*"))]
                     if d.is_dir() and (d / "__init__.py").is_file())
    assert sorted(setup["packages"]) == on_disk
    assert not any(p.split(".")[0] not in PACKAGES for p in setup["packages"])
    data = setup.get("package-data", {})
    assert data == {"perturb": ["generators/swapsyn/chooser.json"]}, data  # the synonym chooser's fitted weights
    assert (ROOT / "perturb" / "generators" / "swapsyn" / "chooser.json").is_file()
    assert not (ROOT / "perturb" / "tuning").exists() and not (ROOT / "perturb" / "data").exists()
