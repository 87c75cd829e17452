"""Issue 39, item 4: every measure is computed at the depth its cutoff needs, and runs of different
depth are not compared."""
from __future__ import annotations

import json

from bench.cli.main import main
from tests.conftest import evaluate_extrapunc, write_beir


def _deep_collection(folder):
    """130 documents; query 1's one relevant document ranks last under BM25 (one mention of 'wing'
    in a long text, while the others are short and say 'wing' twice)."""
    docs = {f"f{i:03d}": ("", f"wing wing filler{i}") for i in range(129)}
    docs["zrel"] = ("", "wing " + " ".join(f"other{i}" for i in range(200)))
    queries = {"1": ("wing", "a"), "2": ("filler7", "a")}
    return write_beir(folder, docs=docs, queries=queries, qrels=[("1", "zrel", 1), ("2", "f007", 1)])


def _run(ds, out, *extra):
    return evaluate_extrapunc(ds, "--out", str(out), *extra)


def test_an_explicit_top_k_below_the_deepest_cutoff_is_refused_before_work(tmp_path, capsys):
    ds = _deep_collection(tmp_path / "deep")
    assert _run(ds, tmp_path / "r", "--top-k", "10") == 2  # the default measures hold R@100
    err = capsys.readouterr().err
    assert "--top-k 10 retrieves 10 documents per query, but R@100 needs the top 100" in err
    assert "Fix: --top-k 100" in err
    assert not (tmp_path / "r").exists()


def test_an_explicit_top_k_that_covers_the_whole_corpus_is_accepted(beir_dir, tmp_path, capsys):
    assert _run(beir_dir, tmp_path / "r", "--top-k", "6") == 0  # 6 documents: R@100 is answered exactly
    assert json.loads((tmp_path / "r" / "result.json").read_text())["retrieval"]["top_k"] == 6
    capsys.readouterr()


def test_the_default_depth_is_raised_to_the_deepest_cutoff_and_recorded(tmp_path, capsys):
    ds = _deep_collection(tmp_path / "deep")
    assert _run(ds, tmp_path / "r", "--metrics", "R@1000,MRR@10") == 0
    err = capsys.readouterr().err
    assert "retrieval depth raised from --top-k 100 to 130 (the whole corpus, 130 documents)" in err
    result = json.loads((tmp_path / "r" / "result.json").read_text())
    assert result["retrieval"]["top_k"] == 130
    assert "R@1000" in result["retrieval"]["depth"]
    # the relevant document at rank 130 is found: recall at 1000 of query 1 is 1, not recall at 100 (0)
    assert result["sets"][0]["metrics"]["R@1000"] == 1.0


def test_a_huge_cutoff_is_answered_by_the_whole_ranking(tmp_path, capsys):
    ds = _deep_collection(tmp_path / "deep")
    assert _run(ds, tmp_path / "r", "--metrics", "R@99999999999") == 0
    result = json.loads((tmp_path / "r" / "result.json").read_text())
    assert result["retrieval"]["top_k"] == 130 and result["sets"][0]["metrics"]["R@99999999999"] == 1.0
    capsys.readouterr()


def test_the_depth_at_default_records_nothing_new(beir_dir, tmp_path):
    assert _run(beir_dir, tmp_path / "r") == 0
    assert "depth" not in json.loads((tmp_path / "r" / "result.json").read_text())["retrieval"]


def test_runs_of_different_depth_are_not_compared(tmp_path, capsys):
    ds = _deep_collection(tmp_path / "deep")
    assert _run(ds, tmp_path / "a", "--metrics", "MRR@10") == 0
    assert _run(ds, tmp_path / "b", "--metrics", "MRR@10", "--top-k", "50") == 0
    capsys.readouterr()
    assert main(["gate", "--baseline", str(tmp_path / "a"), "--candidate", str(tmp_path / "b"), "--metric", "MRR@10"]) != 0
    err = capsys.readouterr()
    assert "different retrieval depth (top_k)" in err.err + err.out
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--metric", "MRR@10"]) in (0, 2)
    out = capsys.readouterr()
    assert "retrieval depth" in out.err + out.out
    assert main(["leaderboard", str(tmp_path / "a"), str(tmp_path / "b"), "--metric", "MRR@10"]) in (0, 2)
    out = capsys.readouterr()
    assert "retrieval depth" in out.err + out.out
