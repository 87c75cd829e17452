"""The one door for datasets (bench.data.door, bench.data.validate): every form is checked by one
validator, one defect gives one message text whatever the form, and a value of no form is refused
with the forms accepted. Each case below was a silent wrong number or a traceback before the door."""
import json
from pathlib import Path

import numpy as np
import pytest

import bench
from bench.core.errors import BenchError, DataError
from bench.data.door import open_dataset
from tests.conftest import DOCS, QRELS, QUERIES, write_beir


def tiny_dict():
    return {"corpus": {d: {"title": t, "text": x} for d, (t, x) in DOCS.items()},
            "queries": {q: {"text": t} for q, (t, _) in QUERIES.items()},
            "qrels": {q: {d: g for qq, d, g in QRELS if qq == q} for q in dict.fromkeys(q for q, _, _ in QRELS)}}


def evaluate(tmp_path, dataset, **kw):
    return bench.evaluate(model="bm25", dataset=dataset, out=tmp_path / "run", generators=["EXTRAPUNC"],
                          no_progress=True, **kw)


def message(exc_info) -> str:
    """The message text without the place (``path:line: `` or ``corpus['d1']: ``)."""
    exc = exc_info.value
    return str(exc).split(": ", 1)[1] if getattr(exc, "path", None) is not None else str(exc)


class FakeIrds:
    """An ir_datasets-style object over record lists."""

    def __init__(self, docs, queries, qrels):
        from collections import namedtuple

        self.D, self.Q, self.R = (namedtuple("Doc", "doc_id title text"), namedtuple("Query", "query_id text"),
                                  namedtuple("Qrel", "query_id doc_id relevance"))
        self.docs, self.queries, self.qrels = docs, queries, qrels

    def docs_iter(self):
        return iter(self.D(*d) for d in self.docs)

    def queries_iter(self):
        return iter(self.Q(*q) for q in self.queries)

    def qrels_iter(self):
        return iter(self.R(*r) for r in self.qrels)


def irds_of(d):
    return FakeIrds([(k, v["title"], v["text"]) for k, v in d["corpus"].items()],
                    [(k, v["text"]) for k, v in d["queries"].items()],
                    [(q, doc, g) for q, docs in d["qrels"].items() for doc, g in docs.items()])


@pytest.mark.parametrize("grade", [2 ** 40, 1e20, -5000, float("nan")])
def test_a_grade_outside_the_range_in_a_dict_is_refused_before_any_work(tmp_path, grade):
    d = tiny_dict()
    d["qrels"]["1"]["d1"] = grade
    with pytest.raises(DataError, match=r"qrels\['1'\]\['d1'\]: relevance grade .* (outside the accepted range "
                                        r"-1000\.\.1000|is not an integer)"):
        evaluate(tmp_path, d)
    assert not (tmp_path / "run").exists()


def test_the_same_grade_defect_gives_the_same_message_in_every_form(tmp_path):
    import pandas as pd

    d = tiny_dict()
    d["qrels"]["1"]["d1"] = 2 ** 40
    folder = tmp_path / "beir"
    write_beir(folder, qrels=[(q, doc, 2 ** 40 if (q, doc) == ("1", "d1") else g) for q, doc, g in QRELS])
    frame = pd.DataFrame([{"query-id": q, "corpus-id": doc, "score": g} for q, docs in d["qrels"].items()
                          for doc, g in docs.items()])
    texts = set()
    for form in (str(folder), d, (d["corpus"], d["queries"], frame), irds_of(d)):
        with pytest.raises(DataError) as info:
            open_dataset(form)
        texts.add(message(info).split(" Fix:")[0])
    assert texts == {"relevance grade '1099511627776' is outside the accepted range -1000..1000"}


def test_duplicate_ids_from_an_ir_datasets_object_are_refused_not_last_kept():
    d = tiny_dict()
    obj = irds_of(d)
    obj.docs.append(("d1", "Another", "a second document under the id d1"))
    with pytest.raises(DataError, match=r"docs_iter\(\) record 6: duplicate document id 'd1' \(first at "
                                        r"docs_iter\(\) record 0\)"):
        open_dataset(obj)
    obj = irds_of(d)
    obj.queries.append(("2", "a second text for query 2"))
    with pytest.raises(DataError, match="duplicate query id '2'"):
        open_dataset(obj)


def test_a_dataframe_text_column_named_body_is_refused_naming_the_columns(tmp_path):
    import pandas as pd

    d = tiny_dict()
    corpus = pd.DataFrame([{"_id": k, "title": v["title"], "body": v["text"]} for k, v in d["corpus"].items()])
    with pytest.raises(DataError, match=r"corpus row 0: a document needs a 'text' field \(fields given: _id, title, "
                                        r"body\) Fix: name the field holding the document's text 'text'"):
        evaluate(tmp_path, {**d, "corpus": corpus})
    # the same defect in a dict and in a file: the same words
    with pytest.raises(DataError, match=r"a document needs a 'text' field \(fields given: title, body\)"):
        open_dataset({**d, "corpus": {k: {"title": v["title"], "body": v["text"]} for k, v in d["corpus"].items()}})
    folder = write_beir(tmp_path / "beir")
    lines = (folder / "corpus.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    lines[0] = json.dumps({"_id": first["_id"], "title": first["title"], "body": first["text"]})
    (folder / "corpus.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"corpus\.jsonl:1: a document needs a 'text' field"):
        open_dataset(str(folder))


@pytest.mark.parametrize("part", ["corpus", "queries", "label"])
def test_lone_surrogates_in_dict_text_are_refused(tmp_path, part):
    d = tiny_dict()
    if part == "corpus":
        d["corpus"]["d2"]["text"] = "heat \ud800 transfer"
    elif part == "queries":
        d["queries"]["2"]["text"] = "heat \udfff"
    else:
        d["queries"]["2"]["label"] = "heat \ud800"
    with pytest.raises(DataError, match=r"holds a lone surrogate code point \(\\ud[8f]"):
        evaluate(tmp_path, d)


@pytest.mark.parametrize("where", ["corpus", "queries"])
def test_empty_texts_give_one_message_in_every_form(tmp_path, where):
    d = tiny_dict()
    if where == "corpus":
        d["corpus"]["d2"] = {"title": " ", "text": "\u200b"}
        want = "document 'd2' has an empty title and text (only invisible characters)"
    else:
        d["queries"]["2"] = {"text": "\u200b "}
        want = "query '2' has empty text (only invisible characters)"
    got = set()
    for form in (d, irds_of(d)):
        with pytest.raises(DataError) as info:
            open_dataset(form)
        got.add(message(info).split(" Fix:")[0])
    assert got == {want}


def test_an_unknown_reference_is_named_in_every_form():
    d = tiny_dict()
    d["qrels"]["1"]["d99"] = 1
    for form in (d, irds_of(d)):
        with pytest.raises(DataError, match="judgment names unknown document 'd99'"):
            open_dataset(form)


def test_qrels_without_a_relevant_document_are_refused_in_memory_as_in_files():
    d = tiny_dict()
    d["qrels"] = {q: {doc: 0 for doc in docs} for q, docs in d["qrels"].items()}
    with pytest.raises(DataError, match="no judgment has a grade of 1 or more"):
        open_dataset(d)


@pytest.mark.parametrize("value, says", [
    ((1, 2), "not a dataset form: a tuple of 2 items"),
    ([tiny_dict()["corpus"]], "not a dataset form: a list of 1 item"),
    (FakeIrds, "FakeIrds (a class, not an instance: call it to make the dataset)"),
    (3.5, "not a dataset form: a builtins.float"),
])
def test_a_value_of_no_form_is_refused_with_the_forms_accepted(tmp_path, value, says):
    d = tiny_dict()
    if value == (1, 2):
        value = (d["corpus"], d["queries"])
    with pytest.raises(BenchError) as info:
        evaluate(tmp_path, value)
    text = str(info.value)
    assert says in text and "the dataset forms accepted" in text and "(corpus, queries, qrels)" in text
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("name, says", [(5, "dataset_name=5: give the dataset's name as a str"),
                                        ("x" * 300, "dataset_name=: 300 characters, at most 100")])
def test_a_bad_dataset_name_is_a_clear_error(tmp_path, name, says):
    with pytest.raises(BenchError, match=says):
        evaluate(tmp_path, tiny_dict(), dataset_name=name)
    assert not (tmp_path / "run").exists()


def test_the_door_takes_every_form_and_gives_one_dataset(tmp_path, beir_dir):
    d = tiny_dict()
    want = open_dataset(str(beir_dir)).fingerprint()
    d_labels = {**d, "queries": {q: {"text": t, "class": c} for q, (t, c) in QUERIES.items()}}
    assert open_dataset(Path(beir_dir)).fingerprint() == want
    assert open_dataset(d_labels).fingerprint() == want
    assert open_dataset((d_labels["corpus"], d_labels["queries"], d_labels["qrels"])).fingerprint() == want
    assert np.all([open_dataset(irds_of(d)).corpus == open_dataset(d).corpus])
