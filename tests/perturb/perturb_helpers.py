"""Helpers for the generator tests: real queries, generator instances shared per session, and a
strict policy on missing resources (a missing resource fails the test, so CI cannot pass by
skipping; set DRBENCH_SKIP_MISSING=1 to skip instead on a machine without them)."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional

import pytest

from perturb import PAPER_ORDER, make
from perturb.base import ResourceMissing

_HERE = Path(__file__).resolve()
_SHARED_CANDIDATES = [_HERE.parents[3] / "shared", Path("/work/shared")]

EDGE_CASES = [
    "", " ", "a", "word", "?!.,", "...", "12345", "3.14 42", "日本語の検索クエリ", "Привет мир как дела",
    "😀🙂", "emoji 😀 in the middle", "tab\tinside", "new\nline query", "  leading and trailing  ",
    "ÀÉÎÕÜ accented café naïve", "a" * 300, " ".join(["word%d" % i if i % 3 else "the" for i in range(500)]),
]
SECURITY = "what is the percentage of people with security clearance"


def shared_folder(name: str) -> Optional[Path]:
    """``shared/data/<name>`` beside the repository (first of the candidates), or None."""
    return next((c / "data" / name for c in _SHARED_CANDIDATES if (c / "data" / name).is_dir()), None)


def shared_data() -> Path:
    for c in _SHARED_CANDIDATES:
        if (c / "data" / "cranfield" / "queries.jsonl").is_file():
            return c / "data"
    pytest.skip("shared/data (Cranfield, Penha CSVs) not found beside the repository")


_GENS = {}


def generator(name: str):
    """A checked generator instance (one per session); missing resources fail unless allowed."""
    if name not in _GENS:
        gen = make(name)
        try:
            gen.check()
        except ResourceMissing as exc:
            if os.environ.get("DRBENCH_SKIP_MISSING") == "1":
                pytest.skip(str(exc))
            pytest.fail(f"{exc}  (set DRBENCH_SKIP_MISSING=1 to skip on machines without it)")
        _GENS[name] = gen
    return _GENS[name]


def swapwords_candidates(text: str) -> dict:
    """Every SWAPWORDS candidate of ``text`` at any score: variation -> (score, kind)."""
    from perturb.resources import parsing
    from perturb.resources.words import tagging_copy

    gen = make("SWAPWORDS")
    doc = parsing.parse([tagging_copy(text)])[0]
    return {gen.apply(doc, text, e): (e.score, e.kind) for e in gen.scored(doc, text)}
