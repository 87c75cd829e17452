"""CI regression gate: does a candidate run hold against a baseline run? (contract: docs/gate.md)

Few-shot runs (suite ``fewshot``) are gated per setting (zero-shot, each method x K with
per-query values averaged over trials, full-shot) on the headline: the macro average over the
classes (the suite's ``macro_weights``), metric checks only; both runs must share the sampling
plan. Variation runs: both runs must be comparable (same suite, seed, dataset fingerprint, and the
same variation sets with the same fingerprints and the same queries); otherwise
:class:`IncompatibleRuns` (exit 2); the rule is :mod:`bench.reporting.comparability`, shared with
``bench compare`` and the leaderboard. The gate reads from each run folder: ``result.json`` (suite,
seed, dataset fingerprint, measures, sets with name / status / fingerprint / label) and
``per_query.csv`` (the per-query values of the gated metric in every set).

Checks, all on one metric (default: the baseline's first measure); statistics in
:mod:`bench.reporting.gate.checks`:

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
are all zero leave the family, and so do drop-rate checks where both runs equal ORIGINAL on every
query (both drop rates 0, every pseudo-value 0). Verdict: FAIL (exit 1) when a deciding check is rejected; PASS
(exit 0) when every deciding check is non-inferior; otherwise INCONCLUSIVE (exit 0 with a warning,
exit 1 with ``strict``).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

import numpy as np

from bench.evaluation import stats as S
from bench.core.errors import DataError, IncompatibleRuns
from bench.results.rundir import ORIGINAL, Run, load_run
from bench.results.suite import suite_of
from bench.reporting.draws import draws_note
from bench.reporting.comparability import (check_compatible, check_fewshot_compatible, fewshot_settings,
                                           fewshot_weights, paired_arrays)
from bench.reporting.gate.checks import Check
from bench.reporting.gate.checks import build_checks, decide
from bench.reporting.gate.power import add_power
from bench.reporting.gate.render import header_lines, markdown, reasons

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
        """Every option in its allowed range (:mod:`bench.core.options`), else a BadValue (a BenchError)."""
        from bench.core.options import BadValue, check_number, check_resampling

        for value, allowed, flag in ((self.correction, CORRECTIONS, "--correction"),
                                     (self.family, FAMILIES, "--family"), (self.test, S.TESTS, "--test")):
            if value not in allowed:
                raise BadValue(f"{flag} {value!r}: choose from {', '.join(allowed)}")
        check_resampling(self.alpha, self.seed, self.n_resamples)
        check_number(self.max_drop_rate, "--max-drop-rate", 0.0, 1.0)
        check_number(self.max_regression, "--max-regression", 0.0, 1.0)


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
    def shown_warnings(self) -> List[str]:
        """The low-power warnings where they change the reading: a PASS or an INCONCLUSIVE verdict
        (a coarse gate can pass or stay undecided by lack of resolution). A FAIL has shown its
        regression despite the coarseness, so they are kept in ``warnings`` (and the JSON) only."""
        return list(self.warnings) if self.status in ("PASS", "INCONCLUSIVE") else []

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
        from bench.reporting.gate.render import annotations

        return annotations(self)

    def to_dict(self) -> Dict[str, Any]:
        return S.to_jsonable({
            "verdict": self.status, "passed": self.passed, "exit_code": self.exit_code, "metric": self.metric,
            "family_size": self.family_size, "families": self.families, "weighting": self.weighting,
            "options": asdict(self.options), "baseline": self.baseline, "candidate": self.candidate,
            "reasons": self.reasons(), "warnings": self.warnings, "warnings_shown": self.shown_warnings, "header": self.header_lines(),
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

def same_run_notes(baseline: Run, candidate: Run) -> List[str]:
    """Say so when the candidate is the baseline (the same folder, or a link to it) or its per-query
    table is byte-identical: such a PASS says nothing about a change."""
    import hashlib

    if Path(baseline.folder).resolve() == Path(candidate.folder).resolve():
        return [f"baseline and candidate are the same run ({Path(baseline.folder).resolve()}): the gate compared a run "
                f"with itself, so PASS says nothing about a change"]
    try:
        same = (hashlib.sha256(Path(baseline.per_query_path).read_bytes()).digest()
                == hashlib.sha256(Path(candidate.per_query_path).read_bytes()).digest())
    except OSError:
        return []
    if same:
        return [f"the candidate's per-query table {candidate.per_query_path} is byte-identical to the baseline's "
                f"{baseline.per_query_path}: the two runs gave exactly the same numbers (the same model, or a copy?)"]
    return []


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
    bd, cd, notes = paired_arrays(baseline, candidate, sets, metric)
    verdict = gate_arrays(bd, cd, o, metric=metric, labels={s: baseline.label(s) for s in sets})
    verdict.baseline = str(baseline.folder)
    verdict.candidate = str(candidate.folder)
    verdict.notes.extend(same_run_notes(baseline, candidate) + notes)
    verdict.notes.extend(baseline.notes + candidate.notes)
    verdict.notes.extend(draws_note(baseline))  # several generation seeds: per-query means, the rule
    skipped = [s.get("name") for s in baseline.sets if s.get("status", "ok") != "ok"]
    if skipped:
        verdict.notes.append(f"sets not evaluated in either run (skipped): {', '.join(map(str, skipped))}")
    return verdict


# --------------------------------------------------------------------------- few-shot runs


def _run_fewshot_gate(baseline: Run, candidate: Run, metric: str, o: GateOptions) -> Verdict:
    """Few-shot runs: one metric check per setting (zero-shot, each method x K averaged over trials,
    full-shot) on the macro headline, paired on the test queries, corrected across the settings. The runs must share
    suite, seed, dataset and the sampling plan (class split, test queries, trials)."""
    reference = suite_of(baseline).reference
    b, c = baseline.result_path, candidate.result_path
    check_fewshot_compatible(baseline, candidate)
    sb, sc = fewshot_settings(baseline, metric), fewshot_settings(candidate, metric)
    if list(sb) != list(sc):
        raise IncompatibleRuns(f"different few-shot settings: baseline {b} has {list(sb)}, candidate {c} has {list(sc)}")
    if not sb or next(iter(sb)) != reference:
        raise DataError(f"no {reference!r} rows", str(baseline.per_query_path))
    qids, weights = fewshot_weights(baseline, list(sb[reference].index))
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
    verdict.notes.extend(same_run_notes(baseline, candidate) + baseline.notes + candidate.notes)
    return verdict
