"""Report, compare, gate, leaderboard and the Python API on runs with several generation draws."""
import pytest

from bench.core.errors import IncompatibleRuns
from bench.data.readers import load_beir
from bench.evaluation.measures import parse_measures
from bench.models.spec import ModelSpec, resolve_model
from suites.variations import VariationsConfig, run

GENS = ["MISSPELL", "SWAPWORDS"]


def _run(ds, tmp_path, folder, seeds, model=None):
    cfg = VariationsConfig(seed=0, measures=parse_measures("nDCG@10"), generators=GENS, progress=False,
                           cache_root=tmp_path / "cache", generation_seeds=seeds)
    run(model or resolve_model("bm25"), ds, cfg, tmp_path / folder)
    return tmp_path / folder


@pytest.fixture
def runs(beir_dir, tmp_path):
    ds = load_beir(beir_dir)
    other = ModelSpec(name="bm25-robertson", kind="bm25", normalize=False, similarity="dot",
                      params={"k1": 1.2, "b": 0.75, "method": "lucene", "stopwords": "en"})
    return {"a": _run(ds, tmp_path, "a", [0, 1, 2]), "b": _run(ds, tmp_path, "b", [0, 1, 2], other),
            "c": _run(ds, tmp_path, "c", [0, 1, 3]), "one": _run(ds, tmp_path, "one", None)}


def test_consumers(runs):
    from bench.api import load_run as load
    from bench.reporting.compare import compare
    from bench.reporting.gate import run_gate
    from bench.reporting.leaderboard import build
    from bench.reporting.report import report

    md = report(runs["a"], "md", plots=False)
    assert "### Generation draws" in md and "seeds 0,1,2" in md and "worst of 3" in md
    html = report(runs["a"], "html", plots=False)
    assert "Generation draws" in html
    assert "Generation draws" not in report(runs["one"], "md", plots=False)

    v = run_gate(runs["a"], runs["b"])
    assert any("per-query means over the draws" in n and "same seed list" in n for n in v.notes)
    for other in ("c", "one"):
        with pytest.raises(IncompatibleRuns, match="generation seeds"):
            run_gate(runs["a"], runs[other])

    t = compare([runs["a"], runs["b"]], metric="nDCG@10")
    assert any("generation seeds 0,1,2" in n for n in t.notes)

    lb = build([runs["a"], runs["b"]], metrics=["nDCG@10"])
    head = lb.csv().splitlines()[0].split(",")
    assert head[-2:] == ["drop_rate_draw_sd", "n_draws"]
    row = next(r for r in lb.long_rows() if r["set"] == "MISSPELL")
    assert row["n_draws"] == 3 and row["drop_rate_draw_sd"] is not None
    assert "drop_rate_draw_sd" not in build([runs["one"]], metrics=["nDCG@10"]).csv().splitlines()[0]

    df = load(runs["a"]).summary
    assert {"drop nDCG@10 draw SD", "drop nDCG@10 draws low", "worst nDCG@10", "n_draws"} <= set(df.columns)
    assert df.loc["MISSPELL", "n_draws"] == 3
    assert "n_draws" not in load(runs["one"]).summary.columns
