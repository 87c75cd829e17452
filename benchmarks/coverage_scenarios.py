"""Populations for benchmarks/interval_coverage.py: per-query ORIGINAL values O (n,), G draws of a
variation set V (n, G), the set's applied flags (n,), and a second model for the comparison of two
drop rates, with the exact (or 4-million-query Monte Carlo) population values of every figure.

Synthetic scenarios (RR@10-like values: 1/rank, 0 past rank 10; every draw of a query independent
given the query), after issue 37's list:

* ``half-zero``: half the queries at RR = 0, the rest 1/k (k uniform 1..10); every query can be
  hurt, with a per-query probability p_q ~ Beta(1, 4) per draw; a hurt draw moves the rank down
  by 1 + Geometric(0.3) places.
* ``sparse-skewed``: 60 % at RR = 0, the rest 1/k (k uniform 1..5); 30 % of the queries can be
  changed (applied), each draw hurts an applied query with probability 0.5, and a hurt draw loses
  everything (RR 0) with probability 0.6, else half of it: few, large, one-sided losses.
* ``rare-hurt``: RR 0 w.p. 0.30, 1 w.p. 0.35, else 1/k (k uniform 2..10); every query hurt with
  probability 0.1 per draw, a hurt draw being an independent degraded value (0 w.p. 0.5, 1 w.p.
  0.25, else 1/k): it can also help.
* ``geom-poisson``: rank 1 + Geometric(0.25); 60 % of the queries applied, each draw shifting the
  rank down by Poisson(lambda_q), lambda_q ~ Gamma(0.5, 1) (most shifts 0, a few large).
* ``ir-mixed``: docs/statistics.md's earlier scenario (40 % never hurt, p_q ~ Beta(2, 2), a hurt
  draw an independent degraded value), a control that the earlier interval already covered.

Real plug-ins (``real:<collection>/<model>/<set>/<measure>``): the committed run's per-query
values (results/runs/<model>__<collection>__variations__s0/per_query.csv) ARE the population:
queries are drawn from them with replacement. With one draw (G = 1) a query's variation value is
the observed one; with G > 1 each draw is the observed variation value with probability 0.5 and
ORIGINAL's otherwise (a generator whose edit touches the query in half of its draws), so the
population drop rate is half the set's. The two-model plug-ins (``real:<collection>/<measure>``)
pair bm25's and minilm-l6's (ORIGINAL, mean over the eight sets) per query, as ``bench compare``
does; the applied-only ones average MISSPELL, NOSTOPWORD and BACKTRANS of one run.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np

from benchmarks.common import ROOT

RUNS = ROOT / "results" / "runs"
TRUTH_N = 4_000_000
Sample = Tuple[np.ndarray, np.ndarray, np.ndarray]  # O (n,), V (n, G), applied (n,)


def rr(rank: np.ndarray) -> np.ndarray:
    return np.where(rank <= 10, 1.0 / np.maximum(rank, 1), 0.0)


def _half_zero(rng, n, g):
    k = rng.integers(1, 11, n).astype(float)
    rank = np.where(rng.random(n) < 0.5, 11.0, k)
    p = rng.beta(1.0, 4.0, n)
    hurt = rng.random((n, g)) < p[:, None]
    shift = 1 + rng.geometric(0.3, (n, g))
    return rr(rank), rr(rank[:, None] + np.where(hurt, shift, 0)), np.ones(n, bool)


def _sparse_skewed(rng, n, g):
    o = np.where(rng.random(n) < 0.6, 0.0, 1.0 / rng.integers(1, 6, n))
    applied = rng.random(n) < 0.3
    hurt = applied[:, None] & (rng.random((n, g)) < 0.5)
    lost = np.where(rng.random((n, g)) < 0.6, o[:, None], o[:, None] / 2)
    return o, o[:, None] - np.where(hurt, lost, 0.0), applied


def _rr_draw(rng, shape, p0, p1):
    u = rng.random(shape)
    mid = 1.0 / rng.integers(2, 11, size=shape)
    return np.where(u < p0, 0.0, np.where(u < p0 + p1, 1.0, mid))


def _rare_hurt(rng, n, g):
    o = _rr_draw(rng, n, 0.30, 0.35)
    hurt = rng.random((n, g)) < 0.1
    return o, np.where(hurt, _rr_draw(rng, (n, g), 0.50, 0.25), o[:, None]), np.ones(n, bool)


def _geom_poisson(rng, n, g):
    rank = rng.geometric(0.25, n).astype(float)
    applied = rng.random(n) < 0.6
    lam = np.where(applied, rng.gamma(0.5, 1.0, n), 0.0)
    return rr(rank), rr(rank[:, None] + rng.poisson(lam[:, None], (n, g))), applied


def _ir_mixed(rng, n, g):
    o = _rr_draw(rng, n, 0.30, 0.35)
    p = np.where(rng.random(n) < 0.4, 0.0, rng.beta(2.0, 2.0, n))
    hurt = rng.random((n, g)) < p[:, None]
    return o, np.where(hurt, _rr_draw(rng, (n, g), 0.50, 0.25), o[:, None]), p > 0


SYNTHETIC: Dict[str, Callable] = {"half-zero": _half_zero, "sparse-skewed": _sparse_skewed,
                                  "rare-hurt": _rare_hurt, "geom-poisson": _geom_poisson, "ir-mixed": _ir_mixed}

REAL_SETS = ["chatterbot/bm25/MISSPELL/MRR@10", "chatterbot/minilm-l6/BACKTRANS/nDCG@10",
             "cranfield/bm25/MISSPELL/nDCG@10", "cranfield/minilm-l6/NOSTOPWORD/R@100"]
REAL_PAIRS = ["chatterbot/MRR@10", "chatterbot/nDCG@10", "cranfield/nDCG@10", "cranfield/R@100"]
APPLIED_SETS = ("MISSPELL", "NOSTOPWORD", "BACKTRANS")
REAL_APPLIED = ["chatterbot/bm25/MRR@10", "chatterbot/minilm-l6/nDCG@10", "cranfield/bm25/nDCG@10",
                "cranfield/minilm-l6/R@100"]
HALF = 0.5  # per-draw change probability of a real query with G > 1


def _table(collection: str, model: str):
    import pandas as pd

    return pd.read_csv(RUNS / f"{model}__{collection}__variations__s0" / "per_query.csv", dtype={"qid": str})


def _column(df, set_name: str, measure: str, qids) -> Tuple[np.ndarray, np.ndarray]:
    sub = df[df["set"] == set_name].set_index("qid").reindex(qids)
    return sub[measure].to_numpy(np.float64), sub["applied"].fillna(0).to_numpy() != 0


@dataclass(frozen=True)
class Population:
    """A per-query population and what to draw from it."""

    name: str
    kind: str  # "synthetic" | "real"
    draw: Callable  # (rng, n, G) -> Sample
    truth: Dict[str, float]  # "drop@G", "worst@G", "applied"


def real_population(spec: str) -> Population:
    collection, model, set_name, measure = spec.split("/")
    df = _table(collection, model)
    qids = list(df[df["set"] == "ORIGINAL"]["qid"])
    o, _ = _column(df, "ORIGINAL", measure, qids)
    v, applied = _column(df, set_name, measure, qids)

    def draw(rng, n, g):
        i = rng.integers(0, o.size, n)
        if g == 1:
            return o[i], v[i][:, None], applied[i]
        keep = rng.random((n, g)) < HALF
        return o[i], np.where(keep, v[i][:, None], o[i][:, None]), applied[i]

    truth = {"drop@1": 1 - v.mean() / o.mean(), "applied": 1 - v[applied].mean() / o[applied].mean(),
             "delta": v.mean() - o.mean()}
    for g in (3, 5):
        truth[f"drop@{g}"] = HALF * truth["drop@1"]
        # the lowest of G draws is min(O, V) unless every draw kept the other value (V w.p. HALF)
        low, high = np.minimum(o, v), np.maximum(o, v)
        p_low = np.where(v < o, 1 - (1 - HALF) ** g, 1 - HALF ** g)
        truth[f"worst@{g}"] = 1 - np.mean(p_low * low + (1 - p_low) * high) / o.mean()
    return Population("real:" + spec, "real", draw, truth)


def synthetic_population(name: str, seed: int = 12345) -> Population:
    f = SYNTHETIC[name]
    truth: Dict[str, float] = {}
    rng = np.random.default_rng([seed, sum(map(ord, name))])
    acc = np.zeros(6)
    chunk = 500_000
    for _ in range(TRUTH_N // chunk):
        o, v, ap = f(rng, chunk, 5)
        acc += [o.sum(), v[:, 0].sum(), v[:, :3].min(axis=1).sum(), v.min(axis=1).sum(), o[ap].sum(), v[ap, 0].sum()]
    truth["drop@1"] = truth["drop@3"] = truth["drop@5"] = 1 - acc[1] / acc[0]
    truth["worst@3"], truth["worst@5"] = 1 - acc[2] / acc[0], 1 - acc[3] / acc[0]
    truth["applied"] = 1 - acc[5] / acc[4]
    truth["delta"] = (acc[1] - acc[0]) / TRUTH_N
    return Population(name, "synthetic", f, truth)


def applied_population(spec: str) -> Tuple[str, Callable, float]:
    """(name, draw(rng, n) -> (O (n,), [(V_s (n,), applied_s (n,)) per set]), truth) of a real run's
    applied-only average over APPLIED_SETS."""
    collection, model, measure = spec.split("/")
    df = _table(collection, model)
    qids = list(df[df["set"] == "ORIGINAL"]["qid"])
    o, _ = _column(df, "ORIGINAL", measure, qids)
    sets = [_column(df, s, measure, qids) for s in APPLIED_SETS]
    truth = float(np.mean([1 - v[a].mean() / o[a].mean() for v, a in sets]))

    def draw(rng, n):
        i = rng.integers(0, o.size, n)
        return o[i], [(v[i], a[i]) for v, a in sets]

    return "real:" + spec + " (3 sets)", draw, truth


def pair_population(spec: Optional[str]) -> Tuple[str, Callable, float]:
    """(name, draw(rng, n) -> (ao, av, bo, bv), truth DR_B - DR_A): bm25 (A) and minilm-l6 (B) of a
    committed collection, or (spec None) a synthetic pair on half-zero's queries: A hurt with
    p = 0.1, B with p = 0.25 per query."""
    if spec is None:
        def draw(rng, n):
            o, _, _ = _half_zero(rng, n, 1)
            rank = np.where(o > 0, 1.0 / np.where(o > 0, o, 1.0), 11.0)
            out = [o]
            for p in (0.1, 0.25):
                out.append(rr(rank + np.where(rng.random(n) < p, 1 + rng.geometric(0.3, n), 0)))
            return o, out[1], o.copy(), out[2]

        acc = np.zeros(3)
        rng = np.random.default_rng([12345, 7])
        for _ in range(TRUTH_N // 500_000):
            ao, av, _, bv = draw(rng, 500_000)
            acc += [ao.sum(), av.sum(), bv.sum()]
        return "two models on half-zero (A p=0.1, B p=0.25)", draw, (1 - acc[2] / acc[0]) - (1 - acc[1] / acc[0])
    collection, measure = spec.split("/")
    cols: List[np.ndarray] = []
    qids = None
    for model in ("bm25", "minilm-l6"):
        df = _table(collection, model)
        qids = qids or list(df[df["set"] == "ORIGINAL"]["qid"])
        o, _ = _column(df, "ORIGINAL", measure, qids)
        names = sorted(set(df["set"]) - {"ORIGINAL"})
        v = np.mean([_column(df, s, measure, qids)[0] for s in names], axis=0)
        cols += [o, v]
    ao, av, bo, bv = cols
    truth = (1 - bv.mean() / bo.mean()) - (1 - av.mean() / ao.mean())

    def draw(rng, n):
        i = rng.integers(0, ao.size, n)
        return ao[i], av[i], bo[i], bv[i]

    return f"real:{spec} (minilm-l6 - bm25)", draw, truth
