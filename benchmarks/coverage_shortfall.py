"""Where the shipped interval still misses, and what was tried against it (a simulation beside
benchmarks/interval_coverage.py, vectorized over the replications so that many candidates fit).

    python -m benchmarks.coverage_shortfall [--reps 1000] [--seed 0] [--out FILE.md]

Same populations and seeding as benchmarks/interval_coverage.py (benchmarks/coverage_scenarios.py,
every interval of a drop rate or a difference, n = 30 and 100, G = 1, 3, 5); the shipped
skewness-widened t interval is computed here on all replications at once and checked against
``bench.evaluation.skew.skew_t_ci`` on the first 20 of every cell.

Diagnosis per cell: coverage, the share of replications whose interval lies entirely below /
above the population value, and the skewness of the influence values: their mean sample
skewness against the skewness of all replications' values pooled (the sample skewness of a
heavy-tailed population is biased low, and lowest in the samples without the large losses).

Candidate intervals (union with the delta-method t interval as shipped; q a t quantile):

* ``kurtosis df``: both parts with ``t_df``, ``df = 2n / (kurtosis(u) - 1)`` (capped at n - 1): the
  Satterthwaite (1946) degrees of freedom of a variance estimate whose values have that kurtosis;
* ``kurtosis df, Hall side``: only Hall's part with that df (the side the skew points to);
* ``changed df``: ``df = n_changed - 1``;
* ``jackknife skewness``: Hall's part with the jackknife bias-corrected skewness of u;
* ``one-sided: Hall alone``: where every per-query change has the same sign (no query gains when
  some lose), Hall's interval alone (its lower end, not the t interval's, so the union's
  over-coverage of one-sided losses goes), the union elsewhere and for the applied-only average
  and compare (whose columns have no one change per query).

Flag rules (the interval is "unreliable" when): ``changed < 10`` (ships), ``changed < 15``,
``changed < 10 or kurtosis(u)/n > 0.2``, ``changed < 10 or n_eff < 7`` (n_eff = (sum |d|)^2 /
sum d^2 of the per-query changes), ``changed < 10 or distinct < 10`` (distinct non-zero changes),
and for several draws ``mean changed per draw < 10``.

Summary: over the cells with n >= 30 and at least 100 unflagged replications, how many cells the
interval covers below 93.5 %, within 93.5-96.5 % and above 96.5 % where the rule does not flag;
over the cells where the shipped interval is within the target (all replications), in how many
the rule fires in most replications; over all cells with n >= 30, in how many the share of all
replications printed without a flag AND missing the population value exceeds 6.5 % (what a reader
is misled by: a flagged interval is not read as a claim); and the median width against the
shipped interval.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import numpy as np
from scipy import stats as st

from bench.evaluation.skew import AVERAGE_DROP_RATE, DROP_RATE, DROP_RATE_DIFFERENCE, MEAN, Statistic, skew_t_ci
from bench.results.applicability import changed_in_any_set
from benchmarks import coverage_scenarios as SC

Pair = Tuple[np.ndarray, np.ndarray]
LOW, HIGH = 0.935, 0.965


def _q(n: int, df=None) -> np.ndarray:
    return st.t.ppf(0.975, n - 1 if df is None else df)


def _influence(x: np.ndarray, stat: Statistic):
    m = x.mean(axis=1)
    u = np.einsum("rnk,rk->rn", x - m[:, None, :], stat.grad(m))
    return stat.theta(m), u, m


def _moments(u: np.ndarray):
    m2 = (u * u).mean(axis=1)
    with np.errstate(all="ignore"):
        g = np.nan_to_num((u ** 3).mean(axis=1) / m2 ** 1.5)
        k = np.nan_to_num((u ** 4).mean(axis=1) / m2 ** 2, nan=3.0)
    return g, k


def t_part(x, stat, q) -> Pair:
    """:func:`bench.evaluation.skew.t_ci` on every replication (rows of x: (R, n, k))."""
    n = x.shape[1]
    theta, u, m = _influence(x, stat)
    se = u.std(axis=1, ddof=1) / math.sqrt(n)
    if stat is DROP_RATE:
        ma, mb = m[:, 0], m[:, 1]
        with np.errstate(all="ignore"):
            rho = mb / ma
            sel = (x[:, :, 1] / mb[:, None] - x[:, :, 0] / ma[:, None]).std(axis=1, ddof=1) / math.sqrt(n)
            return (np.where(rho > 0, 1 - rho * np.exp(q * sel), theta - q * se),
                    np.where(rho > 0, 1 - rho * np.exp(-q * sel), theta + q * se))
    return theta - q * se, theta + q * se


def hall_part(x, stat, q, g=None) -> Pair:
    """:func:`bench.evaluation.skew.hall_ci` on every replication (skewness g if given)."""
    n = x.shape[1]
    theta, u, _ = _influence(x, stat)
    se = u.std(axis=1, ddof=1) / math.sqrt(n)
    if g is None:
        g, _ = _moments(u)
    a, c = g / (3 * math.sqrt(n)), g / (6 * math.sqrt(n))

    def inv(y):
        with np.errstate(all="ignore"):
            r = (np.cbrt(1 + 3 * a * (y - c)) - 1) / a
        return np.where(np.abs(a) < 1e-12, y - c, r)

    return theta - se * inv(q), theta - se * inv(-q)


def union(x, stat, one: Pair, two: Pair) -> Pair:
    (lo1, hi1), (lo2, hi2) = one, two
    degenerate = ~(np.isfinite(lo1) & np.isfinite(hi1)) | (lo1 == hi1)
    ok = np.isfinite(lo2) & np.isfinite(hi2)
    lo = np.where(degenerate | ~ok, lo1, np.minimum(lo1, lo2))
    hi = np.where(degenerate | ~ok, hi1, np.maximum(hi1, hi2))
    if stat is DROP_RATE and np.all(x >= 0):
        hi = np.minimum(hi, 1.0)
    return lo, hi


def jackknife_skewness(u: np.ndarray) -> np.ndarray:
    """n g - (n - 1) mean_i g_(-i): the jackknife bias-corrected skewness of each row of u."""
    n = u.shape[1]

    def skew(s1, s2, s3, m):
        mu = s1 / m
        c2, c3 = s2 / m - mu ** 2, s3 / m - 3 * mu * s2 / m + 2 * mu ** 3
        with np.errstate(all="ignore"):
            return np.nan_to_num(c3 / c2 ** 1.5)

    s1, s2, s3 = u.sum(axis=1), (u ** 2).sum(axis=1), (u ** 3).sum(axis=1)
    g = skew(s1, s2, s3, n)
    return n * g - (n - 1) * skew(s1[:, None] - u, s2[:, None] - u ** 2, s3[:, None] - u ** 3, n - 1).mean(axis=1)


def one_sided(d: np.ndarray) -> np.ndarray:
    """Replications whose per-query changes d (R, n) all have one sign (|d| <= 1e-12 counts as 0:
    a mean over draws of unchanged values may differ from ORIGINAL by rounding)."""
    big = np.abs(d) > 1e-12
    return ~np.any(big & (d > 0), axis=1) | ~np.any(big & (d < 0), axis=1)


def intervals(x, stat, changed, d=None) -> Dict[str, Pair]:
    n = x.shape[1]
    q = _q(n)
    _, u, _ = _influence(x, stat)
    g, kurt = _moments(u)
    kdf = np.clip(2 * n / np.maximum(kurt - 1, 1e-9), 1, n - 1)
    qk = _q(n, kdf)
    t_q, hall = t_part(x, stat, q), hall_part(x, stat, q)
    qc = _q(n, np.clip(changed - 1, 1, n - 1))
    ship = union(x, stat, t_q, hall)
    alone = union(x, stat, hall, hall)  # Hall's interval, clipped at 1 like the shipped one
    side = one_sided(d) if d is not None else np.zeros(x.shape[0], bool)
    return {"skew-t (ships)": ship,
            "kurtosis df": union(x, stat, t_part(x, stat, qk), hall_part(x, stat, qk)),
            "kurtosis df, Hall side": union(x, stat, t_q, hall_part(x, stat, qk)),
            "changed df": union(x, stat, t_part(x, stat, qc), hall_part(x, stat, qc)),
            "jackknife skewness": union(x, stat, t_q, hall_part(x, stat, q, jackknife_skewness(u))),
            "one-sided: Hall alone": (np.where(side, alone[0], ship[0]), np.where(side, alone[1], ship[1]))}


RULES: Dict[str, Callable[[dict], np.ndarray]] = {
    "changed < 10 (ships)": lambda c: c["changed"] < 10,
    "changed < 15": lambda c: c["changed"] < 15,
    "changed < 10 or kurtosis/n > 0.2": lambda c: (c["changed"] < 10) | (c["kurt"] / c["n"] > 0.2),
    "changed < 10 or n_eff < 7": lambda c: (c["changed"] < 10) | (c["neff"] < 7),
    "changed < 10 or distinct < 10": lambda c: (c["changed"] < 10) | (c["distinct"] < 10),
    "several draws: changed per draw < 10": lambda c: c["per_draw"] < 10,
}


# --------------------------------------------------------------------------- cells (as interval_coverage.py)

def _population(name: str):
    return SC.real_population(name[5:]) if name.startswith("real:") else SC.synthetic_population(name)


def cells(reps: int, seed: int):
    """(kind, population, n, G, x (R, n, k), statistic, truth, changed, per-draw changed, changes d)."""
    pops = list(SC.SYNTHETIC) + ["real:" + s for s in SC.REAL_SETS]
    for n in (30, 100):
        for name in pops:
            pop = _population(name)
            for g in (1, 3, 5):
                rng = np.random.default_rng([seed, n, g, sum(map(ord, pop.name))])
                o, v, _ = pop.draw(rng, reps * n, g)
                o, v = o.reshape(reps, n), v.reshape(reps, n, g)
                changed = np.any(v != o[:, :, None], axis=2).sum(axis=1)
                per_draw = (v != o[:, :, None]).sum(axis=1).mean(axis=1)
                if g == 1:
                    yield "single", name, n, g, np.stack([o, v[:, :, 0]], -1), DROP_RATE, pop.truth["drop@1"], \
                        changed, per_draw, v[:, :, 0] - o
                    yield "delta", name, n, g, (v[:, :, 0] - o)[:, :, None], MEAN, pop.truth["delta"], changed, \
                        per_draw, v[:, :, 0] - o
                    continue
                for kind, col, key in (("draws", v.mean(axis=2), "drop"), ("worst", v.min(axis=2), "worst")):
                    yield kind, name, n, g, np.stack([o, col], -1), DROP_RATE, pop.truth[f"{key}@{g}"], changed, \
                        per_draw, col - o
        apps = []
        for name in ("sparse-skewed", "geom-poisson", "ir-mixed"):
            p = _population(name)
            apps.append((name, (lambda p: lambda rng, m: (lambda o, v, a: (o, [(v[:, 0], a)]))(*p.draw(rng, m, 1)))(p),
                         p.truth["applied"]))
        apps += [SC.applied_population(s) for s in SC.REAL_APPLIED]
        for name, draw, truth in apps:
            rng = np.random.default_rng([seed, n, sum(map(ord, name))])
            xs, ks = [], []
            for _ in range(reps):
                o, sets = draw(rng, n)
                xs.append(np.concatenate([np.c_[np.where(a, o, 0), np.where(a, v, 0)] for v, a in sets], axis=1))
                ks.append(changed_in_any_set(o, sets))
            x, k = np.array(xs), np.array(ks)
            yield "applied", name, n, 1, x, AVERAGE_DROP_RATE, truth, k, k.astype(float), None
        for spec in [None] + SC.REAL_PAIRS:
            name, draw, truth = SC.pair_population(spec)
            rng = np.random.default_rng([seed, n, sum(map(ord, name))])
            ao, av, bo, bv = (c.reshape(reps, n) for c in draw(rng, reps * n))
            k = ((ao != av) | (bo != bv)).sum(axis=1)
            yield "compare", name, n, 1, np.stack([ao, av, bo, bv], -1), DROP_RATE_DIFFERENCE, truth, k, \
                k.astype(float), None


def measure(reps: int, seed: int, log=print) -> List[dict]:
    rows = []
    for kind, name, n, g, x, stat, truth, changed, per_draw, d in cells(reps, seed):
        if not math.isfinite(truth):
            continue
        cis = intervals(x, stat, changed, d)
        lo, hi = cis["skew-t (ships)"]
        for r in range(min(20, reps)):  # the vectorized interval is the tool's
            want = skew_t_ci(x[r], stat)
            assert np.allclose([lo[r], hi[r]], want, rtol=1e-9, atol=1e-12, equal_nan=True), (kind, name, r)
        theta, u, _ = _influence(x, stat)
        g_sample, kurt = _moments(u)
        pooled = u.ravel() - u.mean()
        dd = u if d is None else d
        with np.errstate(all="ignore"):
            neff = np.nan_to_num(np.abs(dd).sum(axis=1) ** 2 / (dd ** 2).sum(axis=1))
        distinct = np.array([np.unique(np.round(row[row != 0], 12)).size for row in dd])
        row = {"interval": kind, "population": name, "n": n, "G": g, "reps": reps, "changed": changed,
               "per_draw": per_draw, "kurt": kurt, "neff": neff, "distinct": distinct,
               "skew_sample": float(np.mean(g_sample)),
               "skew_pooled": float(np.mean(pooled ** 3) / np.mean(pooled ** 2) ** 1.5), "hits": {}, "below": {},
               "above": {}, "width": {}}
        for m, (a, b) in cis.items():
            ok = np.isfinite(a) & np.isfinite(b)
            row["hits"][m] = ok & (a <= truth) & (truth <= b)
            row["below"][m], row["above"][m] = ok & (b < truth), ok & (a > truth)
            row["width"][m] = float(np.nanmean(np.where(ok, b - a, np.nan)))
        rows.append(row)
        log(f"  {kind} {name} n={n} G={g}: {100 * row['hits']['skew-t (ships)'].mean():.1f}")
    return rows


def summary(rows: List[dict]) -> List[str]:
    out = ["| interval | flag rule | cells below 93.5 | within | above 96.5 | in-target cells the rule flags "
           "(most replications) | cells where unflagged misses exceed 6.5 % of all replications | median width / "
           "shipped |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    big = [r for r in rows if r["n"] >= 30]
    target = [r for r in big if LOW <= r["hits"]["skew-t (ships)"].mean() <= HIGH]
    for m in rows[0]["hits"]:
        for rule_name, rule in RULES.items():
            if rule_name.startswith("several draws") and m != "skew-t (ships)":
                continue
            draws_only = rule_name.startswith("several draws")  # a rule of the several-draws interval alone
            cells = [r for r in big if not draws_only or r["interval"] == "draws"]
            pool = [r for r in target if not draws_only or r["interval"] == "draws"]
            below = within = above = misleading = 0
            for r in cells:
                ok = ~rule(r)
                misleading += np.mean(ok & ~r["hits"][m]) > 1 - LOW
                if ok.sum() < 100:
                    continue
                c = r["hits"][m][ok].mean()
                below, within, above = below + (c < LOW), within + (LOW <= c <= HIGH), above + (c > HIGH)
            fired = sum(rule(r).mean() > 0.5 for r in pool)
            width = np.median([r["width"][m] / r["width"]["skew-t (ships)"] for r in big
                               if r["width"]["skew-t (ships)"] > 0])
            out.append(f"| {m} | {rule_name} | {below} | {within} | {above} | {fired} of {len(pool)} | {misleading} | {width:.2f} |")
    return out


def detail(rows: List[dict]) -> List[str]:
    out = ["| interval | population | n | G | changed | skew-t | unflagged (flagged) | unflagged and missing, % of "
           "all | entirely below / above: all; "
           "unflagged | skewness: mean sample / pooled | kurtosis df (width) | changed df (width) | jackknife "
           "skewness (width) | one-sided: Hall alone (width) |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if r["n"] < 30:
            continue
        h = r["hits"]["skew-t (ships)"]
        ok = r["changed"] >= 10
        unf = f"{100 * h[ok].mean():.1f} ({100 * (1 - ok.mean()):.0f} %)" if ok.sum() >= 100 else \
            f"- ({100 * (1 - ok.mean()):.0f} %)"
        below, above = r["below"]["skew-t (ships)"], r["above"]["skew-t (ships)"]
        side = f"{100 * below.mean():.1f} / {100 * above.mean():.1f}; " + (
            f"{100 * below[ok].mean():.1f} / {100 * above[ok].mean():.1f}" if ok.sum() >= 100 else "-")
        base = r["width"]["skew-t (ships)"]
        out.append(f"| {r['interval']} | {r['population']} | {r['n']} | {r['G']} | {r['changed'].mean():.1f} | "
                   f"{100 * h.mean():.1f} | {unf} | {100 * np.mean(ok & ~h):.1f} | {side} | {r['skew_sample']:.2f} / {r['skew_pooled']:.2f} | "
                   + " | ".join(f"{100 * r['hits'][m].mean():.1f} ({r['width'][m] / base:.2f})" if base > 0 else
                                f"{100 * r['hits'][m].mean():.1f} (-)"
                                for m in ("kurtosis df", "changed df", "jackknife skewness", "one-sided: Hall alone")) + " |")
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--reps", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=None, help="also write the Markdown tables here")
    a = p.parse_args(argv)
    t0 = time.perf_counter()
    rows = measure(a.reps, a.seed, log=lambda s: print(s, file=sys.stderr, flush=True))
    lines = [f"`python -m benchmarks.coverage_shortfall --reps {a.reps} --seed {a.seed}` "
             f"({time.perf_counter() - t0:.0f} s)", ""] + summary(rows) + [""] + detail(rows)
    print("\n".join(lines))
    if a.out:
        a.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
