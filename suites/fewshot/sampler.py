"""Class-wise few-shot sampling (the FewDR protocol, "Rethinking Dense Retrieval's Few-Shot Ability").

Steps, each a pure function of its inputs and the run seed (all randomness comes from
:func:`perturb.base.rng_for`, keyed by what is being drawn, so nothing depends on iteration order):

1. **Classes.** Every judged query with a class label belongs to that class; unlabelled queries
   take no part (counted in the plan's notes).
2. **Base / novel split** of the classes: read from a split file, or drawn with a stated
   ``novel_ratio`` (``round(ratio * n_classes)`` novel classes, at least 1 and at most
   ``n_classes - 1``).
3. **Train / test split of each class's queries**: ``round(test_ratio * n)`` test queries, at
   least 1 (a class of one query is test-only); the rest are training queries.
4. **Trials.** For each K and each trial j = 1..n (trial seeds recorded), K training queries per
   novel class AND K per base class (FewDR samples base classes class-wise too), drawn without
   replacement.

Classes with fewer than K training queries ("short" classes) follow ``short_rule``:

- ``"all"`` (default): the class contributes all of its training queries (fewer than K); it is
  listed under ``capped`` for that K;
- ``"skip"``: the class contributes no training query at that K; listed under ``skipped``.

Either way the class's test queries are still evaluated at every K (comparisons with zero-shot
stay paired on the same test queries), and the plan lists for each K the classes that are
*usable* (at least K training queries). A K is run only if at least ``min_usable_novel``
novel classes are usable at it ("where the data allows"); otherwise it is listed in
``skipped_k`` with the reason.

Split file formats: JSON ``{"base": [...], "novel": [...]}``, or text lines
``<class><TAB or space>base|novel`` (``#`` comments allowed). Unknown classes are an error;
classes of the dataset that the file does not list are left out (reported in the notes).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from bench.data.model import Dataset, natural_key
from bench.core.errors import BenchError, DataError
from bench.core.seeding import rng_for

SHORT_RULES = ("all", "skip")
DEFAULT_KS = (5, 20, 100)
DEFAULT_TRIALS = 5


@dataclass(frozen=True)
class ClassSplit:
    base: Tuple[str, ...]
    novel: Tuple[str, ...]
    source: str  # "file:<name>" or "seeded(novel_ratio=..., seed=...)"
    left_out: Tuple[str, ...] = ()  # dataset classes a split file did not list

    def split_of(self, label: str) -> Optional[str]:
        if label in self.base:
            return "base"
        if label in self.novel:
            return "novel"
        return None

    def to_dict(self) -> dict:
        return {"base": list(self.base), "novel": list(self.novel), "source": self.source,
                "left_out": list(self.left_out)}


@dataclass(frozen=True)
class QuerySplit:
    train: Dict[str, Tuple[str, ...]]  # class -> training query ids (natural order)
    test: Dict[str, Tuple[str, ...]]  # class -> test query ids (natural order)
    test_ratio: float

    def train_ids(self, classes: Optional[Sequence[str]] = None) -> List[str]:
        return [q for c in (classes if classes is not None else sorted(self.train)) for q in self.train[c]]

    def test_ids(self, classes: Optional[Sequence[str]] = None) -> List[str]:
        return [q for c in (classes if classes is not None else sorted(self.test)) for q in self.test[c]]


@dataclass(frozen=True)
class Trial:
    k: int
    index: int  # 1-based
    seed: int
    samples: Dict[str, Tuple[str, ...]]  # class -> sampled training query ids (draw order)
    capped: Dict[str, int] = field(default_factory=dict)  # short classes under rule "all": n taken
    skipped: Tuple[str, ...] = ()  # short classes under rule "skip"

    def query_ids(self) -> List[str]:
        return [q for c in sorted(self.samples) for q in self.samples[c]]


@dataclass
class FewShotPlan:
    classes: ClassSplit
    queries: QuerySplit
    labels: Dict[str, str]  # query id -> class (labelled judged queries only)
    ks: List[int]  # the K values that run
    skipped_k: Dict[int, str]
    trial_seeds: List[int]
    trials: Dict[int, List[Trial]]  # K -> trials
    short_rule: str
    usable: Dict[int, Dict[str, List[str]]]  # K -> {"base": [...], "novel": [...]} (>= K training queries)
    notes: List[str] = field(default_factory=list)
    min_class_test: int = 1
    excluded: Dict[str, int] = field(default_factory=dict)  # class -> its test queries, when < min_class_test

    def to_dict(self) -> dict:
        return {
            "classes": self.classes.to_dict(),
            "test_ratio": self.queries.test_ratio,
            "class_sizes": {c: {"train": len(self.queries.train[c]), "test": len(self.queries.test[c])}
                            for c in sorted(self.queries.train)},
            "test_queries": {c: list(self.queries.test[c]) for c in sorted(self.queries.test)},
            "ks": list(self.ks),
            "skipped_k": {str(k): v for k, v in sorted(self.skipped_k.items())},
            "trial_seeds": list(self.trial_seeds),
            "short_class_rule": self.short_rule,
            "short_class_rule_description": SHORT_RULE_DESCRIPTIONS[self.short_rule],
            "usable_classes": {str(k): v for k, v in sorted(self.usable.items())},
            "trials": {str(k): [{"trial": t.index, "seed": t.seed, "n_samples": sum(len(v) for v in t.samples.values()),
                                 "capped": dict(sorted(t.capped.items())), "skipped": list(t.skipped)}
                                for t in ts] for k, ts in sorted(self.trials.items())},
            "notes": list(self.notes),
            "min_class_test": self.min_class_test,
            "excluded_classes": dict(sorted(self.excluded.items())),
        }


SHORT_RULE_DESCRIPTIONS = {
    "all": "a class with fewer than K training queries contributes all of them (listed as capped); its test "
           "queries are still evaluated",
    "skip": "a class with fewer than K training queries contributes none at that K (listed as skipped); its test "
            "queries are still evaluated",
}


# --------------------------------------------------------------------------------------------
# 1. classes


def class_labels(dataset: Dataset) -> Tuple[Dict[str, str], int]:
    """(query id -> class label) for judged queries with a label, and the number without one."""
    labels, unlabelled = {}, 0
    for qid in dataset.judged_query_ids():
        label = dataset.queries[qid].label
        if label is None:
            unlabelled += 1
        else:
            labels[qid] = label
    return labels, unlabelled


def queries_by_class(labels: Mapping[str, str]) -> Dict[str, List[str]]:
    out: Dict[str, List[str]] = {}
    for qid in sorted(labels, key=natural_key):
        out.setdefault(labels[qid], []).append(qid)
    return out


# --------------------------------------------------------------------------------------------
# 2. base / novel


def read_split_file(path: Path, known: Sequence[str]) -> ClassSplit:
    path = Path(path)
    if not path.is_file():
        raise DataError("class split file not found", str(path), fix="give a JSON {\"base\": [...], \"novel\": [...]} "
                                                                    "or a 'class<TAB>base|novel' file")
    text = path.read_text(encoding="utf-8")
    base: List[str] = []
    novel: List[str] = []
    if text.lstrip().startswith("{"):
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataError(f"malformed JSON ({exc.msg})", str(path), exc.lineno) from None
        if not isinstance(obj.get("base"), list) or not isinstance(obj.get("novel"), list):
            raise DataError("expected lists under 'base' and 'novel'", str(path))
        base, novel = [str(c) for c in obj["base"]], [str(c) for c in obj["novel"]]
    else:
        for lineno, line in enumerate(text.splitlines(), start=1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.rsplit(None, 1)
            if len(parts) != 2 or parts[1].lower() not in ("base", "novel"):
                raise DataError("expected '<class> base' or '<class> novel'", str(path), lineno)
            (base if parts[1].lower() == "base" else novel).append(parts[0].strip())
    both = sorted(set(base) & set(novel))
    if both:
        raise DataError(f"classes listed as both base and novel: {', '.join(both)}", str(path),
                        fix="base and novel classes must be disjoint")
    dup = sorted({c for c in base + novel if (base + novel).count(c) > 1})
    if dup:
        raise DataError(f"classes listed twice: {', '.join(dup)}", str(path))
    unknown = sorted(set(base + novel) - set(known))
    if unknown:
        raise DataError(f"classes not in the dataset: {', '.join(unknown)}", str(path),
                        fix=f"the dataset's classes are: {', '.join(sorted(known))}")
    if not base or not novel:
        raise DataError("need at least one base and one novel class", str(path))
    left_out = tuple(sorted(set(known) - set(base) - set(novel)))
    return ClassSplit(tuple(sorted(base)), tuple(sorted(novel)), f"file:{path.name}", left_out)


def split_classes(classes: Sequence[str], novel_ratio: float, seed: int) -> ClassSplit:
    """Seeded base / novel split: ``round(novel_ratio * n)`` novel classes (clamped to [1, n-1])."""
    classes = sorted(set(classes))
    if len(classes) < 2:
        raise BenchError(f"the few-shot suite needs at least 2 classes, found {len(classes)}")
    if not 0.0 < novel_ratio < 1.0:
        raise BenchError(f"--novel-ratio must be in (0, 1), not {novel_ratio}")
    n_novel = min(len(classes) - 1, max(1, int(round(novel_ratio * len(classes)))))
    perm = rng_for(seed, "fewshot-classes", "base-novel").permutation(len(classes))
    novel = sorted(classes[i] for i in perm[:n_novel])
    base = sorted(c for c in classes if c not in set(novel))
    return ClassSplit(tuple(base), tuple(novel), f"seeded(novel_ratio={novel_ratio}, seed={seed})")


# --------------------------------------------------------------------------------------------
# 3. train / test


def split_queries(by_class: Mapping[str, Sequence[str]], test_ratio: float, seed: int) -> QuerySplit:
    """Per class: ``round(test_ratio * n)`` test queries (at least 1), the rest for training."""
    if not 0.0 < test_ratio < 1.0:
        raise BenchError(f"--test-ratio must be in (0, 1), not {test_ratio}")
    train, test = {}, {}
    for c in sorted(by_class):
        qids = sorted(by_class[c], key=natural_key)
        n_test = min(len(qids), max(1, int(round(test_ratio * len(qids)))))
        perm = rng_for(seed, "fewshot-train-test", c).permutation(len(qids))
        test_set = {qids[i] for i in perm[:n_test]}
        test[c] = tuple(q for q in qids if q in test_set)
        train[c] = tuple(q for q in qids if q not in test_set)
    return QuerySplit(train, test, test_ratio)


# --------------------------------------------------------------------------------------------
# 4. trials


def trial_seeds(seed: int, n: int) -> List[int]:
    """The n trial seeds derived from the run seed (recorded in the result)."""
    return [int(rng_for(seed, "fewshot-trial", str(j)).integers(0, 2 ** 31 - 1)) for j in range(1, n + 1)]


def sample_trial(train: Mapping[str, Sequence[str]], classes: Sequence[str], k: int, trial_seed: int,
                 index: int = 1, short_rule: str = "all") -> Trial:
    """K training queries per class without replacement (short classes by ``short_rule``)."""
    if k < 1:
        raise BenchError(f"K must be at least 1, not {k}")
    if short_rule not in SHORT_RULES:
        raise BenchError(f"short-class rule must be one of {SHORT_RULES}, not {short_rule!r}")
    samples: Dict[str, Tuple[str, ...]] = {}
    capped: Dict[str, int] = {}
    skipped: List[str] = []
    for c in sorted(classes):
        pool = list(train[c])
        if len(pool) < k:
            if short_rule == "skip" or not pool:
                skipped.append(c)
                continue
            capped[c] = len(pool)
        rng = rng_for(trial_seed, f"fewshot-sample-K{k}", c)
        take = min(k, len(pool))
        samples[c] = tuple(pool[i] for i in rng.choice(len(pool), size=take, replace=False))
    return Trial(k, index, trial_seed, samples, capped, tuple(skipped))


def build_plan(dataset: Dataset, *, seed: int = 0, ks: Sequence[int] = DEFAULT_KS, n_trials: int = DEFAULT_TRIALS,
               novel_ratio: float = 0.5, test_ratio: float = 0.5, split_file: Optional[Path] = None,
               short_rule: str = "all", min_usable_novel: int = 1,
               seeds: Optional[Sequence[int]] = None, min_class_test: int = 1) -> FewShotPlan:
    """Everything the protocol samples, from the dataset and the run seed."""
    labels, unlabelled = class_labels(dataset)
    if not labels:
        raise BenchError(f"dataset {dataset.name!r} has no class labels: the few-shot suite needs a 'class', "
                         f"'label' or 'category' field in queries.jsonl (or the chatterbot dataset)")
    by_class = queries_by_class(labels)
    notes: List[str] = []
    if unlabelled:
        notes.append(f"{unlabelled} judged queries have no class label and take no part")
    if split_file is not None:
        cs = read_split_file(split_file, list(by_class))
        if cs.left_out:
            notes.append(f"classes not in the split file, left out: {', '.join(cs.left_out)}")
            for c in cs.left_out:
                for q in by_class[c]:
                    del labels[q]
                del by_class[c]
    else:
        cs = split_classes(list(by_class), novel_ratio, seed)
    qs = split_queries(by_class, test_ratio, seed)
    excluded = {c: len(t) for c, t in sorted(qs.test.items()) if len(t) < min_class_test}
    if excluded:  # still trained on; their test queries take no part in any average, ratio or test
        qs = QuerySplit(qs.train, {c: (() if c in excluded else t) for c, t in qs.test.items()}, qs.test_ratio)
        notes.append(f"--min-class-test {min_class_test}: {len(excluded)} classes with fewer test queries left out "
                     f"of the scores: {', '.join(f'{c} ({n})' for c, n in excluded.items())}")
    test_only = [c for c in sorted(by_class) if not qs.train[c]]
    if test_only:
        notes.append(f"classes with no training query (test only): {', '.join(test_only)}")
    if n_trials < 1:
        raise BenchError("--trials must be at least 1")
    if seeds is not None:
        seeds = [int(s) for s in seeds]
        if len(seeds) != n_trials:
            raise BenchError(f"{len(seeds)} trial seeds given for {n_trials} trials")
    else:
        seeds = trial_seeds(seed, n_trials)
    if short_rule not in SHORT_RULES:
        raise BenchError(f"short-class rule must be one of {SHORT_RULES}, not {short_rule!r}")
    run_ks: List[int] = []
    skipped_k: Dict[int, str] = {}
    usable: Dict[int, Dict[str, List[str]]] = {}
    trials: Dict[int, List[Trial]] = {}
    for k in sorted(set(int(k) for k in ks)):
        if k < 1:
            raise BenchError(f"K must be at least 1, not {k}")
        usable[k] = {"base": [c for c in cs.base if len(qs.train[c]) >= k],
                     "novel": [c for c in cs.novel if len(qs.train[c]) >= k]}
        if len(usable[k]["novel"]) < min_usable_novel:
            skipped_k[k] = (f"{len(usable[k]['novel'])} novel classes have >= {k} training queries "
                            f"(need {min_usable_novel})")
            continue
        run_ks.append(k)
        trials[k] = [sample_trial(qs.train, list(cs.base) + list(cs.novel), k, s, j, short_rule)
                     for j, s in enumerate(seeds, start=1)]
    return FewShotPlan(cs, qs, labels, run_ks, skipped_k, list(seeds), trials, short_rule, usable, notes,
                       min_class_test, excluded)
