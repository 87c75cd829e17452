"""The one validator of datasets: the checks every dataset form goes through, in the same words.

Every form (a BEIR or MS MARCO-style folder, TREC files, ``irds:`` ids, BEIR dicts and tuples,
pandas DataFrames, ir_datasets objects) enters through :func:`bench.data.door.open_dataset`. The
readers check each record as they read it with the functions here, so an error names the file
and line (``queries.jsonl:7``) or the record (``corpus['d7']``, ``qrels row 12``); the door then
runs :func:`validate` on the finished :class:`~bench.data.model.Dataset`, whatever built it. One
defect gives one message text in every form; only the place it names differs.

The rules:

- ids: a non-empty string or integer, unique within the corpus and within the queries;
- texts: strings (``None`` or a DataFrame's NaN read as empty); no lone surrogate code points
  (``\\ud800``: not text, no UTF-8 can hold it); a document needs a visible title or text, a query
  visible text (:func:`bench.core.io.visible`);
- required fields: a document record holds ``text`` (and optionally ``title``), a query record
  ``text``: a record or DataFrame without them is refused, naming the fields it has (a column
  ``body`` is not read as the text);
- grades: integers in :data:`MIN_GRADE` .. :data:`MAX_GRADE` (``2.0`` is 2); one judgment per
  (query, document) pair;
- references: every judgment names a query and a document of the dataset;
- sizes: at least one document, one query and one judgment of grade 1 or more.
"""
from __future__ import annotations

import math
from typing import Any, Dict, Mapping, Optional, Tuple

from bench.core.errors import DataError
from bench.core.io import visible

#: the accepted relevance grades (docs/methods.md): integers in this range. trec_eval holds grades in a
#: C int, and nDCG's gains are the grades: 2**32 wrapped to 0 (every metric 0.0000), 3e9 asked for
#: 34 GB; ``nan`` / ``inf`` / ``1e400`` were tracebacks.
MIN_GRADE, MAX_GRADE = -1000, 1000

#: where a record is: (file or record label, 1-based line or None)
Where = Tuple[str, Optional[int]]


def fail(message: str, where: Where, fix: str = "") -> DataError:
    return DataError(message, where[0], where[1], fix=fix)


def check_id(raw: Any, where: Where, key: str = "id") -> str:
    """A record id: a non-empty string or integer, returned stripped."""
    if isinstance(raw, bool) or not isinstance(raw, (str, int)):
        raise fail(f"field {key!r} must be a string or integer, got {type(raw).__name__}", where)
    value = str(raw).strip()
    if not value:
        raise fail(f"empty {key!r}", where, fix="give every record a non-empty id")
    refuse_surrogates(value, f"field {key!r}", where)
    return value


def check_text(raw: Any, where: Where, key: str = "text") -> str:
    """A text field: a string (``None`` and NaN are empty) without lone surrogates."""
    if raw is None or (isinstance(raw, float) and raw != raw):
        return ""
    if not isinstance(raw, str):
        raise fail(f"field {key!r} must be a string, got {type(raw).__name__}", where)
    refuse_surrogates(raw, f"field {key!r}", where)
    return raw


def refuse_surrogates(text: str, what: str, where: Where) -> None:
    """A lone surrogate code point (from a JSON ``\\u`` escape or a Python string) is not text."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start:exc.end].encode("unicode_escape", "backslashreplace").decode()
        raise fail(f"{what} holds a lone surrogate code point ({bad}), which is not text", where,
                   fix="remove it or write the character it was meant to be") from None


def require_fields(record: Mapping, needed: Tuple[str, ...], what: str, where: Where) -> None:
    """A record (a JSON object, a dict, a DataFrame's row) must hold one of ``needed``."""
    if not any(k in record for k in needed):
        given = ", ".join(map(str, record)) or "none"
        raise fail(f"a {what} needs a {' or '.join(repr(k) for k in needed)} field (fields given: {given})", where,
                   fix=f"name the field holding the {what}'s text {needed[0]!r}")


def check_document(did: str, title: str, text: str, where: Where) -> None:
    if not visible(title) and not visible(text):
        raise fail(f"document {did!r} has an empty title and text" +
                   (" (only invisible characters)" if (title + text).strip() else ""), where,
                   fix="remove the record or give it text")


def check_query(qid: str, text: str, where: Where) -> None:
    if not visible(text):
        raise fail(f"query {qid!r} has empty text" + (" (only invisible characters)" if text.strip() else ""), where,
                   fix="remove the record or give it text")


def check_grade(raw: Any, where: Where) -> int:
    """A relevance grade: an integer (``2``, ``2.0``, ``"2"``) in [MIN_GRADE, MAX_GRADE]."""
    if isinstance(raw, bool):
        raw = int(raw)
    text = str(raw).strip()
    try:
        grade = int(text)
    except ValueError:
        try:
            as_float = float(text)
        except ValueError:
            as_float = None
        if as_float is None or not math.isfinite(as_float) or as_float != int(as_float):
            raise fail(f"relevance grade {text!r} is not an integer", where,
                       fix="use integer grades (0 = not relevant)") from None
        grade = int(as_float)
    if not MIN_GRADE <= grade <= MAX_GRADE:
        raise fail(f"relevance grade {text!r} is outside the accepted range {MIN_GRADE}..{MAX_GRADE}", where,
                   fix="use the collection's grades (e.g. 0 = not relevant, 1, 2, 3)")
    return grade


def _label(where: Any) -> str:
    return f"line {where}" if isinstance(where, int) else str(where)


class Seen:
    """Duplicate-id detection naming both places (a line number or a record label)."""

    def __init__(self, path: Any, what: str):
        self.path, self.what, self.lines = path, what, {}

    def add(self, key: str, at: Any) -> None:
        """``at``: the 1-based line (files: the error names ``path:line``) or a record label."""
        if key in self.lines:
            where = (str(self.path), at) if isinstance(at, int) else (str(at), None)
            raise fail(f"duplicate {self.what} id {key!r} (first at {_label(self.lines[key])})", where,
                       fix=f"make {self.what} ids unique")
        self.lines[key] = at


def check_references(qrels: Dict[str, Dict[str, int]], queries: Mapping, corpus: Mapping, where_of) -> None:
    """Every judgment names a query and a document of the dataset; ``where_of(qid, did)``: its place."""
    for qid, docs in qrels.items():
        for did in docs:
            if qid not in queries:
                raise fail(f"judgment names unknown query {qid!r}", where_of(qid, did),
                           fix="add the query to the queries or remove the judgment")
            if did not in corpus:
                raise fail(f"judgment names unknown document {did!r}", where_of(qid, did),
                           fix="add the document to the corpus or remove the judgment")


def check_sizes(n_docs: int, qrels: Dict[str, Dict[str, int]], where: Where) -> None:
    if not n_docs:
        raise fail("no documents", where, fix="the corpus is empty")
    if not qrels:
        raise fail("no judgments", where, fix="the qrels are empty")
    if not any(g > 0 for docs in qrels.values() for g in docs.values()):
        n = sum(len(d) for d in qrels.values())
        raise fail(f"no judgment has a grade of 1 or more ({n} judgments, all 0 or negative): no query has a "
                   f"relevant document to evaluate", where,
                   fix="use the qrels of the split (grade >= 1 = relevant, 0 or negative = not relevant)")


def _plainly_fine(rid: Any, text: Any, title: Any = "", extra: Any = "") -> bool:
    """A fast test that passes the common record: str id and fields, encodable (no surrogates), the
    text (or a document's title) starting with a letter or digit; any other record gets the full
    checks and their message."""
    try:
        (rid + text + title + extra).encode("utf-8")
    except (TypeError, UnicodeEncodeError):
        return False
    return bool(rid) and rid.strip() == rid and (text[:1].isalnum() or title[:1].isalnum())


def validate(dataset) -> None:
    """The checks of the module docstring on a finished dataset, whatever form it came from (the
    readers made them record by record already; this holds them for every path into the suites)."""
    name = f"dataset {dataset.name}"
    for did, doc in dataset.corpus.items():
        if not _plainly_fine(did, doc.text, doc.title):
            where = (f"{name} corpus[{did!r}]", None)
            check_id(did, where)
            check_document(did, check_text(doc.title, where, "title"), check_text(doc.text, where), where)
    if not dataset.queries:
        raise fail("no queries", (name, None), fix="give queries (and judgments that name them)")
    for qid, query in dataset.queries.items():
        if not _plainly_fine(qid, query.text, "", query.label or ""):
            where = (f"{name} queries[{qid!r}]", None)
            check_id(qid, where)
            check_query(qid, check_text(query.text, where), where)
            if query.label is not None:
                refuse_surrogates(check_text(query.label, where, "label"), "the class label", where)
    for qid, docs in dataset.qrels.items():
        for did, grade in docs.items():
            if type(grade) is int and MIN_GRADE <= grade <= MAX_GRADE:
                continue
            where = (f"{name} qrels[{qid!r}][{did!r}]", None)
            if isinstance(grade, bool) or not isinstance(grade, int) or check_grade(grade, where) != grade:
                raise fail(f"relevance grade {grade!r} is not an integer", where,
                           fix="use integer grades (0 = not relevant)")
    check_references(dataset.qrels, dataset.queries, dataset.corpus,
                     lambda q, d: (f"{name} qrels[{q!r}][{d!r}]", None))
    check_sizes(len(dataset.corpus), dataset.qrels, (name, None))
