"""Issue 39, item 7: a variation whose edit the model cannot see (cut off by its query length) is
counted as not applied, and every set says how many of its queries were cut."""
from __future__ import annotations

import json

from bench.cli.main import main
from perturb.io.sets import read_tsv


def _evaluate(tiny_bert, beir_dir, out, length):
    assert main(["evaluate", "--model", str(tiny_bert), "--dataset", str(beir_dir), "--generators", "EXTRAPUNC",
                 "--no-progress", "--max-query-length", str(length), "--out", str(out)]) == 0
    return json.loads((out / "result.json").read_text())


def test_an_edit_beyond_the_query_length_is_not_applied(tiny_bert, beir_dir, tmp_path, capsys):
    whole = _evaluate(tiny_bert, beir_dir, tmp_path / "whole", 64)
    cut = _evaluate(tiny_bert, beir_dir, tmp_path / "cut", 6)  # EXTRAPUNC's marks go at the end: cut off
    out = capsys.readouterr().out
    w = {e["name"]: e for e in whole["sets"]}
    c = {e["name"]: e for e in cut["sets"]}
    assert w["EXTRAPUNC"]["n_applied"] > 0 and "truncated" not in w["EXTRAPUNC"] and "truncated" not in w["ORIGINAL"]
    assert c["EXTRAPUNC"]["n_applied"] == 0
    assert c["EXTRAPUNC"]["truncated"] == {"n": 5, "edits_cut": w["EXTRAPUNC"]["n_applied"], "max_length": 6}
    assert c["ORIGINAL"]["truncated"]["n"] == 5 and c["ORIGINAL"]["truncated"]["edits_cut"] == 0
    assert "counted as not applied" in out
    # per_query.csv marks them not applied; the set as generated (file and fingerprint) is unchanged
    rows = [line.split(",") for line in (tmp_path / "cut" / "per_query.csv").read_text().splitlines()]
    col = rows[0].index("applied")
    assert all(r[col] == "0" for r in rows[1:] if r[rows[0].index("set")] == "EXTRAPUNC")
    written = read_tsv(tmp_path / "cut" / "variations" / "EXTRAPUNC.tsv")
    assert written.n_applied == w["EXTRAPUNC"]["n_applied"]
    assert written.fingerprint() == c["EXTRAPUNC"]["fingerprint"] == w["EXTRAPUNC"]["fingerprint"]


def test_queries_within_the_length_record_nothing_new(tiny_bert, beir_dir, tmp_path, capsys):
    result = _evaluate(tiny_bert, beir_dir, tmp_path / "r", 64)
    assert not any("truncated" in e for e in result["sets"])
    assert "truncation:" not in capsys.readouterr().out
