"""Coverage of the several-draws drop-rate interval (a simulation, not a timed test).

    python benchmarks/draws_coverage.py [--reps 2000] [--boot-reps 400] [--B 400] [--n 30,100,300]
                                        [--draws 3,5,10] [--seed 0] [--out FILE.md]

A variation set drawn with G generation seeds gives, per query q and draw g, a value V[q, g] beside
the query's ORIGINAL value O[q]. The population drop rate R = 1 - E[V] / E[O] (expectation over
queries AND draws) is known exactly in every scenario below; each replication draws n queries with
G draws each and computes

* ``vc skew-t``: the interval drbench reports (:func:`bench.evaluation.draws.draw_summary`): the
  skewness-widened t interval (:func:`bench.evaluation.skew.skew_t_ci`) of the drop rate on the
  pairs (O_q, mean over draws of V[q, g]);
* ``vc t``: the delta-method t interval on the same pairs (the interval of earlier versions,
  :func:`bench.evaluation.intervals.t_drop_rate_ci`);
* ``two-level``: a two-level percentile bootstrap (resample queries, then the draws of each
  resampled query, B replicates), the alternative the design rejected;
* ``one-draw skew-t``: a one-draw run's interval (draw 0 alone,
  :func:`bench.evaluation.intervals.paired_bootstrap_ci`), for comparison.

Coverage = share of intervals containing R (lo <= R <= hi; undefined counts as a miss), percent,
with its Monte Carlo standard error. Mean width in percentage points.

Scenarios (RR-like values with point masses at 0 and 1, as benchmarks/ci_coverage.py's ``ir``):

* ``ir-mixed``: O is 0 w.p. 0.30, 1 w.p. 0.35, else 1/k (k uniform on 2..10). 40 % of the queries
  are never hurt (p_q = 0, e.g. a generator that cannot change them); the others have a hurt
  probability p_q ~ Beta(2, 2). A hurt draw's value is an independent degraded draw (0 w.p. 0.5,
  1 w.p. 0.25, else 1/k); an unhurt draw keeps O.
* ``ir-draw``: as ``ir-mixed`` but every query has p_q = 0.5: the draw is the main source of spread.
* ``normal``: O ~ N(0.5, 0.15^2); V = O + a_q + e_qg, a_q ~ N(-0.05, 0.05^2), e_qg ~ N(0, 0.1^2);
  R = 0.1.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.evaluation.draws import draw_summary  # noqa: E402
from bench.evaluation.intervals import paired_bootstrap_ci, t_drop_rate_ci  # noqa: E402

_K = np.arange(2, 11)
_MEAN_INV_K = float(np.mean(1.0 / _K))


def _rr(rng: np.random.Generator, shape, p0: float, p1: float) -> np.ndarray:
    u = rng.random(shape)
    mid = 1.0 / rng.integers(2, 11, size=shape)
    return np.where(u < p0, 0.0, np.where(u < p0 + p1, 1.0, mid))


def _ir(p_of: Callable[[np.random.Generator, int], np.ndarray], mean_p: float):
    e_o = 0.35 + 0.35 * _MEAN_INV_K
    e_d = 0.25 + 0.25 * _MEAN_INV_K
    truth = 1.0 - ((1 - mean_p) * e_o + mean_p * e_d) / e_o

    def draw(rng: np.random.Generator, n: int, g: int) -> Tuple[np.ndarray, np.ndarray]:
        o = _rr(rng, n, 0.30, 0.35)
        p = p_of(rng, n)
        hurt = rng.random((n, g)) < p[:, None]
        v = np.where(hurt, _rr(rng, (n, g), 0.50, 0.25), o[:, None])
        return o, v

    return draw, truth


def _mixed_p(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.where(rng.random(n) < 0.4, 0.0, rng.beta(2.0, 2.0, size=n))


def _normal(rng: np.random.Generator, n: int, g: int) -> Tuple[np.ndarray, np.ndarray]:
    o = rng.normal(0.5, 0.15, n)
    v = o[:, None] + rng.normal(-0.05, 0.05, n)[:, None] + rng.normal(0.0, 0.1, (n, g))
    return o, v


COLUMNS = ("vc skew-t", "vc t", "two-level", "one-draw skew-t")
SCENARIOS = {"ir-mixed": _ir(_mixed_p, 0.6 * 0.5), "ir-draw": _ir(lambda rng, n: np.full(n, 0.5), 0.5),
             "normal": (_normal, 0.1)}


def two_level(o: np.ndarray, v: np.ndarray, B: int, rng: np.random.Generator) -> Tuple[float, float]:
    n, g = v.shape
    qi = rng.integers(0, n, size=(B, n))
    di = rng.integers(0, g, size=(B, n, g))
    vb = v[qi[:, :, None], di].mean(axis=(1, 2))
    ob = o[qi].mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        reps = 1.0 - vb / ob
    reps = reps[np.isfinite(reps)]
    if reps.size == 0:
        return (float("nan"), float("nan"))
    lo, hi = np.percentile(reps, [2.5, 97.5])
    return float(lo), float(hi)


def t_drop_batch(a: np.ndarray, b: np.ndarray, q: float) -> np.ndarray:
    """:func:`bench.evaluation.intervals.t_drop_rate_ci` on every row of (R, n) arrays at once (the
    log-ratio branch; rows where it does not apply are recomputed by the function itself)."""
    n = a.shape[1]
    ma, mb = a.mean(axis=1), b.mean(axis=1)
    out = np.full((a.shape[0], 2), np.nan)
    good = (ma > 0) & (mb > 0)
    rho = mb[good] / ma[good]
    se = np.std(b[good] / mb[good, None] - a[good] / ma[good, None], axis=1, ddof=1) / math.sqrt(n)
    out[good, 0] = 1.0 - rho * np.exp(q * se)
    out[good, 1] = 1.0 - rho * np.exp(-q * se)
    for i in np.flatnonzero(~good):
        out[i] = t_drop_rate_ci(a[i], b[i])
    return out


def simulate(name: str, n: int, g: int, reps: int, boot_reps: int, B: int, seed: int) -> Dict[str, Tuple[float, float, int]]:
    from scipy import stats as st

    draw, truth = SCENARIOS[name]
    rng = np.random.default_rng([seed, n, g, sum(map(ord, name))])
    data = [draw(rng, n, g) for _ in range(reps)]
    o = np.stack([d[0] for d in data])
    v = np.stack([d[1] for d in data])
    q = float(st.t.ppf(0.975, n - 1))
    cis = {"vc t": t_drop_batch(o, v.mean(axis=2), q),
           "vc skew-t": np.array([draw_summary(o[i], v[i])["drop_rate_ci"] for i in range(reps)], dtype=float),
           "one-draw skew-t": np.array([paired_bootstrap_ci(o[i], v[i, :, 0]).drop_rate for i in range(reps)])}
    for i in range(min(20, reps)):  # the batch computes the earlier interval
        assert np.allclose(cis["vc t"][i], t_drop_rate_ci(o[i], v[i].mean(axis=1)), rtol=1e-9, atol=1e-12)
    cis["two-level"] = np.array([two_level(o[i], v[i], B, rng) for i in range(min(boot_reps, reps))])
    out = {}
    for k in COLUMNS:
        lo, hi = cis[k][:, 0], cis[k][:, 1]
        ok = np.isfinite(lo) & np.isfinite(hi)
        hit = ok & (lo <= truth) & (truth <= hi)
        out[k] = (100.0 * float(hit.mean()), 100.0 * float(np.mean((hi - lo)[ok])) if ok.any() else float("nan"),
                  int(hit.size))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--boot-reps", type=int, default=400, help="replications that also run the two-level bootstrap")
    ap.add_argument("--B", type=int, default=400)
    ap.add_argument("--n", default="30,100,300")
    ap.add_argument("--draws", default="3,5,10")
    ap.add_argument("--scenarios", default=",".join(SCENARIOS))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None, help="also write the markdown table here")
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    lines = ["| scenario | n | G | vc skew-t (ships) % (width pp) | vc t (earlier) % (width pp) "
             "| two-level bootstrap % (width pp) | one-draw skew-t % (width pp) |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for name in a.scenarios.split(","):
        for n in (int(x) for x in a.n.split(",")):
            for g in (int(x) for x in a.draws.split(",")):
                res = simulate(name, n, g, a.reps, a.boot_reps, a.B, a.seed)

                def cell(k: str) -> str:
                    c, w, m = res[k]
                    se = 100.0 * math.sqrt(c / 100 * (1 - c / 100) / m)
                    return f"{c:.1f} ± {se:.1f} ({w:.1f})"

                lines.append(f"| {name} | {n} | {g} | " + " | ".join(cell(k) for k in COLUMNS) + " |")
                print(lines[-1], flush=True)
    lines.append("")
    lines.append(f"reps {a.reps} (two-level bootstrap: first {a.boot_reps}, B = {a.B}), seed {a.seed}; "
                 f"± = Monte Carlo SE; {time.perf_counter() - t0:.0f} s")
    print(lines[-1])
    if a.out:
        a.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
