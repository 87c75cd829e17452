"""The headline of a sets report in short sentences, one idea each: VARIATIONS (AVG.) (the
paper's headline number) and its applied-only companion, the significant sets per measure,
the largest drop, the tests used; and the footnote that says which figures are corrected for
multiple comparisons (the markers) and which are not (the per-comparison intervals)."""
from __future__ import annotations

from typing import Any, List, Tuple

from bench.reporting import interval_words as IW
from bench.reporting.report import applicability as RA
from bench.reporting.report import markup as M
from bench.core.progress import count
from bench.results.rundir import AVG

CORRECTION_NAMES = {"holm": "Holm", "bh": "Benjamini-Hochberg", "none": "uncorrected", "maxt": "max-T"}


def _ci(data: Any, s: str, m: str) -> str:
    c = data.comparison(s, m) or {}
    return M.with_ci(M.drop(data.drop(s, m)), c.get("drop_rate_ci"), M.drop) + RA.unreliable_mark(c)


def original_sentence(data: Any) -> List[str]:
    """The baseline's own scores, the reference of every drop rate."""
    base = data.means.get(data.baseline) or {}
    if not base:
        return []
    n = (data.run.set_entry(data.baseline) or {}).get("n_evaluated")
    values = ", ".join(f"{m} {M.f4(base.get(m))}" for m in data.measures)
    return [f"{data.baseline} (the queries as written{f', {n} queries' if n else ''}): {values}."]


def average_sentence(data: Any) -> List[str]:
    avg = (data.run.result.get("summary") or {}).get(AVG) or {}
    drops = avg.get("drop_rate") or {}
    if not drops:
        return []
    n_sets = len([s for s in data.sets if s != data.baseline])
    values = ", ".join(f"{m} {M.drop(drops.get(m))}" for m in data.measures)
    return [f"{AVG} (the paper's headline number: the mean drop rate of the {count(n_sets, 'set')} over every "
            "query; + = worse than " + data.baseline + "): "
            f"{values}."]


def applied_sentence(data: Any) -> Tuple[List[str], List[str]]:
    """(the applied-only average's first line, its details for the footnote)."""
    from bench.reporting.report import applicability as RA

    lines = RA.average_lines(data)
    return (lines[:1], [x.strip() for x in lines[1:]])


def measure_sentences(data: Any) -> List[str]:
    out = []
    for m in data.measures:
        worse, better = [], []
        for s in data.ordered(m):
            c = data.comparison(s, m) or {}
            if s == data.baseline or not c.get("significant"):
                continue
            (worse if (c.get("delta") or 0) < 0 else better).append(f"{s} {M.drop(data.drop(s, m))}")
        if not worse and not better:
            out.append(f"{m}: no set differs significantly from {data.baseline}.")
            continue
        parts = ([f"significantly worse than {data.baseline}: {', '.join(worse)}"] if worse else []) + \
                ([f"significantly better: {', '.join(better)}"] if better else [])
        out.append(f"{m}: {'; '.join(parts)} (drop rates).")
    return out


def largest_sentence(data: Any) -> List[str]:
    m = data.headline
    top = data.order.get(m or "", [])
    if not top or data.drop(top[0], m) is None:
        return []
    c = data.comparison(top[0], m) or {}
    return [f"Largest drop on {m}: {top[0]}, {_ci(data, top[0], m)}"
            f"{', significant' if c.get('significant') else ', not significant'}."]


def tests_sentence(h: dict) -> str:
    name = CORRECTION_NAMES.get(str(h.get("correction")), str(h.get("correction")))
    return (f"Tests: {h['test']} ({h['sidedness']}) of each set against the baseline, {name} correction within "
            f"each measure, alpha {h['alpha']}.")


def headline_lines(data: Any) -> List[str]:
    """The headline sentences, in reading order."""
    h = (data.statistics or {}).get("header")
    applied, _ = applied_sentence(data)
    if not h:
        return (original_sentence(data) + average_sentence(data) + applied
                + [f"No paired statistics in this run: drop rates only, sorted by {data.headline}."])
    return (original_sentence(data) + average_sentence(data) + applied + measure_sentences(data)
            + largest_sentence(data) + [tests_sentence(h)])


def interval_footnote(data: Any) -> List[str]:
    """Which figures are corrected: the markers follow the run's correction; the intervals are
    per-comparison (each the run's recorded interval, :mod:`bench.reporting.interval_words`, of one
    set on one measure, not widened for the other comparisons), so an interval can exclude 0 where
    no marker is shown."""
    h = (data.statistics or {}).get("header")
    _, details = applied_sentence(data)
    if not h:
        return [f"{AVG} applied-only {d}" for d in details]
    conf, kind = IW.confidence_percent(h), IW.interval_name(h, plural=True)
    corr = str(h.get("correction"))
    if corr == "none":
        text = (f"Intervals [..] are per-comparison {conf}% {kind} and the markers are uncorrected "
                f"too (--correction none): neither accounts for the number of comparisons per measure.")
    else:
        name = CORRECTION_NAMES.get(corr, corr)
        text = (f"Intervals [..] are per-comparison {conf}% {kind}, not corrected for the number of "
                f"sets compared per measure; the {M.SIG_WORSE} / {M.SIG_BETTER} markers are {name}-corrected. "
                f"An interval can therefore exclude 0 without a marker")
        example = _uncorrected_example(data)
        text += f" (here {example})." if example else "."
    return [text] + [f"{AVG} applied-only {d}" for d in details]


def _uncorrected_example(data: Any) -> str:
    for m in data.measures:
        for s in data.ordered(m):
            c = data.comparison(s, m) or {}
            ci = c.get("drop_rate_ci")
            if s == data.baseline or c.get("significant") or not ci or None in ci:
                continue
            if ci[0] > 0 or ci[1] < 0:
                return f"{s} on {m}: {_ci(data, s, m)}, p corrected {M.pval(c.get('p_corrected'))}"
    return ""
