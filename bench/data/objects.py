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

from typing import Any, Dict, Iterator, Mapping, Optional, Tuple

from bench.core.errors import DataError
from bench.data.model import Dataset, Doc, Query
from bench.core.io import refuse_invisible
from bench.data.readers import keep_judged_queries

#: the name of a dataset given as an object when the caller gives none
DEFAULT_NAME = "in-memory"
_DOC_ID = ("_id", "doc_id", "docno", "corpus-id", "corpus_id", "did")
_QUERY_ID = ("_id", "query_id", "qid", "query-id")
_QREL_Q = ("query-id", "query_id", "qid")
_QREL_D = ("corpus-id", "corpus_id", "doc_id", "docno", "did")
_QREL_G = ("score", "relevance", "rel", "grade", "label")


def is_dataset_object(obj: Any) -> bool:
    """Whether ``obj`` is one of the in-memory forms (not a name or a path)."""
    if isinstance(obj, Dataset):
        return True
    if isinstance(obj, Mapping):
        return True
    if isinstance(obj, tuple) and len(obj) == 3:
        return True
    return all(hasattr(obj, m) for m in ("docs_iter", "queries_iter", "qrels_iter"))


def dataset_from_object(obj: Any, name: Optional[str] = None, split: str = "test") -> Dataset:
    """A :class:`Dataset` from an in-memory form (module docstring); a Dataset is returned as is."""
    if isinstance(obj, Dataset):
        return obj
    name = name or DEFAULT_NAME
    if all(hasattr(obj, m) for m in ("docs_iter", "queries_iter", "qrels_iter")) and not isinstance(obj, Mapping):
        return _from_irds(obj, name, split)
    if isinstance(obj, tuple) and len(obj) == 3:
        parts = dict(zip(("corpus", "queries", "qrels"), obj))
    elif isinstance(obj, Mapping):
        missing = [k for k in ("corpus", "queries", "qrels") if k not in obj]
        if missing:
            raise DataError(f"a dataset dict needs the keys corpus, queries and qrels; {', '.join(missing)} missing "
                            f"(keys given: {', '.join(map(str, obj)) or 'none'})", "dataset",
                            fix="give {'corpus': {...}, 'queries': {...}, 'qrels': {...}}")
        parts = {k: obj[k] for k in ("corpus", "queries", "qrels")}
    else:
        raise DataError(f"cannot read a dataset from a {type(obj).__name__}", "dataset",
                        fix="give a registered name, a folder, a dict of corpus / queries / qrels (dicts or pandas "
                            "DataFrames) or an ir_datasets dataset object")
    corpus = _corpus(parts["corpus"])
    queries = _queries(parts["queries"])
    qrels, where = _qrels(parts["qrels"])
    for qid, docs in qrels.items():
        for did in docs:
            if qid not in queries:
                raise DataError(f"judgment names unknown query {qid!r}", where[qid, did],
                                fix="add the query to the queries or remove the judgment")
            if did not in corpus:
                raise DataError(f"judgment names unknown document {did!r}", where[qid, did],
                                fix="add the document to the corpus or remove the judgment")
    return Dataset(name, corpus, keep_judged_queries(queries, qrels), qrels, split, f"python:{type(obj).__name__}")


# --------------------------------------------------------------------------------------------
# records of each part, from a dict or a DataFrame


def _is_frame(obj: Any) -> bool:
    return hasattr(obj, "columns") and hasattr(obj, "to_dict") and hasattr(obj, "iloc")


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
    if _is_frame(obj):
        col = _column(obj, id_names, part, "id")
        for i, row in enumerate(obj.to_dict("records")):
            yield f"{part} row {i}", row.get(col), row
        return
    if not isinstance(obj, Mapping):
        raise DataError(f"expected a dict or a pandas DataFrame, got {type(obj).__name__}", part,
                        fix=f"give {part} as {{id: ...}} or a DataFrame")
    for key, value in obj.items():
        yield f"{part}[{key!r}]", key, value


def _id(raw: Any, where: str, key: str = "id") -> str:
    if isinstance(raw, bool) or not isinstance(raw, (str, int)):
        raise DataError(f"field {key!r} must be a string or integer, got {type(raw).__name__}", where)
    value = str(raw).strip()
    if not value:
        raise DataError(f"empty {key!r}", where, fix="give every record a non-empty id")
    return value


def _text(record: Mapping, key: str, where: str) -> str:
    value = record.get(key, "")
    if value is None or (isinstance(value, float) and value != value):  # None, or a DataFrame's NaN
        return ""
    if not isinstance(value, str):
        raise DataError(f"field {key!r} must be a string, got {type(value).__name__}", where)
    return value


def _unique(obj: Any, part: str, id_keys, what: str, form: str):
    """(where, id, record dict) of each record of ``part``: ids unique, a bare text read as ``{"text": ...}``."""
    first: Dict[str, str] = {}
    for where, raw, value in _records(obj, part, id_keys):
        rid = _id(raw, where)
        if rid in first:
            raise DataError(f"duplicate {what} id {rid!r} (first at {first[rid]})", where, fix=f"make {what} ids unique")
        first[rid] = where
        record = {"text": value} if isinstance(value, str) else value
        if not isinstance(record, Mapping):
            raise DataError(f"a {what} must be a text or {form}, got {type(value).__name__}", where)
        yield where, rid, record


def _corpus(obj: Any) -> Dict[str, Doc]:
    corpus: Dict[str, Doc] = {}
    for where, did, record in _unique(obj, "corpus", _DOC_ID, "document", "a dict with 'title' and 'text'"):
        title, text = _text(record, "title", where), _text(record, "text", where)
        if not title.strip() and not text.strip():
            raise DataError(f"document {did!r} has an empty title and text", where,
                            fix="remove the record or give it text")
        corpus[did] = Doc(title.strip(), text.strip())
    if not corpus:
        raise DataError("no documents", "corpus", fix="the corpus is empty")
    return corpus


def _queries(obj: Any) -> Dict[str, Query]:
    queries: Dict[str, Query] = {}
    for where, qid, record in _unique(obj, "queries", _QUERY_ID, "query", "a dict with 'text'"):
        text = _text(record, "text", where)
        refuse_invisible(text, f"query {qid!r}", where, None)
        label = next((str(record[k]) for k in ("class", "label", "category") if record.get(k) not in (None, "")), None)
        queries[qid] = Query(text.strip(), label)
    return queries


def _grade(raw: Any, where: str) -> int:
    if isinstance(raw, bool):
        raw = int(raw)
    try:
        as_float = float(raw)
    except (TypeError, ValueError):
        as_float = None
    if as_float is None or as_float != as_float or as_float != int(as_float):
        raise DataError(f"relevance grade {raw!r} is not an integer", where, fix="use integer grades (0 = not relevant)")
    return int(as_float)


def _qrels(obj: Any) -> Tuple[Dict[str, Dict[str, int]], Dict[Tuple[str, str], str]]:
    qrels: Dict[str, Dict[str, int]] = {}
    where: Dict[Tuple[str, str], str] = {}

    def add(qid: str, did: str, grade: int, at: str) -> None:
        if (qid, did) in where:
            raise DataError(f"duplicate judgment for query {qid!r}, document {did!r} (first at {where[qid, did]})", at,
                            fix="keep one judgment per pair")
        where[qid, did] = at
        qrels.setdefault(qid, {})[did] = grade

    if _is_frame(obj):
        cq, cd = _column(obj, _QREL_Q, "qrels", "query id"), _column(obj, _QREL_D, "qrels", "document id")
        cg = _column(obj, _QREL_G, "qrels", "grade")
        for i, row in enumerate(obj.to_dict("records")):
            at = f"qrels row {i}"
            add(_id(row.get(cq), at, cq), _id(row.get(cd), at, cd), _grade(row.get(cg), at), at)
    elif isinstance(obj, Mapping):
        for rq, docs in obj.items():
            if not isinstance(docs, Mapping):
                raise DataError(f"expected {{doc_id: grade}}, got {type(docs).__name__}", f"qrels[{rq!r}]")
            for rd, g in docs.items():
                at = f"qrels[{rq!r}][{rd!r}]"
                add(_id(rq, at, "query id"), _id(rd, at, "document id"), _grade(g, at), at)
    else:
        raise DataError(f"expected a dict or a pandas DataFrame, got {type(obj).__name__}", "qrels",
                        fix="give qrels as {query_id: {doc_id: grade}} or a DataFrame")
    if not qrels:
        raise DataError("no judgments", "qrels", fix="the qrels are empty")
    return qrels, where


def _from_irds(ds: Any, name: str, split: str) -> Dataset:
    """An ir_datasets dataset object (its records checked as the dict form's are)."""
    def text_of(rec: Any) -> str:
        text = getattr(rec, "text", None)
        if text is None and hasattr(rec, "default_text"):
            text = rec.default_text()
        return text or ""

    corpus = {d.doc_id: {"title": getattr(d, "title", "") or "", "text": text_of(d)} for d in ds.docs_iter()}
    queries = {q.query_id: {"text": text_of(q)} for q in ds.queries_iter()}
    qrels: Dict[str, Dict[str, Any]] = {}
    for r in ds.qrels_iter():
        qrels.setdefault(r.query_id, {})[r.doc_id] = r.relevance
    label = getattr(ds, "dataset_id", None)
    out = dataset_from_object({"corpus": corpus, "queries": queries, "qrels": qrels}, name, split)
    out.source = f"ir_datasets:{label() if callable(label) else type(ds).__name__}"
    return out
