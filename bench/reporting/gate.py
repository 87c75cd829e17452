"""CI regression gate: does a candidate run hold against a baseline run?

Few-shot runs (suite ``fewshot``) are gated per setting (zero-shot, each method x K with
per-query values averaged over trials, full-shot) with metric checks only; both runs must share
the sampling plan. Variation runs: both runs must be comparable (same suite, seed, dataset fingerprint, and the same variation
sets with the same fingerprints and the same queries); otherwise :class:`IncompatibleRuns`
(exit 2). The gate reads from each run folder: ``result.json`` (suite, seed, dataset
fingerprint, measures, sets with name / status / fingerprint / label) and ``per_query.csv``
(the per-query values of the gated metric in every set).

Checks, all on one metric (default: the baseline's first measure):

1. **metric** check for each set S (ORIGINAL and every variation set): paired over the same
   queries, ``change = mean(C_S) - mean(B_S)``; *beyond tolerance* when
   ``-change > max_regression`` (absolute metric points); *significant* when the two-sided
   paired test (t-test by default) gives a corrected p < alpha and the change is negative.
2. **drop-rate** check for each variation set S and for VARIATIONS (AVG.) (per-query mean over
   the variation sets): ``change = DR_C - DR_B`` with ``DR = (M_ORIGINAL - M_S) / M_ORIGINAL``;
   *beyond tolerance* when ``change > max_drop_rate``; *significant* when the two-sided paired
   swap randomization test (per query, the baseline's and candidate's (ORIGINAL, S) pairs are
   exchanged; Monte Carlo, p = (b+1)/(m+1)) gives a corrected p < alpha and change > 0.

The family for the correction (Holm by default) is every check with a defined p-value.
A check *regressed* when: ``require="both"``: beyond tolerance AND significant;
``"drop"``: beyond tolerance only; ``"significance"``: significant only. The gate fails
(exit 1) when any check regressed.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from bench.evaluation import stats as S
from bench.core.errors import DataError, IncompatibleRuns
from bench.results.rundir import AVG, ORIGINAL, Run, load_run

REQUIRE = ("both", "drop", "significance")


@dataclass
class GateOptions:
    metric: Optional[str] = None
    max_drop_rate: float = 0.0
    max_regression: float = 0.0
    alpha: float = 0.05
    correction: str = "holm"
    require: str = "both"
    test: str = "t-test"
    seed: int = 0
    n_resamples: int = S.DEFAULT_RESAMPLES

    def validate(self) -> None:
        if self.require not in REQUIRE:
            raise ValueError(f"require must be one of {', '.join(REQUIRE)}")
        if self.correction not in S.CORRECTIONS:
            raise ValueError(f"correction must be one of {', '.join(S.CORRECTIONS)}")
        if self.test not in S.TESTS:
            raise ValueError(f"test must be one of {', '.join(S.TESTS)}")
        if not 0 < self.alpha < 1:
            raise ValueError("alpha must be in (0, 1)")
        if self.max_drop_rate < 0 or self.max_regression < 0:
            raise ValueError("tolerances must be >= 0")


@dataclass
class Check:
    kind: str  # "metric" or "drop-rate"
    set: str
    label: str
    n: int
    baseline: float  # metric mean, or the baseline's drop rate
    candidate: float
    change: float  # candidate - baseline (metric: negative = worse; drop-rate: positive = worse)
    tolerance: float
    beyond_tolerance: bool
    test: str
    p_value: float
    p_corrected: float = float("nan")
    significant: bool = False
    regressed: bool = False
    win: Optional[int] = None  # queries where the candidate beats the baseline (metric checks)
    tie: Optional[int] = None
    loss: Optional[int] = None
    d_z: Optional[float] = None
    note: str = ""

    @property
    def worse(self) -> bool:
        return self.change < 0 if self.kind == "metric" else self.change > 0


@dataclass
class Verdict:
    passed: bool
    checks: List[Check]
    options: GateOptions
    metric: str
    family_size: int
    baseline: str = ""
    candidate: str = ""
    notes: List[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return 0 if self.passed else 1

    @property
    def regressions(self) -> List[Check]:
        return [c for c in self.checks if c.regressed]

    def reasons(self) -> List[str]:
        out = []
        o = self.options
        for c in self.regressions:
            parts = []
            if c.kind == "metric":
                what = f"{self.metric} on {c.label} fell by {-c.change:.4f} ({c.baseline:.4f} -> {c.candidate:.4f})"
                tol = f"tolerance {o.max_regression:g}"
            else:
                what = (f"drop rate of {c.label} rose by {c.change:.4f} ({c.baseline:.4f} -> {c.candidate:.4f})")
                tol = f"tolerance {o.max_drop_rate:g}"
            if o.require in ("both", "drop"):
                parts.append(f"beyond {tol}")
            if o.require in ("both", "significance"):
                parts.append(f"p_{o.correction} = {_fmt_p(c.p_corrected)} < {o.alpha:g}")
            out.append(f"{what}: {' and '.join(parts)}")
        return out

    def header_lines(self) -> List[str]:
        o = self.options
        test_desc = S.TEST_DESCRIPTIONS[o.test]
        lines = [
            f"metric **{self.metric}**; require **{o.require}** (regressed = "
            + {"both": "beyond tolerance AND significant", "drop": "beyond tolerance",
               "significance": "significant"}[o.require] + ")",
            f"metric checks: {test_desc}; two-sided; candidate - baseline per query; d_z SD ddof=1",
        ]
        if any(c.kind == "drop-rate" for c in self.checks):
            lines.append("drop-rate checks: two-sided paired swap randomization test of DR_candidate - DR_baseline "
                         f"(Monte Carlo, m={o.n_resamples}, p=(b+1)/(m+1), seed={o.seed})")
        lines.append(f"correction: {S.CORRECTION_DESCRIPTIONS[o.correction]} over a family of {self.family_size} "
                     f"checks; alpha = {o.alpha:g}; tolerances: max regression {o.max_regression:g} (absolute), "
                     f"max drop-rate increase {o.max_drop_rate:g}")
        return lines

    def markdown(self) -> str:
        o = self.options
        status = "PASS" if self.passed else "FAIL"
        lines = [f"### drbench gate: **{status}**", ""]
        if self.baseline or self.candidate:
            lines += [f"baseline: `{self.baseline}`  ", f"candidate: `{self.candidate}`", ""]
        lines += [f"- {h}" for h in self.header_lines()]
        lines.append("")
        if self.passed:
            lines.append(f"The candidate holds: no check regressed ({len(self.checks)} checks).")
        else:
            lines.append(f"The candidate regressed on {len(self.regressions)} of {len(self.checks)} checks:")
            lines += [f"- {r}" for r in self.reasons()]
        lines.append("")
        lines.append(f"| check | set | n | baseline | candidate | change | tolerance | beyond tol. | test | p | "
                     f"p ({o.correction}) | significant, worse | W/T/L (cand.) | d_z | verdict |")
        lines.append("|---|---|---:|---:|---:|---:|---:|:---:|---|---:|---:|:---:|---:|---:|:---:|")
        for c in self.checks:
            wtl = f"{c.win}/{c.tie}/{c.loss}" if c.win is not None else ""
            verdict = "**REGRESSED**" if c.regressed else "ok"
            lines.append(
                f"| {c.kind} | {md_escape(c.label)} | {c.n} | {c.baseline:.4f} | {c.candidate:.4f} | "
                f"{c.change:+.4f} | {c.tolerance:g} | {'yes' if c.beyond_tolerance else 'no'} | {c.test} | "
                f"{_fmt_p(c.p_value)} | {_fmt_p(c.p_corrected)} | {'yes' if c.significant else 'no'} | {wtl} | "
                f"{_fmt(c.d_z)} | {verdict} |")
        for n in self.notes:
            lines.append("")
            lines.append(f"note: {n}")
        for c in self.checks:
            if c.note:
                lines.append(f"note ({c.kind} {c.label}): {c.note}")
        return "\n".join(lines) + "\n"

    def to_dict(self) -> Dict[str, Any]:
        return S.to_jsonable({
            "passed": self.passed, "exit_code": self.exit_code, "metric": self.metric,
            "family_size": self.family_size, "options": asdict(self.options),
            "baseline": self.baseline, "candidate": self.candidate, "reasons": self.reasons(),
            "header": self.header_lines(), "checks": [asdict(c) for c in self.checks], "notes": self.notes,
        })


def md_escape(text: str) -> str:
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _fmt_p(p: Optional[float]) -> str:
    if p is None or not math.isfinite(p):
        return "n/a"
    return f"{p:.2e}" if p < 1e-3 else f"{p:.4f}"


def _fmt(x: Optional[float]) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{x:+.3f}"


# --------------------------------------------------------------------------- core on arrays

def gate_arrays(baseline: Mapping[str, np.ndarray], candidate: Mapping[str, np.ndarray],
                options: Optional[GateOptions] = None, *, metric: str = "metric",
                labels: Optional[Mapping[str, str]] = None, reference: str = ORIGINAL,
                drop_rate_checks: bool = True) -> Verdict:
    """The gate on per-query arrays: ``baseline[set]`` and ``candidate[set]`` are paired by
    position (same queries, same order); the first key must be ``reference`` (ORIGINAL for the
    variations suite). Without ``drop_rate_checks`` only the metric checks are made (few-shot
    settings have no drop rate)."""
    o = options or GateOptions()
    o.validate()
    sets = list(baseline)
    if not sets or sets[0] != reference:
        raise ValueError(f"the first set must be {reference}")
    if list(candidate) != sets:
        raise ValueError("baseline and candidate must have the same sets in the same order")
    labels = dict(labels or {})
    checks: List[Check] = []
    for s in sets:
        b = np.asarray(baseline[s], dtype=np.float64)
        c = np.asarray(candidate[s], dtype=np.float64)
        res = S.paired_test(b, c, o.test, seed=o.seed, n_resamples=o.n_resamples, key=("gate", s))
        mb, mc = float(np.mean(b)), float(np.mean(c))
        change = mc - mb
        w, t, l = S.win_tie_loss(b, c)
        checks.append(Check("metric", s, labels.get(s, s), int(b.size), mb, mc, change, o.max_regression,
                            -change > o.max_regression, o.test, res.pvalue, win=w, tie=t, loss=l,
                            d_z=S.cohen_dz(b, c), note=res.note))
    var_sets = sets[1:] if drop_rate_checks else []
    dr_sets: List[Tuple[str, np.ndarray, np.ndarray]] = [
        (s, np.asarray(baseline[s], dtype=np.float64), np.asarray(candidate[s], dtype=np.float64)) for s in var_sets]
    if len(var_sets) > 1:
        dr_sets.append((AVG, np.mean([baseline[s] for s in var_sets], axis=0),
                        np.mean([candidate[s] for s in var_sets], axis=0)))
    bo = np.asarray(baseline[reference], dtype=np.float64)
    co = np.asarray(candidate[reference], dtype=np.float64)
    for s, bv, cv in dr_sets:
        drb = S.drop_rate(float(np.mean(bo)), float(np.mean(bv)))
        drc = S.drop_rate(float(np.mean(co)), float(np.mean(cv)))
        res = S.drop_rate_difference_test(bo, bv, co, cv, n_resamples=o.n_resamples, seed=o.seed, key=("gate", s))
        change = drc - drb
        beyond = bool(math.isfinite(change) and change > o.max_drop_rate)
        checks.append(Check("drop-rate", s, labels.get(s, s), int(bo.size), drb, drc, change, o.max_drop_rate,
                            beyond, "swap randomization", res.pvalue, note=res.note))
    raw = [c.p_value for c in checks]
    adj = S.adjust_pvalues(raw, o.correction)
    for c, p in zip(checks, adj):
        c.p_corrected = float(p)
        c.significant = bool(math.isfinite(p) and p < o.alpha and c.worse)
        if o.require == "both":
            c.regressed = c.beyond_tolerance and c.significant
        elif o.require == "drop":
            c.regressed = c.beyond_tolerance
        else:
            c.regressed = c.significant
    passed = not any(c.regressed for c in checks)
    return Verdict(passed, checks, o, metric, S.family_size(raw))


# --------------------------------------------------------------------------- run folders

def check_compatible(baseline: Run, candidate: Run, metric: str) -> List[str]:
    """Raise IncompatibleRuns when the runs cannot be compared; return the shared ok sets."""
    b, c = baseline.result_path, candidate.result_path

    def differ(what: str, vb: Any, vc: Any) -> IncompatibleRuns:
        return IncompatibleRuns(f"different {what}: baseline {b} has {vb!r}, candidate {c} has {vc!r}; "
                                "a gate compares runs of the same suite, seed, dataset and variation sets")

    if baseline.suite != candidate.suite:
        raise differ("suite", baseline.suite, candidate.suite)
    if baseline.seed != candidate.seed:
        raise differ("seed", baseline.seed, candidate.seed)
    if baseline.dataset_fingerprint != candidate.dataset_fingerprint:
        raise differ("dataset fingerprint", baseline.dataset_fingerprint, candidate.dataset_fingerprint)
    for run in (baseline, candidate):
        if metric not in run.measures:
            raise DataError(f"metric {metric!r} not measured (measures: {', '.join(run.measures)})",
                            str(run.result_path), fix="pick one with --metric")
    names_b = [s.get("name") for s in baseline.sets]
    names_c = [s.get("name") for s in candidate.sets]
    for name in dict.fromkeys(names_b + names_c):
        eb, ec = baseline.set_entry(name), candidate.set_entry(name)
        if eb is None or ec is None:
            where = b if eb is None else c
            raise IncompatibleRuns(f"set {name!r} is absent from {where}: the runs were made with different sets")
        sb, sc = eb.get("status", "ok"), ec.get("status", "ok")
        if sb != sc:
            raise IncompatibleRuns(f"set {name!r} is {sb!r} in baseline {b} but {sc!r} in candidate {c}"
                                   + (f" (reason: {eb.get('reason') or ec.get('reason')})"
                                      if eb.get("reason") or ec.get("reason") else ""))
        if sb == "ok" and eb.get("fingerprint") != ec.get("fingerprint"):
            raise differ(f"fingerprint of variation set {name!r}", eb.get("fingerprint"), ec.get("fingerprint"))
    ok = baseline.ok_sets
    if ORIGINAL not in ok:
        raise DataError("no ORIGINAL set with status ok", str(b))
    return [ORIGINAL] + [s for s in ok if s != ORIGINAL]


def _arrays(baseline: Run, candidate: Run, sets: Sequence[str], metric: str) -> Tuple[Dict[str, np.ndarray],
                                                                                        Dict[str, np.ndarray], List[str]]:
    qids = list(baseline.values(ORIGINAL, metric).index)
    bd: Dict[str, np.ndarray] = {}
    cd: Dict[str, np.ndarray] = {}
    notes = []
    for run, out in ((baseline, bd), (candidate, cd)):
        for s in sets:
            ser = run.values(s, metric)
            if set(ser.index) != set(qids):
                raise IncompatibleRuns(f"{run.per_query_path}: set {s!r} is not on the same queries as the baseline's "
                                       f"ORIGINAL ({len(ser)} vs {len(qids)} queries)")
            out[s] = ser.loc[qids].to_numpy(dtype=np.float64)
    ok = np.ones(len(qids), dtype=bool)
    for d in (bd, cd):
        for v in d.values():
            ok &= np.isfinite(v)
    if not ok.all():
        notes.append(f"{int((~ok).sum())} queries with a missing (NaN) value were left out of every check")
        for d in (bd, cd):
            for s in d:
                d[s] = d[s][ok]
    return bd, cd, notes


def run_gate(baseline_path: Any, candidate_path: Any, options: Optional[GateOptions] = None) -> Verdict:
    """Load both run folders, check they are comparable and run the gate."""
    o = options or GateOptions()
    o.validate()
    baseline = load_run(baseline_path)
    candidate = load_run(candidate_path)
    metric = o.metric or (baseline.measures[0] if baseline.measures else None)
    if not metric:
        raise DataError("no measures", str(baseline.result_path))
    if baseline.suite == "fewshot" or candidate.suite == "fewshot":
        return _run_fewshot_gate(baseline, candidate, metric, o)
    if baseline.suite == candidate.suite and baseline.suite not in ("variations", ""):
        raise IncompatibleRuns(f"{baseline.result_path}: suite {baseline.suite!r} is not gated (the gate compares "
                               f"variations or fewshot runs); compare such runs with `bench compare` or "
                               f"`bench report`")
    sets = check_compatible(baseline, candidate, metric)
    bd, cd, notes = _arrays(baseline, candidate, sets, metric)
    verdict = gate_arrays(bd, cd, o, metric=metric, labels={s: baseline.label(s) for s in sets})
    verdict.baseline = str(baseline.folder)
    verdict.candidate = str(candidate.folder)
    verdict.notes.extend(notes)
    skipped = [s.get("name") for s in baseline.sets if s.get("status", "ok") != "ok"]
    if skipped:
        verdict.notes.append(f"sets not evaluated in either run (skipped): {', '.join(map(str, skipped))}")
    return verdict


# --------------------------------------------------------------------------- few-shot runs

FEWSHOT_REFERENCE = "zero-shot"


def _fewshot_settings(run: Run, metric: str) -> Dict[str, Any]:
    """setting -> Series qid -> value, trials averaged per test query (``m/K=5/trial=2`` -> ``m/K=5``)."""
    pq = run.per_query
    if pq is None:
        raise DataError("per-query table not loaded", str(run.per_query_path))
    if metric not in pq.columns:
        raise DataError(f"no column {metric!r}", str(run.per_query_path), fix="pick one with --metric")
    setting = pq["set"].astype(str).str.replace(r"/trial=\d+$", "", regex=True)
    means = pq.assign(setting=setting).groupby(["setting", "qid"], sort=False)[metric].mean()
    out: Dict[str, Any] = {}
    for name in dict.fromkeys(setting):
        out[name] = means.loc[name]
    return out


def _run_fewshot_gate(baseline: Run, candidate: Run, metric: str, o: GateOptions) -> Verdict:
    """Few-shot runs: one metric check per setting (zero-shot, each method x K averaged over trials,
    full-shot), paired on the test queries, corrected across the settings. The runs must share
    suite, seed, dataset and the sampling plan (class split, test queries, trials)."""
    b, c = baseline.result_path, candidate.result_path
    for what, vb, vc in (("suite", baseline.suite, candidate.suite), ("seed", baseline.seed, candidate.seed),
                         ("dataset fingerprint", baseline.dataset_fingerprint, candidate.dataset_fingerprint),
                         ("few-shot plan", baseline.result.get("plan"), candidate.result.get("plan"))):
        if vb != vc:
            shown = (vb, vc) if what != "few-shot plan" else ("(plan)", "(another plan)")
            raise IncompatibleRuns(f"different {what}: baseline {b} has {shown[0]!r}, candidate {c} has "
                                   f"{shown[1]!r}; a gate compares runs of the same suite, seed, dataset and plan")
    sb, sc = _fewshot_settings(baseline, metric), _fewshot_settings(candidate, metric)
    if list(sb) != list(sc):
        raise IncompatibleRuns(f"different few-shot settings: baseline {b} has {list(sb)}, candidate {c} has {list(sc)}")
    if not sb or next(iter(sb)) != FEWSHOT_REFERENCE:
        raise DataError(f"no {FEWSHOT_REFERENCE!r} rows", str(baseline.per_query_path))
    qids = list(sb[FEWSHOT_REFERENCE].index)
    bd: Dict[str, np.ndarray] = {}
    cd: Dict[str, np.ndarray] = {}
    for name in sb:
        for run, series, out in ((baseline, sb[name], bd), (candidate, sc[name], cd)):
            if set(series.index) != set(qids):
                raise IncompatibleRuns(f"{run.per_query_path}: setting {name!r} is not on the same test queries")
            out[name] = series.loc[qids].to_numpy(dtype=np.float64)
    verdict = gate_arrays(bd, cd, o, metric=metric, reference=FEWSHOT_REFERENCE, drop_rate_checks=False)
    verdict.baseline = str(baseline.folder)
    verdict.candidate = str(candidate.folder)
    verdict.notes.append("few-shot runs: per-query values are averaged over trials before pairing; "
                         "metric checks only (no drop rates)")
    return verdict
