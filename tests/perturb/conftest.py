"""Fixtures for the generator tests (helpers live in perturb_helpers.py)."""
from __future__ import annotations

import json

import pytest

from perturb import PAPER_ORDER
from perturb_helpers import generator, shared_data


@pytest.fixture(scope="session")
def cranfield():
    path = shared_data() / "cranfield" / "queries.jsonl"
    with open(path, encoding="utf-8") as fh:
        return [(d["_id"], d["text"]) for d in map(json.loads, fh)]


@pytest.fixture(params=PAPER_ORDER)
def any_generator(request):
    return generator(request.param)
