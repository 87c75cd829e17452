"""The layout of perturb: sub-packages in data-flow order, every one of them a layer of the
contract, one sub-package per generator family, no shims, and a variation cache keyed on the
generators' specs rather than on their source files."""
import importlib
import tomllib
from pathlib import Path

import pytest

import perturb

ROOT = Path(__file__).resolve().parents[2]
PERTURB = ROOT / "perturb"
SUB_PACKAGES = ("checks", "io", "rodr", "generators", "resources")
FAMILIES = ("backtrans", "swapsyn", "swapwords")


def _perturb_contract() -> dict:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = [c for c in config["tool"]["importlinter"]["contracts"] if c.get("containers") == ["perturb"]]
    assert len(contracts) == 1
    return contracts[0]


def test_every_sub_package_is_a_layer_in_data_flow_order():
    found = sorted(p.parent.name for p in PERTURB.glob("*/__init__.py"))
    assert found == sorted(SUB_PACKAGES)
    assert _perturb_contract()["layers"] == [*SUB_PACKAGES, "spec", "base"]


def test_one_sub_package_per_generator_family():
    found = sorted(p.parent.name for p in (PERTURB / "generators").glob("*/__init__.py"))
    assert found == sorted(FAMILIES)


def test_only_the_base_the_engine_and_the_spec_stay_at_the_top():
    top = sorted(p.name for p in PERTURB.glob("*.py"))
    assert top == ["__init__.py", "base.py", "engine.py", "spec.py"]  # the engine runs every spec


def test_no_private_module_names_and_no_private_names_imported_across_modules():
    import ast

    for path in PERTURB.rglob("*.py"):
        assert path.name in ("__init__.py", "__main__.py") or not path.name.startswith("_"), path
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("perturb"):
                private = [a.name for a in node.names if a.name.startswith("_")]
                assert not private, f"{path.relative_to(ROOT)} imports private {private} from {node.module}"


@pytest.mark.parametrize("protocol", sorted(perturb.PROTOCOLS))
def test_registered_classes_live_in_their_sub_package(protocol):
    expected = {"validated": "perturb.generators.", "rodr": "perturb.rodr."}[protocol]
    registry = perturb.PROTOCOLS[protocol]
    for name in perturb.PAPER_ORDER:
        cls = registry.get(name)
        assert cls.__module__.startswith(expected), (name, cls.__module__)


def test_the_cache_key_is_the_spec_not_the_source(monkeypatch):
    """A source edit that changes no output (a comment) keeps the shard; the spec version is in it."""
    from perturb.io import cache

    gen = perturb.make("EXTRAPUNC")
    key = cache.shard_key(gen, 0)
    assert not hasattr(cache, "code_hash")
    bumped = type(gen.spec)(**{**gen.spec.__dict__, "version": gen.spec.version + 1})
    monkeypatch.setattr(gen, "spec", bumped)
    assert cache.shard_key(gen, 0) != key
