"""CI regression gate: does a candidate run hold against a baseline run? (contract: docs/gate.md)

Few-shot runs (suite ``fewshot``) are gated per setting (zero-shot, each method x K with
per-query values averaged over trials, full-shot) on the headline: the macro average over the
classes (the suite's ``macro_weights``), metric checks only; both runs must share the sampling
plan. Variation runs: both runs must be comparable (same suite, seed, dataset fingerprint, and the
same variation sets with the same fingerprints and the same queries); otherwise
:class:`IncompatibleRuns` (exit 2). The gate reads from each run folder: ``result.json`` (suite,
seed, dataset fingerprint, measures, sets with name / status / fingerprint / label) and
``per_query.csv`` (the per-query values of the gated metric in every set).

Checks, all on one metric (default: the baseline's first measure); statistics in
:mod:`bench.reporting.gate_checks`:

1. **metric** for each set S (ORIGINAL, every variation set, VARIATIONS (AVG.)): ``change =
   mean(C_S) - mean(B_S)`` (negative = worse); margin ``max_regression``.
2. **drop-rate** for each variation set S and VARIATIONS (AVG.): ``change = DR_C - DR_B``
   (positive = worse), ``DR = (M_ORIGINAL - M_S) / M_ORIGINAL``; margin ``max_drop_rate``.

Each check is tested ONE-SIDED against its margin (H1: a regression beyond the margin) and bounded
one-sided (non-inferiority: the (1 - alpha) confidence bound of the change is within the margin).
Family (``family``): ``hierarchy`` (default) — the primary checks (metric ORIGINAL, metric and
drop-rate VARIATIONS (AVG.)) decide, the per-set checks localise; ``all`` — every check decides.
Correction (``correction``): ``maxt`` (default; Westfall-Young step-down max-T with one sign flip
per query applied jointly to every check) or holm / bh / none. Checks whose per-query differences
are all zero leave the family. Verdict: FAIL (exit 1) when a deciding check is rejected; PASS
(exit 0) when every deciding check is non-inferior; otherwise INCONCLUSIVE (exit 0 with a warning,
exit 1 with ``strict``).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from bench.evaluation import stats as S
from bench.core.errors import DataError, IncompatibleRuns
from bench.results.rundir import ORIGINAL, Run, load_run
from bench.results.suite import suite_of
from bench.evaluation.strata import macro_weights
from bench.reporting.gate_checks import Check
from bench.reporting.gate_checks import build_checks, decide
from bench.reporting.gate_power import add_power
from bench.reporting.gate_render import header_lines, markdown, reasons

CORRECTIONS = ("maxt",) + tuple(S.CORRECTIONS)
FAMILIES = ("hierarchy", "all")
VERDICTS = ("PASS", "FAIL", "INCONCLUSIVE")


@dataclass
class GateOptions:
    metric: Optional[str] = None
    max_drop_rate: float = 0.0
    max_regression: float = 0.0
    alpha: float = 0.05
    correction: str = "maxt"
    family: str = "hierarchy"
    test: str = "t-test"  # the per-check test of holm / bh / none (max-T uses the studentized sign flip)
    seed: int = 0
    n_resamples: int = S.DEFAULT_RESAMPLES
    strict: bool = False

    def validate(self) -> None:
        if self.correction not in CORRECTIONS:
            raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}")
        if self.family not in FAMILIES:
            raise ValueError(f"family must be one of {', '.join(FAMILIES)}")
        if self.test not in S.TESTS:
            raise ValueError(f"test must be one of {', '.join(S.TESTS)}")
        if not 0 < self.alpha < 1:
            raise ValueError("alpha must be in (0, 1)")
        if not (self.max_drop_rate >= 0 and self.max_regression >= 0):
            raise ValueError("margins (--max-regression, --max-drop-rate) must be >= 0")
        if self.n_resamples < 1:
            raise ValueError("resamples must be >= 1")


@dataclass
class Verdict:
    status: str  # one of VERDICTS
    checks: List[Check]
    options: GateOptions
    metric: str
    family_size: int
    baseline: str = ""
    candidate: str = ""
    notes: List[str] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)
    families: Dict[str, Any] = field(default_factory=dict)
    weighting: str = "per-query mean"

    @property
    def passed(self) -> bool:
        return self.status == "PASS"

    @property
    def failed(self) -> bool:
        return self.status == "FAIL"

    @property
    def exit_code(self) -> int:
        if self.status == "INCONCLUSIVE":
            return 1 if self.options.strict else 0
        return 0 if self.status == "PASS" else 1

    @property
    def regressions(self) -> List[Check]:
        return [c for c in self.checks if c.regressed]

    def reasons(self) -> List[str]:
        return reasons(self)

    def header_lines(self) -> List[str]:
        return header_lines(self)

    def markdown(self) -> str:
        return markdown(self)

    def annotations(self) -> List[str]:
        from bench.reporting.gate_render import annotations

        return annotations(self)

    def to_dict(self) -> Dict[str, Any]:
        return S.to_jsonable({
            "verdict": self.status, "passed": self.passed, "exit_code": self.exit_code, "metric": self.metric,
            "family_size": self.family_size, "families": self.families, "weighting": self.weighting,
            "options": asdict(self.options), "baseline": self.baseline, "candidate": self.candidate,
            "reasons": self.reasons(), "warnings": self.warnings, "header": self.header_lines(),
            "checks": [asdict(c) for c in self.checks], "notes": self.notes,
        })


# --------------------------------------------------------------------------- core on arrays

def gate_arrays(baseline: Mapping[str, np.ndarray], candidate: Mapping[str, np.ndarray],
                options: Optional[GateOptions] = None, *, metric: str = "metric",
                labels: Optional[Mapping[str, str]] = None, reference: str = ORIGINAL,
                drop_rate_checks: bool = True, weights: Optional[np.ndarray] = None,
                primary: Optional[Sequence[str]] = None) -> Verdict:
    """The gate on per-query arrays: ``baseline[set]`` and ``candidate[set]`` are paired by
    position (same queries, same order); the first key must be ``reference`` (ORIGINAL for the
    variations suite). Without ``drop_rate_checks`` only the metric checks are made (few-shot
    settings have no drop rate); ``weights`` (summing to 1) gate weighted means (few-shot macro
    headline); ``primary`` names the primary metric checks (default: reference, VARIATIONS (AVG.))."""
    o = options or GateOptions()
    o.validate()
    sets = list(baseline)
    if not sets or sets[0] != reference:
        raise ValueError(f"the first set must be {reference}")
    if list(candidate) != sets:
        raise ValueError("baseline and candidate must have the same sets in the same order")
    pairs = build_checks(baseline, candidate, o, labels=dict(labels or {}), reference=reference,
                         drop_rate_checks=drop_rate_checks, weights=weights, primary=primary)
    res = decide(pairs, o)
    warnings = add_power(pairs, res["families"], o, metric)
    size = sum(f["size"] for f in res["families"].values())
    return Verdict(res["status"], [c for c, _ in pairs], o, metric, size, warnings=warnings,
                   families=res["families"], weighting="per-query mean" if weights is None else "macro (weighted)")


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
    suite = suite_of(baseline)
    if suite.layout == "fewshot" or suite_of(candidate).layout == "fewshot":
        return _run_fewshot_gate(baseline, candidate, metric, o)
    if baseline.suite == candidate.suite and baseline.suite and not suite.gated:
        raise IncompatibleRuns(f"{baseline.result_path}: suite {baseline.suite!r} is not gated: "
                               f"{suite.reason_not_gated or 'the suite does not declare itself gated'}")
    sets = check_compatible(baseline, candidate, metric)
    bd, cd, notes = _arrays(baseline, candidate, sets, metric)
    verdict = gate_arrays(bd, cd, o, metric=metric, labels={s: baseline.label(s) for s in sets})
    verdict.baseline = str(baseline.folder)
    verdict.candidate = str(candidate.folder)
    verdict.notes.extend(notes)
    verdict.notes.extend(baseline.notes + candidate.notes)
    skipped = [s.get("name") for s in baseline.sets if s.get("status", "ok") != "ok"]
    if skipped:
        verdict.notes.append(f"sets not evaluated in either run (skipped): {', '.join(map(str, skipped))}")
    return verdict


# --------------------------------------------------------------------------- few-shot runs


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
    full-shot) on the macro headline, paired on the test queries, corrected across the settings. The runs must share
    suite, seed, dataset and the sampling plan (class split, test queries, trials)."""
    reference = suite_of(baseline).reference
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
    if not sb or next(iter(sb)) != reference:
        raise DataError(f"no {reference!r} rows", str(baseline.per_query_path))
    qids, weights = _fewshot_weights(baseline, list(sb[reference].index))
    bd: Dict[str, np.ndarray] = {}
    cd: Dict[str, np.ndarray] = {}
    for name in sb:
        for run, series, out in ((baseline, sb[name], bd), (candidate, sc[name], cd)):
            if set(series.index) != set(qids):
                raise IncompatibleRuns(f"{run.per_query_path}: setting {name!r} is not on the same test queries")
            out[name] = series.loc[qids].to_numpy(dtype=np.float64)
    verdict = gate_arrays(bd, cd, o, metric=metric, reference=reference, drop_rate_checks=False,
                          weights=weights, primary=list(bd))
    verdict.baseline = str(baseline.folder)
    verdict.candidate = str(candidate.folder)
    verdict.notes.append("few-shot runs: per-query values are averaged over trials before pairing; each setting is "
                         "gated on the headline, the macro average over classes (per-query macro weights, "
                         "all classes); metric checks only (no drop rates); every setting is primary")
    verdict.notes.extend(baseline.notes + candidate.notes)
    return verdict


def _fewshot_weights(run: Run, qids: List[str]) -> Tuple[List[str], np.ndarray]:
    """The test queries in the headline's order and their macro weights over all classes (the
    suite's ``macro_weights``: the weighted sum of per-query values is the headline)."""
    plan = run.result.get("plan") or {}
    by_class = plan.get("test_queries")
    classes = plan.get("classes") or {}
    if not isinstance(by_class, dict) or not by_class:
        raise DataError("few-shot plan without test_queries: the macro headline cannot be weighted",
                        str(run.result_path), fix="re-run the few-shot suite with this drbench version")
    all_classes = sorted(list(classes.get("base") or []) + list(classes.get("novel") or [])) or sorted(by_class)
    order, w = macro_weights(by_class, all_classes)
    if sorted(order) != sorted(map(str, qids)):
        raise DataError("the plan's test queries are not the per-query table's zero-shot queries",
                        str(run.result_path))
    return order, w
