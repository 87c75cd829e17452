"""Which runs can be compared: the gate's comparability rule, in one place (used by the gate,
``bench compare`` and the leaderboard).

* Variation runs (layout ``sets``): same suite, seed, dataset fingerprint, retrieval depth
  (``retrieval.top_k``), and the same sets with
  the same status and, for sets with status ok, the same fingerprints
  (:func:`check_compatible`); the arrays are then paired on the same queries (:func:`paired_arrays`).
* Few-shot runs: same suite, seed, dataset fingerprint and sampling plan
  (:func:`check_fewshot_compatible`).

:func:`comparable_groups` partitions runs into groups of mutually comparable runs (the rule is an
equality of recorded fields, so comparability is transitive) and says why each group differs
from the first one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from bench.core.errors import DataError, IncompatibleRuns
from bench.core.progress import count
from bench.evaluation.strata import macro_weights
from bench.results.rundir import ORIGINAL, Run
from bench.results.suite import suite_of
from bench.reporting.draws import RULE, seeds_of


@dataclass(frozen=True)
class Roles:
    """How the messages name the two runs: the gate's baseline and candidate, or, for ``bench
    compare`` and the leaderboard (which have neither), the first run (of the first group) and the
    second run (the one that does not join it)."""

    first: str
    second: str
    rule: str  # the sentence that states the rule, with {what} for what else must match
    model: str  # what the fix evaluates again


GATE_ROLES = Roles("baseline", "candidate", "a gate compares runs of the same suite, seed, dataset and {what}",
                   "the candidate")
RUN_ROLES = Roles("first run", "second run", "runs are compared only when they share suite, seed, dataset and {what}",
                  "the second run's model")
COMPARE_BASELINE_ROLES = Roles("baseline", "run", RUN_ROLES.rule, "the run's model")  # bench compare --baseline


def frozen_sets_fix(baseline: Run, candidate: Run, roles: Roles = GATE_ROLES) -> str:
    """The command that makes the candidate comparable: evaluate it on the baseline's frozen sets."""
    import shlex

    model = (candidate.result.get("model") or {}).get("name") or "CANDIDATE_MODEL"
    dataset = (candidate.result.get("dataset") or {}).get("name") or "DATASET"
    words = ["bench", "evaluate", "--model", str(model), "--dataset", str(dataset),
             *(["--seed", str(baseline.seed)] if int(baseline.seed) >= 0 else [f"--seed={baseline.seed}"]),
             "--variations", str(baseline.folder / "variations"), "--out", "NEW_FOLDER"]
    return f"evaluate {roles.model} on the {roles.first}'s frozen sets: {shlex.join(words)} (then use the new folder)"


def config_difference(eb: Dict[str, Any], ec: Dict[str, Any]) -> str:
    """What differs between two entries of one set, for a reader: the configuration keys that differ
    (a changed generator or resource), else the label, else the texts themselves."""
    cb, cc = eb.get("config") or {}, ec.get("config") or {}
    keys = [k for k in sorted(set(cb) | set(cc)) if cb.get(k) != cc.get(k)]
    if keys:
        shown = []
        for k in keys[:4]:
            vb = "absent" if k not in cb else repr(cb[k])
            vc = "absent" if k not in cc else repr(cc[k])
            shown.append(f"{k}: {vb[:40]} vs {vc[:40]}")
        more = f" (+{len(keys) - 4} more)" if len(keys) > 4 else ""
        return "configuration differs in " + "; ".join(shown) + more
    if eb.get("label") != ec.get("label"):
        return f"label {eb.get('label')!r} vs {ec.get('label')!r}"
    return "same configuration, different variation texts (another generator version or resource data)"


def depth_of(run: Run) -> Optional[int]:
    """The retrieval depth a run was measured at (``retrieval.top_k``; None when not recorded)."""
    retrieval = run.result.get("retrieval")
    return retrieval.get("top_k") if isinstance(retrieval, dict) else None


def check_compatible(baseline: Run, candidate: Run, metric: str, roles: Roles = GATE_ROLES) -> List[str]:
    """Raise IncompatibleRuns when the runs cannot be compared; return the shared ok sets. Every
    message ends with the fix (``Fix: ...``). ``roles`` names the runs in the messages (the gate's
    baseline and candidate, or :data:`RUN_ROLES` for compare and the leaderboard)."""
    b, c = baseline.result_path, candidate.result_path
    w = roles

    def differ(what: str, vb: Any, vc: Any, fix: str, why: str = "") -> IncompatibleRuns:
        return IncompatibleRuns(f"different {what}: {w.first} {b} has {vb!r}, {w.second} {c} has {vc!r}"
                                + (f" ({why})" if why else "")
                                + "; " + w.rule.format(what="variation sets") + f". Fix: {fix}")

    def frozen() -> str:
        return frozen_sets_fix(baseline, candidate, w)

    if baseline.suite != candidate.suite:
        raise differ("suite", baseline.suite, candidate.suite,
                     "gate two runs of one suite" if w == GATE_ROLES else "compare runs of one suite")
    if baseline.seed != candidate.seed:
        raise differ("seed", baseline.seed, candidate.seed,
                     f"re-run {w.model} with --seed {baseline.seed}, or " + frozen())
    if baseline.dataset_fingerprint != candidate.dataset_fingerprint:
        raise differ("dataset fingerprint", baseline.dataset_fingerprint, candidate.dataset_fingerprint,
                     f"evaluate both models on the same dataset ({w.first}: {baseline.dataset_name!r}, {w.second}: "
                     f"{candidate.dataset_name!r}; the same name with another fingerprint means other content)")
    db, dc = (depth_of(r) for r in (baseline, candidate))
    if db != dc:  # R@100 at depth 10 is recall at 10; uncut measures (AP, nDCG) depend on the depth too
        raise differ("retrieval depth (top_k)", db, dc, f"re-run {w.model} with --top-k {db}",
                     "every measure is computed on the documents retrieved")
    pb, pc = (r.result.get("protocol", "validated") for r in (baseline, candidate))
    if pb != pc:  # the set fingerprints differ too; this names why (--protocol validated vs rodr)
        raise differ("variation protocol (--protocol)", pb, pc,
                     f"re-run {w.model} with --protocol {pb}, or " + frozen())
    gb, gc = seeds_of(baseline.result), seeds_of(candidate.result)
    if gb != gc:  # several draws (--generation-seeds): the set fingerprints differ too; this names why
        raise differ("generation seeds (--generation-seeds)", gb, gc,
                     f"re-run {w.model} with --generation-seeds {','.join(map(str, gb))}", RULE)
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
            raise IncompatibleRuns(f"set {name!r} is absent from {where}: the runs were made with different sets. "
                                   f"Fix: {frozen()}")
        sb, sc = eb.get("status", "ok"), ec.get("status", "ok")
        if sb != sc:
            raise IncompatibleRuns(f"set {name!r} is {sb!r} in {w.first} {b} but {sc!r} in {w.second} {c}"
                                   + (f" (reason: {eb.get('reason') or ec.get('reason')})"
                                      if eb.get("reason") or ec.get("reason") else "")
                                   + ". Fix: install the missing resource (bench doctor) and re-run, or "
                                   + frozen())
        if sb == "ok" and eb.get("fingerprint") != ec.get("fingerprint"):
            raise differ(f"fingerprint of variation set {name!r}", eb.get("fingerprint"), ec.get("fingerprint"),
                         frozen(), config_difference(eb, ec))
    ok = baseline.ok_sets
    if ORIGINAL not in ok:
        raise DataError("no ORIGINAL set with status ok", str(b))
    return [ORIGINAL] + [s for s in ok if s != ORIGINAL]


def paired_arrays(baseline: Run, candidate: Run, sets: Sequence[str], metric: str, roles: Roles = GATE_ROLES
                  ) -> Tuple[Dict[str, np.ndarray], Dict[str, np.ndarray], List[str]]:
    qids = list(baseline.values(ORIGINAL, metric).index)
    bd: Dict[str, np.ndarray] = {}
    cd: Dict[str, np.ndarray] = {}
    notes = []
    for run, out in ((baseline, bd), (candidate, cd)):
        for s in sets:
            ser = run.values(s, metric)
            if set(ser.index) != set(qids):
                raise IncompatibleRuns(f"{run.per_query_path}: set {s!r} is not on the same queries as the "
                                       f"{roles.first}'s ORIGINAL ({len(ser)} vs {len(qids)} queries)")
            out[s] = ser.loc[qids].to_numpy(dtype=np.float64)
    ok = np.ones(len(qids), dtype=bool)
    for d in (bd, cd):
        for v in d.values():
            ok &= np.isfinite(v)
    if not ok.all():
        k = int((~ok).sum())
        notes.append(f"{count(k, 'query')} with a missing (NaN) value {'was' if k == 1 else 'were'} left out of "
                     "every check")
        for d in (bd, cd):
            for s in d:
                d[s] = d[s][ok]
    return bd, cd, notes


def check_fewshot_compatible(baseline: Run, candidate: Run, roles: Roles = GATE_ROLES) -> None:
    """Raise IncompatibleRuns unless two few-shot runs share suite, seed, dataset and plan."""
    b, c = baseline.result_path, candidate.result_path
    for what, vb, vc in (("suite", baseline.suite, candidate.suite), ("seed", baseline.seed, candidate.seed),
                         ("dataset fingerprint", baseline.dataset_fingerprint, candidate.dataset_fingerprint),
                         ("few-shot plan", baseline.result.get("plan"), candidate.result.get("plan"))):
        if vb != vc:
            shown = (vb, vc) if what != "few-shot plan" else ("(plan)", "(another plan)")
            raise IncompatibleRuns(f"different {what}: {roles.first} {b} has {shown[0]!r}, {roles.second} {c} has "
                                   f"{shown[1]!r}; " + roles.rule.format(what="plan"))


@dataclass
class Group:
    """Mutually comparable runs (indices into the list given to :func:`comparable_groups`);
    ``reason`` says why the group's runs are not comparable with the first group's (empty for it)."""

    members: List[int] = field(default_factory=list)
    reason: str = ""


def incompatibility(a: Run, b: Run, metric: Optional[str]) -> Optional[str]:
    """Why runs a and b cannot be compared (the gate's rule, in the words of compare and the
    leaderboard: a is the "first run", b the "second run"), or None when they can. Runs of
    different layouts never compare."""
    la, lb = suite_of(a).layout, suite_of(b).layout
    if la != lb:
        return f"different layouts ({a.suite!r}: {la}, {b.suite!r}: {lb})"
    try:
        if la == "fewshot":
            check_fewshot_compatible(a, b, RUN_ROLES)
        else:
            check_compatible(a, b, metric or (a.measures[0] if a.measures else ""), RUN_ROLES)
    except IncompatibleRuns as exc:
        return str(exc)
    return None


def comparable_groups(runs: Sequence[Run], metric: Optional[str] = None) -> List[Group]:
    """Partition runs (in the given order) into groups of comparable runs: a run joins the first
    group whose first member it can be compared with."""
    groups: List[Group] = []
    for i, r in enumerate(runs):
        for g in groups:
            if incompatibility(runs[g.members[0]], r, metric) is None:
                g.members.append(i)
                break
        else:
            why = incompatibility(runs[groups[0].members[0]], r, metric) if groups else None
            groups.append(Group([i], why or ""))
    return groups


def fewshot_settings(run: Run, metric: str) -> Dict[str, Any]:
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


def fewshot_weights(run: Run, qids: List[str]) -> Tuple[List[str], np.ndarray]:
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
