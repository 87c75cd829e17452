"""Datasets: a corpus (doc id -> title, text), queries (id -> text, optional class label) and
qrels (query id -> doc id -> grade) for one split.

Loaders (all validate their input and raise :class:`bench.core.errors.DataError` naming the file,
the 1-based line and the fix):

- a BEIR folder: ``corpus.jsonl``, ``queries.jsonl``, ``qrels/<split>.tsv``;
- an MS MARCO-style folder: ``collection.tsv``, ``queries.<split>.tsv``, ``qrels.<split>.tsv``;
- TREC files: ``trec:corpus=PATH,topics=PATH,qrels=PATH`` (topics in TREC SGML or
  ``qid<TAB>text``; corpus as TREC ``<DOC>`` SGML, ``docid<TAB>text`` or BEIR jsonl);
- ``irds:<id>`` through ir_datasets (the real adapter: data is read where it is present);
- ``chatterbot``: the embedded default built from the ``chatterbot-corpus`` package.

Dataset names resolve through the ``DATASETS`` registry (entry-point group
``drbench.datasets``); anything else is treated as a path.
"""
from __future__ import annotations

from pathlib import Path
from typing import Dict, Optional

from bench.core.errors import DataError
from bench.core.registry import Registry, UnknownName
from bench.data.model import Dataset, Doc, Query
from bench.core.io import visible
from bench.data.objects import dataset_from_object, irds_parts
from bench.data.readers import check_folder, load_beir, load_msmarco
from bench.data.validate import validate
from bench.data.trec import load_trec
from bench.core.errors import ResourceError


def load_irds(irds_id: str, name: Optional[str] = None) -> Dataset:
    """Adapter over ``ir_datasets.load(id)``; the split is part of the id (e.g. ``antique/test``).

    ir_datasets downloads missing data itself (online users); offline, a missing file is
    reported as an error naming the dataset, never a partial dataset.
    """
    try:
        import ir_datasets
    except ImportError:
        raise ResourceError("irds: datasets need ir_datasets. Install: pip install ir-datasets") from None
    try:
        ds = ir_datasets.load(irds_id)
    except KeyError:
        raise DataError(f"ir_datasets does not know {irds_id!r}", fix="see https://ir-datasets.com for ids") from None
    try:
        parts = irds_parts(ds)
    except (OSError, RuntimeError) as exc:  # download failures offline (several sources: RuntimeError)
        raise ResourceError(f"ir_datasets could not provide {irds_id!r}: {exc}. Offline, place the files where "
                            f"ir_datasets expects them ($IR_DATASETS_HOME) or use a BEIR folder.") from None
    # documents with no text are common in published collections: dropped (and said), as are their judgments
    rows = parts["corpus"].rows
    empty = {r["doc_id"] for r in rows if not visible(f"{r.get('title') or ''}{r.get('text') or ''}")}
    notes = [f"{len(empty)} documents with no text dropped"] if empty else []
    parts["corpus"].rows = [r for r in rows if r["doc_id"] not in empty]
    docs, queries = {r["doc_id"] for r in parts["corpus"].rows}, {r["query_id"] for r in parts["queries"].rows}
    judged = [r for r in parts["qrels"].rows if r["doc_id"] in docs and r["query_id"] in queries]
    if len(judged) < len(parts["qrels"].rows):
        notes.append(f"{len(parts['qrels'].rows) - len(judged)} judgments of documents or queries not in the "
                     f"collection dropped")
    parts["qrels"].rows = judged
    out = dataset_from_object((parts["corpus"], parts["queries"], parts["qrels"]), name or f"irds:{irds_id}",
                              irds_id.rsplit("/", 1)[-1])
    out.source, out.notes = f"irds:{irds_id}", notes
    return out


# --------------------------------------------------------------------------------------------
# chatterbot: the embedded default


def load_chatterbot(split: str = "test", name: str = "chatterbot") -> Dataset:
    """The English ChatterBot corpus as a retrieval task: question -> its answer.

    Each conversation ``[u0, u1, u2, u3, ...]`` gives the pairs (u0 -> u1), (u2 -> u3), ...
    Duplicates: answers with identical text (after collapsing white space) are one document;
    questions with identical text are one query whose relevant documents are all the answers
    it was given (grade 1). The class label is the category file (e.g. ``ai``, ``history``)
    where the question first appears; files are read in sorted order, so ids
    (``q0001``, ``a0001``) are stable for a given package version. Questions that appear in
    more than one category are counted in ``notes``. The whole collection is one split
    (``test``).
    """
    import yaml

    if split != "test":
        raise DataError(f"the chatterbot dataset has one split, test; --split {split!r} does not exist",
                        fix="leave out --split, or give --split test")
    try:
        import chatterbot_corpus
    except ImportError:
        from bench.core.errors import ResourceError

        raise ResourceError("the chatterbot dataset needs the chatterbot-corpus package. "
                            "Install: pip install chatterbot-corpus==1.3.3") from None
    folder = Path(chatterbot_corpus.__file__).parent / "data" / "english"
    answers: Dict[str, str] = {}
    questions: Dict[str, str] = {}
    labels: Dict[str, str] = {}
    qrels: Dict[str, Dict[str, int]] = {}
    multi_label = 0
    n_pairs = 0

    def norm(s) -> str:
        return " ".join(str(s).split())

    for path in sorted(folder.glob("*.yml")):
        with open(path, "r", encoding="utf-8") as fh:
            try:
                data = yaml.safe_load(fh)
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                raise DataError(f"malformed YAML: {exc}", str(path), mark.line + 1 if mark else None) from None
        category = path.stem
        for conv in data.get("conversations") or []:
            for i in range(0, len(conv) - 1, 2):
                q, a = norm(conv[i]), norm(conv[i + 1])
                if not q or not a:
                    continue
                n_pairs += 1
                if a not in answers:
                    answers[a] = f"a{len(answers) + 1:04d}"
                if q not in questions:
                    questions[q] = f"q{len(questions) + 1:04d}"
                    labels[questions[q]] = category
                elif labels[questions[q]] != category:
                    multi_label += 1
                qrels.setdefault(questions[q], {})[answers[a]] = 1
    corpus = {did: Doc("", text) for text, did in answers.items()}
    queries = {qid: Query(text, labels[qid]) for text, qid in questions.items()}
    notes = [f"{n_pairs} question->answer pairs; {len(questions)} unique questions; {len(answers)} unique answers",
             f"{multi_label} repeated questions seen in a second category (first category kept)"]
    return Dataset(name, corpus, queries, qrels, split, f"chatterbot-corpus:{folder}", notes)


# --------------------------------------------------------------------------------------------
# resolution


DATASETS: Registry = Registry("dataset", "drbench.datasets")
DATASETS.register("chatterbot", "bench.data.collections:load_chatterbot")


def load_dataset(spec: str, split: Optional[str] = None) -> Dataset:
    """Resolve a dataset name, ``irds:ID``, ``trec:...``, ``msmarco:DIR`` or a folder path; the
    dataset is checked by :func:`bench.data.validate.validate` whichever loader read it."""
    dataset = _load(spec, split)
    validate(dataset)
    return dataset


def _load(spec: str, split: Optional[str]) -> Dataset:
    if spec.startswith("irds:"):
        return load_irds(spec[5:])
    if spec.startswith("trec:"):
        if split not in (None, "test"):
            raise DataError(f"a trec: dataset has one qrels file (split 'test'); --split {split!r} does not exist",
                            fix="remove --split, or give the other split's file as qrels=PATH")
        return load_trec(spec[5:], split or "test")
    if spec.startswith("msmarco:"):
        return load_msmarco(Path(spec[8:]), split or "dev")
    if spec.startswith("beir:"):
        return load_beir(Path(spec[5:]), split or "test")
    if spec in DATASETS:
        loader = DATASETS.get(spec)
        return loader(split=split) if split else loader()
    path = Path(spec).expanduser()
    check_folder(path)
    if path.is_dir():
        if (path / "corpus.jsonl").exists():
            return load_beir(path, split or "test")
        if (path / "collection.tsv").exists():
            return load_msmarco(path, split or "dev")
        raise DataError("folder is neither a BEIR folder (corpus.jsonl, queries.jsonl, qrels/) nor an MS MARCO-style "
                        "folder (collection.tsv, queries.<split>.tsv, qrels.<split>.tsv)", str(path))
    if any(sep in spec for sep in ("/", "\\")) or spec.startswith("."):
        raise DataError("no such dataset folder", str(path), fix="check the path")
    raise UnknownName("dataset", spec, DATASETS.names())


def restrict_queries(dataset: Dataset, ids_file: Path) -> Dataset:
    """``dataset`` with only the queries listed in ``ids_file`` (one id per line; blank lines and
    ``#`` comments ignored), e.g. the held-out queries of a trained checkpoint. The corpus is
    unchanged; the fingerprint covers the restricted queries and qrels."""
    path = Path(ids_file)
    if not path.is_file():
        raise DataError("query id file not found", str(path), fix="pass a file with one query id per line")
    keep: Dict[str, int] = {}
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        q = line.split("#", 1)[0].strip()
        if not q:
            continue
        if q not in dataset.queries:
            raise DataError(f"query id {q!r} is not a query of {dataset.name}", str(path), lineno,
                            fix="list ids of this dataset's queries (was the file written for another dataset?)")
        if q in keep:
            raise DataError(f"query id {q!r} listed twice (first on line {keep[q]})", str(path), lineno,
                            fix="list each id once")
        keep[q] = lineno
    if not keep:
        raise DataError("no query ids in the file", str(path), fix="list one query id per line")
    queries = {q: v for q, v in dataset.queries.items() if q in keep}
    qrels = {q: dict(v) for q, v in dataset.qrels.items() if q in keep}
    notes = list(dataset.notes) + [f"restricted to the {len(keep)} queries listed in {path.name}"]
    return Dataset(dataset.name, dataset.corpus, queries, qrels, dataset.split, dataset.source, notes)
