"""Is compare's Monte Carlo swap p biased? (issue 37, item 4.)

    python benchmarks/swap_p_seeds.py [--datasets cranfield,chatterbot] [--seeds 200] [--reference 4000000]

For the committed runs ``results/runs/minilm-l6__<dataset>__variations__s0`` (A) and
``bm25__<dataset>__variations__s0`` (B), per measure: the drop-rate difference of VARIATIONS
(AVG.) as ``bench compare`` forms it, its two-sided swap-test p from compare's kernel
(:func:`bench.evaluation.paired.drop_rate_difference_test`, m = 10000, compare's stream key) for
seeds 0..S-1, and an independent reference p from ``--reference`` uniform swaps of the differing
queries drawn from a Generator that is not the project's. The expectation of a seed's p is
``(m p_ref + 1)/(m + 1)`` (the ``+1`` of ``(b+1)/(m+1)``); printed: the mean over seeds and its
distance from the expectation in standard errors (the mean's and the reference's), seed 0's
distance in Monte Carlo standard errors of one seed, and the SD over seeds against the binomial
SD. Figures in docs/statistics.md ("The Monte Carlo p is not biased low"); about 10 minutes on 2
shared cores.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from bench.evaluation.droprate import _dr
from bench.evaluation.paired import drop_rate_difference_test
from bench.reporting.comparability import RUN_ROLES, check_compatible, paired_arrays
from bench.reporting.compare.droprate import pair_key
from bench.results.rundir import ORIGINAL, load_run

ROOT = Path(__file__).resolve().parents[1]
M = 10000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="cranfield,chatterbot")
    ap.add_argument("--measures", default="MRR@10,nDCG@10,R@100")
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--reference", type=int, default=4_000_000)
    args = ap.parse_args()
    print("| dataset | measure | n' | reference p | expectation | mean over seeds | z (mean) | seed 0 | z (seed 0) "
          "| SD over seeds | binomial SD |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for ds in args.datasets.split(","):
        a = load_run(ROOT / f"results/runs/minilm-l6__{ds}__variations__s0")
        b = load_run(ROOT / f"results/runs/bm25__{ds}__variations__s0")
        for metric in args.measures.split(","):
            sets = check_compatible(a, b, metric, RUN_ROLES)
            var = [s for s in sets if s != ORIGINAL]
            ad, bd, _ = paired_arrays(a, b, sets, metric, RUN_ROLES)
            ao, av = ad[ORIGINAL], np.mean([ad[s] for s in var], axis=0)
            bo, bv = bd[ORIGINAL], np.mean([bd[s] for s in var], axis=0)
            key = pair_key(metric, a, b)
            ps = np.array([drop_rate_difference_test(ao, av, bo, bv, n_resamples=M, seed=s, key=key).pvalue
                           for s in range(args.seeds)])
            sums = np.array([ao.sum(), av.sum(), bo.sum(), bv.sum()])
            t_obs = float(_dr(sums[2], sums[3]) - _dr(sums[0], sums[1]))
            do, dv = bo - ao, bv - av
            diff = (do != 0) | (dv != 0)
            do, dv = do[diff], dv[diff]
            rng = np.random.default_rng(123456789)
            hits = done = 0
            while done < args.reference:
                c = min(50000, args.reference - done)
                sw = rng.random((c, do.size)) < 0.5
                mo, mv = sw @ do, sw @ dv
                t = _dr(sums[2] - mo, sums[3] - mv) - _dr(sums[0] + mo, sums[1] + mv)
                hits += int(np.sum(np.abs(t) >= abs(t_obs) * (1 - 1e-12)))
                done += c
            ref = hits / args.reference
            expect = (M * ref + 1) / (M + 1)
            se1 = np.sqrt(ref * (1 - ref) / M)
            se_mean = np.sqrt(ps.var(ddof=1) / ps.size + ref * (1 - ref) / args.reference)
            print(f"| {ds} | {metric} | {int(diff.sum())} | {ref:.5f} | {expect:.5f} | {ps.mean():.5f} | "
                  f"{(ps.mean() - expect) / se_mean:+.2f} | {ps[0]:.5f} | {(ps[0] - expect) / se1:+.2f} | "
                  f"{ps.std(ddof=1):.5f} | {se1:.5f} |", flush=True)


if __name__ == "__main__":
    main()
