"""The threshold rules, by the name a :class:`perturb.spec.Tuning` gives them.

Each rule is a function ``(rows, **args) -> float`` of the rows of one labelled set
(:func:`perturb.checks.devset.read_devset`) that returns the threshold it chooses, or raises
:class:`NoThreshold`. Every rule takes ``provenance``, the samples it reads (a slug, a shell
pattern or a list of them; default ``dev-*``, the development samples: the rows the shipped
scorer scored, labelled before the threshold was chosen), and reads only labelled rows with a score.

* ``choose``: :func:`perturb.checks.devset.choose` on the tuning half: the most applicable
  threshold whose expected pick validity is at least ``min_validity``;
* ``choose_by_kind``: :func:`perturb.checks.devset.choose_by_kind` on the tuning half: the lowest
  threshold at which every evidence kind passing it is at least ``min_validity`` valid;
* ``pooled_validity``: the lowest labelled score at which at least ``min_validity`` of the pooled
  passing rows are valid, the pool being the development rows (both halves) scoring at least the
  first choice (``choose`` at ``floor_validity``, the threshold the confirmation sample was listed
  at) and every row of the ``confirmation`` sample (SWAPSYN-WNET's 0.7202: the pick sample's rows
  >= 0.5929 and the confirmation sample's, >= 95% valid);
* ``chooser_cv``: a threshold fitted outside the package (the synonym swaps' chooser:
  ``benchmarks/lexsub/query_fit.py`` cross-validates it on the labelled queries, ``benchmarks/lexsub/fit.py`` on
  the SWORDS development split, and each writes it, with the weights and the command, to the JSON file the
  tuning names); re-derived as the value that file records for ``source`` at ``min_precision``.

:func:`rederive` applies a threshold's tuning to its labelled set: ``python -m benchmarks.tuning
thresholds`` checks that every spec's threshold is what its rule gives.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable, Dict, List, Sequence, Union

from perturb.checks import devset
from perturb.checks.devset import DEVELOPMENT, Candidate, Provenance
from perturb.spec import Threshold, Tuning

ROOT = Path(__file__).resolve().parents[2]  # the repository root
VALIDITY = ROOT / "benchmarks" / "data" / "validity"  # the labelled sets


class NoThreshold(ValueError):
    """A rule found no threshold meeting its target on the rows it read."""


def labelled(rows: Sequence[Candidate], provenance: Provenance = DEVELOPMENT) -> List[Candidate]:
    """The labelled rows with a score of the samples ``provenance`` names."""
    return [c for c in devset.of_provenance(rows, provenance) if c.valid is not None and not math.isnan(c.score)]


def tuning_half(rows: Sequence[Candidate], provenance: Provenance = DEVELOPMENT) -> List[Candidate]:
    return [c for c in labelled(rows, provenance) if c.split == "tune"]


def _none(rule: str, rows: Sequence[Candidate], target: float) -> NoThreshold:
    return NoThreshold(f"{rule}: no threshold reaches validity {target:g} on {len(rows)} rows")


def choose(rows: Sequence[Candidate], min_validity: float = 0.9, provenance: Provenance = DEVELOPMENT) -> float:
    tune = tuning_half(rows, provenance)
    best = devset.choose(tune, min_validity)
    if best is None:
        raise _none("choose", tune, min_validity)
    return best.threshold


def choose_by_kind(rows: Sequence[Candidate], min_validity: float = 0.9, provenance: Provenance = DEVELOPMENT) -> float:
    tune = tuning_half(rows, provenance)
    t = devset.choose_by_kind(tune, min_validity)
    if t is None:
        raise _none("choose_by_kind", tune, min_validity)
    return t


def pooled_rows(rows: Sequence[Candidate], floor_validity: float = 0.9, provenance: Provenance = DEVELOPMENT,
                confirmation: Provenance = "confirmation-1") -> List[Candidate]:
    """The pool of :func:`pooled_validity`: development rows >= the first choice, and the confirmation rows."""
    floor = choose(rows, floor_validity, provenance)
    return [c for c in labelled(rows, provenance) if c.score >= floor] + labelled(rows, confirmation)


def pooled_validity(rows: Sequence[Candidate], min_validity: float = 0.95, floor_validity: float = 0.9,
                    provenance: Provenance = DEVELOPMENT, confirmation: Provenance = "confirmation-1") -> float:
    pool = pooled_rows(rows, floor_validity, provenance, confirmation)
    for t in sorted({c.score for c in pool}):
        passing = [c for c in pool if c.score >= t]
        if sum(c.valid for c in passing) >= min_validity * len(passing):
            return t
    raise _none("pooled_validity", pool, min_validity)


Rule = Callable[..., float]
def chooser_cv(fitted: dict, min_precision: float = 0.9, source: str = "", part: str = "", pos: str = "") -> float:
    """The threshold the chooser's fit recorded for ``source`` (its rule must be the one asked for);
    ``part``: the block of the file that records it (``check``: the pick check's), else the top level;
    ``pos``: the target class, where the block records one threshold per class."""
    fitted = fitted.get(part, {}) if part else fitted
    got = fitted.get("thresholds", {}).get(source)
    if pos:
        got = got.get(pos) if isinstance(got, dict) else None
    if f">= {min_precision:g}" not in str(fitted.get("rule", "")) or not isinstance(got, (int, float)):
        where = f"{source!r}" + (f" {pos!r}" if pos else "")
        raise NoThreshold(f"chooser_cv: the fitted file records no {where} threshold at precision {min_precision:g}")
    return float(got)


def closest_share(curve: dict, half: str = "fit") -> float:
    """The grid threshold whose changed share on ``half`` comes closest to the reference set's (ties:
    the lower threshold); ``curve``: ``{"authors": {half: share}, "ours": {threshold: {half: share}}}``
    (``benchmarks/rodr_tense_table.py``)."""
    if half not in curve.get("authors", {}) or not curve.get("ours"):
        raise NoThreshold(f"closest_share: the curve has no {half!r} half")
    target = curve["authors"][half]
    points = sorted((float(z), shares[half]) for z, shares in curve["ours"].items())
    return min(points, key=lambda p: (round(abs(p[1] - target), 12), p[0]))[0]


RULES: Dict[str, Rule] = {"choose": choose, "choose_by_kind": choose_by_kind, "pooled_validity": pooled_validity,
                          "chooser_cv": chooser_cv, "closest_share": closest_share}


def labelled_path(name: str, purpose: str = "") -> Path:
    """``benchmarks/data/validity/<name>.tsv`` (``<name>.<purpose>.tsv`` with a purpose, e.g. ``queries``)."""
    return VALIDITY / (f"{name}.{purpose}.tsv" if purpose else f"{name}.tsv")


def labelled_file(path: Union[str, Path]) -> Path:
    """A tuning's ``labelled`` path: relative to the repository root (the labelled sets are not installed)."""
    path = Path(path)
    return path if path.is_absolute() else ROOT / path


def rule_of(tuning: Tuning) -> Rule:
    try:
        return RULES[tuning.rule]
    except KeyError:
        raise KeyError(f"no tuning rule {tuning.rule!r}; the rules: {', '.join(RULES)}") from None


def rederive(threshold: Union[Threshold, Tuning], rows: Any = None) -> float:
    """The threshold ``threshold.tuning`` gives: its rule, with its arguments, on its labelled set
    (``rows``: those rows instead of reading the file)."""
    tuning = threshold if isinstance(threshold, Tuning) else threshold.tuning
    if tuning is None:
        raise ValueError(f"{getattr(threshold, 'name', threshold)!r} names no tuning")
    rule = rule_of(tuning)
    if rows is None and tuning.labelled.endswith(".json"):
        import json

        rows = json.loads(labelled_file(tuning.labelled).read_text(encoding="utf-8"))
    elif rows is None:
        rows = devset.read_devset(labelled_file(tuning.labelled))
    return float(rule(rows, **dict(tuning.args)))
