"""Suite domain: the four systems end to end on tiny collections (tiny random BERT)."""
from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")

from tests.conftest import write_beir  # noqa: E402

TARGET_DOCS = {
    "t1": ("Pump impellers", "cavitation on pump impellers at low inlet pressure"),
    "t2": ("Rotor blades", "fatigue cracks in helicopter rotor blades after long service"),
    "t3": ("Fuel injection", "spray angle of a diesel fuel injector at high pressure"),
    "t4": ("Bearings", "lubrication of journal bearings under heavy load"),
}
TARGET_QUERIES = {
    "a": ("cavitation in pumps", None), "b": ("rotor blade fatigue", None), "c": ("diesel injector spray", None),
    "d": ("journal bearing lubrication", None),
}
TARGET_QRELS = [("a", "t1", 1), ("b", "t2", 1), ("c", "t3", 1), ("d", "t4", 1)]


@pytest.fixture
def domain_setup(tiny_bert, beir_dir, tmp_path):
    from bench.data.collections import load_dataset
    from bench.models.spec import spec_from_folder

    target = write_beir(tmp_path / "target", TARGET_DOCS, TARGET_QUERIES, TARGET_QRELS)
    return spec_from_folder(tiny_bert, name="tiny"), load_dataset(str(beir_dir)), load_dataset(str(target))


def _cfg(**kw):
    from bench.training.ddr import MLMConfig
    from bench.evaluation.measures import parse_measures
    from bench.training.contrastive import TrainConfig
    from suites.domain import DomainConfig

    return DomainConfig(measures=parse_measures("RR@10 nDCG@10"), progress=False,
                        train=TrainConfig(batch_size=2, max_steps=2, lr=1e-3, hard_negatives=1, negative_depth=3),
                        mlm=MLMConfig(batch_size=2, max_steps=2, lr=1e-3), **kw)


def test_domain_suite_end_to_end(domain_setup, tmp_path):
    from bench.results.rundir import load_run
    from suites.domain import SYSTEMS, domain_table, run

    spec, source, target = domain_setup
    out = tmp_path / "run"
    res = run(spec, target, source, _cfg(), out)
    r = res["result"]
    assert [s["name"] for s in r["sets"]] == list(SYSTEMS)
    assert r["baseline"] == "zero-shot" and r["source_dataset"]["name"] == source.name
    st = r["statistics"]
    assert set(st["comparisons"]) == {"DR", "REM", "REM+DAM"}
    assert st["header"]["family_size"]["RR@10"] == 3 or st["header"]["family_size"]["RR@10"] <= 3
    rem = next(s for s in r["sets"] if s["name"] == "REM")["training"]
    assert rem["method"] == "rem" and 0 < rem["parameters"]["trainable_share"] < 0.5
    both = next(s for s in r["sets"] if s["name"] == "REM+DAM")["training"]
    assert both["backbone"]["kind"] == "ddr-dam" and both["rem"]["method"] == "rem"
    assert "zero-shot" in domain_table(r)
    run_ = load_run(out)
    assert set(run_.per_query["set"]) == set(SYSTEMS)
    from bench.reporting.plots import loss_curves
    from bench.reporting.report import report

    assert set(loss_curves(run_)) == {"DR", "REM", "REM+DAM: DAM", "REM+DAM: REM"}
    page = report(out, plots=True)
    assert 'alt="training loss"' in page and "delta [95% CI]" in page and "<h2>Headline</h2>" in page
    # a rerun reuses the trained checkpoints and gives byte-identical files
    first = (out / "result.json").read_bytes(), (out / "per_query.csv").read_bytes()
    again = run(spec, target, source, _cfg(), tmp_path / "run2")
    assert "train:DR" not in again["timings"]["seconds"] and "adapt:DAM" not in again["timings"]["seconds"]
    assert ((tmp_path / "run2" / "result.json").read_bytes(), (tmp_path / "run2" / "per_query.csv").read_bytes()) \
        == first


def test_rem_on_adapted_backbone_uses_the_same_rem_weights(domain_setup, tmp_path):
    from safetensors.numpy import load_file

    from bench.core.paths import cache_home
    from suites.domain import run

    spec, source, target = domain_setup
    run(spec, target, source, _cfg(systems=("zero-shot", "REM", "REM+DAM")), None)
    home = cache_home() / "checkpoints"
    rem = next(p for p in home.iterdir() if p.name.startswith("rem-"))
    both = next(p for p in home.iterdir() if p.name.startswith("rem+dam-"))
    dam = next(p for p in home.iterdir() if p.name.startswith("dam-"))
    a, b = load_file(str(rem / "tuning.safetensors")), load_file(str(both / "tuning.safetensors"))
    assert a.keys() == b.keys() and all((a[k] == b[k]).all() for k in a)
    assert (both / "model.safetensors").read_bytes() == (dam / "model.safetensors").read_bytes()
    assert json.loads((both / "training.json").read_text())["kind"] == "ddr"


def test_same_source_and_target_is_refused(domain_setup):
    from bench.core.errors import BenchError
    from suites.domain import run

    spec, source, _ = domain_setup
    with pytest.raises(BenchError, match="same collection"):
        run(spec, source, source, _cfg(), None)


def test_restrict_queries(beir_dir, tmp_path):
    from bench.data.collections import load_dataset, restrict_queries
    from bench.core.errors import DataError

    ds = load_dataset(str(beir_dir))
    f = tmp_path / "ids.txt"
    f.write_text("1\n# a comment\n3\n")
    sub = restrict_queries(ds, f)
    assert sorted(sub.queries) == ["1", "3"] and sorted(sub.qrels) == ["1", "3"] and sub.corpus is ds.corpus
    f.write_text("1\nnope\n")
    with pytest.raises(DataError, match=r"ids.txt:2: .*nope"):
        restrict_queries(ds, f)


def test_adapt_command_writes_three_checkpoints(tiny_bert, beir_dir, tmp_path):
    from bench.cli.main import main
    from bench.models.spec import resolve_model

    target = write_beir(tmp_path / "target", TARGET_DOCS, TARGET_QUERIES, TARGET_QRELS)
    out = tmp_path / "ddr"
    rc = main(["adapt", "--model", str(tiny_bert), "--source", str(beir_dir), "--target", str(target), "--out", str(out),
               "--max-steps", "1", "--train-batch-size", "2", "--mlm-max-steps", "1", "--mlm-batch-size", "2",
               "--no-progress"])
    assert rc == 0
    assert {p.name for p in out.iterdir() if not p.name.startswith(".")} == {"rem", "dam", "rem+dam"}
    spec = resolve_model(str(out / "rem+dam"))
    from bench.encoding.encoder import Encoder

    enc = Encoder(spec, "query", progress=False)
    v = enc.encode(["cavitation in pumps"])
    assert v.shape[0] == 1 and (v == v).all()


def test_domain_runs_are_not_gated_and_report_names_the_baseline(domain_setup, tmp_path):
    from bench.core.errors import IncompatibleRuns
    from bench.reporting.gate import run_gate
    from bench.reporting.report import report
    from suites.domain import run

    spec, source, target = domain_setup
    run(spec, target, source, _cfg(systems=("zero-shot", "DR")), tmp_path / "r")
    with pytest.raises(IncompatibleRuns, match="not gated"):
        run_gate(tmp_path / "r", tmp_path / "r")
    md = report(tmp_path / "r", fmt="md")
    assert "d = system - zero-shot" in md and "ORIGINAL" not in md
