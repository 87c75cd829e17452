"""Variation sets: TSV round trip, fingerprints, clear errors on bad files, importers."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.core.errors import DataError
from perturb.base import Generator, Perturbation, ResourceMissing
from perturb.io.importers import import_penha_csv, import_rodr_tsv
from perturb.io.sets import VariationSet, applicability_table, format_tsv, read_tsv, write_tsv
from perturb.io.generation import generate, generate_all
from perturb_helpers import SECURITY, shared_data


def _vs(**kw):
    base = dict(name="MISSPELL", label="MISSPELL", config={"a": 1, "b": [1, 2]}, seed=0, qids=["1", "2"],
                texts=["hello wrold", "plain"], applied=[True, False], details=["typos:swap 'world'->'wrold'", ""])
    base.update(kw)
    return VariationSet(**base)


UNI = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.tuples(UNI, UNI, st.booleans(), UNI), max_size=8, unique_by=lambda r: r[0]),
       label=UNI, seed=st.one_of(st.none(), st.integers(-2**40, 2**40)))
def test_tsv_round_trip_any_unicode(tmp_path_factory, rows, label, seed):
    vs = VariationSet(name="X\tY\nZ", label=label, config={"k": label}, seed=seed, qids=[r[0] for r in rows],
                      texts=[r[1] for r in rows], applied=[r[2] for r in rows], details=[r[3] for r in rows])
    path = tmp_path_factory.mktemp("tsv") / "x.tsv"
    write_tsv(vs, path)
    back = read_tsv(path)
    assert back == vs
    assert back.fingerprint() == vs.fingerprint()


def test_fingerprint_tracks_content_label_and_config():
    a = _vs()
    assert a.fingerprint() == _vs().fingerprint()
    assert a.fingerprint() != _vs(texts=["hello wrold", "plain."]).fingerprint()
    assert a.fingerprint() != _vs(label="MISSPELL[x]").fingerprint()
    assert a.fingerprint() != _vs(config={"a": 2, "b": [1, 2]}).fingerprint()
    assert a.n_applied == 1


def test_written_file_layout(tmp_path):
    path = tmp_path / "m.tsv"
    write_tsv(_vs(texts=["tab\there", "new\nline \\ back"]), path)
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    assert lines[0] == "# drbench variation set" and "# name: MISSPELL" in lines
    assert any(l.startswith("# fingerprint: ") for l in lines)
    assert "qid\ttext\tapplied\tdetail" in lines
    assert "1\ttab\\there\t1\ttypos:swap 'world'->'wrold'" in lines
    assert "2\tnew\\nline \\\\ back\t0\t" in lines
    assert not list(tmp_path.glob(".*tmp"))  # atomic write left nothing behind


def _bad(tmp_path, content, name="bad.tsv"):
    p = tmp_path / name
    p.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return p


@pytest.mark.parametrize("mutate,line,needle", [
    (lambda t: t.replace("\t1\ttypos", "\tyes\ttypos"), 11, "applied"),
    (lambda t: t.replace("plain\t0\t", "plain\t0"), 12, "4 tab-separated"),
    (lambda t: t.replace("qid\ttext\tapplied\tdetail", "id\ttext"), 10, "column line"),
    (lambda t: t.replace("hello wrold", "hello world"), 9, "fingerprint"),
    (lambda t: t.replace("\n", "\r\n"), 11, "CRLF"),
    (lambda t: t.replace("# seed: 0", "# seed: zero"), 5, "seed"),
    (lambda t: t + "1\tagain\t0\t\n", 13, "repeats"),
])
def test_bad_tsv_errors_name_file_line_and_fix(tmp_path, mutate, line, needle):
    good = format_tsv(_vs())
    p = _bad(tmp_path, mutate(good))
    with pytest.raises(DataError) as exc:
        read_tsv(p)
    err = exc.value
    assert err.path == str(p) and err.line == line and err.fix
    assert needle in str(err) and str(p) in str(err)


def test_bad_tsv_not_utf8(tmp_path):
    p = _bad(tmp_path, format_tsv(_vs()).encode() + b"3\t\xff\xfe\t0\t\n")
    with pytest.raises(DataError) as exc:
        read_tsv(p)
    assert exc.value.line == 13


def test_missing_set_round_trips(tmp_path):
    vs = _vs(status="missing", reason="BACKTRANS: no backend (install: apt-get install apertium)")
    write_tsv(vs, tmp_path / "m.tsv")
    back = read_tsv(tmp_path / "m.tsv")
    assert back.status == "missing" and back.reason == vs.reason


class _Missing(Generator):
    name = "FAKE"

    def check(self):
        raise ResourceMissing("FAKE: missing thing (install: pip install thing)")


class _Upper(Generator):
    """Upper-cases and appends "!" to lower-case text: a case-only change is never a variation."""

    name = "UPPER"

    def config(self):
        return {"case": "upper"}

    def _perturb(self, text, rng):
        return Perturbation(text.upper() + ("!" if text.islower() else ""), True, "upper")


def test_generate_statuses_and_applicability():
    items = [("1", "abc"), ("2", "ABC"), ("3", "")]
    ok = generate("UPPER", items, 0, generator=_Upper())
    assert ok.status == "ok" and ok.applied == [True, False, False] and ok.config == {"case": "upper"}
    missing = generate("FAKE", items, 0, generator=_Missing())
    assert missing.status == "missing" and "pip install thing" in missing.reason
    rows = applicability_table([ok, missing])
    assert rows[0] == ("UPPER", "UPPER", 3, 1, 33.3)
    assert rows[1][4] == "missing"
    with pytest.raises(ValueError):
        generate("UPPER", [("1", "a"), ("1", "b")], 0, generator=_Upper())


def test_generate_all_registered_generators_on_a_few_queries(cranfield):
    sets = generate_all(cranfield[:5], 0)
    assert [vs.name for vs in sets] == ["MISSPELL", "EXTRAPUNC", "BACKTRANS", "SWAPSYN-GLOVE", "SWAPSYN-WNET",
                                        "TRANSTENSE", "NOSTOPWORD", "SWAPWORDS"]
    assert all(vs.status == "ok" and len(vs) == 5 for vs in sets)
    assert sets[2].label.startswith("BACKTRANS[")


# --------------------------------------------------------------------------- importers
def test_import_rodr(tmp_path):
    p = _bad(tmp_path, "1\twhat is the percentage of peple with security clearance\n2\tunchanged query\n\n# c\n3\tnew\n",
             "rodr.tsv")
    vs = import_rodr_tsv(p, "MISSPELL", originals={"1": SECURITY, "2": "unchanged query"})
    assert vs.qids == ["1", "2", "3"] and vs.applied == [True, False, True]
    assert vs.source == "rodr:rodr.tsv" and vs.seed is None and vs.config["format"] == "rodr-tsv"
    assert import_rodr_tsv(p, "MISSPELL").applied == [True, True, True]


@pytest.mark.parametrize("content,line,needle", [
    ("1\tok\nno tab here\n", 2, "qid<TAB>text"),
    ("1\tok\n1\tagain\n", 2, "repeats"),
    ("\tno id\n", 1, "empty query id"),
])
def test_import_rodr_errors(tmp_path, content, line, needle):
    p = _bad(tmp_path, content, "r.tsv")
    with pytest.raises(DataError) as exc:
        import_rodr_tsv(p, "X")
    assert exc.value.line == line and needle in str(exc.value) and exc.value.fix


def test_import_penha_real_files():
    folder = shared_data() / "penha-variations"
    sets = import_penha_csv(folder / "variations_antique_labeled.csv")
    by = {vs.name: vs for vs in sets}
    assert len(sets) == 10 and "back_translation_pivot_language_de" in by
    assert sum(len(vs) for vs in sets) == 1506 - 0  # every valid row, no valid duplicate
    assert all(vs.source == "penha:variations_antique_labeled.csv" and vs.config["valid_only"] for vs in sets)
    every = {vs.name: vs for vs in import_penha_csv(folder / "variations_antique_labeled.csv", valid_only=False)}
    assert len(every["WordSwapWordNet"]) == 198 and every["WordSwapWordNet"].config["duplicate_qids_resolved"] == 3
    # of the duplicated pair for 363519 the changed variation is kept
    i = every["WordSwapWordNet"].qids.index("363519")
    assert every["WordSwapWordNet"].texts[i].endswith("fording tempo")
    trec = import_penha_csv(folder / "variations_trec2019_labeled.csv")
    assert sum(len(vs) for vs in trec) == 334


def test_import_penha_errors(tmp_path):
    header = "dataset,q_id,method,transformation_type,original_query,variation,valid,follow_category\n"
    p = _bad(tmp_path, header + "antique,1,M,t,a b,a c,maybe,True\n", "p.csv")
    with pytest.raises(DataError) as exc:
        import_penha_csv(p)
    assert exc.value.line == 2 and "valid" in str(exc.value)
    p = _bad(tmp_path, "dataset,q_id,method\nantique,1,M\n", "q.csv")
    with pytest.raises(DataError) as exc:
        import_penha_csv(p)
    assert exc.value.line == 1 and "missing columns" in str(exc.value)
    p = _bad(tmp_path, header + 'antique,1,M,t,"a, b","a,\nc",True,True\nantique,2,M,t,x,x,True,True\n', "r.csv")
    (vs,) = import_penha_csv(p)
    assert vs.texts == ["a,\nc", "x"] and vs.applied == [True, False]


# --------------------------------------------------------------------------- folders of sets (issue 13, item 3)
def test_penha_antique_sets_all_written_inside_out_and_read_back(tmp_path):
    from perturb.io.sets import read_sets, write_sets

    folder = shared_data() / "penha-variations"
    sets = import_penha_csv(folder / "variations_antique_labeled.csv")
    out = tmp_path / "out"
    written = write_sets(sets, out)
    assert len(written) == len(sets) == 10
    names = {vs.name: path.name for vs, path in written}
    assert names["ramsrigouthamg/t5_paraphraser"] == "ramsrigouthamg_t5_paraphraser.tsv"
    files = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    assert all(p.parent == out for p in files)  # nothing nested, nothing outside
    back = read_sets(out)
    assert len(back) == 10 and all(vs is not None and reason == "" for _, vs, reason in back)
    assert {vs.name for _, vs, _ in back} == {vs.name for vs in sets}


@pytest.mark.parametrize("name", ["../escape", "../../etc/passwd", "/abs/path/set", ".hidden", "a/b/../../c"])
def test_set_names_never_escape_out(tmp_path, name):
    from perturb.io.sets import read_sets, set_file_name, write_sets

    out = tmp_path / "out"
    (path,) = [p for _, p in write_sets([_vs(name=name)], out)]
    assert path.parent == out and not path.name.startswith(".") and path.name == set_file_name(name)
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == [path]
    ((_, vs, reason),) = read_sets(out)
    assert vs.name == name and reason == ""


def test_set_name_collision_names_both(tmp_path):
    from perturb.io.sets import write_sets

    with pytest.raises(DataError) as exc:
        write_sets([_vs(name="a/b"), _vs(name="a_b")], tmp_path)
    assert "'a/b'" in str(exc.value) and "'a_b'" in str(exc.value)
    assert not list(tmp_path.glob("*.tsv"))  # nothing written


def test_read_sets_reports_skipped_with_reason(tmp_path):
    from perturb.io.sets import coverage, read_sets

    write_tsv(_vs(status="missing", reason="no backend"), tmp_path / "m.tsv")
    (tmp_path / "junk.tsv").write_text("not a set\n", encoding="utf-8")
    got = {p.name: reason for p, _, reason in read_sets(tmp_path)}
    assert "no backend" in got["m.tsv"] and got["junk.tsv"].startswith("unreadable")
    n, why = coverage(_vs(), ["99"])
    assert n == 0 and "none of its 2 query ids" in why
    assert coverage(_vs(), ["1", "3"]) == (1, "")


def test_cli_import_penha_writes_every_set(tmp_path, capsys):
    from bench.cli.main import main

    folder = shared_data() / "penha-variations"
    out = tmp_path / "sets"
    assert main(["perturb", "--import-penha", str(folder / "variations_antique_labeled.csv"), "--out", str(out)]) == 0
    assert len(list(out.glob("*.tsv"))) == 10 and not [p for p in out.iterdir() if p.is_dir()]
    assert "ramsrigouthamg_t5_paraphraser.tsv" in capsys.readouterr().out
