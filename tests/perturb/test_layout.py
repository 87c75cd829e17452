"""The layout of perturb (issue 22, item 7): sub-packages in data-flow order, every one of them a
layer of the contract, the public paths kept, and the variation cache's code hash covering every
sub-package."""
import importlib
import tomllib
from pathlib import Path

import pytest

import perturb

ROOT = Path(__file__).resolve().parents[2]
PERTURB = ROOT / "perturb"
SUB_PACKAGES = ("checks", "io", "rodr", "generators", "resources")


def _perturb_contract() -> dict:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = [c for c in config["tool"]["importlinter"]["contracts"] if c.get("containers") == ["perturb"]]
    assert len(contracts) == 1
    return contracts[0]


def test_every_sub_package_is_a_layer_in_data_flow_order():
    found = sorted(p.parent.name for p in PERTURB.glob("*/__init__.py"))
    assert found == sorted(SUB_PACKAGES)
    assert _perturb_contract()["layers"] == [*SUB_PACKAGES, "base"]


def test_only_the_base_and_the_kept_names_stay_at_the_top():
    top = sorted(p.name for p in PERTURB.glob("*.py"))
    assert top == ["__init__.py", "base.py", "importers.py", "sets.py"]


@pytest.mark.parametrize("old, new", [("perturb.sets", "perturb.io.sets"),
                                      ("perturb.importers", "perturb.io.importers")])
def test_public_paths_are_the_moved_modules(old, new):
    assert importlib.import_module(old) is importlib.import_module(new)
    from perturb.sets import VariationSet, write_tsv  # noqa: F401 - the names plugin authors use
    from perturb.base import Generator  # noqa: F401


@pytest.mark.parametrize("protocol", sorted(perturb.PROTOCOLS))
def test_registered_classes_live_in_their_sub_package(protocol):
    expected = {"validated": "perturb.generators.", "rodr": "perturb.rodr."}[protocol]
    registry = perturb.PROTOCOLS[protocol]
    for name in perturb.PAPER_ORDER:
        cls = registry.get(name)
        assert cls.__module__.startswith(expected), (name, cls.__module__)


def test_code_hash_reads_every_sub_package():
    from perturb.io.cache import code_files

    files = code_files()
    assert set(files) == set(PERTURB.resolve().rglob("*.py"))
    for sub in SUB_PACKAGES:
        assert any(f.parent.name == sub for f in files), sub
