"""Paths and readers the benchmark scripts share: the repository root, the development collections
under ``shared/data`` (Cranfield, Penha et al.'s labelled variations; development only, the product
never reads them) and the labelled sets of ``benchmarks/data/validity``."""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Dict, List, Tuple

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
if not SHARED.is_dir():
    SHARED = Path("/work/shared/data")


def penha_queries(fname: str, normalise: bool = False) -> List[Tuple[str, str]]:
    """(q_id, original query) of one of Penha et al.'s labelled files, each query once, by q_id
    (``normalise``: runs of white space made one space)."""
    seen: Dict[str, str] = {}
    with open(SHARED / "penha-variations" / fname, encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            seen.setdefault(row["q_id"], " ".join(row["original_query"].split()) if normalise else row["original_query"])
    return sorted(seen.items())


def msmarco_queries() -> List[Tuple[str, str]]:
    """(qid, original query) of the 6,980 MS MARCO passage dev (small) queries, in file order: the
    RoDR authors' ExtraPunc texts without the marks ExtraPunc appended
    (:func:`benchmarks.rodr_reference.originals`)."""
    from benchmarks.rodr_reference import originals

    return list(originals().items())
