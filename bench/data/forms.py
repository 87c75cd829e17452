"""Which dataset form a value is (:func:`dataset_form`), shared by the door
(:mod:`bench.data.door`) and the in-memory reader (:mod:`bench.data.objects`)."""
from __future__ import annotations

import inspect
import os
from collections.abc import Mapping
from typing import Any

from bench.core.errors import DataError
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


def forms_text() -> str:
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
    raise DataError(f"not a dataset form: {_describe(obj)}.\n{forms_text()}", "dataset",
                    fix="give one of the forms above")


