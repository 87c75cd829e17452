"""Result files: one folder per run.

Layout of a run folder (all written atomically, temp file + rename):

- ``result.json``: deterministic for the same inputs and seed (byte-identical), schema below.
- ``per_query.csv``: long table, one row per (set, query id): columns
  ``set,qid,applied,<measure 1>,<measure 2>,...`` with ``applied`` 0/1 (always 0 for ORIGINAL),
  rows ordered by the set order of ``result.json`` then by query id (natural order). A run given
  human validity labels (``--labels``) has a ``label`` column after ``applied``: 1 (judged valid),
  0 (not valid) or empty (no label; always empty for ORIGINAL).
  Measure values are written with ``repr`` of the float (round-trip exact).
- ``per_query.sha256``: the SHA-256 of ``per_query.csv`` (``sha256sum`` format); ``bench.results.rundir``
  refuses a per-query table that no longer matches it. The same digest is ``per_query_sha256`` in
  ``result.json``, which binds the table to the run's model, dataset and sets; for a run that has it,
  a missing table or checksum file is an error (a run without it is older and accepted with a note).
- ``timings.json``: wall-clock timings (seconds) of each step; NOT deterministic, so kept apart.
- ``variations/<SET>.tsv``: the variation sets used (qid, text, applied, detail), see perturb.io.
- ``runs/<SET>.trec``: optional TREC run files.

``result.json`` (schema_version 1): its keys are defined, one typed model per suite layout, in
:mod:`bench.results.schema` (``SetsResult`` for variations and domain, ``FewshotResult`` for
fewshot; the common header is ``Header``, built by :func:`result_header`). The JSON Schema
generated from those models is ``docs/result-schema.json`` and every key is described in
``docs/result-schema.md``. Files of older versions are migrated when read
(:mod:`bench.results.migrations`). In short (variations)::

    {"schema_version": 1, "suite": "variations", "drbench_version": ..., "libraries": {...},
     "seed": 0, "model": {...}, "dataset": {...}, "dataset_notes": [...],
     "measures": ["MRR@10", ...], "retrieval": {"top_k": 100, "index": ..., ...},
     "sets": [{"name": "ORIGINAL", "status": "ok", "metrics": {...}, "drop_rate": null, ...}, ...],
     "missing_sets": [...], "summary": {"VARIATIONS (AVG.)": {...}}, "notes": [...],
     "per_query_file": "per_query.csv", "statistics": {...}}

Keys of ``retrieval`` are present only when they apply (an exact run over a corpus of one shard
has no ``corpus_shards``, ``index_params`` or ``recall_vs_exact``, so its file is what it was
before they existed). The shard size is recorded because vectors are
encoded per shard in length-sorted batches, which can change the last bits of a float; the
executor is not recorded (local and Ray write identical files) and is in ``timings.json``.

``drop_rate`` of a set is ``(M_orig - M_var) / M_orig`` per measure (null when M_orig is 0).
``VARIATIONS (AVG.)`` is the unweighted mean over the variation sets whose status is "ok".
Query ids are strings. Every query of the dataset is evaluated in every set: queries a
generator could not change keep their original text (``applied`` = 0) as in the RoDR protocol.
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping, Optional, Sequence, Tuple

from bench.core.io import atomic_write_json, atomic_write_text
from bench.core.sheet import csv_text
from bench.results.migrations import SCHEMA_VERSION
from bench.core.versions import __version__, library_versions
from bench.models.spec import model_fingerprint


def per_query_csv(rows: Sequence[Tuple[str, str, int, Sequence[float]]], measures: Sequence[str],
                  labels: Optional[Mapping[str, Mapping[str, str]]] = None) -> str:
    """Rows of (set, qid, applied, values...) as CSV text (floats by repr: exact round trip), through
    the one CSV writer (:func:`bench.core.sheet.csv_text`: a set name or query id that starts a
    formula, or starts with ``'``, gets a leading ``'``; :func:`bench.results.rundir.load_per_query`
    removes it).
    ``labels`` (set -> qid -> "1"/"0", a run with human labels): adds a ``label`` column after
    ``applied`` (1 valid, 0 not valid, empty: no label)."""
    def table():
        for set_name, qid, applied, values in rows:
            lab = [] if labels is None else [(labels.get(set_name) or {}).get(qid, "")]
            yield [set_name, qid, int(applied), *lab, *(repr(float(v)) for v in values)]

    return csv_text(["set", "qid", "applied", *(["label"] if labels is not None else []), *measures], table())


#: the per-query table's SHA-256, in ``sha256sum`` format (``sha256sum -c per_query.sha256`` checks it);
#: a separate file so that result.json (and committed baselines) keep their bytes
PER_QUERY_SUM = "per_query.sha256"


def per_query_checksum(data: bytes) -> str:
    import hashlib

    return f"{hashlib.sha256(data).hexdigest()}  per_query.csv\n"


def begin_run(out_dir: Path, owned: Sequence[str] = ()) -> None:
    """Mark a run folder incomplete before anything in it is replaced: an older result.json must
    never sit beside newer per-query or variation files if this run is interrupted. ``owned``: glob
    patterns (relative to the folder) of the files this kind of run writes; an earlier run's files
    matching them are removed, so a rerun with fewer sets leaves no stale set or TREC file behind."""
    stale = Path(out_dir) / "result.json"
    if stale.exists():
        stale.unlink()
    for pattern in owned:
        for old in sorted(Path(out_dir).glob(pattern)):
            if old.is_file():
                old.unlink()


def write_per_query(out_dir: Path, per_query_text: str) -> None:
    """``per_query.csv`` and its checksum file beside it, each replaced atomically."""
    atomic_write_text(Path(out_dir) / "per_query.csv", per_query_text)
    atomic_write_text(Path(out_dir) / PER_QUERY_SUM, per_query_checksum(per_query_text.encode("utf-8")))


def with_per_query_sha256(result: dict, per_query_text: str) -> dict:
    """``result`` with ``per_query_sha256`` (the SHA-256 of its per_query.csv) right after
    ``per_query_file`` (at the end when there is none): result.json names the exact per-query
    table its figures come from, so a table edited, or copied in from another run together with
    its ``per_query.sha256``, is refused by every reader (:func:`bench.results.rundir.load_run`)."""
    import hashlib

    digest = hashlib.sha256(per_query_text.encode("utf-8")).hexdigest()
    out: dict = {}
    for k, v in result.items():
        if k != "per_query_sha256":
            out[k] = v
        if k == "per_query_file":
            out["per_query_sha256"] = digest
    out.setdefault("per_query_sha256", digest)
    return out


def write_run(out_dir: Path, result: dict, per_query_text: str, timings: dict) -> None:
    """Write a run folder. ``result.json`` is written last, so a folder with a result.json is
    complete; every file is replaced atomically. result.json records the per-query table's
    SHA-256 (:func:`with_per_query_sha256`)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_per_query(out_dir, per_query_text)
    atomic_write_json(out_dir / "timings.json", timings)
    atomic_write_json(out_dir / "result.json", with_per_query_sha256(result, per_query_text))


# Reading run folders (with validation) lives in bench.results.rundir.load_run.


def model_entry(spec, fingerprint: str) -> dict:
    """Name, fingerprint and spec of the evaluated model; for a checkpoint trained by drbench also
    a summary of its training (recipe, method, parameter counts, steps, per-step loss curve)."""
    out = {"name": spec.name, "fingerprint": fingerprint, "spec": spec.portable_dict()}
    identity = getattr(spec, "identity", None)
    if identity:  # a model object: what it was and whether its vectors were cached (bench.models.objects)
        out["encoder_object"] = {k: v for k, v in identity.items() if k != "cached"}
    elif spec.kind == "dense":
        out["lengths"] = {"query": spec.max_query_length, "passage": spec.max_passage_length,
                          "query_from": spec.length_source("query"), "passage_from": spec.length_source("passage")}
        from bench.encoding.runtime import record

        rt = record(spec)  # None on the reference runtime (cpu, torch): those files stay as they were
        if rt is not None:
            out["runtime"] = rt
    if spec.kind == "dense" and spec.path and not identity:
        from pathlib import Path

        from bench.models.checkpoint import read_training

        rec = read_training(Path(spec.path))
        if rec:
            log = rec.get("log") or {}
            out["training"] = {"kind": rec.get("kind"), "recipe": rec.get("recipe"), "case": rec.get("case"),
                               "weights": (rec.get("loss") or {}).get("weights") if rec.get("case") else None,
                               "deviations": list(rec.get("deviations") or []),
                               **({"hyperparameter_sources": rec["hyperparameter_sources"]}
                                  if rec.get("hyperparameter_sources") else {}),
                               "method": (rec.get("method") or {}).get("name"),
                               "source_fingerprint": rec.get("source_fingerprint"),
                               "parameters": rec.get("parameters"), "steps": log.get("steps"),
                               "loss_curve": [round(d["loss"], 6) for d in log.get("losses", [])]}
    return out


def result_header(suite: str, spec, dataset, seed: int) -> dict:
    """The fields every suite's result.json starts with: what ran, on what, with which versions."""
    return {
        "schema_version": SCHEMA_VERSION,
        "suite": suite,
        "drbench_version": __version__,
        "libraries": library_versions(),
        "seed": seed,
        "model": model_entry(spec, model_fingerprint(spec)),
        "dataset": dataset.describe(),
        "dataset_notes": list(dataset.notes),
    }
