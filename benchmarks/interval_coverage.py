"""Coverage of every interval drbench prints for a drop rate or a difference, on sparse, skewed and
bounded per-query values, computed by the tool's own functions.

    python -m benchmarks.interval_coverage [--reps 2000] [--B 1000] [--n 30,100] [--seed 0]
                                           [--only single,draws,worst,applied,compare]
                                           [--methods all|shipped] [--json FILE] [--write-docs]
    python -m benchmarks.interval_coverage --check     # docs/statistics.md's summary and
                                                       # benchmarks/results/interval_coverage.md == the JSON's

Intervals (the function each one is, called once per replication):

* ``single``: a one-draw run's drop rate and delta against ORIGINAL
  (``bench.evaluation.intervals.paired_bootstrap_ci``, the run's default interval);
* ``draws``: a several-draws run's drop rate over queries and draws
  (``bench.evaluation.draws.draw_summary`` -> ``drop_rate_ci``); ``worst``: its worst-of-G
  drop rate (``worst_drop_rate_ci``);
* ``applied``: the applied-only VARIATIONS (AVG.) (``bench.results.applicability.applied_only_average``);
* ``compare``: ``bench compare``'s DR_B - DR_A (``bench.evaluation.droprate.difference_interval``,
  the interval ``compare_drop_rates`` reports).

Each is measured with the plain method (JSON key ``before``, column "plain": the t / delta-method t
interval, the percentile bootstraps, called through the same functions with ``interval="t"`` /
``"percentile"``; compare's bootstrap with B = --B instead of 10000, which moves its ends by
Monte Carlo noise only), the candidates (``studentized``: bootstrap-t with the delta-method SE
recomputed per resample, and ``BCa``, benchmarks/coverage_candidates.py; for several draws, the
hierarchical ``two-level`` percentile bootstrap that resamples queries then draws,
benchmarks/draws_coverage.py) and what ships (``skew-t``, bench.evaluation.skew). Coverage =
share of replications whose interval contains the population value (undefined = miss), with its
Monte Carlo SE sqrt(c(1-c)/reps); ``changed`` = mean number of queries whose value differs from
ORIGINAL; the flag column is the coverage of the shipped interval where the tool does NOT print
"interval unreliable" (and the share it flags). Populations: benchmarks/coverage_scenarios.py.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np

from bench.core.seeding import rng_for
from bench.evaluation.draws import draw_summary
from bench.evaluation.droprate import bootstrap_difference, difference_interval
from bench.evaluation.intervals import paired_bootstrap_ci, t_drop_rate_ci
from bench.evaluation.skew import AVERAGE_DROP_RATE, DROP_RATE, DROP_RATE_DIFFERENCE, MEAN, MIN_CHANGED
from bench.results.applicability import applied_only_average, changed_in_any_set
from benchmarks import coverage_candidates as CC
from benchmarks import coverage_scenarios as SC
from benchmarks.common import ROOT

DOC = ROOT / "docs" / "statistics.md"
JSON = ROOT / "benchmarks" / "results" / "interval_coverage.json"
CELLS = ROOT / "benchmarks" / "results" / "interval_coverage.md"
BEGIN, END = "<!-- interval-coverage:begin -->", "<!-- interval-coverage:end -->"
KINDS = ("single", "delta", "draws", "worst", "applied", "compare")
METHODS = ("before", "BCa", "studentized", "two-level", "skew-t")
TITLES = {"single": "one draw: drop rate", "delta": "one draw: delta", "draws": "several draws: drop rate",
          "worst": "several draws: worst of G", "applied": "applied-only VARIATIONS (AVG.)",
          "compare": "compare: DR_B - DR_A"}
BEFORE = {"single": "t (log ratio)", "delta": "Student t", "draws": "vc t (log ratio)", "worst": "t (log ratio)",
          "applied": "percentile bootstrap", "compare": "percentile bootstrap"}
Interval = Tuple[float, float]


def _hit(ci, x: float) -> bool:
    lo, hi = ci
    return lo is not None and hi is not None and math.isfinite(lo) and math.isfinite(hi) and lo <= x <= hi


def _boot(x, stat, B: int, r: int, tag: str) -> Dict[str, Interval]:
    return {"studentized": CC.studentized_ci(x, stat, B=B, rng=rng_for(r, "coverage", tag))[:2],
            "BCa": CC.bootstrap_ci(x, stat, B=B, rng=rng_for(r, "coverage", tag))[:2]}


# --------------------------------------------------------------------------- one replication per interval

def one_draw(o, v, B: int, r: int, cand: bool):
    """(drop-rate intervals, delta intervals, changed) of a one-draw sample."""
    old, new = paired_bootstrap_ci(o, v, interval="t"), paired_bootstrap_ci(o, v)
    drop = {"before": old.drop_rate, "skew-t": new.drop_rate}
    delta = {"before": old.delta, "skew-t": new.delta}
    if cand:
        drop.update(_boot(np.c_[o, v], DROP_RATE, B, r, "single"))
        delta.update(_boot(v - o, MEAN, B, r, "delta"))
    return drop, delta, int(np.sum(o != v))


def several_draws(o, v, B: int, r: int, cand: bool):
    """(drop-rate intervals, worst-of-G intervals, changed) of a G-draw sample (v: (n, G))."""
    vbar, worst = v.mean(axis=1), v.min(axis=1)
    s = draw_summary(o, v)
    drop = {"before": t_drop_rate_ci(o, vbar), "skew-t": tuple(s["drop_rate_ci"])}
    low = {"before": t_drop_rate_ci(o, worst), "skew-t": tuple(s["worst_drop_rate_ci"])}
    if cand:
        from benchmarks.draws_coverage import two_level

        drop.update(_boot(np.c_[o, vbar], DROP_RATE, B, r, "draws"))
        drop["two-level"] = two_level(o, v, B, rng_for(r, "coverage", "two-level"))
    return drop, low, s["n_changed"]


def applied(o, sets, B: int, r: int, cand: bool):
    orig, arg = {"m": o}, [(f"s{j}", a, {"m": v}) for j, (v, a) in enumerate(sets)]
    old = applied_only_average(orig, arg, ["m"], r, B, interval="percentile")["drop_rate_ci"]["m"]
    new = applied_only_average(orig, arg, ["m"], r, B)["drop_rate_ci"]["m"]
    out = {"before": tuple(old), "skew-t": tuple(new)}
    if cand:
        out.update(_boot(np.concatenate([np.c_[o * a, v * a] for v, a in sets], axis=1), AVERAGE_DROP_RATE, B, r,
                         "applied"))
    return out, changed_in_any_set(o, sets)  # the flag's count


def compare(ao, av, bo, bv, B: int, r: int, cand: bool):
    out = {"before": bootstrap_difference(ao, av, bo, bv, B=B, seed=r)[:2],
           "skew-t": difference_interval(ao, av, bo, bv)[:2]}
    if cand:
        out.update(_boot(np.c_[ao, av, bo, bv], DROP_RATE_DIFFERENCE, B, r, "compare"))
    return out, int(np.sum((ao != av) | (bo != bv)))


# --------------------------------------------------------------------------- cells

class Cell:
    """Hits per method, and the shipped interval's hits where it is not flagged."""

    def __init__(self, kind: str, population: str, n: int, g: int, truth: float):
        self.meta = {"interval": kind, "population": population, "n": n, "G": g, "truth": truth}
        self.hits: Dict[str, List[bool]] = {}
        self.changed: List[int] = []

    def add(self, cis: Dict[str, Interval], truth: float, changed: int) -> None:
        for m, ci in cis.items():
            self.hits.setdefault(m, []).append(_hit(ci, truth))
        self.changed.append(changed)

    def row(self) -> dict:
        k = np.array(self.changed)
        ok = k >= MIN_CHANGED
        ship = np.array(self.hits["skew-t"])
        out = dict(self.meta, reps=len(k), changed=float(k.mean()), flagged=float(1 - ok.mean()),
                   coverage={m: float(np.mean(h)) for m, h in self.hits.items()},
                   reps_by_method={m: len(h) for m, h in self.hits.items()},
                   unflagged=float(ship[ok].mean()) if ok.any() else None, n_unflagged=int(ok.sum()))
        return out


def _populations(real: bool, only: Optional[List[str]] = None):
    def wanted(name: str) -> bool:
        return not only or name in only

    syn = [SC.synthetic_population(s) for s in SC.SYNTHETIC if wanted(s)]
    return syn + ([SC.real_population(s) for s in SC.REAL_SETS if wanted("real:" + s)] if real else [])


def run(kinds, ns: List[int], reps: int, cand_reps: int, B: int, seed: int, real: bool = True,
        log: Callable[[str], None] = print, only_populations: Optional[List[str]] = None) -> List[dict]:
    rows = []
    pops = _populations(real, only_populations) if set(kinds) & {"single", "delta", "draws", "worst"} else []
    for n in ns:
        for pop in pops:
            for g in (1, 3, 5):
                if g == 1 and not set(kinds) & {"single", "delta"} or g > 1 and not set(kinds) & {"draws", "worst"}:
                    continue
                t0 = time.perf_counter()
                rng = np.random.default_rng([seed, n, g, sum(map(ord, pop.name))])
                o, v, _ = pop.draw(rng, reps * n, g)
                o, v = o.reshape(reps, n), v.reshape(reps, n, g)
                if g == 1:
                    cells = [Cell("single", pop.name, n, 1, pop.truth["drop@1"]),
                             Cell("delta", pop.name, n, 1, pop.truth.get("delta", math.nan))]
                else:
                    cells = [Cell("draws", pop.name, n, g, pop.truth[f"drop@{g}"]),
                             Cell("worst", pop.name, n, g, pop.truth[f"worst@{g}"])]
                for r in range(reps):
                    f = one_draw if g == 1 else several_draws
                    a, b, k = f(o[r], v[r] if g > 1 else v[r, :, 0], B, r, r < cand_reps)
                    cells[0].add(a, cells[0].meta["truth"], k)
                    cells[1].add(b, cells[1].meta["truth"], k)
                for c in cells:
                    if c.meta["interval"] in kinds and math.isfinite(c.meta["truth"]):
                        rows.append(c.row())
                log(f"  {pop.name} n={n} G={g}: {time.perf_counter() - t0:.0f} s")
        if "applied" in kinds:
            apps = [(p.name, (lambda p: lambda rng, m: (lambda o, v, a: (o, [(v[:, 0], a)]))(*p.draw(rng, m, 1)))(p),
                     p.truth["applied"]) for p in _populations(False, ["sparse-skewed", "geom-poisson", "ir-mixed"])]
            apps += [SC.applied_population(s) for s in SC.REAL_APPLIED] if real else []
            for name, draw, truth in apps:
                t0 = time.perf_counter()
                rng = np.random.default_rng([seed, n, sum(map(ord, name))])
                cell = Cell("applied", name, n, 1, truth)
                for r in range(reps):
                    o, sets = draw(rng, n)
                    cis, k = applied(o, sets, B, r, r < cand_reps)
                    cell.add(cis, truth, k)
                rows.append(cell.row())
                log(f"  applied {name} n={n}: {time.perf_counter() - t0:.0f} s")
        if "compare" in kinds:
            for spec in [None] + (SC.REAL_PAIRS if real else []):
                name, draw, truth = SC.pair_population(spec)
                t0 = time.perf_counter()
                rng = np.random.default_rng([seed, n, sum(map(ord, name))])
                cols = [c.reshape(reps, n) for c in draw(rng, reps * n)]
                cell = Cell("compare", name, n, 1, truth)
                for r in range(reps):
                    cis, k = compare(*(c[r] for c in cols), B, r, r < cand_reps)
                    cell.add(cis, truth, k)
                rows.append(cell.row())
                log(f"  compare {name} n={n}: {time.perf_counter() - t0:.0f} s")
    order = {k: i for i, k in enumerate(KINDS)}
    return sorted(rows, key=lambda r: (order[r["interval"]], r["population"], r["n"], r["G"]))


# --------------------------------------------------------------------------- the table

def _cell(c: Optional[float], reps: int) -> str:
    if c is None:
        return "-"
    return f"{100 * c:.1f} ± {100 * math.sqrt(c * (1 - c) / reps):.1f}"


def _intro(data: dict) -> str:
    a = data["args"]
    return (f"Coverage in % ± Monte Carlo SE of the 95 % intervals (`python -m benchmarks.interval_coverage "
            f"--reps {a['reps']} --candidate-reps {a['candidate_reps']} --B {a['B']} --seed {a['seed']}`; "
            f"{data['seconds']:.0f} s on 2 shared cores" + (f", summed over {a['parts']} parts run in parallel "
                                                           "with --n / --only / --populations and --merge"
                                                           if a.get("parts") else "") + "). plain = the t interval (drop rates: on the log ratio; several draws: "
            "on the per-query means over draws) or, for the applied-only average and compare, the percentile bootstrap; skew-t = "
            f"what ships; BCa, studentized and two-level were measured on the first {a['candidate_reps']} "
            f"replications (B = {a['B']}). changed = mean number of queries whose value differs from ORIGINAL; "
            f"the last column is skew-t's coverage where fewer than {MIN_CHANGED} changed queries do NOT flag the "
            "interval, with the share flagged. Target where n >= 30: 93.5-96.5.")


def cells_table(data: dict) -> List[str]:
    """One row per cell (interval x population x n x G)."""
    lines = ["| interval | population | n | G | changed | plain | BCa | studentized | two-level | skew-t (ships) "
             "| skew-t, not flagged (flagged) |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in data["rows"]:
        cov, reps = r["coverage"], r["reps_by_method"]
        cells = [_cell(cov.get(m), reps.get(m, 1)) if m in cov else "-" for m in METHODS]
        unf = "-" if r["unflagged"] is None else f"{_cell(r['unflagged'], r['n_unflagged'])} ({100 * r['flagged']:.0f} %)"
        lines.append(f"| {TITLES[r['interval']]} | {r['population']} | {r['n']} | {r['G']} | {r['changed']:.1f} | "
                     + " | ".join(cells) + f" | {unf} |")
    return lines


def summary_table(data: dict) -> List[str]:
    """Per interval, the range of coverage over the cells with n >= 30 and how many are within the target."""
    lines = ["Summary over the cells with n >= 30 (range of coverage; cells within 93.5-96.5 / all):", "",
             "| interval | plain: method | plain | skew-t | skew-t, not flagged |", "|---|---|---|---|---|"]
    for kind in KINDS:
        rs = [r for r in data["rows"] if r["interval"] == kind and r["n"] >= 30]
        if not rs:
            continue

        def rng_(vals):
            vals = [v for v in vals if v is not None]
            inside = sum(0.935 <= v <= 0.965 for v in vals)
            return f"{100 * min(vals):.1f}-{100 * max(vals):.1f} ({inside}/{len(vals)})" if vals else "-"

        lines.append(f"| {TITLES[kind]} | {BEFORE[kind]} | {rng_([r['coverage']['before'] for r in rs])} | "
                     f"{rng_([r['coverage']['skew-t'] for r in rs])} | "
                     f"{rng_([r['unflagged'] for r in rs if r['n_unflagged'] >= 100])} |")
    return lines


def table(data: dict) -> str:
    """The Markdown of benchmarks/results/interval_coverage.md: every cell, then the summary."""
    return "\n".join([_intro(data), ""] + cells_table(data) + [""] + summary_table(data)) + "\n"


def docs_text(data: dict) -> str:
    """The block docs/statistics.md holds: the summary, and where the per-cell table is."""
    return "\n".join([_intro(data), ""] + summary_table(data) + [
        "", f"Every cell (interval x population x n x G): `{CELLS.relative_to(ROOT).as_posix()}`."])


def docs_block(doc: str) -> Optional[str]:
    if BEGIN not in doc or END not in doc:
        return None
    return doc[doc.index(BEGIN) + len(BEGIN):doc.index(END)].strip("\n")


def check(path=JSON, doc_path=DOC, cells_path=None) -> List[str]:
    """Problems with docs/statistics.md's coverage summary and the per-cell table (empty when both
    are the JSON's)."""
    cells_path = cells_path or CELLS
    if not path.is_file():
        return [f"{path} missing: run python -m benchmarks.interval_coverage --json {path}"]
    block = docs_block(doc_path.read_text(encoding="utf-8"))
    if block is None:
        return [f"{doc_path} has no {BEGIN} ... {END} block"]
    data = json.loads(path.read_text(encoding="utf-8"))
    fix = " (rewrite it: python -m benchmarks.interval_coverage --write-docs)"
    problems = []
    if block != docs_text(data):
        problems.append(f"{doc_path}: the coverage summary differs from {path}{fix}")
    if not cells_path.is_file() or cells_path.read_text(encoding="utf-8") != table(data):
        problems.append(f"{cells_path}: the per-cell table differs from {path}{fix}")
    return problems


def write_docs(path=JSON, doc_path=DOC, cells_path=None) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    (cells_path or CELLS).write_text(table(data), encoding="utf-8")
    doc = doc_path.read_text(encoding="utf-8")
    i, j = doc.index(BEGIN) + len(BEGIN), doc.index(END)
    doc_path.write_text(doc[:i] + "\n" + docs_text(data) + "\n" + doc[j:], encoding="utf-8")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--reps", type=int, default=1000)
    p.add_argument("--candidate-reps", type=int, default=500, help="replications that also compute BCa, "
                   "studentized and two-level (the bootstraps are the slow part)")
    p.add_argument("--B", type=int, default=1000)
    p.add_argument("--n", default="30,100")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--only", default=",".join(KINDS))
    p.add_argument("--synthetic-only", action="store_true", help="leave out the plug-ins of committed runs")
    p.add_argument("--populations", default="", help="only these populations of the one-draw / several-draws "
                   "intervals (comma-separated names; each cell's numbers do not depend on which others run)")
    p.add_argument("--merge", nargs="+", type=Path, default=None, help="merge the rows of JSON files written by "
                   "runs with the same settings into --json (e.g. parts run in parallel)")
    p.add_argument("--json", type=Path, default=None, help=f"write the results here (the committed: {JSON})")
    p.add_argument("--write-docs", action="store_true", help="rewrite docs/statistics.md's summary and "
                   "benchmarks/results/interval_coverage.md from --json "
                   "(default: the committed JSON) without simulating")
    p.add_argument("--check", action="store_true", help="exit 1 when docs/statistics.md's summary or the "
                   "per-cell table is not the JSON's")
    a = p.parse_args(argv)
    if a.check:
        problems = check(a.json or JSON)
        for x in problems:
            print(x, file=sys.stderr)
        return 1 if problems else 0
    if a.write_docs:
        write_docs(a.json or JSON)
        return 0
    if a.merge:
        parts = [json.loads(f.read_text(encoding="utf-8")) for f in a.merge]
        order = {k: i for i, k in enumerate(KINDS)}
        seen = {}
        for part in parts:
            for r in part["rows"]:
                seen[(r["interval"], r["population"], r["n"], r["G"])] = r
        data = {"args": dict(parts[0]["args"], only=list(KINDS), parts=len(parts)),
                "seconds": sum(x["seconds"] for x in parts),
                "rows": sorted(seen.values(), key=lambda r: (order[r["interval"]], r["population"], r["n"], r["G"]))}
        (a.json or JSON).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(table(data))
        return 0
    kinds = [k.strip() for k in a.only.split(",") if k.strip()]
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        p.error(f"unknown interval(s) {', '.join(bad)}; choose from {', '.join(KINDS)}")
    t0 = time.perf_counter()
    rows = run(kinds, [int(x) for x in a.n.split(",")], a.reps, a.candidate_reps, a.B, a.seed,
               real=not a.synthetic_only, log=lambda s: print(s, file=sys.stderr, flush=True),
               only_populations=[x for x in a.populations.split(",") if x])
    data = {"args": {"reps": a.reps, "candidate_reps": a.candidate_reps, "B": a.B, "seed": a.seed, "n": a.n,
                     "only": kinds}, "seconds": time.perf_counter() - t0, "rows": rows}
    if a.json:
        a.json.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(table(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
