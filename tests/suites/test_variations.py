import csv
import io
import json

import pytest

from bench.data.readers import load_beir
from bench.evaluation.measures import parse_measures
from bench.models.spec import resolve_model, spec_from_folder
from bench.results.rundir import AVG, ORIGINAL
from perturb import GENERATORS
from perturb.base import Generator, ResourceMissing
from suites.variations import VariationsConfig, run

CHEAP = ["EXTRAPUNC", "NOSTOPWORD", "SWAPWORDS"]


class _Broken(Generator):
    name = "BROKEN-TEST"

    def check(self):
        raise ResourceMissing("BROKEN-TEST: resource xyz missing (install: pip install xyz)")

    def _perturb(self, text, rng):
        raise AssertionError("must not run")


GENERATORS.register("BROKEN-TEST", _Broken, replace=True)


def _cfg(tmp_path, **kw):
    kw.setdefault("generators", CHEAP)
    return VariationsConfig(seed=kw.pop("seed", 0), measures=parse_measures("MRR@10 nDCG@10 R@100"),
                            cache_root=tmp_path / "cache", progress=False, **kw)


def test_end_to_end_tiny_model(tiny_bert, beir_dir, tmp_path):
    ds = load_beir(beir_dir)
    out = run(spec_from_folder(tiny_bert), ds, _cfg(tmp_path, generators=CHEAP + ["BROKEN-TEST"]), tmp_path / "run")
    res = json.loads((tmp_path / "run" / "result.json").read_text())
    assert [s["name"] for s in res["sets"]] == [ORIGINAL] + CHEAP + ["BROKEN-TEST"]
    broken = res["sets"][-1]
    assert broken["status"] == "missing" and "pip install xyz" in broken["reason"]
    assert res["missing_sets"] == ["BROKEN-TEST"]
    assert res["summary"][AVG]["sets"] == CHEAP
    assert res["dataset"]["fingerprint"] == ds.fingerprint()
    # every query in every set; aggregates and drop rates follow from the per-query table
    rows = list(csv.DictReader(io.StringIO((tmp_path / "run" / "per_query.csv").read_text())))
    assert len(rows) == 5 * 4
    for s in res["sets"][:-1]:
        vals = [float(r["MRR@10"]) for r in rows if r["set"] == s["name"]]
        assert s["metrics"]["MRR@10"] == pytest.approx(sum(vals) / len(vals))
        assert s["n_applied"] == sum(int(r["applied"]) for r in rows if r["set"] == s["name"])
    orig = res["sets"][0]["metrics"]["nDCG@10"]
    for s in res["sets"][1:-1]:
        assert s["drop_rate"]["nDCG@10"] == pytest.approx((orig - s["metrics"]["nDCG@10"]) / orig)
    # EXTRAPUNC changes every query
    assert res["sets"][1]["n_applied"] == 5
    # applicability, edit types and the applied-only average are recorded and declared in the schema
    from bench.results import applicability as AP
    from bench.results.schema import ResultFile

    ResultFile.from_path(tmp_path / "run" / "result.json", strict=True)
    assert "applicability" not in res["sets"][0]
    for s, vs in zip(res["sets"][1:-1], out["sets"][1:-1]):
        assert s["applicability"] == s["n_applied"] / s["n_evaluated"]
        assert s["edit_types"] == AP.count_edit_types(vs.details, vs.applied)
        assert sum(s["edit_types"].values()) == s["n_applied"]
    assert res["sets"][1]["edit_types"] == {"appended": 5}
    assert res["applicability"]["threshold"] == AP.LOW_APPLICABILITY
    assert res["applicability"]["low_sets"] == [s["name"] for s in res["sets"][1:-1] if s["applicability"] < 0.3]
    ao = res["summary"][AVG]["applied_only"]
    assert ao["sets"] == [s["name"] for s in res["sets"][1:-1] if s["n_applied"]]
    for m in res["measures"]:
        own = [res["subsets"]["applied_only"]["sets"][s]["drop_rate"][m] for s in ao["sets"]]
        own = [d for d in own if d is not None]
        assert ao["drop_rate"][m] == (pytest.approx(sum(own) / len(own)) if own else None)
    assert (tmp_path / "run" / "variations" / "EXTRAPUNC.tsv").exists()
    assert "seconds" in json.loads((tmp_path / "run" / "timings.json").read_text())


def test_same_inputs_and_seed_give_byte_identical_files(tiny_bert, beir_dir, tmp_path):
    ds = load_beir(beir_dir)
    spec = spec_from_folder(tiny_bert)
    run(spec, ds, _cfg(tmp_path), tmp_path / "a")
    run(spec, ds, _cfg(tmp_path / "other-cache"), tmp_path / "b")
    for name in ("result.json", "per_query.csv", "variations/SWAPWORDS.tsv", "variations/EXTRAPUNC.tsv"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    run(spec, ds, _cfg(tmp_path, seed=1), tmp_path / "c")
    assert (tmp_path / "a" / "variations/SWAPWORDS.tsv").read_bytes() != \
        (tmp_path / "c" / "variations/SWAPWORDS.tsv").read_bytes()


def test_corpus_encoded_once_and_query_texts_never_twice(tiny_bert, beir_dir, tmp_path):
    ds = load_beir(beir_dir)
    spec = spec_from_folder(tiny_bert)
    first = run(spec, ds, _cfg(tmp_path), None)["timings"]["encoding"]
    assert first["passages_encoded"] == len(ds.corpus)  # once, not once per set
    sets = run(spec, ds, _cfg(tmp_path / "x"), None)["sets"]
    distinct = {t for vs in sets if vs.status == "ok" for t in vs.texts}
    assert first["queries_encoded"] == len(distinct)
    # every set's texts are searched (after one pass over the distinct texts that encodes them)
    assert first["query_lookups"] >= sum(len(vs.texts) for vs in sets if vs.status == "ok")
    # cold cache: nothing served from disk; every distinct text encoded once, every other look-up reused
    assert first["query_cache_hits"] == 0
    assert first["query_vectors_reused"] == first["query_lookups"] - len(distinct)
    second = run(spec, ds, _cfg(tmp_path), None)["timings"]["encoding"]
    assert second["passages_encoded"] == 0 and second["queries_encoded"] == 0
    # warm cache: each distinct text served from disk once, the other look-ups reused in memory
    assert second["query_cache_hits"] == len(distinct)
    assert second["query_lookups"] == first["query_lookups"]
    assert second["query_vectors_reused"] == first["query_vectors_reused"]


def test_frozen_sets_give_the_same_numbers(tiny_bert, beir_dir, tmp_path):
    ds = load_beir(beir_dir)
    spec = spec_from_folder(tiny_bert)
    a = run(spec, ds, _cfg(tmp_path), tmp_path / "a")["result"]
    b = run(spec, ds, _cfg(tmp_path, variations_dir=tmp_path / "a" / "variations"), None)["result"]
    assert [s["metrics"] for s in a["sets"]] == [s["metrics"] for s in b["sets"]]
    assert [s["fingerprint"] for s in a["sets"]] == [s["fingerprint"] for s in b["sets"]]


def test_bm25_baseline_runs(beir_dir, tmp_path):
    res = run(resolve_model("bm25"), load_beir(beir_dir), _cfg(tmp_path, generators=["EXTRAPUNC"]), None)["result"]
    assert res["sets"][0]["metrics"]["MRR@10"] > 0.5
    assert res["retrieval"]["index"] == "bm25s"


def test_cli_evaluate_prints_table_and_reports_errors(tiny_bert, beir_dir, tmp_path, capsys):
    from bench.cli.main import main

    rc = main(["evaluate", "--model", str(tiny_bert), "--dataset", str(beir_dir), "--generators", "extrapunc",
               "--out", str(tmp_path / "cli"), "--no-progress", "--trec-runs"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "ORIGINAL" in out and "EXTRAPUNC" in out and "VARIATIONS (AVG.)" in out
    assert (tmp_path / "cli" / "runs" / "ORIGINAL.trec").exists()
    rc = main(["evaluate", "--model", str(tiny_bert), "--dataset", str(tmp_path / "nope")])
    assert rc == 2 and "no such folder" in capsys.readouterr().err
    rc = main(["evaluate", "--model", "minilm-l7"])
    assert rc == 2 and "Did you mean 'minilm-l6'" in capsys.readouterr().err
    rc = main(["evaluate", "--metrics", "Bogus@1"])
    assert rc == 2 and "unknown measure" in capsys.readouterr().err


def test_interrupted_rerun_leaves_no_stale_result(tiny_bert, beir_dir, tmp_path, monkeypatch):
    ds = load_beir(beir_dir)
    spec = spec_from_folder(tiny_bert)
    run(spec, ds, _cfg(tmp_path), tmp_path / "r")
    assert (tmp_path / "r" / "result.json").exists()
    import bench.results.writer

    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(bench.results.writer, "atomic_write_json", boom)
    with pytest.raises(KeyboardInterrupt):
        run(spec, ds, _cfg(tmp_path, seed=5), tmp_path / "r")
    # the folder no longer claims to be a complete run, and no temporary file is left behind
    assert not (tmp_path / "r" / "result.json").exists()
    assert not [p for p in (tmp_path / "r").rglob("*.tmp")]
