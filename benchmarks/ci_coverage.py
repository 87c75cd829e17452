"""Coverage of the bootstrap confidence intervals of bench.evaluation.stats (a simulation, not a timed test).

    python benchmarks/ci_coverage.py [--reps 2000] [--B 1000] [--n 10,30,100] [--seed 0]
                                     [--scenarios normal,ir,ir-sparse] [--confidence 0.95]

For every scenario and query count n, ``reps`` paired samples are drawn from a population whose
mean difference delta = E[b] - E[a], drop rate (E[a] - E[b]) / E[a] and means E[a], E[b] are
known exactly, and every interval method of ``bench.evaluation.stats.paired_bootstrap_ci`` /
``bench.evaluation.stats.bootstrap_mean_ci`` (``interval=`` "percentile", the old default; "bca"; "t", the
new default) is computed (bootstrap seed = replication number, B resamples). A studentized
(bootstrap-t) interval of the means is shown as a reference. Coverage = share of intervals that
contain the true value (lo <= x <= hi; an undefined interval counts as a miss), in percent, with
its Monte Carlo standard error sqrt(c (1 - c) / reps).

Scenarios (values per query; a = ORIGINAL / baseline, b = variation / candidate):

* ``normal``: a ~ N(0.5, 0.15^2), b = a + e, e ~ N(-0.05, 0.1^2): delta = -0.05, drop rate 0.1.
* ``ir``: reciprocal-rank-like values with point masses at 0 and 1. a is 0 w.p. 0.30, 1 w.p.
  0.35, else 1/k with k uniform on 2..10; with probability 0.4 the query is unaffected (b = a),
  otherwise b is an independent draw from a degraded distribution (0 w.p. 0.50, 1 w.p. 0.25,
  else 1/k, k uniform on 2..10). About 55 % of the differences are exactly 0.
* ``ir-sparse``: as ``ir`` but 80 % of the queries are unaffected (about 85 % zero differences;
  at n = 10 a sample has no non-zero difference with probability ~0.2, and then every interval
  is [0, 0] and misses): a stress case, not part of the target.
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

from bench.evaluation import stats as S  # noqa: E402

KS = np.arange(2, 11)


def _rr_draw(rng: np.random.Generator, n: int, p0: float, p1: float) -> np.ndarray:
    u = rng.random(n)
    k = rng.integers(2, 11, size=n)
    return np.where(u < p0, 0.0, np.where(u < p0 + p1, 1.0, 1.0 / k))


def _rr_mean(p0: float, p1: float) -> float:
    return p1 + (1.0 - p0 - p1) * float(np.mean(1.0 / KS))


Draw = Callable[[np.random.Generator, int], Tuple[np.ndarray, np.ndarray]]


def _ir(unaffected: float) -> Tuple[Draw, float, float, float, float]:
    A, D = (0.30, 0.35), (0.50, 0.25)

    def draw(rng: np.random.Generator, n: int) -> Tuple[np.ndarray, np.ndarray]:
        a = _rr_draw(rng, n, *A)
        b_new = _rr_draw(rng, n, *D)
        same = rng.random(n) < unaffected
        return a, np.where(same, a, b_new)

    ma = _rr_mean(*A)
    mb = unaffected * ma + (1.0 - unaffected) * _rr_mean(*D)
    return draw, mb - ma, (ma - mb) / ma, ma, mb


def _normal() -> Tuple[Draw, float, float, float, float]:
    def draw(rng: np.random.Generator, n: int) -> Tuple[np.ndarray, np.ndarray]:
        a = rng.normal(0.5, 0.15, n)
        return a, a + rng.normal(-0.05, 0.1, n)

    return draw, -0.05, 0.1, 0.5, 0.45


SCENARIOS = {"normal": _normal, "ir": lambda: _ir(0.4), "ir-sparse": lambda: _ir(0.8)}


def studentized(x: np.ndarray, B: int, seed: int, confidence: float) -> Tuple[float, float]:
    """Reference only: studentized (bootstrap-t) interval of mean(x), t* = (m* - m) / se*, with
    0/0 counted as 0 (a resample of equal values)."""
    n = x.size
    if n < 2:
        return (float("nan"), float("nan"))
    if np.all(x == x[0]):
        return (float(x[0]), float(x[0]))
    idx = S.rng_for(seed, "studentized").integers(0, n, size=(B, n))
    m, se = float(np.mean(x)), float(np.std(x, ddof=1)) / math.sqrt(n)
    xs = x[idx]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (np.mean(xs, axis=1) - m) / (np.std(xs, axis=1, ddof=1) / math.sqrt(n))
    t = np.sort(np.where(np.isnan(t), 0.0, t))
    alpha = (1.0 - confidence) / 2.0
    with np.errstate(invalid="ignore"):  # an infinite quantile makes an infinite (missing) interval
        lo_q, hi_q = np.quantile(t, [alpha, 1.0 - alpha])
        return (float(m - hi_q * se), float(m - lo_q * se))


def _covers(ci: Tuple[float, float], x: float) -> bool:
    lo, hi = ci
    return bool(math.isfinite(lo) and math.isfinite(hi) and lo <= x <= hi)


METHODS = ("percentile", "bca", "t", "studentized")  # the first three are bench.evaluation.stats intervals
LABELS = {"percentile": "percentile (old)", "bca": "BCa", "t": "t (new default)",
          "studentized": "studentized bootstrap (reference)"}
COLUMNS = ("delta", "drop", "mean_a", "mean_b")


def run(scenarios: List[str], ns: List[int], reps: int, B: int, seed: int, confidence: float) -> List[Dict]:
    rows = []
    for name in scenarios:
        draw, true_delta, true_dr, true_ma, true_mb = SCENARIOS[name]()
        truth = {"delta": true_delta, "drop": true_dr, "mean_a": true_ma, "mean_b": true_mb}
        for n in ns:
            hits = {m: dict.fromkeys(COLUMNS, 0) for m in METHODS}
            width = dict.fromkeys(METHODS, 0.0)
            t0 = time.perf_counter()
            for r in range(reps):
                rng = S.rng_for(seed, "ci-coverage", name, str(n), str(r))
                a, b = draw(rng, n)
                key = (name, str(n))
                for m in METHODS:
                    if m == "studentized":
                        ci = {"delta": studentized(b - a, B, r, confidence), "drop": (math.nan, math.nan),
                              "mean_a": studentized(a, B, r + 1, confidence),
                              "mean_b": studentized(b, B, r + 2, confidence)}
                    else:
                        pc = S.paired_bootstrap_ci(a, b, B=B, seed=r, confidence=confidence, key=key, interval=m)
                        ci = {"delta": pc.delta, "drop": pc.drop_rate,
                              "mean_a": S.bootstrap_mean_ci(a, B=B, seed=r, confidence=confidence, key=key + ("a",),
                                                            interval=m),
                              "mean_b": S.bootstrap_mean_ci(b, B=B, seed=r, confidence=confidence, key=key + ("b",),
                                                            interval=m)}
                    for c in COLUMNS:
                        hits[m][c] += _covers(ci[c], truth[c])
                    if all(math.isfinite(v) for v in ci["delta"]):
                        width[m] += ci["delta"][1] - ci["delta"][0]
            secs = time.perf_counter() - t0
            for m in METHODS:
                row = {"scenario": name, "n": n, "method": m, "width": width[m] / reps, "seconds": secs, **truth}
                for c in COLUMNS:
                    cov = hits[m][c] / reps
                    row["cov_" + c] = cov
                    row["se_" + c] = math.sqrt(cov * (1 - cov) / reps)
                rows.append(row)
            print(f"  {name} n={n}: {secs:.1f} s", file=sys.stderr, flush=True)
    return rows


def table(rows: List[Dict]) -> str:
    lines = ["| scenario | n | interval | delta | drop rate | mean (ORIGINAL) | mean (variation) "
             "| mean width of delta CI |",
             "|---|---:|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        cells = []
        for c in COLUMNS:
            if r["method"] == "studentized" and c == "drop":
                cells.append("–")
            else:
                cells.append(f"{100 * r['cov_' + c]:.1f} ± {100 * r['se_' + c]:.1f}")
        lines.append(f"| {r['scenario']} | {r['n']} | {LABELS[r['method']]} | " + " | ".join(cells)
                     + f" | {r['width']:.4f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--reps", type=int, default=2000)
    p.add_argument("--B", type=int, default=S.DEFAULT_BOOTSTRAP)
    p.add_argument("--n", default="10,30,100")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--scenarios", default="normal,ir,ir-sparse")
    p.add_argument("--confidence", type=float, default=0.95)
    args = p.parse_args(argv)
    scen = [s.strip() for s in args.scenarios.split(",") if s.strip()]
    bad = [s for s in scen if s not in SCENARIOS]
    if bad:
        p.error(f"unknown scenario(s) {', '.join(bad)}; choose from {', '.join(SCENARIOS)}")
    ns = [int(x) for x in args.n.split(",")]
    t0 = time.perf_counter()
    rows = run(scen, ns, args.reps, args.B, args.seed, args.confidence)
    print(f"coverage of the {100 * args.confidence:g}% intervals; reps = {args.reps}, B = {args.B}, "
          f"seed = {args.seed}; ± = Monte Carlo SE")
    for name in scen:
        r0 = next(r for r in rows if r["scenario"] == name)
        print(f"{name}: true delta = {r0['delta']:.6f}, drop rate = {r0['drop']:.6f}, means = {r0['mean_a']:.6f} "
              f"(ORIGINAL), {r0['mean_b']:.6f} (variation)")
    print(table(rows))
    print(f"({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
