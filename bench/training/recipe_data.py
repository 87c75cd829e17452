"""The data of a recipe run: training pairs (query, positives, negatives, variations), the seeded
split of held-out queries and the step schedule (:mod:`bench.training.recipes`)."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from bench.core.errors import BenchError
from bench.core.seeding import rng_for
from bench.data.model import Dataset, natural_key
from perturb import PAPER_ORDER
from perturb.io.generation import generate_all


@dataclass(frozen=True)
class Pair:
    qid: str
    text: str
    positives: Tuple[str, ...]
    negatives: Tuple[str, ...]
    variations: Tuple[Tuple[str, str], ...]  # (set name, text) to draw from: "quota" (default): the one
    # changed variation the quota assignment gave the query (none: it trains on itself); "sets": every
    # set (an unchanged query under the name "<SET> (unchanged)"); "changed": the sets that changed it
    n_changed: int = 0  # how many sets changed the query


def split_queries(dataset: Dataset, holdout: float, seed: int) -> Tuple[List[str], List[str]]:
    """(train ids, held-out ids): the judged queries ordered by sha256(seed, qid); the first
    round(holdout * n) are held out. Both lists are returned in the dataset's natural order."""
    qids = dataset.judged_query_ids()
    order = sorted(qids, key=lambda q: hashlib.sha256(f"{seed}\t{q}".encode()).hexdigest())
    n_out = int(round(holdout * len(qids)))
    if n_out < 1 or n_out >= len(qids):
        raise BenchError(f"--holdout {holdout} leaves no training or no held-out query ({len(qids)} judged queries)")
    held = set(order[:n_out])
    return ([q for q in qids if q not in held], sorted(held, key=natural_key))


class Schedule:
    """Step -> (phase, epoch, batch start); batches depend on (seed, phase, epoch) only."""

    def __init__(self, n: int, batch_size: int, phases: Sequence[str], epochs: int, seed: int,
                 max_steps: Optional[int]):
        self.n, self.bs, self.seed = n, batch_size, seed
        self.steps = [(pi, e, s) for pi in range(len(phases)) for e in range(epochs) for s in range(0, n, batch_size)]
        if max_steps is not None:
            self.steps = self.steps[:max_steps]
        self._perm: Dict[Tuple[int, int], np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.steps)

    def batch(self, step: int) -> Tuple[int, int, np.ndarray]:
        pi, e, s = self.steps[step]
        if (pi, e) not in self._perm:
            self._perm[(pi, e)] = rng_for(self.seed, "recipe-order", f"{pi}/{e}").permutation(self.n)
        return pi, e, self._perm[(pi, e)][s:s + self.bs]


def quota_assignment(changed: Dict[str, List[str]], names: Sequence[str], seed: int) -> Dict[str, str]:
    """One variation set per query, among the sets that changed it, with the sets' shares as equal
    as the queries allow: the RoDR authors' ``construct_train_query_variations.py`` gives every
    training query one changed variation, ``n / 8`` queries per type, each type drawing its quota
    at random among the queries it changed that no type took yet. ``changed``: qid -> the set names
    that changed it (queries with none get no entry). Where a type changed fewer queries than its
    quota (our sets' applicability differs; the authors' data had enough of each), it takes all it
    can and the others share the rest: the types are served from the fewest candidates up, each
    taking ceil(left / types left); a query every one of whose types is full goes to the one of
    them with the fewest queries. Deterministic for a seed."""
    qids = [q for q in changed if changed[q]]
    left, out = set(qids), {}
    cand = {n: [q for q in qids if n in changed[q]] for n in names}
    order = sorted(names, key=lambda n: (len(cand[n]), list(names).index(n)))
    for i, n in enumerate(order):
        free = [q for q in cand[n] if q in left]
        quota = -(-len(left) // (len(order) - i)) if left else 0
        take = min(quota, len(free))
        r = rng_for(seed, "recipe-quota", n)
        for j in sorted(r.choice(len(free), size=take, replace=False)) if take else ():
            out[free[j]] = n
            left.discard(free[j])
    for q in qids:  # every type that changed q is full: the least used of them
        if q in left:
            use = {n: sum(1 for v in out.values() if v == n) for n in changed[q]}
            out[q] = min(changed[q], key=lambda n: (use[n], list(names).index(n)))
    return out


def variation_pairs(dataset: Dataset, train_ids: Sequence[str], cfg, negatives) -> Tuple[List[Pair], list, list]:
    items = [(q, dataset.queries[q].text) for q in train_ids]
    names = list(cfg.generators) if cfg.generators is not None else list(PAPER_ORDER)
    by_q: Dict[str, List[Tuple[str, str]]] = {q: [] for q in train_ids}
    used, missing = [], []
    if cfg.recipe != "dr":
        for vs in generate_all(items, cfg.seed, names, protocol=getattr(cfg, "protocol", "validated")):  # in names order; BACKTRANS overlaps the others
            if vs.status != "ok":
                missing.append({"name": vs.name, "reason": vs.reason})
                continue
            used.append({"name": vs.name, "label": vs.label, "n_applied": int(vs.n_applied),
                         "fingerprint": vs.fingerprint()})
            for q, t, a in zip(vs.qids, vs.texts, vs.applied):
                by_q[q].append((vs.name, t, bool(a)))
    rule = getattr(cfg, "variation_sampling", "quota")
    every = rule == "sets"
    assigned = quota_assignment({q: [n for n, _, a in by_q[q] if a] for q, _ in items},
                                [u["name"] for u in used], cfg.seed) if rule == "quota" else {}
    pairs = []
    for q, text in items:
        pos = tuple(sorted(d for d, g in dataset.qrels.get(q, {}).items() if g > 0))
        if rule == "quota":
            draw = tuple((n, t) for n, t, a in by_q[q] if a and n == assigned.get(q))[:1]
        else:
            draw = tuple((n, t) if a else (f"{n} (unchanged)", text) for n, t, a in by_q[q] if a or every)
        pairs.append(Pair(q, text, pos, tuple(negatives.get(q, ())), draw, sum(1 for *_, a in by_q[q] if a)))
    return pairs, used, missing
