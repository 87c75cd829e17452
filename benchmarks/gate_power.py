"""Power (and A/A false-alarm rate) of `bench gate`: the gate before issue 14 ("before": two-sided
tests, Holm over every check, tolerance 0), the gate now ("after": defaults — one-sided, max-T,
hierarchy, margins 0) and one one-sided paired t-test on ORIGINAL alone at the same alpha.

    python benchmarks/gate_power.py [--pairs 250] [--resamples 2000] [--sources synthetic,cranfield,chatterbot]
                                    [--sizes 30,76,200] [--effects 0,0.03,0.06,0.13] [--out table.md]

Sources (every set of the variations suite: ORIGINAL + 8 variation sets):
* ``synthetic``: the A/A simulation's model (benchmarks/aa_simulation.py: per-query difficulty,
  per-set factors shared by both runs, runs drawn independently, MRR@10-like values).
* ``cranfield`` / ``chatterbot``: real per-query nDCG@10 of bm25 and minilm-l6 from
  results/runs/*__variations__s0 (MRR@10 there carries a known bug). A pair draws n queries with
  replacement; per query the (bm25, minilm-l6) values of all sets go to (baseline, candidate) in a
  random order, so the two runs are exchangeable (an A/A pair on real per-query differences).

Effect e (relative): the candidate misses a random e-fraction of the queries (value 0 in every
set), so every set's mean falls by e in expectation and drop rates do not change. A row's rate is
the fraction of pairs that FAIL (exit 1); for e = 0 it is the false-alarm rate.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Dict, List

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.aa_simulation import _rng, _wilson, draw_run, world  # noqa: E402
from bench.evaluation import stats as S  # noqa: E402
from bench.reporting.gate import GateOptions, gate_arrays  # noqa: E402


def legacy_gate_fails(b: Dict[str, np.ndarray], c: Dict[str, np.ndarray], alpha: float, n_resamples: int,
                      seed: int) -> bool:
    """The gate as it was before issue 14 (defaults: two-sided t-test on every set, two-sided swap
    test on every drop rate and VARIATIONS (AVG.), Holm over all, require both with tolerances 0)."""
    sets = list(b)
    checks = []  # (p, worse)
    for s in sets:
        r = S.paired_test(b[s], c[s], "t-test")
        checks.append((r.pvalue, np.mean(c[s]) < np.mean(b[s])))
    var = sets[1:]
    drs = [(s, b[s], c[s]) for s in var] + [("AVG", np.mean([b[s] for s in var], 0), np.mean([c[s] for s in var], 0))]
    bo, co = b[sets[0]], c[sets[0]]
    for s, bv, cv in drs:
        r = S.drop_rate_difference_test(bo, bv, co, cv, n_resamples=n_resamples, seed=seed, key=("gate", s))
        checks.append((r.pvalue, math.isfinite(r.statistic) and r.statistic > 0))
    adj = S.adjust_pvalues([p for p, _ in checks], "holm")
    return any(math.isfinite(p) and p < alpha and w for p, (_, w) in zip(adj, checks))


def load_real(name: str, metric: str = "nDCG@10"):
    from bench.results.rundir import load_run

    runs = [load_run(ROOT / "results" / "runs" / f"{m}__{name}__variations__s0") for m in ("bm25", "minilm-l6")]
    sets = runs[0].ok_sets
    qids = list(runs[0].values("ORIGINAL", metric).index)
    return [np.vstack([r.values(s, metric).loc[qids].to_numpy(dtype=np.float64) for s in sets]) for r in runs], sets


def make_pair(source: str, n: int, e: float, i: int, seed: int, real=None):
    rng = _rng(seed, "pair", source, str(n), str(e), str(i))
    if source == "synthetic":
        probs = world(seed * 100003 + i + 7919 * n, n, 8)
        b = draw_run(probs, _rng(seed, "run-a", source, str(n), str(e), str(i)))
        c = draw_run(probs, _rng(seed, "run-b", source, str(n), str(e), str(i)))
    else:
        (x0, x1), sets = real
        idx = rng.integers(0, x0.shape[1], n)
        swap = rng.random(n) < 0.5
        a0, a1 = x0[:, idx], x1[:, idx]
        bm = np.where(swap, a1, a0)
        cm = np.where(swap, a0, a1)
        b = {s: bm[k] for k, s in enumerate(sets)}
        c = {s: cm[k] for k, s in enumerate(sets)}
    miss = rng.random(n) < e
    c = {s: np.where(miss, 0.0, v) for s, v in c.items()}
    return b, c


def run_row(source: str, n: int, e: float, pairs: int, n_resamples: int, alpha: float, seed: int, real=None):
    opts = GateOptions(alpha=alpha, n_resamples=n_resamples, seed=seed)
    counts = {"before": 0, "after": 0, "after_pass": 0, "orig_1s": 0}
    for i in range(pairs):
        b, c = make_pair(source, n, e, i, seed, real)
        counts["before"] += legacy_gate_fails(b, c, alpha, n_resamples, seed)
        v = gate_arrays(b, c, GateOptions(**{**opts.__dict__, "seed": seed * 1000003 + i}))
        counts["after"] += v.failed
        counts["after_pass"] += v.status == "PASS"
        counts["orig_1s"] += S.paired_ttest(b["ORIGINAL"], c["ORIGINAL"], alternative="less").pvalue < alpha
    return {k: v / pairs for k, v in counts.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=250)
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sources", default="synthetic,cranfield,chatterbot")
    ap.add_argument("--sizes", default="30,76,200")
    ap.add_argument("--effects", default="0,0.03,0.06,0.13")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    lines = [f"pairs/row = {args.pairs}, m = {args.resamples} resamples, alpha = {args.alpha}, seed = {args.seed}", "",
             "| source | n | effect | before (old gate) | after (this gate): FAIL | after: PASS | one-sided t on ORIGINAL |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    print("\n".join(lines), flush=True)
    for source in args.sources.split(","):
        real = load_real(source) if source != "synthetic" else None
        for n in map(int, args.sizes.split(",")):
            for e in map(float, args.effects.split(",")):
                t0 = time.perf_counter()
                r = run_row(source, n, e, args.pairs, args.resamples, args.alpha, args.seed, real)
                k = round(r["after"] * args.pairs)
                lo, hi = _wilson(k, args.pairs)
                line = (f"| {source} | {n} | {'-' if e else ''}{100 * e:g}% | {r['before']:.3f} | {r['after']:.3f} "
                        f"({lo:.3f}-{hi:.3f}) | {r['after_pass']:.3f} | {r['orig_1s']:.3f} |")
                lines.append(line)
                print(line, f"  [{time.perf_counter() - t0:.0f} s]", flush=True)
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
