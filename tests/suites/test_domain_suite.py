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
                        mlm=MLMConfig(batch_size=2, max_steps=2, lr=1e-3, head_warmup_max_steps=4,
                                      head_warmup_check_every=2, head_warmup_lr=1e-2, probe_texts=4), **kw)


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
    assert both["source_backbone"]["role"] == "source" and both["backbone"]["role"] == "target"
    assert both["backbone"]["init"]["fingerprint"] != both["source_backbone"]["init"]["fingerprint"]
    assert both["source_backbone"]["mlm_head"].startswith("initialised")  # tiny BERT has no MLM head
    assert both["backbone"]["mlm_head"].startswith("the source DAM's")
    assert both["backbone"]["head_warmup"]["steps"] == 0  # a trained head is not warmed up again
    for dam in (both["source_backbone"], both["backbone"]):
        assert set(dam["mlm_loss"]) >= {"initial", "after_warmup", "final", "ln_vocab"}
    assert [d[:6] for d in r["deviations"]] == ["DDR-1:", "DDR-2:", "DDR-3:", "DDR-4:", "DDR-5:"]
    table = domain_table(r)
    assert "zero-shot" in table
    assert "REM+DAM vs DR" in table and "REM+DAM vs REM" in table
    assert "t-test (two-sided), holm correction over the 2 pairs of a measure" in table
    from bench.results.schema import ResultFile

    ResultFile.from_path(out / "result.json", strict=True)  # every new key (pairwise, deviations, mlm_loss) declared
    run_ = load_run(out)
    assert set(run_.per_query["set"]) == set(SYSTEMS)
    from bench.reporting.report.plots import loss_curves
    from bench.reporting.report import report

    assert set(loss_curves(run_)) == {"DR", "REM", "REM+DAM: source DAM", "REM+DAM: DAM", "REM+DAM: REM"}
    page = report(out, plots=True)
    assert 'alt="training loss"' in page and "delta [95% CI]" in page and "<h2>Headline</h2>" in page
    # a rerun reuses the trained checkpoints and gives byte-identical files
    first = (out / "result.json").read_bytes(), (out / "per_query.csv").read_bytes()
    again = run(spec, target, source, _cfg(), tmp_path / "run2")
    assert not [k for k in again["timings"]["seconds"] if k.startswith(("train:", "adapt:"))]
    assert ((tmp_path / "run2" / "result.json").read_bytes(), (tmp_path / "run2" / "per_query.csv").read_bytes()) \
        == first


def test_rem_on_adapted_backbone_uses_the_same_rem_weights(domain_setup, tmp_path):
    """DDR's order: REM sits on the frozen source DAM (its backbone is the source DAM's, byte for
    byte), and REM+DAM is the target DAM + the very same REM tensors."""
    from safetensors.numpy import load_file

    from bench.core.timing import Timer
    from bench.models.checkpoint import read_training
    from bench.models.spec import model_fingerprint, spec_from_folder
    from suites.domain import build_systems

    spec, source, target = domain_setup
    cfg = _cfg(systems=("zero-shot", "REM", "REM+DAM"))
    f = build_systems(spec, source, target, cfg, tmp_path / "home", Timer())
    assert set(f) == {"zero-shot", "DAM-source", "REM", "DAM", "REM+DAM"}
    a, b = load_file(str(f["REM"] / "tuning.safetensors")), load_file(str(f["REM+DAM"] / "tuning.safetensors"))
    assert a.keys() == b.keys() and all((a[k] == b[k]).all() for k in a)
    assert (f["REM+DAM"] / "model.safetensors").read_bytes() == (f["DAM"] / "model.safetensors").read_bytes()
    assert (f["REM"] / "model.safetensors").read_bytes() == (f["DAM-source"] / "model.safetensors").read_bytes()
    assert not (f["REM+DAM"] / "mlm_head.safetensors").exists()
    src_fp = model_fingerprint(spec_from_folder(f["DAM-source"]))
    assert read_training(f["REM"])["source_fingerprint"] == src_fp
    assert read_training(f["DAM"])["init"]["fingerprint"] == src_fp
    assert json.loads((f["REM+DAM"] / "training.json").read_text())["kind"] == "ddr"


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
               "--mlm-head-warmup-steps", "2", "--no-progress"])
    assert rc == 0
    assert {p.name for p in out.iterdir() if not p.name.startswith(".")} == {"dam-source", "rem", "dam", "rem+dam"}
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


def test_pairwise_rows_equal_scipy_on_the_per_query_values(domain_setup, tmp_path):
    """DDR's claims: the p-values of REM+DAM vs DR / vs REM are scipy's paired t-test on the
    per-query values written to per_query.csv, Holm-corrected over the two pairs of a measure."""
    import numpy as np
    import pandas as pd
    from scipy import stats
    from statsmodels.stats.multitest import multipletests

    from suites.domain import run

    spec, source, target = domain_setup
    r = run(spec, target, source, _cfg(), tmp_path / "r")["result"]
    df = pd.read_csv(tmp_path / "r" / "per_query.csv", dtype={"qid": str})
    pw = r["pairwise"]
    assert [p["name"] for p in pw["pairs"]] == ["REM+DAM vs DR", "REM+DAM vs REM"]
    assert pw["header"]["test"] == "t-test" and pw["header"]["sidedness"] == "two-sided"
    assert pw["header"]["correction"] == "holm" and pw["header"]["family_size"]["RR@10"] <= 2
    for m in r["measures"]:
        raw = []
        for pair in pw["pairs"]:
            a = df[df["set"] == pair["reference"]].set_index("qid")[m]
            b = df[df["set"] == pair["system"]].set_index("qid")[m].loc[a.index]
            c = pw["comparisons"][pair["name"]][m]
            assert c["delta"] == pytest.approx(float(np.mean(b - a)))
            if np.all(b.to_numpy() == a.to_numpy()):
                assert c["p_value"] == 1.0  # all differences zero: p = 1 by the documented convention
            else:
                assert c["p_value"] == pytest.approx(stats.ttest_rel(b, a).pvalue, rel=1e-9)
            raw.append(c["p_value"])
        adj = multipletests(raw, method="holm")[1]
        got = [pw["comparisons"][p["name"]][m]["p_corrected"] for p in pw["pairs"]]
        assert got == pytest.approx(list(adj), rel=1e-9)


def test_no_pairs_without_the_ddr_systems(domain_setup, tmp_path):
    from suites.domain import run

    spec, source, target = domain_setup
    r = run(spec, target, source, _cfg(systems=("zero-shot", "DR")), None)["result"]
    # DR alone still departs from DDR's DR baseline in its starting model and its scoring
    assert "pairwise" not in r and [d[:6] for d in r["deviations"]] == ["DDR-4:", "DDR-5:"]


def test_target_dam_gets_its_own_lr_and_every_rate_is_reported(domain_setup, tmp_path, monkeypatch):
    """--mlm-target-lr trains the target DAM at its own rate (the source DAM keeps --mlm-lr), and
    DDR-1 names the source and target DAM rates, DR's and REM's; DDR-4 the starting model."""
    import dataclasses

    import suites.domain.systems as ds_mod
    from bench.core.timing import Timer

    spec, source, target = domain_setup
    seen = []
    monkeypatch.setattr(ds_mod, "adapt_backbone", lambda s, texts, mlm, folder, **kw: seen.append((kw["role"], mlm.lr)))
    base = _cfg()
    cfg = dataclasses.replace(base, mlm=dataclasses.replace(base.mlm, lr=3e-5, target_lr=7e-6), rem_lr=4e-4)
    ds_mod._adapt(spec, source, cfg, tmp_path, Timer(), role="source")
    ds_mod._adapt(spec, target, cfg, tmp_path, Timer(), role="target")
    assert seen == [("source", 3e-5), ("target", 7e-6)]
    dev = ds_mod.ddr_deviations(spec, cfg, None)
    one = next(d for d in dev if d.startswith("DDR-1:"))
    assert "source DAM at lr 3e-05" in one and "target DAM at lr 7e-06 (--mlm-target-lr)" in one
    assert f"DR {cfg.train.epochs} epoch(s) at lr 0.001" in one and "REM 1 epoch(s) at lr 0.0004" in one
    assert next(d for d in dev if d.startswith("DDR-4:")).startswith("DDR-4: DR and REM start from tiny")
    same = ds_mod.ddr_deviations(spec, base, None)
    assert "one MLM rate for both DAMs" in next(d for d in same if d.startswith("DDR-1:"))


def test_scoring_is_a_deviation_unless_inner_product_at_temperature_one(domain_setup):
    """DDR-5 names the similarity and the training temperature; a dot-product model trained at
    temperature 1 scores as DDR does and records no DDR-5."""
    import dataclasses

    from suites.domain.systems import ddr_deviations

    spec, _, _ = domain_setup
    base = _cfg()
    cos = dataclasses.replace(spec, similarity="cos")
    five = [d for d in ddr_deviations(cos, base, None) if d.startswith("DDR-5:")]
    assert five == ["DDR-5: scores: DR and REM train on the cosine similarity of query and passage vectors divided "
                    "by a temperature of 0.05, and every system retrieves by the cosine similarity (DDR: the inner "
                    "product, temperature 1)"]
    assert ddr_deviations(cos, dataclasses.replace(base, systems=("zero-shot",)), None) == []
    dot = dataclasses.replace(spec, similarity="dot")
    assert not [d for d in ddr_deviations(dot, base, None) if d.startswith("DDR-5:")]  # dot trains at 1 by default
    hot = dataclasses.replace(base, train=dataclasses.replace(base.train, temperature=0.5))
    assert "inner product of query and passage vectors divided by a temperature of 0.5" in \
        next(d for d in ddr_deviations(dot, hot, None) if d.startswith("DDR-5:"))
    one = dataclasses.replace(base, train=dataclasses.replace(base.train, temperature=1.0))
    assert "cosine similarity of query and passage vectors divided by a temperature of 1," in \
        next(d for d in ddr_deviations(cos, one, None) if d.startswith("DDR-5:"))
