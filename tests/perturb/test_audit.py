"""The validity audit: proxy flags, the seeded labelling sample, human labels (ours and Penha's)."""
from __future__ import annotations

import pytest

from bench.core.errors import DataError
from perturb.checks.audit import (apply_labels, format_sample, human_valid_rates, pair_flags, proxy_rates, read_labels,
                           sample_pairs)
from perturb.io.sets import VariationSet
from perturb_helpers import shared_data


@pytest.mark.parametrize("orig,var,flag", [
    ("what is HIGH speed flow", "what is LOW speed flow", None),
    ("flows (i.e., jets)", "flows (.e., jets)", "token_cut"),
    ("drag and/or lift", "drag / lift", "token_cut"),
    ("the heat flux and the wall", "the heat flux ad the wall", "stopword_target"),
    ("tests in 1994", "tests in @994", "number_target"),
    ("what is the analytical solution", "what is the soluciónanalítica", "non_word"),
    ("what is the analytical solution", "what is analytical solution to the cual", "pivot_leak"),
    ("how do they fly", "how DO they fly", "case_only"),
    ("WHAT IS THE HIGH SPEED FLOW", "What IS THE FLOW of SPEED HIGH", "case_changed"),
    ("a b c", "a  c b", "double_space"),
])
def test_pair_flags(orig, var, flag):
    f = pair_flags(orig, var)
    if flag:
        assert flag in f.flags
    if orig.startswith("what is HIGH"):
        assert f.antonyms == 1 and f.synonyms == 0 and f.substitutions == 1


def test_pair_flags_clean_pair_has_no_flags():
    f = pair_flags("effects of turbulent flows", "results of turbulent flows")
    assert f.flags == () and f.synonyms == 1 and f.antonyms == 0


def _vs(texts, applied, name="X"):
    return VariationSet(name=name, label=name, config={}, seed=0, qids=[str(i) for i in range(len(texts))],
                        texts=texts, applied=applied, details=["d" if a else "" for a in applied])


def test_proxy_rates_counts_applied_only():
    orig = {"0": "the high wing", "1": "and the flow", "2": "same"}
    vs = _vs(["the low wing", "ad the flow", "same"], [True, True, False])
    row = proxy_rates(vs, orig)
    assert row["applied"] == 2 and row["applied_pct"] == 66.7
    assert row["antonym"] == 50.0 and row["stopword_target"] == 50.0


def test_sample_is_seeded_and_per_set():
    orig = {str(i): f"query {i}" for i in range(50)}
    a = _vs([f"query {i}!" for i in range(50)], [i % 2 == 0 for i in range(50)], "A")
    b = _vs([f"query {i}?" for i in range(50)], [True] * 50, "B")
    s1 = sample_pairs([a, b], orig, 10, seed=3)
    assert s1 == sample_pairs([a, b], orig, 10, seed=3)
    assert [r for r in s1 if r["set"] == "A"] == [r for r in sample_pairs([a], orig, 10, seed=3)]
    assert s1 != sample_pairs([a, b], orig, 10, seed=4)
    assert len(s1) == 20 and all(int(r["qid"]) % 2 == 0 for r in s1 if r["set"] == "A")


def test_labels_round_trip_and_rates(tmp_path):
    orig = {"0": "a b", "1": "c d", "2": "e f"}
    vs = _vs(["a b!", "c d!", "e f!"], [True] * 3)
    rows = sample_pairs([vs], orig, 3, 0)
    for r, v in zip(rows, ("1", "0", "")):
        r["valid"] = v
    p = tmp_path / "labels.tsv"
    p.write_text(format_sample(rows), encoding="utf-8")
    labels = read_labels(p)
    assert labels == {("X", "0"): True, ("X", "1"): False}
    assert human_valid_rates(labels) == [("X", 2, 1, 50.0)]
    fixed = apply_labels(vs, labels, orig)
    assert fixed.texts == ["a b!", "c d", "e f!"] and fixed.applied == [True, False, True]
    p.write_text(format_sample(rows).replace("\t1\t", "\tmaybe\t"), encoding="utf-8")
    with pytest.raises(DataError):
        read_labels(p)


def test_penha_labels_give_published_rates():
    labels = read_labels(shared_data() / "penha-variations" / "variations_antique_labeled.csv")
    rates = {s: pct for s, n, v, pct in human_valid_rates(labels)}
    assert 55 <= rates["WordSwapEmbedding"] <= 70  # Penha et al.: embedding swaps ~62% valid
    assert rates["WordSwapNeighboringCharacterSwap"] >= 90


def test_cli_audit_and_import_labels(tmp_path, capsys):
    from bench.cli.main import main

    out = tmp_path / "o"
    assert main(["perturb", "--generators", "NOSTOPWORD,EXTRAPUNC", "--out", str(out), "--audit", "5"]) == 0
    text = capsys.readouterr().out
    assert "syn%" in text and (out / "audit.csv").is_file() and (out / "audit_sample.tsv").is_file()
    lines = (out / "audit_sample.tsv").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 11
    labelled = [lines[0]] + [l.replace("\t\t", "\t1\t", 1) if False else l for l in lines[1:]]
    fields = [l.split("\t") for l in labelled[1:]]
    for f in fields:
        f[5] = "1"
    (out / "lab.tsv").write_text("\n".join([labelled[0]] + ["\t".join(f) for f in fields]) + "\n", encoding="utf-8")
    assert main(["perturb", "--import-labels", str(out / "lab.tsv"), "--out", str(out)]) == 0
    assert "NOSTOPWORD\t5\t5\t100.0" in capsys.readouterr().out
    assert (out / "human_validity.csv").is_file()
