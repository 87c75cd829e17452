"""Labelled candidate variations, and the curves thresholds are chosen on.

A generator that *generates, then verifies* scores each candidate variation of a query
and picks one, seeded, among the candidates whose score passes a threshold. Choosing that
threshold needs labelled candidates: the labelled set of a variation set is one TSV (the project's
own sets are ``benchmarks/data/validity/<SET>.tsv``, outside the installed packages; their README
names every sample), with one candidate a row:

``generator, style, qid, original, variation, detail, score, split, valid, reason, provenance``

* ``style``: the query style the query comes from (``keyword-title``, ``long-question``,
  ``web-query``, ``chat-question``, ...), so every figure can be given per style;
* ``score``: the verifier's score of the candidate (higher = more likely to keep the need); empty
  where the row has none (an output read as it was, a rule-based generator's);
* ``split``: ``tune`` or ``held`` (:func:`split_of`: a hash of style and qid, so every candidate
  of one query lands in one half and the split does not depend on the order of rows);
* ``valid``: 1 when the candidate keeps the query's information need, 0 when not, labelled
  before any threshold was tuned, with a one-line ``reason``; empty in a listing not labelled
  (a frozen query sample: ``<SET>.queries.tsv``, the query in ``original``, no variation);
* ``provenance``: the sample the row came from (a short slug). The samples whose provenance
  starts with ``dev-`` (:data:`DEVELOPMENT`) are the development samples: the rows a threshold of
  the shipped scorer is chosen on (:mod:`benchmarks.tuning`); the others are confirmation samples,
  readings of outputs, blind samples, or rows an earlier scorer scored.

Files written before the ``provenance`` column are read too (provenance empty).

:func:`curve` gives, for each threshold, the *applicability* (share of the queries with at least
one labelled candidate passing) and the *validity* (expected share of valid picks, a pick being
uniform among the passing candidates, as the generators pick). :func:`held_validity` gives the
held-back half's validity at the chosen threshold with its Wilson 95% interval.
"""
from __future__ import annotations

import csv
import fnmatch
import hashlib
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Hashable, Iterable, List, Optional, Sequence, Tuple, Union

from bench.core.errors import DataError
from bench.evaluation.intervals import wilson_ci

COLUMNS = ("generator", "style", "qid", "original", "variation", "detail", "score", "split", "valid", "reason",
           "provenance")
OLD_COLUMNS = COLUMNS[:-1]  # before the provenance column: still read
DEVELOPMENT = "dev-*"  # the provenance of the development samples
PathLike = Union[str, Path]
Provenance = Union[None, str, Sequence[str]]


@dataclass(frozen=True)
class Candidate:
    generator: str
    style: str
    qid: str
    original: str
    variation: str
    detail: str
    score: float  # nan: no score
    split: str
    valid: Optional[bool]  # None: not labelled
    reason: str
    provenance: str = ""

    @property
    def query(self) -> Tuple[str, str]:
        return (self.style, self.qid)


def split_of(style: str, qid: str) -> str:
    """``tune`` or ``held``: half the queries each, by a hash of (style, qid)."""
    digest = hashlib.sha256(f"{style}\0{qid}".encode("utf-8")).digest()
    return "tune" if digest[0] % 2 == 0 else "held"


def of_provenance(rows: Iterable[Candidate], provenance: Provenance) -> List[Candidate]:
    """The rows whose provenance matches ``provenance``: a slug or a shell pattern (``dev-*``), or a
    sequence of them; None = every row."""
    rows = list(rows)
    if provenance is None:
        return rows
    patterns = [provenance] if isinstance(provenance, str) else list(provenance)
    return [c for c in rows if any(fnmatch.fnmatchcase(c.provenance, p) for p in patterns)]


def read_devset(path: PathLike, provenance: Provenance = None) -> List[Candidate]:
    """Read a labelled set (the rows of ``provenance`` only, when given: :func:`of_provenance`); a
    bad row names the file and line."""
    path = Path(path)
    out: List[Candidate] = []
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader, None)
        if header is None or tuple(header) not in (COLUMNS, OLD_COLUMNS):
            raise DataError(f"expected the header {' '.join(COLUMNS)}", str(path), 1,
                            "write the file with perturb.checks.devset.write_devset")
        columns = tuple(header)
        for line, row in enumerate(reader, start=2):
            if not row:
                continue
            if len(row) != len(columns):
                raise DataError(f"{len(row)} tab-separated fields, expected {len(columns)}", str(path), line,
                                "remove tabs inside fields")
            rec = dict(zip(columns, row))
            if rec["valid"] not in ("0", "1", ""):
                raise DataError(f"valid is {rec['valid']!r}, expected 1, 0 or empty", str(path), line,
                                "label the row 1 or 0 (empty: not labelled)")
            if rec["split"] not in ("tune", "held"):
                raise DataError(f"split is {rec['split']!r}, expected tune or held", str(path), line,
                                "use perturb.checks.devset.split_of")
            try:
                score = float(rec["score"]) if rec["score"] != "" else math.nan
            except ValueError:
                raise DataError(f"score {rec['score']!r} is not a number", str(path), line,
                                "write a number (or nothing)") from None
            out.append(Candidate(rec["generator"], rec["style"], rec["qid"], rec["original"], rec["variation"],
                                 rec["detail"], score, rec["split"], None if rec["valid"] == "" else rec["valid"] == "1",
                                 rec["reason"], rec.get("provenance", "")))
    return out if provenance is None else of_provenance(out, provenance)


def write_devset(path: PathLike, rows: Iterable[Candidate]) -> None:
    """Write rows in a stable order (generator, provenance, style, qid, variation); tabs/newlines in
    fields refused. A row without score or label is written with the field empty."""
    rows = sorted(rows, key=lambda c: (c.generator, c.provenance, c.style, c.qid, c.variation))
    lines = ["\t".join(COLUMNS)]
    for c in rows:
        fields = [c.generator, c.style, c.qid, c.original, c.variation, c.detail,
                  "" if math.isnan(c.score) else f"{c.score:.6g}", c.split,
                  "" if c.valid is None else ("1" if c.valid else "0"), c.reason, c.provenance]
        if any(("\t" in f) or ("\n" in f) for f in fields):
            raise ValueError(f"tab or newline inside a field of {c.qid!r}")
        lines.append("\t".join(fields))
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


@dataclass(frozen=True)
class Point:
    threshold: float
    applicability: float  # share of queries with >= 1 passing candidate
    validity: float  # expected share of valid picks among the applied queries (nan when none applied)
    n_queries: int
    n_applied: int


def _by_query(rows: Sequence[Candidate]) -> Dict[Tuple[str, str], List[Candidate]]:
    out: Dict[Tuple[str, str], List[Candidate]] = {}
    for c in rows:
        out.setdefault(c.query, []).append(c)
    return out


def point(rows: Sequence[Candidate], threshold: float) -> Point:
    """Applicability and validity at one threshold (a candidate passes when score >= threshold)."""
    groups = _by_query(rows)
    applied, valid_mass = 0, 0.0
    for cands in groups.values():
        passing = [c for c in cands if c.score >= threshold]
        if passing:
            applied += 1
            valid_mass += sum(c.valid for c in passing) / len(passing)
    n = len(groups)
    return Point(float(threshold), applied / n if n else float("nan"),
                 valid_mass / applied if applied else float("nan"), n, applied)


def curve(rows: Sequence[Candidate], thresholds: Optional[Sequence[float]] = None) -> List[Point]:
    """One :class:`Point` per threshold (default: every distinct score, ascending)."""
    if thresholds is None:
        thresholds = sorted({c.score for c in rows})
    return [point(rows, t) for t in thresholds]


def choose(rows: Sequence[Candidate], min_validity: float = 0.9) -> Optional[Point]:
    """The lowest threshold (most applicable point) whose validity is >= ``min_validity``."""
    ok = [p for p in curve(rows) if p.n_applied and p.validity >= min_validity]
    return max(ok, key=lambda p: (p.applicability, -p.threshold)) if ok else None


def kind_of(c: Candidate) -> str:
    """The evidence kind of a candidate whose ``detail`` ends with ``": <kind>"`` (SWAPWORDS)."""
    return c.detail.rsplit(": ", 1)[1]


def kind_counts(rows: Iterable[Candidate], key: Callable[[Candidate], Hashable] = kind_of) -> Dict[Hashable, List[int]]:
    """``[valid, labelled]`` per evidence kind (:func:`kind_of`, or another ``key``) of ``rows``."""
    counts: Dict[Hashable, List[int]] = {}
    for r in rows:
        c = counts.setdefault(key(r), [0, 0])
        c[0] += r.valid
        c[1] += 1
    return counts


def choose_by_kind(rows: Sequence[Candidate], min_validity: float = 0.9) -> Optional[float]:
    """The lowest score threshold at which *every* evidence kind passing it is at least
    ``min_validity`` valid on the labelled ``rows`` (the tuning half). Kind by kind, not pooled per
    query as :func:`choose`: pooled, a kind 80% valid passes riding on the valid phrase candidates of
    the same queries (SWAPWORDS: tuning half 90.2% at 0.64, held-back half 82%)."""
    kinds = kind_counts(rows, key=lambda r: (r.score, kind_of(r)))
    for t in sorted({score for score, _ in kinds}):
        if all(v >= min_validity * n for (score, _), (v, n) in kinds.items() if score >= t):
            return t
    return None


def held_validity(rows: Sequence[Candidate], threshold: float, confidence: float = 0.95
                  ) -> Tuple[int, int, Tuple[float, float]]:
    """Valid and total passing candidates of the held-back half at ``threshold``, with a Wilson CI.

    Counted over passing candidates (each a possible pick), not over queries."""
    passing = [c for c in rows if c.split == "held" and c.score >= threshold]
    k = sum(c.valid for c in passing)
    return k, len(passing), wilson_ci(k, len(passing), confidence)


def curve_table(points: Sequence[Point], chosen: Optional[float] = None) -> str:
    """A Markdown table of a curve (for docs/methods.md), the chosen threshold marked."""
    lines = ["| threshold | applicability | validity | queries applied |", "|---:|---:|---:|---:|"]
    for p in points:
        mark = " **chosen**" if chosen is not None and p.threshold == chosen else ""
        val = "n/a" if p.n_applied == 0 else f"{100 * p.validity:.1f}%"
        lines.append(f"| {p.threshold:.3g}{mark} | {100 * p.applicability:.1f}% | {val} | {p.n_applied}/{p.n_queries} |")
    return "\n".join(lines)
