"""The architecture holds: the import-linter layers contract (pyproject.toml) is kept, no module
import cycle exists (function-level and TYPE_CHECKING imports count), the benchmark scripts import
each other without cycles either, argparse lives only in bench.cli, no source file grows past ~400
lines, and no file is named after a development round."""
import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bench", "perturb", "suites")
MAX_LINES = 420  # "about 400": a file past this is split


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


def test_no_source_file_is_oversized():
    big = {p.relative_to(ROOT).as_posix(): n for p in _sources()
           if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert big == {}
