import json
from pathlib import Path

import pytest

from bench.data.collections import load_chatterbot, load_dataset, load_irds
from bench.data.model import natural_key
from bench.data.readers import load_beir, load_msmarco
from bench.data.trec import load_trec
from bench.core.errors import DataError
from bench.core.registry import UnknownName
from tests.conftest import CRANFIELD, write_beir


def test_beir_folder_loads_with_labels(beir_dir):
    ds = load_dataset(str(beir_dir))
    assert len(ds.corpus) == 6 and len(ds.queries) == 5
    assert ds.queries["1"].label == "aero"
    assert ds.qrels["1"] == {"d1": 2, "d3": 1}
    assert ds.corpus["d1"].full_text().startswith("Aerodynamics of wings the lift")
    assert ds.judged_query_ids() == ["1", "2", "3", "4", "5"]


def test_fingerprint_is_content_sensitive(tmp_path):
    a = load_beir(write_beir(tmp_path / "a"))
    b = load_beir(write_beir(tmp_path / "b"))
    assert a.fingerprint() == b.fingerprint()  # same content, other folder
    qrels = [("1", "d1", 1)] + [r for r in __import__("tests.conftest").conftest.QRELS if r[0] != "1"]
    c = load_beir(write_beir(tmp_path / "c", qrels=qrels))
    assert c.fingerprint() != a.fingerprint()


def test_queries_restricted_to_judged_split(tmp_path):
    folder = write_beir(tmp_path / "t", qrels=[("1", "d1", 1)])
    ds = load_beir(folder)
    assert list(ds.queries) == ["1"]


def _corrupt(folder: Path, name: str, line_no: int, new_line: str):
    p = folder / name
    lines = p.read_text(encoding="utf-8").splitlines()
    lines[line_no - 1] = new_line
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


@pytest.mark.parametrize("name,line,content,expected", [
    ("corpus.jsonl", 3, '{"_id": "d3", "title": "x", ', "corpus.jsonl:3: malformed JSON"),
    ("corpus.jsonl", 4, '{"_id": "d1", "title": "dup", "text": "dup"}', "corpus.jsonl:4: duplicate document id 'd1' (first at line 1)"),
    ("corpus.jsonl", 2, '{"_id": "d2", "title": "", "text": "  "}', "corpus.jsonl:2: document 'd2' has an empty title and text"),
    ("corpus.jsonl", 2, '{"title": "no id", "text": "x"}', "corpus.jsonl:2: missing field '_id'"),
    ("queries.jsonl", 2, '{"_id": "2", "text": ""}', "queries.jsonl:2: query '2' has empty text"),
    ("queries.jsonl", 1, '[1, 2]', "queries.jsonl:1: expected a JSON object"),
    ("qrels/test.tsv", 3, "1\td3", "test.tsv:3: expected 3 columns"),
    ("qrels/test.tsv", 2, "1\td1\thigh", "test.tsv:2: relevance grade 'high' is not an integer"),
    ("qrels/test.tsv", 4, "2\td9\t1", "test.tsv:4: judgment names unknown document 'd9'"),
    ("qrels/test.tsv", 4, "77\td2\t1", "test.tsv:4: judgment names unknown query '77'"),
    ("qrels/test.tsv", 3, "1\td1\t1", "test.tsv:3: duplicate judgment for query '1', document 'd1' (first at line 2)"),
])
def test_bad_input_names_file_and_line(beir_dir, name, line, content, expected):
    _corrupt(beir_dir, name, line, content)
    with pytest.raises(DataError) as exc:
        load_beir(beir_dir)
    assert expected in str(exc.value)
    assert "Fix:" in str(exc.value) or "expected a JSON object" in str(exc.value)


def test_bad_encoding_names_line(beir_dir):
    p = beir_dir / "queries.jsonl"
    data = p.read_bytes().splitlines()
    data[2] = '{"_id": "3", "text": "caf'.encode() + b"\xe9" + b'"}'
    p.write_bytes(b"\n".join(data) + b"\n")
    with pytest.raises(DataError, match=r"queries.jsonl:3: not valid UTF-8.*Fix: re-encode"):
        load_beir(beir_dir)


def test_missing_split_lists_available(beir_dir):
    with pytest.raises(DataError, match=r"no qrels for split 'dev'.*choose --split from \['test'\]"):
        load_beir(beir_dir, split="dev")


def test_unknown_dataset_name_suggests():
    with pytest.raises(UnknownName, match="Did you mean 'chatterbot'"):
        load_dataset("chaterbot")


def test_missing_folder_is_clear(tmp_path):
    with pytest.raises(DataError, match="no such dataset folder"):
        load_dataset(str(tmp_path / "nope"))


def test_msmarco_folder(tmp_path):
    f = tmp_path / "mm"
    f.mkdir()
    (f / "collection.tsv").write_text("0\tthe capital of france is paris\n1\tbananas are yellow\n")
    (f / "queries.dev.tsv").write_text("10\twhat is the capital of france\n11\tunjudged query\n")
    (f / "qrels.dev.tsv").write_text("10 0 0 1\n")
    ds = load_dataset(str(f))
    assert ds.split == "dev" and list(ds.queries) == ["10"] and ds.qrels == {"10": {"0": 1}}
    (f / "collection.tsv").write_text("0\tthe capital\n1 no tab here\n")
    with pytest.raises(DataError, match=r"collection.tsv:2: expected 'passage-id<TAB>text'"):
        load_msmarco(f)


def test_trec_files(tmp_path):
    topics = tmp_path / "topics.txt"
    topics.write_text("<top>\n<num> Number: 401\n<title> foreign minorities germany\n<desc> Description:\nx\n</top>\n"
                      "<top>\n<num> Number: 402\n<title> behavioral genetics\n</top>\n")
    corpus = tmp_path / "docs.trec"
    corpus.write_text("<DOC>\n<DOCNO> FT1 </DOCNO>\n<TEXT>\nminorities in germany\n</TEXT>\n</DOC>\n"
                      "<DOC>\n<DOCNO>FT2</DOCNO>\n<TEXT>genes and behaviour</TEXT>\n</DOC>\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("401 0 FT1 1\n402 0 FT2 2\n")
    ds = load_dataset(f"trec:corpus={corpus},topics={topics},qrels={qrels}")
    assert ds.queries["401"].text == "foreign minorities germany"
    assert ds.corpus["FT2"].text == "genes and behaviour"
    assert ds.qrels == {"401": {"FT1": 1}, "402": {"FT2": 2}}
    corpus.write_text("<DOC>\n<DOCNO> FT1 </DOCNO>\n<TEXT>\nminorities\n")
    with pytest.raises(DataError, match=r"docs.trec:1: <doc> started here is never closed"):
        load_trec(f"corpus={corpus},topics={topics},qrels={qrels}")


def test_irds_adapter(monkeypatch):
    import sys
    import types
    from collections import namedtuple

    Doc = namedtuple("Doc", "doc_id title text")
    Q = namedtuple("Q", "query_id text")
    R = namedtuple("R", "query_id doc_id relevance iteration")

    class Fake:
        def docs_iter(self):
            return iter([Doc("a", "T", "alpha text"), Doc("b", "", "beta"), Doc("c", "", "")])

        def queries_iter(self):
            return iter([Q("1", "alpha?"), Q("2", "beta?")])

        def qrels_iter(self):
            return iter([R("1", "a", 1, "0"), R("2", "b", 2, "0"), R("2", "c", 1, "0")])

    mod = types.ModuleType("ir_datasets")
    mod.load = lambda i: Fake() if i == "fake/test" else (_ for _ in ()).throw(KeyError(i))
    monkeypatch.setitem(sys.modules, "ir_datasets", mod)
    ds = load_dataset("irds:fake/test")
    assert set(ds.corpus) == {"a", "b"} and ds.qrels == {"1": {"a": 1}, "2": {"b": 2}}
    assert "1 documents with no text dropped" in ds.notes
    with pytest.raises(DataError, match="ir_datasets does not know 'nope'"):
        load_irds("nope")


def test_chatterbot_default():
    ds = load_chatterbot()
    assert len(ds.corpus) > 800 and len(ds.queries) > 800
    labels = {q.label for q in ds.queries.values()}
    assert {"ai", "history", "science"} <= labels
    # duplicated questions are one query with every answer relevant
    ai = next(q for q, v in ds.queries.items() if v.text == "What is AI?")
    assert len(ds.qrels[ai]) >= 2
    texts = [d.text for d in ds.corpus.values()]
    assert len(texts) == len(set(texts))  # answers deduplicated
    assert ds.fingerprint() == load_chatterbot().fingerprint()


@pytest.mark.skipif(not CRANFIELD.exists(), reason="shared Cranfield collection not present")
def test_cranfield_counts():
    ds = load_dataset(str(CRANFIELD))
    assert ds.describe()["n_docs"] == 1398 and len(ds.judged_query_ids()) == 225
    assert sum(len(v) for v in ds.qrels.values()) == 1611


def test_natural_key_orders_numbers():
    assert sorted(["10", "2", "1", "a"], key=natural_key) == ["1", "2", "10", "a"]
