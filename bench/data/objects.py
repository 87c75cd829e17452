"""Datasets held in Python: BEIR-style dicts, pandas DataFrames and ir_datasets objects.

:func:`dataset_from_object` turns any of these into a :class:`~bench.data.model.Dataset` with the
checks the file readers make (:mod:`bench.data.readers`), in the same words; an error names the
bad record (``corpus['d7']``, ``qrels row 12``) where a file error names the line.

Accepted forms:

- a dict ``{"corpus": ..., "queries": ..., "qrels": ...}`` or the tuple ``(corpus, queries, qrels)``
  that BEIR's ``GenericDataLoader.load`` returns. ``corpus``: ``{doc_id: {"title": .., "text": ..}}``
  or ``{doc_id: text}``; ``queries``: ``{query_id: text}`` or ``{query_id: {"text": .., "label": ..}}``;
  ``qrels``: ``{query_id: {doc_id: grade}}``;
- each of the three as a pandas DataFrame instead: corpus columns ``_id`` (or ``doc_id``,
  ``docno``), ``text``, optional ``title``; queries ``_id`` (or ``query_id``, ``qid``), ``text``,
  optional ``label``; qrels ``query-id`` / ``corpus-id`` / ``score`` (or ``query_id`` / ``doc_id``
  / ``relevance``, as ir_datasets, ir_measures and ranx name them);
- an ir_datasets dataset object (anything with ``docs_iter``, ``queries_iter`` and ``qrels_iter``).

The dataset is named by ``name`` (default ``"in-memory"``) and identified in result.json by its
content fingerprint, as every dataset is.
"""
from __future__ import annotations

from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple

from bench.core.errors import DataError
from bench.data.model import Dataset, Doc, Query
from bench.data.forms import dataset_form
from bench.data.readers import keep_judged_queries
from bench.data.validate import (Seen, check_document, check_grade, check_id, check_query, check_references,
                                 check_sizes, check_text, refuse_surrogates, require_fields, validate)

#: the name of a dataset given as an object when the caller gives none
DEFAULT_NAME = "in-memory"
_DOC_ID = ("_id", "doc_id", "docno", "corpus-id", "corpus_id", "did")
_QUERY_ID = ("_id", "query_id", "qid", "query-id")
_QREL_Q = ("query-id", "query_id", "qid")
_QREL_D = ("corpus-id", "corpus_id", "doc_id", "docno", "did")
_QREL_G = ("score", "relevance", "rel", "grade", "label")


def is_dataset_object(obj: Any) -> bool:
    """Whether ``obj`` is one of the in-memory forms (not a name or a path); a value of no form is
    refused here (:func:`bench.data.forms.dataset_form`)."""
    return dataset_form(obj) != "spec"


def dataset_from_object(obj: Any, name: Optional[str] = None, split: str = "test") -> Dataset:
    """A :class:`Dataset` from an in-memory form (module docstring), validated
    (:func:`bench.data.validate.validate`); a Dataset is validated and returned as is."""
    form = dataset_form(obj)
    if form == "dataset":
        validate(obj)
        return obj
    if form == "spec":
        raise DataError(f"{obj!r} names a dataset; it is not an in-memory form", "dataset",
                        fix="read it with bench.data.door.open_dataset")
    name = name or DEFAULT_NAME
    if form == "irds":
        return _from_irds(obj, name, split)
    if form == "tuple":
        parts = dict(zip(("corpus", "queries", "qrels"), obj))
    else:
        missing = [k for k in ("corpus", "queries", "qrels") if k not in obj]
        if missing:
            raise DataError(f"a dataset dict needs the keys corpus, queries and qrels; {', '.join(missing)} missing "
                            f"(keys given: {', '.join(map(str, obj)) or 'none'})", "dataset",
                            fix="give {'corpus': {...}, 'queries': {...}, 'qrels': {...}}")
        parts = {k: obj[k] for k in ("corpus", "queries", "qrels")}
    corpus = _corpus(parts["corpus"])
    queries = _queries(parts["queries"])
    qrels, where = _qrels(parts["qrels"])
    check_references(qrels, queries, corpus, lambda q, d: (where[q, d], None))
    out = Dataset(name, corpus, keep_judged_queries(queries, qrels), qrels, split, f"python:{type(obj).__name__}")
    validate(out)
    return out


# --------------------------------------------------------------------------------------------
# records of each part, from a dict or a DataFrame


def _is_frame(obj: Any) -> bool:
    return hasattr(obj, "columns") and hasattr(obj, "to_dict") and hasattr(obj, "iloc")


class _Rows:
    """Records read from an iterator (an ir_datasets object's ``docs_iter()`` ...) as a DataFrame's
    rows are read: in order, every record kept, so a repeated id is a duplicate, never a silent
    replacement of the first by the last."""

    def __init__(self, rows: List[dict], label: str):
        self.rows, self.label = rows, label
        self.columns = list(dict.fromkeys(k for r in rows[:1] for k in r))

    def to_dict(self, _orient: str) -> List[dict]:
        return self.rows


def _rows_of(obj: Any) -> List[dict]:
    return obj.to_dict("records")


def _row_label(obj: Any, part: str, i: int) -> str:
    return f"{obj.label} record {i}" if isinstance(obj, _Rows) else f"{part} row {i}"


def _column(frame: Any, names: Tuple[str, ...], part: str, what: str) -> Optional[str]:
    for n in names:
        if n in frame.columns:
            return n
    if what:
        raise DataError(f"no {what} column (one of {', '.join(names)}; columns given: "
                        f"{', '.join(map(str, frame.columns))})", part, fix=f"name the {what} column {names[0]!r}")
    return None


def _records(obj: Any, part: str, id_names: Tuple[str, ...]) -> Iterator[Tuple[str, Any, Any]]:
    """``(where, raw id, value)`` for each record: a dict's items, or a DataFrame's rows (as dicts)."""
    if _is_frame(obj) or isinstance(obj, _Rows):
        col = _column(obj, id_names, part, "id")
        for i, row in enumerate(_rows_of(obj)):
            yield _row_label(obj, part, i), row.get(col), row
        return
    if not isinstance(obj, Mapping):
        raise DataError(f"expected a dict or a pandas DataFrame, got {type(obj).__name__}", part,
                        fix=f"give {part} as {{id: ...}} or a DataFrame")
    for key, value in obj.items():
        yield f"{part}[{key!r}]", key, value


def _unique(obj: Any, part: str, id_keys, what: str, form: str):
    """(where, id, record dict) of each record of ``part``: ids unique, a bare text read as ``{"text": ...}``."""
    seen = Seen(part, what)
    for where, raw, value in _records(obj, part, id_keys):
        rid = check_id(raw, (where, None))
        seen.add(rid, where)
        record = {"text": value} if isinstance(value, str) else value
        if not isinstance(record, Mapping):
            raise DataError(f"a {what} must be a text or {form}, got {type(value).__name__}", where)
        require_fields(record, ("text",), what, (where, None))
        yield where, rid, record


def _corpus(obj: Any) -> Dict[str, Doc]:
    corpus: Dict[str, Doc] = {}
    for where, did, record in _unique(obj, "corpus", _DOC_ID, "document", "a dict with 'title' and 'text'"):
        title = check_text(record.get("title"), (where, None), "title")
        text = check_text(record.get("text"), (where, None))
        check_document(did, title, text, (where, None))
        corpus[did] = Doc(title.strip(), text.strip())
    if not corpus:
        raise DataError("no documents", "corpus", fix="the corpus is empty")
    return corpus


def _queries(obj: Any) -> Dict[str, Query]:
    queries: Dict[str, Query] = {}
    for where, qid, record in _unique(obj, "queries", _QUERY_ID, "query", "a dict with 'text'"):
        text = check_text(record.get("text"), (where, None))
        check_query(qid, text, (where, None))
        label = next((str(record[k]) for k in ("class", "label", "category") if record.get(k) not in (None, "")), None)
        if label is not None:
            refuse_surrogates(label, "the class label", (where, None))
        queries[qid] = Query(text.strip(), label)
    return queries


def _qrels(obj: Any) -> Tuple[Dict[str, Dict[str, int]], Dict[Tuple[str, str], str]]:
    qrels: Dict[str, Dict[str, int]] = {}
    where: Dict[Tuple[str, str], str] = {}

    def add(qid: str, did: str, grade: int, at: str) -> None:
        if (qid, did) in where:
            raise DataError(f"duplicate judgment for query {qid!r}, document {did!r} (first at {where[qid, did]})", at,
                            fix="keep one judgment per pair")
        where[qid, did] = at
        qrels.setdefault(qid, {})[did] = grade

    if _is_frame(obj) or isinstance(obj, _Rows):
        cq, cd = _column(obj, _QREL_Q, "qrels", "query id"), _column(obj, _QREL_D, "qrels", "document id")
        cg = _column(obj, _QREL_G, "qrels", "grade")
        for i, row in enumerate(_rows_of(obj)):
            at = _row_label(obj, "qrels", i)
            add(check_id(row.get(cq), (at, None), cq), check_id(row.get(cd), (at, None), cd),
                check_grade(row.get(cg), (at, None)), at)
    elif isinstance(obj, Mapping):
        for rq, docs in obj.items():
            if not isinstance(docs, Mapping):
                raise DataError(f"expected {{doc_id: grade}}, got {type(docs).__name__}", f"qrels[{rq!r}]")
            for rd, g in docs.items():
                at = f"qrels[{rq!r}][{rd!r}]"
                add(check_id(rq, (at, None), "query id"), check_id(rd, (at, None), "document id"),
                    check_grade(g, (at, None)), at)
    else:
        raise DataError(f"expected a dict or a pandas DataFrame, got {type(obj).__name__}", "qrels",
                        fix="give qrels as {query_id: {doc_id: grade}} or a DataFrame")
    check_sizes(1, qrels, ("qrels", None))
    return qrels, where


def irds_parts(ds: Any) -> Dict[str, Any]:
    """The corpus, queries and qrels of an ir_datasets dataset object as record lists, read in
    order (every record kept: a repeated id is reported as a duplicate)."""
    def text_of(rec: Any) -> Any:
        text = getattr(rec, "text", None)
        if text is None and hasattr(rec, "default_text"):
            text = rec.default_text()
        return text

    docs = [{"doc_id": d.doc_id, "title": getattr(d, "title", None), "text": text_of(d)} for d in ds.docs_iter()]
    queries = [{"query_id": q.query_id, "text": text_of(q)} for q in ds.queries_iter()]
    qrels = [{"query_id": r.query_id, "doc_id": r.doc_id, "relevance": r.relevance} for r in ds.qrels_iter()]
    return {"corpus": _Rows(docs, "docs_iter()"), "queries": _Rows(queries, "queries_iter()"),
            "qrels": _Rows(qrels, "qrels_iter()")}


def _from_irds(ds: Any, name: str, split: str) -> Dataset:
    """An ir_datasets dataset object (its records checked as the dict form's are)."""
    label = getattr(ds, "dataset_id", None)
    parts = irds_parts(ds)
    out = dataset_from_object((parts["corpus"], parts["queries"], parts["qrels"]), name, split)
    out.source = f"ir_datasets:{label() if callable(label) else type(ds).__name__}"
    return out
