"""Readers of test-collection files, each validating its input and raising
:class:`bench.core.errors.DataError` naming the file, the 1-based line and the fix: BEIR folders,
MS MARCO-style folders (TREC files: bench.data.trec), and streaming corpus readers for the scale-out path."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Dict, Iterator, List, Mapping, Optional, Tuple

from bench.core.errors import DataError
from bench.data.model import Dataset, Doc, Query
from bench.data.validate import (Seen, check_document, check_grade, check_id,
                                 check_query, check_references, check_sizes, check_text, refuse_surrogates,
                                 require_fields)


def read_lines(path: Path) -> Iterator[Tuple[int, str]]:
    """Yield (1-based line number, line without newline); bad UTF-8 is an error naming the line."""
    if not path.exists():
        raise DataError("file not found", str(path), fix="check the path or the dataset layout")
    if path.is_dir():
        raise DataError("a folder, not a file", str(path), fix="give the file (check the path or the dataset layout)")
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DataError(
                    f"not valid UTF-8 (byte {exc.start}: {raw[exc.start:exc.start + 1]!r})",
                    str(path),
                    lineno,
                    fix="re-encode the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)",
                ) from None
            if lineno == 1 and line.startswith("\ufeff"):
                line = line[1:]
            yield lineno, line.rstrip("\r\n")


def _read_jsonl(path: Path) -> Iterator[Tuple[int, dict]]:
    for lineno, line in read_lines(path):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(f"malformed JSON ({exc.msg} at column {exc.colno})", str(path), lineno,
                            fix="each line must be one JSON object") from None
        if not isinstance(obj, dict):
            raise DataError("expected a JSON object", str(path), lineno, fix="each line must be one JSON object")
        yield lineno, obj


def _require_id(obj: dict, key: str, path: Path, lineno: int) -> str:
    if key not in obj:
        raise DataError(f"missing field {key!r}", str(path), lineno, fix=f"give every record an {key!r}")
    return check_id(obj[key], (str(path), lineno), key)


def _text_field(obj: dict, key: str, path: Path, lineno: int) -> str:
    return check_text(obj.get(key), (str(path), lineno), key)


def _beir_docs(path: Path) -> Iterator[Tuple[str, "Doc"]]:
    """Validated ``(doc id, Doc)`` records of a BEIR ``corpus.jsonl`` in file order; an empty
    corpus is an error (raised once the file is read)."""
    seen = Seen(path, "document")
    for lineno, obj in _read_jsonl(path):
        did = _require_id(obj, "_id", path, lineno)
        seen.add(did, lineno)
        require_fields(obj, ("text",), "document", (str(path), lineno))
        title, text = _text_field(obj, "title", path, lineno), _text_field(obj, "text", path, lineno)
        check_document(did, title, text, (str(path), lineno))
        yield did, Doc(title.strip(), text.strip())
    if not seen.lines:
        raise DataError("no documents", str(path), fix="the corpus file is empty")


def read_beir_corpus(path: Path) -> Dict[str, Doc]:
    return dict(_beir_docs(path))


_LABEL_KEYS = ("class", "label", "category")


def _label_of(obj: dict) -> Optional[str]:
    for key in _LABEL_KEYS:
        if obj.get(key) not in (None, ""):
            return str(obj[key])
    meta = obj.get("metadata")
    if isinstance(meta, dict):
        for key in _LABEL_KEYS:
            if meta.get(key) not in (None, ""):
                return str(meta[key])
    return None


def read_beir_queries(path: Path) -> Dict[str, Query]:
    queries: Dict[str, Query] = {}
    seen = Seen(path, "query")
    for lineno, obj in _read_jsonl(path):
        qid = _require_id(obj, "_id", path, lineno)
        seen.add(qid, lineno)
        require_fields(obj, ("text",), "query", (str(path), lineno))
        text = _text_field(obj, "text", path, lineno)
        check_query(qid, text, (str(path), lineno))
        label = _label_of(obj)
        if label is not None:
            refuse_surrogates(label, "the class label", (str(path), lineno))
        queries[qid] = Query(text.strip(), label)
    return queries


QrelLines = Dict[Tuple[str, str], int]


def parse_grade(text, path, lineno=None) -> int:
    """A relevance grade (:func:`bench.data.validate.check_grade`), the error naming the file and line."""
    return check_grade(text, (str(path), lineno))


def read_qrels(path: Path) -> Tuple[Dict[str, Dict[str, int]], QrelLines]:
    """Read qrels: BEIR TSV (``query-id corpus-id score`` with a header) or TREC
    (``qid iter docid rel``). Duplicate (query, doc) pairs are an error. Returns the qrels and
    the line of each judgment (for later error messages)."""
    qrels: Dict[str, Dict[str, int]] = {}
    where: Dict[Tuple[str, str], int] = {}
    for lineno, line in read_lines(path):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split("\t") if "\t" in line else line.split()
        if lineno == 1 and parts and parts[0].strip().lower() in ("query-id", "query_id", "qid", "query"):
            continue
        if len(parts) == 4:
            qid, _iter, did, grade_s = (p.strip() for p in parts)
        elif len(parts) == 3:
            qid, did, grade_s = (p.strip() for p in parts)
        else:
            raise DataError(f"expected 3 columns (query-id, corpus-id, score) or 4 (TREC: qid iter docid rel), "
                            f"got {len(parts)}", str(path), lineno, fix="fix the row's columns")
        grade = parse_grade(grade_s, path, lineno)
        if not qid or not did:
            raise DataError("empty query or document id", str(path), lineno)
        if (qid, did) in where:
            raise DataError(f"duplicate judgment for query {qid!r}, document {did!r} (first at line {where[qid, did]})",
                            str(path), lineno, fix="keep one judgment per pair")
        where[qid, did] = lineno
        qrels.setdefault(qid, {})[did] = grade
    if not qrels:
        raise DataError("no judgments", str(path), fix="the qrels file is empty")
    check_sizes(1, qrels, (str(path), None))
    return qrels, where


def check_qrels(qrels: Dict[str, Dict[str, int]], queries: Mapping[str, Query], corpus: Mapping[str, Doc],
                path: Path, where: QrelLines) -> None:
    """Every judged query and document must exist; names the qrels line of the first that does not."""
    check_references(qrels, queries, corpus, lambda q, d: (str(path), where.get((q, d))))


def keep_judged_queries(queries: Dict[str, Query], qrels: Dict[str, Dict[str, int]]) -> Dict[str, Query]:
    """Keep the queries that the split judges (BEIR: queries.jsonl holds every split's queries)."""
    return {qid: q for qid, q in queries.items() if qid in qrels}


_SPLIT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def check_split(split: str, folder: Path) -> str:
    """A split is a plain name (``test``, ``dev.small``), never a path: files are read only from inside the folder."""
    if not isinstance(split, str) or not _SPLIT.fullmatch(split) or ".." in split:
        raise DataError(f"--split {split!r} is not a split name: it names a file inside the dataset folder and may "
                        f"not hold a path ('/', '\\', '..')", str(folder), fix="give a plain name: test, dev, train")
    return split


def check_folder(folder: Path) -> Path:
    if Path(folder).expanduser().is_file():
        raise DataError("is a file; give the folder", str(folder), fix=f"--dataset {Path(folder).parent}")
    return Path(folder).expanduser()


def load_beir(folder: Path, split: str = "test", name: Optional[str] = None) -> Dataset:
    folder = check_folder(folder)
    if not folder.is_dir():
        raise DataError("no such dataset folder", str(folder), fix="check the path")
    check_split(split, folder)
    qrels_path = folder / "qrels" / f"{split}.tsv"
    if not qrels_path.exists():
        available = sorted(p.stem for p in (folder / "qrels").glob("*.tsv")) if (folder / "qrels").is_dir() else []
        raise DataError(f"no qrels for split {split!r}", str(qrels_path),
                        fix=f"choose --split from {available}" if available else "add qrels/<split>.tsv")
    corpus = read_beir_corpus(folder / "corpus.jsonl")
    queries = read_beir_queries(folder / "queries.jsonl")
    qrels, where = read_qrels(qrels_path)
    check_qrels(qrels, queries, corpus, qrels_path, where)
    return Dataset(name or folder.name, corpus, keep_judged_queries(queries, qrels), qrels, split, str(folder))


# --------------------------------------------------------------------------------------------
# MS MARCO-style TSV and TREC files


def _tsv_pairs(path: Path, what: str) -> Iterator[Tuple[str, str]]:
    """Validated ``id<TAB>text`` lines in file order (duplicate ids are errors)."""
    seen = Seen(path, what)
    for lineno, line in read_lines(path):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) < 2:
            raise DataError(f"expected '{what}-id<TAB>text', found no tab", str(path), lineno,
                            fix="separate the id and the text with a tab")
        key, text = parts[0].strip(), "\t".join(parts[1:]).strip()
        if not key:
            raise DataError(f"empty {what} id", str(path), lineno)
        text = check_text(text, (str(path), lineno))
        check_id(key, (str(path), lineno), f"{what} id")
        if what == "query":
            check_query(key, text, (str(path), lineno))
        else:
            check_document(key, "", text, (str(path), lineno))
        seen.add(key, lineno)
        yield key, text


def read_tsv_pairs(path: Path, what: str) -> Dict[str, str]:
    """``id<TAB>text`` lines (MS MARCO collection / queries)."""
    return dict(_tsv_pairs(path, what))


def load_msmarco(folder: Path, split: str = "dev", name: Optional[str] = None) -> Dataset:
    folder = check_folder(folder)
    check_split(split, folder)
    corpus = {k: Doc("", v) for k, v in read_tsv_pairs(folder / "collection.tsv", "passage").items()}
    queries = {k: Query(v) for k, v in read_tsv_pairs(folder / f"queries.{split}.tsv", "query").items()}
    qrels_path = folder / f"qrels.{split}.tsv"
    qrels, where = read_qrels(qrels_path)
    check_qrels(qrels, queries, corpus, qrels_path, where)
    return Dataset(name or folder.name, corpus, keep_judged_queries(queries, qrels), qrels, split, str(folder))


# --------------------------------------------------------------------------------------------
# streaming corpus readers (the scale path: never every text in memory)


def iter_beir_docs(path: Path) -> Iterator[Tuple[str, str]]:
    """``(doc id, text the encoder sees)`` of a BEIR ``corpus.jsonl`` in file order, with the
    validation of :func:`read_beir_corpus` (same errors, same lines); keeps only the ids seen."""
    for did, doc in _beir_docs(Path(path)):
        yield did, doc.full_text()


def iter_tsv_docs(path: Path, what: str = "passage") -> Iterator[Tuple[str, str]]:
    """``(id, text)`` of an MS MARCO-style ``collection.tsv`` in file order, with the validation of
    :func:`read_tsv_pairs` (same errors, same lines); an empty file is an error."""
    path = Path(path)
    n = 0
    for key, text in _tsv_pairs(path, what):
        n += 1
        yield key, text
    if not n:
        raise DataError("no documents", str(path), fix="the corpus file is empty")


def corpus_file(spec: str) -> Path:
    """The corpus file of a BEIR or MS MARCO-style folder (``beir:DIR``, ``msmarco:DIR``, a folder
    path, or the corpus file itself)."""
    for prefix in ("beir:", "msmarco:"):
        if spec.startswith(prefix):
            spec = spec[len(prefix):]
    path = Path(spec).expanduser()
    if path.is_file():
        return path
    for name in ("corpus.jsonl", "collection.tsv"):
        if (path / name).is_file():
            return path / name
    raise DataError("no corpus.jsonl (BEIR) or collection.tsv (MS MARCO) here", str(path),
                    fix="pass a BEIR or MS MARCO-style folder")


def iter_corpus_chunks(spec, chunk_size: int) -> Iterator[Tuple[List[str], List[str]]]:
    """A corpus file read in ``(ids, texts)`` chunks of ``chunk_size`` documents, in file order
    (``corpus.jsonl`` or ``collection.tsv``, see :func:`corpus_file`). Memory: one chunk of texts
    plus the ids read so far (for the duplicate check). Chunks of the shard size are exactly the
    shards of :mod:`bench.encoding.shards`."""
    if chunk_size < 1:
        raise ValueError("chunk_size must be positive")
    path = corpus_file(str(spec))
    docs = iter_beir_docs(path) if path.suffix == ".jsonl" else iter_tsv_docs(path)
    ids: List[str] = []
    texts: List[str] = []
    for did, text in docs:
        ids.append(did)
        texts.append(text)
        if len(ids) == chunk_size:
            yield ids, texts
            ids, texts = [], []
    if ids:
        yield ids, texts


# --------------------------------------------------------------------------------------------
# ir_datasets
