"""Typed result files (bench.results.schema): every committed result.json round-trips byte for byte
through the model and fits it strictly; the generated JSON Schema and key list are up to date and
validate the committed files; older files are migrated, newer ones refused; errors name the file
and the key path; reading stays fast."""
import copy
import json
import re
import time
from pathlib import Path
from typing import Dict, List, Optional, Union

import pytest

from bench.core.errors import DataError
from bench.core.io import canonical_json
from bench.results import migrations as mig
from bench.results.rundir import load_result
from bench.results.schema import MODELS, Header, ResultFile, check_result
from bench.results.schema_docs import DOCS, MARKDOWN_FILE, SCHEMA_FILE, render_json_schema, render_markdown
from bench.results.typed import Problem, compile_type, iter_keys, models_in

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = sorted(ROOT.glob("results/**/result.json"))
IDS = [str(p.parent.relative_to(ROOT)) for p in COMMITTED]
VARIATIONS = ROOT / "results/runs/minilm-l6__chatterbot__variations__s0/result.json"


def test_every_layout_has_committed_examples():
    layouts = {ResultFile.from_path(p).layout for p in COMMITTED}
    suites = {ResultFile.from_path(p).suite for p in COMMITTED}
    assert layouts == set(MODELS) and {"variations", "fewshot", "domain"} <= suites


@pytest.mark.parametrize("path", COMMITTED, ids=IDS)
def test_committed_result_round_trips_byte_for_byte(path):
    raw = path.read_bytes()
    text = raw.decode("utf-8")
    assert ResultFile.from_json(text, str(path)).to_json() == text
    assert ResultFile.from_path(path).to_json().encode("utf-8") == raw


@pytest.mark.parametrize("path", COMMITTED, ids=IDS)
def test_committed_result_has_no_key_outside_the_model(path):
    ResultFile.from_path(path, strict=True)  # raises on a key the model does not declare


def _variations() -> dict:
    return json.loads(VARIATIONS.read_text(encoding="utf-8"))


def _write(tmp_path: Path, data: dict, name: str = "run") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "result.json").write_text(canonical_json(data), encoding="utf-8")
    return folder / "result.json"


def test_strict_refuses_an_unknown_key_and_lenient_accepts_it(tmp_path):
    data = _variations()
    data["sets"][0]["bogus"] = 1
    path = _write(tmp_path, data)
    assert load_result(path)["sets"][0]["bogus"] == 1
    with pytest.raises(DataError, match=r"sets\[0\]\.bogus: key not in the model SetEntry"):
        ResultFile.from_path(path, strict=True)


@pytest.mark.parametrize("mutate, where, what", [
    (lambda d: d["sets"][3].__setitem__("metrics", "high"), r"sets\[3\]\.metrics", "expected an object"),
    (lambda d: d["sets"][3]["metrics"].__setitem__("MRR@10", "0.5"), r"sets\[3\]\.metrics\.MRR@10", "a number"),
    (lambda d: d["sets"][1].pop("name"), r"sets\[1\]\.name", "missing key"),
    (lambda d: d.pop("measures"), r"measures", "missing key"),
    (lambda d: d.__setitem__("seed", True), r"seed", "expected an integer, found a boolean"),
    (lambda d: d["dataset"].__setitem__("n_docs", 1.5), r"dataset\.n_docs", "expected an integer"),
    (lambda d: d["statistics"]["comparisons"]["MISSPELL"]["MRR@10"].__setitem__("win", None),
     r"statistics\.comparisons\.MISSPELL\.MRR@10\.win", "found null"),
    (lambda d: d["model"].__setitem__("training", {"loss_curve": ["x"]}), r"model\.training\.loss_curve\[0\]",
     "a number"),
])
def test_validation_error_names_the_file_and_the_key_path(tmp_path, mutate, where, what):
    data = _variations()
    mutate(data)
    path = _write(tmp_path, data)
    with pytest.raises(DataError) as info:
        load_result(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ")
    assert re.search(where + ": ", message) and what in message


def test_fewshot_layout_is_checked_too(tmp_path):
    data = json.loads((ROOT / "results/runs/minilm-l6__chatterbot__fewshot__s0/result.json").read_text())
    data["methods"]["qry-tune"]["k"]["5"]["trials"][2]["winning_ratio"]["novel"] = "most"
    with pytest.raises(DataError, match=r"methods\.qry-tune\.k\.5\.trials\[2\]\.winning_ratio\.novel: expected "):
        load_result(_write(tmp_path, data))


def test_top_level_must_be_an_object(tmp_path):
    path = tmp_path / "result.json"
    path.write_text("[1, 2]\n")
    with pytest.raises(DataError, match="top level must be a JSON object") as info:
        load_result(path)
    assert str(path) in str(info.value)


# --------------------------------------------------------------------------------------------
# schema_version: migration, newer files, missing migrations


def _as_version_0(data: dict) -> dict:
    """Version 0 (see bench.results.migrations): no schema_version and no per_query_file."""
    old = copy.deepcopy(data)
    del old["schema_version"], old["per_query_file"]
    return old


def test_version_0_file_is_migrated_to_the_current_version(tmp_path):
    data = _variations()
    path = _write(tmp_path, _as_version_0(data))
    rf = ResultFile.from_path(path)
    assert rf.migrated_from == 0 and rf.version == mig.SCHEMA_VERSION == 1
    assert rf.data == data and load_result(path) == data
    assert rf.to_json() == VARIATIONS.read_text(encoding="utf-8")
    assert ResultFile.from_path(VARIATIONS).migrated_from is None


def test_migrations_run_in_order_up_to_the_current_version():
    calls: List[int] = []

    def step(v):
        def run(d):
            calls.append(v)
            return {**d, "schema_version": v + 1, f"added_by_{v}": True}
        return run

    out = mig.migrate({"suite": "x"}, "f.json", migrations={0: step(0), 1: step(1), 2: step(2)}, current=3)
    assert calls == [0, 1, 2] and out["schema_version"] == 3 and out["added_by_2"]
    assert mig.migrate({"schema_version": 3}, migrations={}, current=3) == {"schema_version": 3}


def test_a_version_without_migration_is_refused_naming_the_file():
    with pytest.raises(DataError, match=r"old/result\.json: no migration from schema_version 1 to 3") as info:
        mig.migrate({"schema_version": 1}, "old/result.json", migrations={0: lambda d: d}, current=3)
    assert "migrations exist from: 0" in str(info.value)


def test_a_file_from_a_newer_drbench_is_refused_with_its_version(tmp_path):
    data = {**_variations(), "schema_version": 2, "drbench_version": "9.9.0"}
    path = _write(tmp_path, data)
    with pytest.raises(DataError) as info:
        load_result(path)
    message = str(info.value)
    assert str(path) in message and "drbench 9.9.0" in message and "schema_version 2" in message
    assert "upgrade drbench" in message


@pytest.mark.parametrize("version", ["1", 1.0, True, None])
def test_a_non_integer_version_is_refused(tmp_path, version):
    path = _write(tmp_path, {**_variations(), "schema_version": version})
    with pytest.raises(DataError, match="schema_version must be an integer") as info:
        load_result(path)
    assert str(path) in str(info.value)


# --------------------------------------------------------------------------------------------
# generated documents


def test_committed_json_schema_is_up_to_date():
    assert (DOCS / SCHEMA_FILE).read_text(encoding="utf-8") == render_json_schema(), \
        "regenerate: python -m bench.results.schema_docs"


def test_committed_key_list_is_up_to_date():
    assert (DOCS / MARKDOWN_FILE).read_text(encoding="utf-8") == render_markdown(), \
        "regenerate: python -m bench.results.schema_docs"


def test_key_list_documents_every_key_of_every_model():
    text = (DOCS / MARKDOWN_FILE).read_text(encoding="utf-8")
    sections = dict(re.findall(r"^## (\w+)\n(.*?)(?=^## |\Z)", text, flags=re.S | re.M))
    for model in models_in(Union[(Header, *MODELS.values())]):
        assert model.__name__ in sections, model.__name__
        listed = re.findall(r"^\| `([^`]+)` \|", sections[model.__name__], flags=re.M)
        assert listed == [k for k, *_ in iter_keys(model)], model.__name__
        for key, _, _, doc in iter_keys(model):
            assert doc.strip(), f"{model.__name__}.{key} has no description"


def _validator():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((DOCS / SCHEMA_FILE).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("path", COMMITTED, ids=IDS)
def test_committed_result_validates_against_the_json_schema(path):
    errors = list(_validator().iter_errors(json.loads(path.read_text(encoding="utf-8"))))
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors[:3]]


@pytest.mark.parametrize("mutate", [
    lambda d: d["sets"][3].__setitem__("metrics", "high"),
    lambda d: d.pop("seed"),
    lambda d: d["statistics"]["header"].__setitem__("alpha", "0.05"),
])
def test_json_schema_rejects_what_the_model_rejects(mutate):
    data = _variations()
    mutate(data)
    assert list(_validator().iter_errors(data))
    with pytest.raises(DataError):
        check_result(data, "sets")


# --------------------------------------------------------------------------------------------
# the checker itself, and speed


def test_checker_types():
    class_ = compile_type(Dict[str, Optional[List[float]]])
    class_.check({"a": [1, 2.5], "b": None}, "", False)
    for bad, where in [({"a": [True]}, "a[0]"), ({"a": "x"}, "a"), ([], "")]:
        with pytest.raises(Problem) as info:
            class_.check(bad, "", False)
        assert info.value.path == where


def test_reading_stays_fast():
    largest = max(COMMITTED, key=lambda p: p.stat().st_size)
    load_result(largest)  # imports and compiled checkers
    best = min(_timed(largest) for _ in range(5))
    assert best < 0.010, f"{best * 1000:.1f} ms to read {largest}"


def _timed(path: Path) -> float:
    t0 = time.perf_counter()
    load_result(path)
    return time.perf_counter() - t0
