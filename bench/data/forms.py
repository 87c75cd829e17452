"""The dataset forms: which form a value is (:func:`dataset_form`, shared by the door
:mod:`bench.data.door` and the in-memory reader :mod:`bench.data.objects`), and the check of a
``--dataset`` text before any model or data is loaded (:func:`check_dataset`)."""
from __future__ import annotations

import inspect
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, List

from bench.core.errors import BenchError, DataError
from bench.data.model import Dataset

#: what the door accepts (form: example), for the "not a dataset form" message
OBJECT_FORMS = (
    ("a registered name, a folder or a prefixed form (str or pathlib.Path)",
     "'chatterbot', 'data/scifact', 'irds:beir/scifact/test', 'trec:corpus=..,topics=..,qrels=..'"),
    ("a dict of three parts", "{'corpus': {...}, 'queries': {...}, 'qrels': {...}}"),
    ("the tuple of three parts BEIR's GenericDataLoader.load returns", "(corpus, queries, qrels)"),
    ("each part a dict or a pandas DataFrame", "corpus columns _id, title, text; queries _id, text; qrels "
                                               "query-id, corpus-id, score"),
    ("an ir_datasets dataset object (an instance)", "ir_datasets.load('beir/scifact/test')"),
    ("a bench.data.model.Dataset", "bench.data.collections.load_dataset('chatterbot')"),
)
_IRDS = ("docs_iter", "queries_iter", "qrels_iter")


def object_forms_text() -> str:
    """The forms ``dataset=`` accepts (Python), for the "not a dataset form" message."""
    return "the dataset forms accepted (form: example):\n" + "\n".join(f"  {f}: {e}" for f, e in OBJECT_FORMS)


def _describe(obj: Any) -> str:
    if isinstance(obj, (tuple, list)):
        n = len(obj)
        return f"a {type(obj).__name__} of {n} item{'s' if n != 1 else ''}"
    if inspect.isclass(obj):
        return f"the class {obj.__module__}.{obj.__qualname__} (a class, not an instance: call it to make the dataset)"
    return f"a {type(obj).__module__}.{type(obj).__qualname__}"


def dataset_form(obj: Any) -> str:
    """``"spec"`` (a str or path: a name, folder or prefixed form), ``"dataset"``, ``"dict"``,
    ``"tuple"`` or ``"irds"``; anything else is a DataError naming what it is and the forms accepted."""
    if isinstance(obj, (str, os.PathLike)):
        return "spec"
    if isinstance(obj, Dataset):
        return "dataset"
    if not inspect.isclass(obj):
        if isinstance(obj, Mapping):
            return "dict"
        if isinstance(obj, tuple) and len(obj) == 3:
            return "tuple"
        if all(callable(getattr(obj, m, None)) for m in _IRDS):
            return "irds"
    raise DataError(f"not a dataset form: {_describe(obj)}.\n{object_forms_text()}", "dataset",
                    fix="give one of the forms above")


#: (form, example) for every --dataset spelling load_dataset accepts
DATASET_FORMS = (
    ("a registered dataset name", "chatterbot"),
    ("a BEIR folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv)", "data/scifact  or  beir:data/scifact"),
    ("an MS MARCO-style folder (collection.tsv, queries.<split>.tsv, qrels.<split>.tsv)", "msmarco:data/msmarco"),
    ("an ir_datasets id (pip install ir-datasets)", "irds:beir/scifact/test"),
    ("TREC files", "trec:corpus=docs.trec,topics=topics.txt,qrels=qrels.txt"),
)
PREFIXES = ("irds:", "trec:", "msmarco:", "beir:")


def forms_text() -> str:
    return "accepted --dataset forms (form: example):\n" + "\n".join(f"  {f}:\n      --dataset {e}" for f, e in DATASET_FORMS)


def check_dataset(spec: str, registered: List[str]) -> None:
    """Refuse a ``--dataset`` that no form accepts, before a model or the data is loaded: a
    registered name (a close typo gets a "did you mean"), a prefixed form, or an existing folder."""
    import difflib

    text = str(spec).strip()
    if not text:
        raise BenchError(f"--dataset is empty.\n{forms_text()}")
    if text.startswith(PREFIXES) or text in registered:
        return
    path = Path(text).expanduser()
    if path.exists():
        return  # a folder (or a file, which the loader explains) is read by load_dataset
    close = difflib.get_close_matches(text, registered, n=1, cutoff=0.6)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    looks_like_path = any(sep in text for sep in ("/", "\\")) or text.startswith(".")
    what = (f"no such folder: {path}" if looks_like_path else
            f"{text!r} is neither a registered dataset ({', '.join(registered)}) nor an existing folder")
    raise BenchError(f"--dataset {text}: {what}.{hint}\n{forms_text()}")
