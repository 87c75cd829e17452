"""Human label files (perturb.checks.labels): every row checked with file:line, disagreements refused,
labels matched to a run's pairs only when set, query and variation text are the run's; Penha's
ANTIQUE file gives the published valid rates."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench.core.errors import BenchError, DataError
from perturb.checks.audit import human_valid_rates, read_labels
from perturb.io.importers import import_penha_csv
from perturb.checks.labels import SAMPLE_COLUMNS, check_match, match_labels, read_label_file, read_label_files
from perturb.io.sets import VariationSet
from perturb_helpers import shared_data

ROOT = Path(__file__).resolve().parents[2]


def _tsv(path, rows):
    lines = ["\t".join(SAMPLE_COLUMNS)] + ["\t".join(r) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _row(s, q, var, valid, orig="o"):
    return [s, q, orig, var, "d", valid, ""]


def _vs(name, texts, applied, label=None):
    return VariationSet(name=name, label=label or name, config={}, seed=0, qids=[str(i) for i in range(len(texts))],
                        texts=texts, applied=applied, details=[""] * len(texts))


def test_sample_tsv_read_with_provenance(tmp_path):
    p = _tsv(tmp_path / "a.tsv", [_row("X", "1", "v1", "1"), _row("X", "2", "v2", ""), _row("X", "3", "v3", "no"),
                                  _row("Y", "1", "w", "?")])
    lf = read_label_file(p)
    assert lf.format == "audit-sample" and lf.rows == 4 and len(lf.labels) == 2
    assert [(l.set, l.qid, l.variation, l.valid) for l in lf.labels] == [("X", "1", "v1", True), ("X", "3", "v3", False)]
    assert lf.labels[1].where == f"{p}:4"


@pytest.mark.parametrize("bad,line,what", [
    (_row("X", "2", "v", "maybe"), 3, "not 1/0"),
    (["X", "2", "o", "v", "1"], 3, "expected 7 tab-separated fields"),
    (_row("X", "", "v", "1"), 3, "empty 'qid'"),
    (_row("", "2", "v", "0"), 3, "empty 'set'"),
])
def test_bad_sample_row_names_file_and_line(tmp_path, bad, line, what):
    p = _tsv(tmp_path / "bad.tsv", [_row("X", "1", "v", "1"), bad])
    with pytest.raises(DataError) as exc:
        read_label_files([p])
    assert f"{p}:{line}:" in str(exc.value) and what in str(exc.value)


def test_bad_penha_row_names_file_and_line(tmp_path):
    src = (shared_data() / "penha-variations" / "variations_antique_labeled.csv").read_text(encoding="utf-8")
    lines = src.splitlines()
    lines[5] = re.sub(r",(True|False),(True|False)$", r",perhaps,\2", lines[5])
    p = tmp_path / "penha.csv"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        read_label_files([p])
    assert f"{p}:6:" in str(exc.value) and "'perhaps'" in str(exc.value)


def test_files_refused_before_use(tmp_path):
    with pytest.raises(BenchError, match="not found"):
        read_label_files([tmp_path / "nope.tsv"])
    empty = _tsv(tmp_path / "empty.tsv", [_row("X", "1", "v", "")])
    with pytest.raises(DataError, match="no labelled row"):
        read_label_files([empty])
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(DataError, match="neither a labelled audit sample"):
        read_label_files([other])
    # two files that disagree about one pair: both places named
    a = _tsv(tmp_path / "a.tsv", [_row("X", "1", "v", "1")])
    b = _tsv(tmp_path / "b.tsv", [_row("X", "2", "w", "1"), _row("X", "1", "v", "0")])
    with pytest.raises(DataError) as exc:
        read_label_files([a, b])
    assert f"{b}:3:" in str(exc.value) and f"{a}:2" in str(exc.value)
    # the same label twice, or labels of two different texts of one query, are fine
    c = _tsv(tmp_path / "c.tsv", [_row("X", "1", "v", "1"), _row("X", "1", "other text", "0")])
    assert len(read_label_files([a, c])) == 2


def test_match_keeps_only_this_runs_pairs(tmp_path):
    vs = _vs("A", ["a!", "b", "c?", "d."], [True, False, True, True], label="A[x]")
    orig = _vs("ORIGINAL", ["a", "b", "c", "d"], [False] * 4)
    p = _tsv(tmp_path / "l.tsv", [
        _row("A[x]", "0", "a!", "1"),       # by display label: used
        _row("A", "2", "c?", "0"),          # by name: used
        _row("A", "1", "b", "1"),           # the run left query 1 unchanged
        _row("A", "3", "d!", "1"),          # another variation text (another seed)
        _row("A", "9", "z", "1"),           # not a query of the run
        _row("Z", "0", "a!", "1"),          # not a set of the run
        _row("ORIGINAL", "0", "a", "1"),    # the reference set is never labelled
    ])
    m = match_labels(read_label_files([p]), [orig, vs], skip=("ORIGINAL",))
    assert m.by_set == {"A": {"0": True, "2": False}}
    assert m.unused == {"set_not_in_run": 2, "query_not_in_run": 1, "not_applied": 1, "variation_differs": 1}
    assert m.unknown_sets == ["ORIGINAL", "Z"] and m.n_labels == 7
    notes = " ".join(m.notes())
    assert "2 of 7 labels not used" in notes and "(ORIGINAL, Z)" in notes and "another text" in notes
    check_match(m, [], ["A"])  # something matched: no error
    # name and display label disagreeing about one pair
    q = _tsv(tmp_path / "q.tsv", [_row("A[x]", "0", "a!", "1"), _row("A", "0", "a!", "0")])
    with pytest.raises(DataError, match="disagree"):
        match_labels(read_label_files([q]), [vs])


def test_match_of_nothing_is_an_error_naming_the_runs_sets(tmp_path):
    p = _tsv(tmp_path / "l.tsv", [_row("Z", "0", "a!", "1")])
    files = read_label_files([p])
    m = match_labels(files, [_vs("A", ["a!"], [True])])
    with pytest.raises(BenchError) as exc:
        check_match(m, files, ["A"])
    assert "none of the 1 labels" in str(exc.value) and "(Z)" in str(exc.value) and "sets: A" in str(exc.value)


PUBLISHED = {  # docs/methods.md "Measuring validity" (Penha et al., ECIR 2022, ANTIQUE)
    "WordSwapEmbedding": 62.0, "WordSwapWordNet": 35.9, "back_translation_pivot_language_de": 46.5,
    "WordSwapQWERTY": 91.0, "WordSwapNeighboringCharacterSwap": 99.5,
}


def test_penha_antique_imports_and_gives_the_published_rates():
    path = shared_data() / "penha-variations" / "variations_antique_labeled.csv"
    files = read_label_files([path])
    assert files[0].format == "penha-csv" and files[0].rows == 2001 and len(files[0].labels) == 2001
    rates = {s: pct for s, n, v, pct in human_valid_rates(read_labels(path))}
    assert {s: rates[s] for s in PUBLISHED} == PUBLISHED
    doc = (ROOT / "docs" / "variations.md").read_text(encoding="utf-8")
    for pct in ("62.0%", "35.9%", "46.5%", "91.0-99.5%"):
        assert pct in doc
    # against the imported sets themselves: every label judges a pair, except Penha's unchanged
    # "variations" (labelled not valid; a run counts them as not applied) and the second row of
    # the three query ids labelled twice for WordSwapWordNet
    sets = import_penha_csv(path, valid_only=False)
    m = match_labels(files, sets)
    assert m.unused == {"set_not_in_run": 0, "query_not_in_run": 0, "not_applied": 147, "variation_differs": 3}
    emb = m.by_set["WordSwapEmbedding"]
    assert (len(emb), sum(emb.values())) == (191, 124)


def test_a_labelled_set_of_the_validity_folder_is_a_label_file():
    """benchmarks/data/validity/<SET>.tsv is read by --labels: the set is the generator column (the blind
    sample's rows keep the display label the run gave them), unlabelled rows are left out."""
    from benchmarks.tuning.rules import labelled_path

    lf = read_label_file(labelled_path("BACKTRANS"))
    assert lf.format == "devset" and lf.rows == len(lf.labels) == 777
    blind = [lab for lab in lf.labels if lab.set == "BACKTRANS[spa,apertium]"]
    assert len(blind) == 26 and sum(lab.valid for lab in blind) == 24
    one = blind[0]
    vs = _vs("BACKTRANS", ["x", one.variation], [True, True], label="BACKTRANS[spa,apertium]")
    vs.qids[1] = one.qid
    match = match_labels([lf], [vs])
    assert match.by_set == {"BACKTRANS": {one.qid: one.valid}}
    assert read_label_file(labelled_path("SWAPSYN-WNET", "queries")).labels == []
