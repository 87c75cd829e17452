"""The variations suite's subset figures: applied-only (always) and, with --labels, human-valid
rates and valid-only figures, each checked against a hand computation on a tiny BM25 run."""
from __future__ import annotations

import csv
import io
import json

import pytest
from scipy import stats as sst

import bench
from bench.cli.main import main
from bench.data.readers import load_beir
from bench.evaluation.measures import parse_measures
from bench.evaluation.stats import wilson_ci
from bench.models.spec import resolve_model
from bench.results.rundir import ORIGINAL
from perturb.checks.labels import SAMPLE_COLUMNS
from perturb.io.sets import VariationSet, write_tsv
from suites.variations import VariationsConfig, run

MEASURES = ["MRR@10", "nDCG@10", "R@100"]
# queries of tests/conftest.py QUERIES: A changes 1, 2 and 4 (3 and 5 keep their text); B changes none
A_TEXTS = {"1": "buckling of cylindrical shells", "2": "laminar boundary layer separation",
           "4": "what is the percentage of people with security clearance!"}


def _frozen(folder, beir_dir):
    ds = load_beir(beir_dir)
    qids = ds.judged_query_ids()
    orig = [ds.queries[q].text for q in qids]
    a = VariationSet(name="A", label="A[test]", config={}, seed=None, qids=qids,
                     texts=[A_TEXTS.get(q, t) for q, t in zip(qids, orig)], applied=[q in A_TEXTS for q in qids],
                     details=["hand" if q in A_TEXTS else "" for q in qids])
    b = VariationSet(name="B", label="B", config={}, seed=None, qids=qids, texts=list(orig),
                     applied=[False] * len(qids), details=[""] * len(qids))
    for vs in (a, b):
        write_tsv(vs, folder / f"{vs.name}.tsv")
    return ds, folder


def _labels(path, rows):
    lines = ["\t".join(SAMPLE_COLUMNS)] + ["\t".join([s, q, "o", v, "", lab, ""]) for s, q, v, lab in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _run(tmp_path, beir_dir, out, labels=()):
    ds, folder = _frozen(tmp_path / "sets", beir_dir)
    cfg = VariationsConfig(measures=parse_measures(" ".join(MEASURES)), variations_dir=folder, progress=False,
                           cache_root=tmp_path / "cache", statistics={"test": "t-test", "correction": "holm"},
                           labels=list(labels))
    run(resolve_model("bm25"), ds, cfg, out)
    res = json.loads((out / "result.json").read_text())
    rows = list(csv.DictReader(io.StringIO((out / "per_query.csv").read_text())))
    return res, rows


def _value(rows, s, q, m):
    return next(float(r[m]) for r in rows if r["set"] == s and r["qid"] == q)


def _hand(rows, qids, m):
    o = sum(_value(rows, ORIGINAL, q, m) for q in qids) / len(qids)
    v = sum(_value(rows, "A", q, m) for q in qids) / len(qids)
    return o, v, (o - v) / o if o else None


def test_applied_only_equals_a_hand_computation(beir_dir, tmp_path):
    res, rows = _run(tmp_path, beir_dir, tmp_path / "r")
    assert "label" not in rows[0] and "human_labels" not in res and set(res["subsets"]) == {"applied_only"}
    block = res["subsets"]["applied_only"]
    a = block["sets"]["A"]
    assert a["n"] == 3
    for m in MEASURES:
        o, v, d = _hand(rows, sorted(A_TEXTS), m)
        assert a["metrics_original"][m] == pytest.approx(o) and a["metrics"][m] == pytest.approx(v)
        assert a["drop_rate"][m] == (pytest.approx(d) if d is not None else None)
        # the headline keeps every query (unchanged ones with their text): not the subset's mean
        full = sum(_value(rows, "A", q, m) for q in "12345") / 5
        assert res["sets"][1]["metrics"][m] == pytest.approx(full)
    assert a["metrics"]["MRR@10"] != pytest.approx(res["sets"][1]["metrics"]["MRR@10"])
    # the paired test is the run's t-test on the 3 changed queries only
    c = block["statistics"]["comparisons"]["A"]["MRR@10"]
    x = [_value(rows, ORIGINAL, q, "MRR@10") for q in sorted(A_TEXTS)]
    y = [_value(rows, "A", q, "MRR@10") for q in sorted(A_TEXTS)]
    assert c["n"] == 3 and c["p_value"] == pytest.approx(sst.ttest_rel(y, x).pvalue)
    # a set that changed nothing: n = 0, no numbers, left out of the tests
    b = block["sets"]["B"]
    assert b["n"] == 0 and set(b["metrics"].values()) == {None} and set(b["drop_rate"].values()) == {None}
    assert block["statistics"]["sets"] == ["A"]


def test_valid_only_excludes_invalid_and_unlabelled(beir_dir, tmp_path):
    lab = _labels(tmp_path / "lab.tsv", [
        ("A[test]", "1", A_TEXTS["1"], "1"),  # valid
        ("A", "2", A_TEXTS["2"], "0"),        # not valid
        ("A", "4", A_TEXTS["4"], ""),         # unlabelled
        ("A", "3", "something else", "1"),    # query 3 unchanged in this run
        ("Z", "1", "x", "1"),                 # no such set
    ])
    lab2 = _labels(tmp_path / "lab2.tsv", [("A", "5", "y", "0")])  # a second file; query 5 unchanged
    res, rows = _run(tmp_path, beir_dir, tmp_path / "r", labels=[lab, lab2])
    v = res["subsets"]["valid_only"]["sets"]["A"]
    assert v["n"] == 1
    for m in MEASURES:
        o, var, d = _hand(rows, ["1"], m)
        assert v["metrics_original"][m] == pytest.approx(o) and v["metrics"][m] == pytest.approx(var)
    h = res["human_labels"]["sets"]["A"]
    assert (h["n_applied"], h["n_labelled"], h["n_valid"], h["n_invalid"], h["n_unlabelled"]) == (3, 2, 1, 1, 1)
    assert h["valid_rate"] == 0.5 and h["valid_rate_ci"] == pytest.approx(list(wilson_ci(1, 2)))
    assert res["human_labels"]["sets"]["B"]["n_labelled"] == 0 and res["human_labels"]["sets"]["B"]["valid_rate"] is None
    assert res["human_labels"]["unused"] == {"set_not_in_run": 1, "query_not_in_run": 0, "not_applied": 2,
                                             "variation_differs": 0}
    assert [f["file"] for f in res["human_labels"]["files"]] == ["lab.tsv", "lab2.tsv"]
    assert any("2 of 5 labels not used" in n for n in res["notes"])
    # per-query label column: 1 / 0 / empty, ORIGINAL always empty
    got = {(r["set"], r["qid"]): r["label"] for r in rows}
    assert got[("A", "1")] == "1" and got[("A", "2")] == "0" and got[("A", "4")] == "" and got[(ORIGINAL, "1")] == ""
    # the headline and applied-only figures do not depend on the labels
    plain, _ = _run(tmp_path / "plain", beir_dir, tmp_path / "plain" / "r")
    assert plain["sets"] == res["sets"] and plain["subsets"]["applied_only"] == res["subsets"]["applied_only"]
    # same inputs: byte-identical files
    _run(tmp_path / "again", beir_dir, tmp_path / "again" / "r", labels=[lab, lab2])
    for name in ("result.json", "per_query.csv"):
        assert (tmp_path / "r" / name).read_bytes() == (tmp_path / "again" / "r" / name).read_bytes()


def test_cli_bad_label_file_fails_before_encoding(beir_dir, tmp_path, capsys, monkeypatch):
    import suites.variations.suite as V  # the module that calls make_retriever

    def no_encoding(*a, **k):
        raise AssertionError("the corpus must not be encoded before the labels are checked")

    monkeypatch.setattr(V, "make_retriever", no_encoding)
    _frozen(tmp_path / "sets", beir_dir)
    good = _labels(tmp_path / "good.tsv", [("A", "1", A_TEXTS["1"], "1")])
    bad = _labels(tmp_path / "bad.tsv", [("A", "1", A_TEXTS["1"], "1"), ("A", "2", A_TEXTS["2"], "sure")])
    base = ["evaluate", "--model", "bm25", "--dataset", str(beir_dir), "--variations", str(tmp_path / "sets"),
            "--no-progress", "--out", str(tmp_path / "o")]
    assert main(base + ["--labels", f"{good},{bad}"]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:3:" in err and "'sure'" in err and "Traceback" not in err
    assert main(base + ["--labels", str(good), "--labels", str(tmp_path / "missing.tsv")]) == 2
    assert "missing.tsv not found" in capsys.readouterr().err
    nothing = _labels(tmp_path / "other.tsv", [("MISSPELL", "1", "x", "1")])
    assert main(base + ["--labels", str(nothing)]) == 2
    err = capsys.readouterr().err
    assert "none of the 1 labels" in err and "(MISSPELL)" in err and "sets: A, B" in err
    assert main(["evaluate", "--suite", "fewshot", "--labels", str(good)]) == 2
    assert "--labels (applies to --suite variations)" in capsys.readouterr().err


def test_cli_console_and_api_take_labels(beir_dir, tmp_path, capsys):
    _frozen(tmp_path / "sets", beir_dir)
    lab = _labels(tmp_path / "lab.tsv", [("A", "1", A_TEXTS["1"], "1"), ("A", "2", A_TEXTS["2"], "0")])
    r = bench.evaluate(model="bm25", dataset=str(beir_dir), variations=str(tmp_path / "sets"), labels=[str(lab)],
                       no_progress=True, out=tmp_path / "api", verbose=True)
    out = capsys.readouterr().out
    assert "applied-only" in out and "valid-only" in out and "50.0% [" in out
    assert r.result["human_labels"]["sets"]["A"]["n_valid"] == 1
    assert list(r.per_query.columns[:4]) == ["set", "qid", "applied", "label"]
    md = (r.report(tmp_path / "r.md", fmt="md")).read_text()
    assert "### Subsets" in md and "valid% [95% Wilson CI]" in md
