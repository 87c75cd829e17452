"""The one door every dataset form enters by: :func:`open_dataset` turns a name, a folder, TREC
files, an ``irds:`` id, BEIR dicts and tuples, pandas DataFrames or an ir_datasets object into
one :class:`~bench.data.model.Dataset` and runs the one validator
(:func:`bench.data.validate.validate`) on it, whatever the form. :func:`dataset_form` says which
form a value is, or refuses it ("not a dataset form", with the forms accepted) before any model or
data is loaded.
"""
from __future__ import annotations

import os
from typing import Any, Optional

from bench.data.forms import dataset_form
from bench.data.model import Dataset


def open_dataset(obj: Any, name: Optional[str] = None, split: Optional[str] = None) -> Dataset:
    """The dataset of any accepted form (:func:`dataset_form`), validated. ``name`` names an
    in-memory form (default ``"in-memory"``); ``split``: the qrels split of a folder (default per
    form) or the split recorded for an in-memory form (default ``test``)."""
    if dataset_form(obj) == "spec":
        from bench.data.collections import load_dataset

        return load_dataset(os.fspath(obj), split)
    from bench.data.objects import dataset_from_object

    return dataset_from_object(obj, name, split or "test")
