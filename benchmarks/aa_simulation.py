"""A/A simulation of `bench gate`: how often does the gate fail when baseline and candidate are
two independent runs of models drawn from the SAME distribution? (its false-alarm rate)

    python benchmarks/aa_simulation.py [--pairs 1000] [--queries 76] [--sets 8] [--alpha 0.05]

A false alarm is a FAIL verdict (exit 1); INCONCLUSIVE and PASS are both counted as "no alarm"
(the PASS / INCONCLUSIVE split is printed too).

Synthetic model: query q has a difficulty p_q ~ Beta(2, 2) (probability that the relevant
document is at any given rank); variation set s multiplies it by a per-query factor
f ~ Uniform(0.5, 1) that is the same for both runs (it is a property of the perturbed query).
A run draws a per-query latent z_q ~ N(0, 1) (the model's luck on that query) shared by all
its sets with correlation rho = 0.7 (Gaussian copula); the rank of the relevant document is the
geometric quantile of Phi(z) and the value is the reciprocal rank cut at 10 (MRR@10).
Both runs of a pair are independent draws of the same process, so every failure is a false alarm.
"""
from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path
from typing import Dict

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.reporting.gate import GateOptions, gate_arrays  # noqa: E402


def _rng(seed: int, *keys: str) -> np.random.Generator:
    digest = hashlib.sha256("\x1f".join([str(seed), *keys]).encode()).digest()
    return np.random.default_rng(np.random.SeedSequence(np.frombuffer(digest, dtype="<u4").tolist()))


def world(seed: int, n_queries: int, n_sets: int) -> Dict[str, np.ndarray]:
    """Per-set per-query success probability (shared by both runs of a pair)."""
    from scipy import stats  # noqa: F401  (keeps import errors early)

    rng = _rng(seed, "world")
    p = rng.beta(2.0, 2.0, n_queries) * 0.9 + 0.05
    out = {"ORIGINAL": p}
    for i in range(n_sets):
        out[f"VAR{i + 1}"] = p * rng.uniform(0.5, 1.0, n_queries)
    return out


def draw_run(probs: Dict[str, np.ndarray], rng: np.random.Generator, rho: float = 0.7, depth: int = 10):
    from scipy.special import ndtr

    n = next(iter(probs.values())).size
    z = rng.standard_normal(n)
    out = {}
    for s, p in probs.items():
        zs = rho * z + np.sqrt(1 - rho * rho) * rng.standard_normal(n)
        u = np.clip(ndtr(zs), 1e-12, 1 - 1e-12)
        rank = np.ceil(np.log1p(-u) / np.log1p(-p))
        rank = np.maximum(rank, 1.0)
        out[s] = np.where(rank <= depth, 1.0 / rank, 0.0)
    return out


def simulate(pairs: int = 200, queries: int = 200, sets: int = 3, seed: int = 0,
             options: GateOptions = None) -> Dict[str, object]:
    """Run `pairs` A/A gates; returns the false-alarm rate and the checks that fired."""
    options = options or GateOptions()
    failures = 0
    passes = 0
    fired: Dict[str, int] = {}
    for i in range(pairs):
        probs = world(seed * 100003 + i, queries, sets)
        a = draw_run(probs, _rng(seed, "run-a", str(i)))
        b = draw_run(probs, _rng(seed, "run-b", str(i)))
        verdict = gate_arrays(a, b, options, metric="MRR@10")
        passes += verdict.status == "PASS"
        if verdict.failed:
            failures += 1
            for c in verdict.regressions:
                key = f"{c.kind}:{c.set}"
                fired[key] = fired.get(key, 0) + 1
    lo, hi = _wilson(failures, pairs)
    return {"pairs": pairs, "failures": failures, "rate": failures / pairs, "wilson": (lo, hi), "passes": passes,
            "fired": fired}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--queries", type=int, default=76)
    ap.add_argument("--sets", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--correction", default="maxt")
    ap.add_argument("--family", default="hierarchy")
    ap.add_argument("--test", default="t-test")
    ap.add_argument("--resamples", type=int, default=10000)
    args = ap.parse_args(argv)
    opts = GateOptions(alpha=args.alpha, correction=args.correction, family=args.family, test=args.test,
                       n_resamples=args.resamples)
    t0 = time.perf_counter()
    res = simulate(args.pairs, args.queries, args.sets, args.seed, opts)
    dt = time.perf_counter() - t0
    lo, hi = res["wilson"]
    print(f"A/A gate false-alarm rate (FAIL): {res['failures']}/{res['pairs']} = {res['rate']:.4f} "
          f"(95% Wilson CI {lo:.4f}-{hi:.4f}); PASS {res['passes']}, INCONCLUSIVE "
          f"{res['pairs'] - res['passes'] - res['failures']}; alpha = {args.alpha}, one-sided, "
          f"correction = {args.correction}, family = {args.family}, margins 0, {args.queries} queries, "
          f"{args.sets} variation sets, m = {args.resamples}, seed = {args.seed}; {dt:.1f} s")
    if res["fired"]:
        print("checks that fired:", ", ".join(f"{k} x{v}" for k, v in sorted(res["fired"].items())))
    return 0


def _wilson(k: int, n: int, z: float = 1.96):
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (max(0.0, mid - half), min(1.0, mid + half))


if __name__ == "__main__":
    sys.exit(main())
