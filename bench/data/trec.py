"""TREC files (SGML topics and documents, or id<TAB>text) and ``trec:corpus=..,topics=..,qrels=..``
datasets, each validating its input and raising :class:`bench.core.errors.DataError` naming the
file, the 1-based line and the fix."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, Iterator, Optional, Tuple

from bench.core.errors import DataError
from bench.data.model import Dataset, Doc, Query
from bench.data.readers import (Seen, check_qrels, keep_judged_queries, read_beir_corpus, read_lines, read_qrels,
                                read_tsv_pairs)

_TAG = re.compile(r"<(/?)(\w+)>", re.I)


def _sgml_records(path: Path, record: str) -> Iterator[Tuple[int, Dict[str, str]]]:
    """Parse TREC SGML records (<top>...</top>, <DOC>...</DOC>) into {field: text}."""
    current: Optional[Dict[str, List[str]]] = None
    field_name: Optional[str] = None
    start = 0
    for lineno, line in read_lines(path):
        pos = 0
        for m in _TAG.finditer(line):
            chunk = line[pos:m.start()]
            if current is not None and field_name and chunk.strip():
                current.setdefault(field_name, []).append(chunk.strip())
            closing, tag = m.group(1) == "/", m.group(2).lower()
            pos = m.end()
            if tag == record:
                if closing:
                    if current is None:
                        raise DataError(f"</{record}> without <{record}>", str(path), lineno)
                    yield start, {k: " ".join(v) for k, v in current.items()}
                    current, field_name = None, None
                else:
                    if current is not None:
                        raise DataError(f"<{record}> opened inside another (started at line {start})", str(path), lineno,
                                        fix=f"close the previous record with </{record}>")
                    current, field_name, start = {}, None, lineno
            elif current is not None:
                field_name = None if closing else tag
        rest = line[pos:]
        if current is not None and field_name and rest.strip():
            current.setdefault(field_name, []).append(rest.strip())
    if current is not None:
        raise DataError(f"<{record}> started here is never closed", str(path), start, fix=f"add </{record}>")


def read_trec_topics(path: Path, field_name: str = "title") -> Dict[str, Query]:
    path = Path(path)
    first = next((line for _, line in read_lines(path) if line.strip()), "")
    if "<top>" not in first.lower():
        return {k: Query(v) for k, v in read_tsv_pairs(path, "query").items()}
    topics: Dict[str, Query] = {}
    seen = Seen(path, "topic")
    for lineno, rec in _sgml_records(path, "top"):
        num = re.sub(r"^\s*Number:\s*", "", rec.get("num", ""), flags=re.I).strip()
        text = re.sub(r"^\s*Topic:\s*", "", rec.get(field_name, ""), flags=re.I).strip()
        if not num:
            raise DataError("topic without <num>", str(path), lineno, fix="give every <top> a <num>")
        if not text:
            raise DataError(f"topic {num!r} has no <{field_name}> text", str(path), lineno)
        seen.add(num, lineno)
        topics[num] = Query(text)
    return topics


def read_trec_corpus(path: Path) -> Dict[str, Doc]:
    path = Path(path)
    if path.suffix == ".jsonl":
        return read_beir_corpus(path)
    first = next((line for _, line in read_lines(path) if line.strip()), "")
    if "<doc>" not in first.lower():
        return {k: Doc("", v) for k, v in read_tsv_pairs(path, "document").items()}
    corpus: Dict[str, Doc] = {}
    seen = Seen(path, "document")
    for lineno, rec in _sgml_records(path, "doc"):
        did = rec.get("docno", "").strip()
        if not did:
            raise DataError("document without <DOCNO>", str(path), lineno)
        title, text = rec.get("title", "").strip(), rec.get("text", "").strip()
        if not title and not text:
            raise DataError(f"document {did!r} has no <TITLE> or <TEXT>", str(path), lineno)
        seen.add(did, lineno)
        corpus[did] = Doc(title, text)
    return corpus


TREC_KEYS = ("corpus", "topics", "qrels", "field")


def load_trec(spec: str, split: str = "test", name: Optional[str] = None) -> Dataset:
    """``corpus=PATH,topics=PATH,qrels=PATH`` (the part after ``trec:``)."""
    parts = dict(p.split("=", 1) for p in spec.split(",") if "=" in p)
    words = [p for p in spec.split(",") if p.strip() and "=" not in p]
    unknown = [k for k in parts if k not in TREC_KEYS] + words
    if unknown:
        import difflib

        close = difflib.get_close_matches(unknown[0].partition("=")[0], TREC_KEYS, n=1)
        raise DataError(f"trec dataset spec: unknown key {unknown[0]!r}" + (f"; did you mean {close[0]!r}?" if close
                                                                            else "")
                        + f" (keys: {', '.join(TREC_KEYS)})", fix="write trec:corpus=PATH,topics=PATH,qrels=PATH"
                                                                  "[,field=title|desc|narr]")
    missing = [k for k in ("corpus", "topics", "qrels") if k not in parts]
    if missing:
        raise DataError(f"trec dataset spec {spec!r} lacks {', '.join(missing)}",
                        fix="write trec:corpus=PATH,topics=PATH,qrels=PATH")
    corpus = read_trec_corpus(Path(parts["corpus"]))
    queries = read_trec_topics(Path(parts["topics"]), parts.get("field", "title"))
    qrels, where = read_qrels(Path(parts["qrels"]))
    check_qrels(qrels, queries, corpus, Path(parts["qrels"]), where)
    return Dataset(name or Path(parts["topics"]).stem, corpus, keep_judged_queries(queries, qrels), qrels, split,
                   f"trec:{spec}")
