import pytest

from bench.core.registry import DuplicateName, Registry, UnknownName


def test_lazy_entries_resolve_on_first_use():
    reg = Registry("thing")
    reg.register("path-join", "os.path:join")
    import os.path

    assert reg.get("PATH-JOIN") is os.path.join  # case-insensitive by default
    assert reg.canonical("path-join") == "path-join"


def test_duplicates_raise_and_unknown_suggests():
    reg = Registry("generator")
    reg.register("MISSPELL", "os:getcwd")
    with pytest.raises(DuplicateName):
        reg.register("misspell", "os:getcwd")
    with pytest.raises(UnknownName) as exc:
        reg.get("MISPELL")
    assert "Did you mean 'MISSPELL'" in str(exc.value)


def test_decorator_and_entry_points(monkeypatch):
    from importlib import metadata

    class EP:
        name, value = "outside", "os:getpid"

    def fake_entry_points(group):
        return [EP()] if group == "drbench.test" else []

    monkeypatch.setattr(metadata, "entry_points", fake_entry_points)
    reg = Registry("plugin", "drbench.test")

    @reg.register("inside")
    def f():
        return 1

    import os

    assert set(reg.names()) == {"inside", "outside"}
    assert reg.get("outside") is os.getpid


def test_builtin_registries_know_their_names():
    from bench.data.collections import DATASETS
    from bench.models.spec import MODELS
    from perturb import GENERATORS, PAPER_ORDER
    from bench.results.suite import SUITES

    assert {"minilm-l6", "bm25"} <= set(MODELS.names())
    assert "chatterbot" in DATASETS
    assert list(PAPER_ORDER) == [n for n in GENERATORS.names() if n in PAPER_ORDER]
    assert "variations" in SUITES


def test_importing_packages_is_light():
    import subprocess
    import sys

    code = ("import sys, bench, bench.cli.main, bench.data.collections, bench.models.spec, bench.core.registry, perturb, suites;"
            "heavy=[m for m in ('torch','faiss','spacy','transformers','nltk') if m in sys.modules];"
            "print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""
