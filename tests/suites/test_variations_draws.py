"""Several generation seeds in one variations run (--generation-seeds): layout, figures, defaults."""
import csv
import io
import json

import numpy as np
import pytest

from bench.core.errors import BenchError
from bench.data.readers import load_beir
from bench.evaluation.measures import parse_measures
from bench.models.spec import resolve_model, spec_from_folder
from bench.results.rundir import ORIGINAL
from suites.variations import VariationsConfig, run
from suites.variations.draws import draw_strip, effective_seeds, parse_seeds

GENS = ["MISSPELL", "SWAPWORDS", "NOSTOPWORD"]


def _cfg(tmp_path, **kw):
    kw.setdefault("generators", GENS)
    return VariationsConfig(seed=kw.pop("seed", 0), measures=parse_measures("MRR@10 nDCG@10"),
                            cache_root=tmp_path / "cache", progress=False, **kw)


def _rows(folder):
    return list(csv.DictReader(io.StringIO((folder / "per_query.csv").read_text())))


def test_parse_seeds():
    assert parse_seeds(None) is None
    assert parse_seeds("0,1,2") == [0, 1, 2]
    assert parse_seeds("0-4") == [0, 1, 2, 3, 4]
    assert parse_seeds("0-2, 7") == [0, 1, 2, 7]
    for bad in ("a", "3-1", "1,1", "", "-2", "0-2,1"):
        with pytest.raises(BenchError):
            parse_seeds(bad)
    assert effective_seeds(None, 0) is None
    assert effective_seeds([0], 0) is None  # the run seed alone: the default
    assert effective_seeds([3], 0) == [3]
    assert effective_seeds([0, 1], 0) == [0, 1]


def test_default_and_run_seed_alone_are_byte_identical(beir_dir, tmp_path):
    ds = load_beir(beir_dir)
    run(resolve_model("bm25"), ds, _cfg(tmp_path), tmp_path / "a")
    run(resolve_model("bm25"), ds, _cfg(tmp_path, generation_seeds=[0]), tmp_path / "b")
    for f in ("result.json", "per_query.csv"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes()
    assert "generation_seeds" not in json.loads((tmp_path / "a" / "result.json").read_text())
    assert not any("@g" in r["set"] for r in _rows(tmp_path / "a"))


def test_draws_layout_and_figures(beir_dir, tmp_path):
    ds = load_beir(beir_dir)
    seeds = [0, 1, 2]
    run(resolve_model("bm25"), ds, _cfg(tmp_path, generation_seeds=seeds), tmp_path / "m")
    res = json.loads((tmp_path / "m" / "result.json").read_text())
    assert res["generation_seeds"] == seeds
    from bench.results.schema import ResultFile

    ResultFile.from_path(tmp_path / "m" / "result.json", strict=True)  # every new key is declared
    rows = _rows(tmp_path / "m")
    by = {}
    for r in rows:
        by.setdefault(r["set"], {})[r["qid"]] = r
    orig = {q: float(r["nDCG@10"]) for q, r in by[ORIGINAL].items()}
    for name in GENS:
        e = next(s for s in res["sets"] if s["name"] == name)
        d = e["draws"]
        assert d["seeds"] == seeds and d["sets"] == [f"{name}@g{s}" for s in seeds]
        # each draw is what a one-draw run with that seed evaluates (same set fingerprint, same values)
        for s, fp, dn in zip(seeds, d["fingerprints"], d["sets"]):
            if name != "MISSPELL" or s == 1:
                continue  # one generator, two seeds: enough to pin the layout (each run costs a few seconds)
            one = run(resolve_model("bm25"), ds, _cfg(tmp_path, generators=[name], seed=s), None)
            one_set = next(x for x in one["result"]["sets"] if x["name"] == name)
            assert one_set["fingerprint"] == fp
            one_rows = [r for r in csv.DictReader(io.StringIO(one["per_query"])) if r["set"] == name]
            assert {r["qid"]: r["nDCG@10"] for r in one_rows} == {q: r["nDCG@10"] for q, r in by[dn].items()}
            assert {r["qid"]: r["applied"] for r in one_rows} == {q: r["applied"] for q, r in by[dn].items()}
        # the combined rows are the per-query means over the draws; applied = any draw changed the query
        for q, r in by[name].items():
            vals = [float(by[dn][q]["nDCG@10"]) for dn in d["sets"]]
            assert float(r["nDCG@10"]) == pytest.approx(np.mean(vals), abs=1e-15)
            assert int(r["applied"]) == int(any(int(by[dn][q]["applied"]) for dn in d["sets"]))
        m = d["measures"]["nDCG@10"]
        o = np.array([orig[q] for q in sorted(orig)])
        v = np.array([[float(by[dn][q]["nDCG@10"]) for dn in d["sets"]] for q in sorted(orig)])
        drops = (o.mean() - v.mean(axis=0)) / o.mean()
        assert m["drop_rates"] == pytest.approx(list(drops))
        assert m["drop_rate_mean"] == pytest.approx(e["drop_rate"]["nDCG@10"])
        assert m["drop_rate_sd"] == pytest.approx(float(np.std(drops, ddof=1)), abs=1e-12)
        assert m["worst_metric"] == pytest.approx(float(v.min(axis=1).mean()))
        assert m["worst_metric"] <= e["metrics"]["nDCG@10"] + 1e-12
    assert any("generation seeds 0,1,2" in line for line in draw_strip(res))
    # draws of the TSVs are written one file per draw
    assert sorted(p.name for p in (tmp_path / "m" / "variations").glob("*.tsv")) == sorted(
        f"{n}_g{s}.tsv" for n in GENS for s in seeds)


def test_deterministic_and_refusals(beir_dir, tmp_path):
    ds = load_beir(beir_dir)
    a = run(resolve_model("bm25"), ds, _cfg(tmp_path, generation_seeds=[1, 2]), tmp_path / "a")
    b = run(resolve_model("bm25"), ds, _cfg(tmp_path, generation_seeds=[1, 2]), tmp_path / "b")
    assert a["per_query"] == b["per_query"]
    assert (tmp_path / "a" / "result.json").read_bytes() == (tmp_path / "b" / "result.json").read_bytes()
    with pytest.raises(BenchError, match="frozen sets"):
        run(resolve_model("bm25"), ds, _cfg(tmp_path, generation_seeds=[1, 2], variations_dir=tmp_path / "a" / "variations"),
            None)


def test_each_distinct_query_text_encoded_once(tiny_bert, beir_dir, tmp_path):
    ds = load_beir(beir_dir)
    out = run(spec_from_folder(tiny_bert), ds, _cfg(tmp_path, generation_seeds=[0, 1, 2, 3]), None)
    texts = set(out["sets"][0].texts)
    for vs in out["sets"][1:]:
        for d in vs.draws:
            texts.update(d.texts)
    enc = out["timings"]["encoding"]
    assert enc["queries_encoded"] + enc["query_cache_hits"] == len(texts)
    assert enc["passages_encoded"] + enc["passage_cache_hits"] == len(ds.corpus)
