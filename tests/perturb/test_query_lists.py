"""Plain query lists: `bench perturb --queries FILE` and `bench.perturb(queries)`."""
from __future__ import annotations

import pytest

from bench.cli.main import main
from bench.core.errors import DataError

GENS = "EXTRAPUNC,MISSPELL"


def _judged(beir_dir):
    from bench.data.collections import load_dataset

    ds = load_dataset(str(beir_dir), None)
    return [(q, ds.queries[q].text) for q in ds.judged_query_ids()]


def _rows(folder, name):
    from perturb.io.sets import read_tsv

    vs = read_tsv(folder / f"{name}.tsv")
    return list(zip(vs.qids, vs.texts, vs.applied))


def test_a_query_list_gets_the_sets_of_a_dataset_run(beir_dir, tmp_path, capsys):
    import bench

    items = _judged(beir_dir)
    listing = tmp_path / "queries.tsv"
    listing.write_text("".join(f"{q}\t{t}\n" for q, t in items), encoding="utf-8")
    assert main(["perturb", "--dataset", str(beir_dir), "--generators", GENS, "--out", str(tmp_path / "ds")]) == 0
    assert main(["perturb", "--queries", str(listing), "--generators", GENS, "--out", str(tmp_path / "ql")]) == 0
    frame = bench.perturb(items, generators=GENS.split(","), seed=0)
    assert list(frame.columns) == ["qid", "set", "text", "applied"]
    for name in GENS.split(","):
        assert (tmp_path / "ds" / f"{name}.tsv").read_bytes() == (tmp_path / "ql" / f"{name}.tsv").read_bytes()
        part = frame[frame["set"] == name]
        assert list(zip(part.qid, part.text, part.applied)) == _rows(tmp_path / "ds", name)
    assert frame["applied"].any()


def test_one_query_per_line_gets_line_ids_and_the_api_takes_strings(tmp_path):
    import bench

    listing = tmp_path / "q.txt"
    listing.write_text("how do i reset my password\n\nwhat is the capital of france\n", encoding="utf-8")
    assert main(["perturb", "--queries", str(listing), "--generators", "MISSPELL", "--out", str(tmp_path / "o")]) == 0
    assert [q for q, _, _ in _rows(tmp_path / "o", "MISSPELL")] == ["q1", "q3"]
    frame = bench.perturb(["how do i reset my password", "what is the capital of france"], generators=["MISSPELL"])
    assert list(frame.qid) == ["q1", "q2"] and frame.applied.all()


@pytest.mark.parametrize("text,line,message", [
    ("a1\tfirst query\nsecond query\n", 2, "has no tab, but line 1 sets the form id<TAB>text"),
    ("first query\na2\tsecond\n", 2, "has a tab, but line 1 sets the form one query per line"),
    ("a1\tfirst\na1\tsecond\n", 2, "query id 'a1' repeats line 1"),
    ("a1\tfirst\n\tsecond\n", 2, "empty query id"),
    ("a1\tfirst\na2\t  \n", 2, "query 'a2' has no text"),
    ("a1\tfirst\ta\n", 1, "more than one tab"),
])
def test_bad_lines_are_named_with_the_file_and_line(tmp_path, text, line, message):
    from perturb.io.querylist import read_query_list

    path = tmp_path / "q.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError, match=rf"q.tsv:{line}: .*{message}.* Fix: "):
        read_query_list(path)


def test_queries_and_dataset_together_are_refused(tmp_path, capsys):
    (tmp_path / "q.txt").write_text("a query\n", encoding="utf-8")
    rc = main(["perturb", "--queries", str(tmp_path / "q.txt"), "--dataset", "chatterbot", "--out", str(tmp_path / "o")])
    assert rc == 2 and "give one of them" in capsys.readouterr().err


def test_an_import_without_its_originals_says_the_shares_need_them(tmp_path, capsys):
    rodr = tmp_path / "r.tsv"
    rodr.write_text("x1\thow do i reset my pasword\nx2\twhat is the capitol of france\n", encoding="utf-8")
    listing = tmp_path / "q.txt"
    listing.write_text("how do i reset my password\n", encoding="utf-8")
    assert main(["perturb", "--import-rodr", str(rodr), "--name", "MISSPELL", "--queries", str(listing),
                 "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "needs the originals" in out and "unknown" in out and "100.0%" not in out and "0.0%" not in out
    assert "MISSPELL: 2 of its query ids are not among the queries of --queries" in out
    assert (tmp_path / "o" / "applicability.csv").read_text().splitlines()[1] == \
        "MISSPELL,MISSPELL,2,,unknown,needs the originals,"


def test_perturb_prints_the_final_paths_and_the_audit_legend(tmp_path, capsys):
    listing = tmp_path / "q.txt"
    listing.write_text("how do i reset my password\nwhat is the capital of france\n", encoding="utf-8")
    out = tmp_path / "sets"
    assert main(["perturb", "--queries", str(listing), "--generators", "MISSPELL", "--audit", "2",
                 "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"{out / 'audit_sample.tsv'}" in text and ".new" not in text and f".{out.name}." not in text
    assert (out / "audit_sample.tsv").is_file()
    for column in ("syn% / ant%", "nonword%", "pivot%", "caseonly%", "casechg%", "cut%", "dblsp%"):
        assert column in text.split("dblsp%", 1)[1], column  # explained under the table's header
