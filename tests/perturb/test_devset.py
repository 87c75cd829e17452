"""perturb.checks.devset: the curve a verifier's threshold is chosen on, computed by hand on small cases."""
import math

import pytest

from bench.core.errors import DataError
from benchmarks.tuning.rules import labelled_path
from perturb.checks.devset import (COLUMNS, OLD_COLUMNS, Candidate, choose, curve, held_validity, of_provenance,
                                   point, read_devset, split_of, write_devset)


def _c(qid, score, valid, split="tune", style="web-query", variation=None):
    return Candidate("G", style, qid, "orig " + qid, variation or f"var {qid} {score}", "d", score, split, valid, "r")


ROWS = [_c("a", 0.9, True), _c("a", 0.2, False), _c("b", 0.5, True), _c("b", 0.4, False), _c("c", 0.1, False)]


def test_point_is_uniform_pick_among_passing_candidates():
    p = point(ROWS, 0.3)  # a: {0.9 valid}, b: {0.5 valid, 0.4 invalid}, c: none
    assert (p.n_queries, p.n_applied) == (3, 2)
    assert p.applicability == pytest.approx(2 / 3)
    assert p.validity == pytest.approx((1.0 + 0.5) / 2)
    low = point(ROWS, 0.0)  # everything passes
    assert low.applicability == 1.0
    assert low.validity == pytest.approx((0.5 + 0.5 + 0.0) / 3)
    none = point(ROWS, 2.0)
    assert none.n_applied == 0 and math.isnan(none.validity)


def test_choose_takes_the_most_applicable_point_meeting_the_validity():
    best = choose(ROWS, 0.9)
    assert best is not None and best.threshold == 0.5  # a and b apply, both valid picks
    assert [p.threshold for p in curve(ROWS)] == sorted({r.score for r in ROWS})
    assert choose([_c("x", 0.3, False)], 0.9) is None


def test_held_validity_counts_held_candidates_with_wilson():
    rows = [_c("a", 0.9, True, "held"), _c("b", 0.8, False, "held"), _c("c", 0.9, True, "tune")]
    k, n, (lo, hi) = held_validity(rows, 0.5)
    assert (k, n) == (1, 2) and 0 < lo < 0.5 < hi < 1


def test_split_is_a_function_of_style_and_qid_and_balanced():
    assert split_of("web-query", "q1") == split_of("web-query", "q1")
    halves = [split_of("s", f"q{i}") for i in range(400)]
    assert 150 < halves.count("tune") < 250


def test_round_trip_and_bad_rows_name_file_and_line(tmp_path):
    path = tmp_path / "dev.tsv"
    write_devset(path, ROWS)
    assert sorted(read_devset(path), key=repr) == sorted(ROWS, key=repr)
    text = path.read_text(encoding="utf-8").splitlines()
    text[2] = text[2].rsplit("\t", 3)[0] + "\tmaybe\tr\t"
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"dev.tsv:3: valid is 'maybe'"):
        read_devset(path)


def test_provenance_column_written_and_selected(tmp_path):
    rows = [Candidate("G", "s", "a", "o", "v1", "d", 0.9, "tune", True, "r", "dev-sample"),
            Candidate("G", "s", "b", "o", "v2", "d", 0.5, "held", False, "r", "dev-fresh"),
            Candidate("G", "s", "c", "o", "v3", "d", 0.7, "tune", True, "r", "confirmation-1")]
    path = tmp_path / "G.tsv"
    write_devset(path, rows)
    assert path.read_text(encoding="utf-8").splitlines()[0].split("\t") == list(COLUMNS)
    assert read_devset(path) == sorted(rows, key=lambda c: c.provenance)  # grouped by sample
    assert [c.qid for c in read_devset(path, "dev-*")] == ["b", "a"]
    assert [c.qid for c in read_devset(path, ["confirmation-1", "dev-sample"])] == ["c", "a"]
    assert of_provenance(rows, None) == rows and of_provenance(rows, "nothing") == []


def test_unlabelled_and_unscored_rows_round_trip(tmp_path):
    q = Candidate("G", "s", "a", "a query", "", "", math.nan, split_of("s", "a"), None, "", "pick-sample")
    path = tmp_path / "G.queries.tsv"
    write_devset(path, [q])
    assert path.read_text(encoding="utf-8").splitlines()[1].split("\t")[4:] == ["", "", "", q.split, "", "", "pick-sample"]
    (back,) = read_devset(path)
    assert back.valid is None and math.isnan(back.score) and back.provenance == "pick-sample"


def test_a_file_without_the_provenance_column_is_read(tmp_path):
    path = tmp_path / "old.tsv"
    path.write_text("\t".join(OLD_COLUMNS) + "\nG\ts\ta\to\tv\td\t0.5\ttune\t1\tr\n", encoding="utf-8")
    (c,) = read_devset(path)
    assert (c.score, c.valid, c.provenance) == (0.5, True, "")


def test_every_labelled_set_reads_and_names_its_samples():
    for path in sorted(labelled_path("X").parent.glob("*.tsv")):
        rows = read_devset(path)
        assert rows and all(c.provenance for c in rows), path.name
        assert all(c.split == split_of(c.style, c.qid) for c in rows), path.name
        dev = [c for c in rows if c.provenance.startswith("dev-") and ".queries." not in path.name]
        assert all(c.valid is not None and not math.isnan(c.score) for c in dev), path.name
