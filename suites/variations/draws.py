"""Several generation seeds in one variations run (``--generation-seeds 0,1,2,3,4`` or ``0-4``).

Each generator's set is drawn once per generation seed (draw ``MISSPELL@g3``: the set generated
with seed 3). The run's set ``MISSPELL`` is then the combination of its draws:

* its per-query value is the MEAN over the draws (so its metrics and drop rate are the means over
  draws, and the paired tests against ORIGINAL run on the per-query means over draws);
* a query counts as applied when at least one draw changed it;
* its fingerprint is that of the list of (seed, draw fingerprint): two runs have the same set only
  when they drew it with the same seeds and got the same variations;
* ``draws`` in its result.json entry (:func:`bench.evaluation.draws.draw_summary`): the drop rate
  of every draw, their mean and SD, the 95 % interval over queries and draws, the worst of N.

per_query.csv keeps the combined rows under the set names and adds one row per draw and query
under ``NAME@g<seed>``. Without the option (or with the run seed alone) nothing changes: one draw
with the run seed, the files byte-identical to a run of an earlier version.

The retriever encodes each distinct query text once (a query a draw leaves unchanged costs
nothing) and the corpus once.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Dict, List, Optional, Sequence

from bench.core.errors import BenchError
from bench.evaluation import draws as D
from perturb.io.sets import VariationSet

DRAW_SEP = "@g"
ANY_APPLIED = "a query counts as applied when at least one draw changed it"


#: the most draws one run makes (``--generation-seeds``): each draw generates and evaluates every set
MAX_DRAWS = 100


def parse_seeds(text: Optional[str]) -> Optional[List[int]]:
    """``"0,1,2"``, ``"0-4"`` (inclusive) or a mix (``"0-2,7"``) -> [0, 1, 2, 7]; None -> None. At most
    :data:`MAX_DRAWS` seeds; parsed in time linear in the text (a range is sized before it is expanded)."""
    if text is None:
        return None
    out: List[int] = []
    seen = set()
    dup: List[int] = []
    for part in (p.strip() for p in str(text).split(",")):
        if not part:
            continue
        try:
            if "-" in part:
                a, b = part.split("-", 1)
                lo, hi = int(a), int(b)
                if hi < lo or lo < 0:
                    raise ValueError
                new = (lo, hi)
            else:
                value = int(part)
                if value < 0:
                    raise ValueError
                new = (value, value)
        except ValueError:
            raise BenchError(f"--generation-seeds {text!r}: give non-negative integers separated by commas, or a "
                             f"range a-b (inclusive), e.g. 0,1,2,3,4 or 0-4") from None
        if len(out) + new[1] - new[0] + 1 > MAX_DRAWS:
            raise BenchError(f"--generation-seeds {text[:60]!r}{'...' if len(text) > 60 else ''}: more than "
                             f"{MAX_DRAWS} seeds; each seed draws and evaluates every set again. Fix: give at most "
                             f"{MAX_DRAWS} seeds, e.g. 0-{MAX_DRAWS - 1}")
        for s in range(new[0], new[1] + 1):
            (dup if s in seen else out).append(s)
            seen.add(s)
    if not out:
        raise BenchError(f"--generation-seeds {text!r}: no seed given")
    if dup:
        raise BenchError(f"--generation-seeds {text!r}: seed(s) {sorted(set(dup))} given twice (each draw needs its "
                         f"own seed)")
    return out


def effective_seeds(seeds: Optional[Sequence[int]], run_seed: int) -> Optional[List[int]]:
    """None when the run draws once with the run seed (the default: files as before), else the list."""
    if seeds is None or list(seeds) == [run_seed]:
        return None
    return list(seeds)


def draw_name(name: str, seed: int) -> str:
    return f"{name}{DRAW_SEP}{seed}"


@dataclass
class DrawnSet(VariationSet):
    """A set drawn with several generation seeds: ``draws`` (named ``NAME@g<seed>``) in seed order."""
    seeds: List[int] = field(default_factory=list)
    draws: List[VariationSet] = field(default_factory=list)


def combine(drawn: Sequence[VariationSet], seeds: Sequence[int], original_texts: Sequence[str]) -> VariationSet:
    """The combined set of one generator's draws (texts: the originals; applied: any draw)."""
    draws = [replace(d, name=draw_name(d.name, s)) for s, d in zip(seeds, drawn)]
    first = drawn[0]
    bad = [(s, d) for s, d in zip(seeds, draws) if d.status != "ok"]
    if bad:
        s, d = bad[0]
        return DrawnSet(name=first.name, label=first.label, config=dict(d.config), seed=None, qids=list(first.qids),
                        texts=list(original_texts), applied=[False] * len(first.qids), details=[""] * len(first.qids),
                        status=d.status, reason=f"draw with seed {s}: {d.reason}", seeds=list(seeds), draws=draws)
    applied = [any(d.applied[i] for d in draws) for i in range(len(first.qids))]
    config = {"generator": first.config,
              "draws": [{"seed": int(s), "fingerprint": d.fingerprint()} for s, d in zip(seeds, draws)]}
    return DrawnSet(name=first.name, label=first.label, config=config, seed=None, qids=list(first.qids),
                    texts=list(original_texts), applied=applied, details=[""] * len(first.qids),
                    seeds=list(seeds), draws=draws)


def evaluated_sets(ok_sets: Sequence[VariationSet]) -> List[VariationSet]:
    """The sets the retriever runs: every draw in place of its combined set."""
    out: List[VariationSet] = []
    for vs in ok_sets:
        out.extend(vs.draws if isinstance(vs, DrawnSet) else [vs])
    return out


def add_combined(outputs: dict, ok_sets: Sequence[VariationSet], names: Sequence[str]) -> None:
    """``outputs[NAME] = (None, per-query means over the draws)`` for every combined set."""
    for vs in ok_sets:
        if isinstance(vs, DrawnSet):
            outputs[vs.name] = (None, mean_values([outputs[d.name][1] for d in vs.draws], vs.qids, names))


def entry_update(vs: VariationSet, outputs: dict, original: str, names: Sequence[str]) -> dict:
    """What a combined set's result.json entry gains: edit types over all draws, the ``draws`` block."""
    if not isinstance(vs, DrawnSet):
        return {}
    from bench.results import applicability as AP

    details = [x for d in vs.draws for x in d.details]
    applied = [x for d in vs.draws for x in d.applied]
    return {"edit_types": AP.count_edit_types(details, applied),
            "draws": draws_entry(outputs[original][1], [outputs[d.name][1] for d in vs.draws], vs.draws, vs.seeds,
                                 vs.qids, names)}


def draw_rows(ok_sets: Sequence[VariationSet], outputs: dict, names: Sequence[str]) -> list:
    """per_query.csv rows of the draws (set ``NAME@g<seed>``), after the combined rows."""
    rows = []
    for vs in ok_sets:
        for d in (vs.draws if isinstance(vs, DrawnSet) else ()):
            values = outputs[d.name][1]
            rows.extend((d.name, q, int(a), [values[m][q] for m in names]) for q, a in zip(d.qids, d.applied))
    return rows


def written_sets(vs: VariationSet) -> List[VariationSet]:
    """The sets written to variations/*.tsv for ``vs``: its draws, or itself."""
    return list(vs.draws) if isinstance(vs, DrawnSet) else [vs]


def mean_values(draw_values: Sequence[Dict[str, Dict[str, float]]], qids: Sequence[str],
                names: Sequence[str]) -> Dict[str, Dict[str, float]]:
    """measure -> qid -> mean over the draws (summed in seed order: deterministic)."""
    g = len(draw_values)
    return {m: {q: float(sum(v[m][q] for v in draw_values) / g) for q in qids} for m in names}


def draws_entry(orig: Dict[str, Dict[str, float]], draw_values: Sequence[Dict[str, Dict[str, float]]],
                draws: Sequence[VariationSet], seeds: Sequence[int], qids: Sequence[str],
                names: Sequence[str]) -> dict:
    """The ``draws`` block of one set's result.json entry."""
    import numpy as np

    from bench.results import applicability as AP

    n = len(qids)
    per_measure = {}
    for m in names:
        o = np.array([orig[m][q] for q in qids], dtype=np.float64)
        v = np.array([[dv[m][q] for dv in draw_values] for q in qids], dtype=np.float64).reshape(n, len(seeds))
        per_measure[m] = D.draw_summary(o, v)
    return {"seeds": [int(s) for s in seeds], "n_draws": len(seeds),
            "sets": [d.name for d in draws],
            "fingerprints": [getattr(d, "made_fingerprint", None) or d.fingerprint() for d in draws],
            "n_applied": [int(sum(d.applied)) for d in draws],
            "applicability": [AP.share(int(sum(d.applied)), n) for d in draws],
            "applied_rule": ANY_APPLIED, "paired_tests_on": D.PAIRED_ON, "interval": D.INTERVAL,
            "worst": D.WORST, "measures": per_measure}


def check_options(cfg) -> None:
    """Options that cannot be combined with several draws."""
    if cfg.variations_dir is not None:
        raise BenchError("--generation-seeds draws the sets; frozen sets (--variations) are one draw each. "
                         "Remove one of the two options")
    if cfg.labels:
        raise BenchError("--labels match human labels to one draw's variations; with --generation-seeds label each "
                         "draw's pairs separately (evaluate one draw per run with --labels)")


def draw_strip(result: dict, measure: Optional[str] = None) -> List[str]:
    """Console / report lines: per set, the N drop rates, their mean, SD, interval and worst of N."""
    seeds = result.get("generation_seeds")
    if not seeds or len(seeds) < 2:
        return []
    m = measure or (result.get("measures") or [None])[0]
    lines = [f"generation seeds {','.join(str(s) for s in seeds)} ({len(seeds)} draws per set), {m}: drop rate of "
             f"each draw; mean, SD over draws, 95% CI over queries and draws; worst of {len(seeds)}. "
             f"Paired tests use the {D.PAIRED_ON}."]
    for e in result.get("sets", []):
        d = (e.get("draws") or {}).get("measures", {}).get(m)
        if not d:
            continue
        strip = " ".join("-" if x is None else _pct(x) for x in d["drop_rates"])
        lo, hi = d["drop_rate_ci"]
        ci = "[-]" if lo is None else f"[{_pct(lo)}, {_pct(hi)}]"
        ci += f" ({d['interval_note']})" if d.get("interval_note") and lo is not None else ""
        wd = d["worst_drop_rate"]
        mean = "-" if d["drop_rate_mean"] is None else _pct(d["drop_rate_mean"])
        sd = "-" if d["drop_rate_sd"] is None else f"{round(100 * d['drop_rate_sd'], 1) + 0.0:.1f}"
        lines.append(f"  {e['name']:<22} {strip} | mean {mean}% SD {sd} CI {ci} | worst-of-{len(seeds)} "
                     f"{d['worst_metric']:.4f} (drop {'-' if wd is None else _pct(wd) + '%'})")
    return lines


def _pct(x: float) -> str:
    """A share as signed percent with one decimal (no "-0.0")."""
    return f"{round(100 * x, 1) + 0.0:+.1f}"
