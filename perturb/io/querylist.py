"""Plain query lists: the queries to perturb without a judged dataset.

- :func:`read_query_list`: a UTF-8 file with one query per line (ids ``q1``, ``q2``, ... by line
  number), or ``id<TAB>text`` on every line; blank lines are skipped. A bad line is a
  :class:`~bench.core.errors.DataError` naming the file, the line and the fix.
- :func:`query_items`: the queries of the Python API (a list of strings, a dict id -> text, or a
  list of ``(id, text)`` pairs) as the same ``(qid, text)`` items.
- :func:`generate_for`: the variation sets of the items, by the one generation path
  (:func:`perturb.io.generation.generate_all`) a dataset run uses, so the same (qid, text) gives
  the same variation whatever the queries came from.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, List, Optional, Sequence, Tuple

from bench.core.errors import BenchError, DataError
from perturb.io.sets import read_utf8

Items = List[Tuple[str, str]]


def _checked(items: Items, where) -> Items:
    """Refuse empty ids or texts and repeated ids (``where(i)``: the (source, line) of item i)."""
    seen = {}
    for i, (qid, text) in enumerate(items):
        src, line = where(i)
        if not qid:
            raise DataError("empty query id", src, line, "put the query id before the tab, or drop the tab")
        if not text.strip():
            raise DataError(f"query {qid!r} has no text", src, line, "give the query text after the tab")
        if qid in seen:
            raise DataError(f"query id {qid!r} repeats {seen[qid]}", src, line, "give every query its own id")
        seen[qid] = f"line {line}" if line else f"item {i}"
    return items


def read_query_list(path) -> Items:
    """(qid, text) of a query list file: every line ``id<TAB>text``, or every line a query."""
    path = Path(path)
    if not path.is_file():
        raise DataError("no such file", str(path), None, "give --queries a file with one query per line")
    _, content = read_utf8(path)
    lines = [(k, line.rstrip("\r")) for k, line in enumerate(content.split("\n"), start=1)]
    lines = [(k, line) for k, line in lines if line.strip()]
    if not lines:
        raise DataError("no queries", str(path), None, "write one query per line (or id<TAB>text)")
    tabbed = "\t" in lines[0][1]
    items, where = [], []
    for k, line in lines:
        if ("\t" in line) != tabbed:
            form = "id<TAB>text" if tabbed else "one query per line, no tab"
            raise DataError(f"this line {'has no' if tabbed else 'has a'} tab, but line {lines[0][0]} sets the "
                            f"form {form}", str(path), k,
                            "use one form for the whole file: every line id<TAB>text, or every line a query")
        if tabbed:
            qid, _, text = line.partition("\t")
            if "\t" in text:
                raise DataError("more than one tab", str(path), k, "one tab between the id and the text; none in the text")
            items.append((qid.strip(), text.strip()))
        else:
            items.append((f"q{k}", line.strip()))
        where.append(k)
    return _checked(items, lambda i: (str(path), where[i]))


def query_items(queries: Any) -> Items:
    """(qid, text) of the API's queries: strings (ids q1, q2, ...), a dict id -> text, or (id, text) pairs."""
    if isinstance(queries, str):
        queries = [queries]
    if isinstance(queries, dict):
        items = [(str(q), t) for q, t in queries.items()]
    else:
        try:
            queries = list(queries)
        except TypeError:
            raise BenchError(f"queries: a list of strings, a dict id -> text, or (id, text) pairs, not "
                             f"{type(queries).__name__}") from None
        if all(isinstance(q, str) for q in queries):
            items = [(f"q{i}", t) for i, t in enumerate(queries, start=1)]
        elif all(isinstance(q, (tuple, list)) and len(q) == 2 for q in queries):
            items = [(str(q), t) for q, t in queries]
        else:
            raise BenchError("queries: give a list of strings, a dict id -> text, or a list of (id, text) pairs "
                             "(not a mix)")
    bad = [i for i, (_, t) in enumerate(items) if not isinstance(t, str)]
    if bad:
        raise BenchError(f"queries: item {bad[0]} is {type(items[bad[0]][1]).__name__}, not text. Fix: give strings")
    if not items:
        raise BenchError("queries: the list is empty. Fix: give at least one query")
    return _checked([(q.strip(), t.strip()) for q, t in items], lambda i: ("queries", None))


def generate_for(items: Items, generators: Optional[Sequence[str]], seed: int, protocol: str):
    """The variation sets of ``items`` (generator names as the command takes them; None: all eight)."""
    from perturb import GENERATORS, PAPER_ORDER, PROTOCOLS
    from perturb.io.generation import generate_all

    if protocol not in PROTOCOLS:
        raise BenchError(f"protocol {protocol!r}: one of {', '.join(PROTOCOLS)}")
    if isinstance(generators, str):
        generators = generators.split(",")
    names = PAPER_ORDER if not generators else [GENERATORS.canonical(g.strip()) for g in generators if g.strip()]
    return generate_all(items, seed, names, protocol=protocol)


def sets_frame(sets) -> Any:
    """A pandas DataFrame of the generated sets: one row per (set, query): qid, set, text, applied.
    Sets that could not be generated are listed in ``frame.attrs["not_generated"]`` (name -> reason)."""
    import pandas as pd

    rows = [(q, vs.name, t, bool(a)) for vs in sets if vs.status == "ok"
            for q, t, a in zip(vs.qids, vs.texts, vs.applied)]
    frame = pd.DataFrame(rows, columns=["qid", "set", "text", "applied"])
    frame.attrs["not_generated"] = {vs.name: vs.reason for vs in sets if vs.status != "ok"}
    return frame
