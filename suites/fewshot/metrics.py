"""FewDR's measures and the few-shot statistics, as pure functions: R@k hits, per-class and macro
averages, SDs over trials, winning ratio, boosting gradient, and the significance test at the
level of the headline (macro-averaged R@10 difference)."""
from __future__ import annotations

from fractions import Fraction
from numbers import Real
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from suites.fewshot.sampler import FewShotPlan
from suites.fewshot.config import FewShotConfig, negatives_text, run_choices, similarity_text
from bench.evaluation import exact
from bench.evaluation.strata import macro_weights
from bench.evaluation.stats import CORRECTION_DESCRIPTIONS, TEST_DESCRIPTIONS, adjust_pvalues, paired_test, weighted_sign_flip_test, win_tie_loss


MEASURE = "R@10"
SPLITS = ("base", "novel", "all")
ZERO = "zero-shot"
FULL = "full-shot"
BASIC = "basic"  # results written before basic learning was shared: a method's own basic learning
CHECKPOINT = "checkpoint"  # the raw checkpoint, a second reference when basic learning ran
MEASURE_DEFINITION = ("FewDR R@{k}: per test query 1 if at least one relevant passage (grade > 0) is among the top {k} "
                      "retrieved from the whole corpus, else 0; per class the mean over its test queries; per split "
                      "the unweighted mean over its classes (macro average; our reading of the paper's \"mean "
                      "R@10\"); query_mean beside it: the mean over the split's test queries")
#: definitions that are our choices, not the paper's (recorded in protocol, printed under the table)
OUR_CHOICES = ("R@10 of a split is macro-averaged over its classes: our reading of FewDR's \"mean and SD of R@10\"; "
               "the query-level mean (query_mean) is reported beside it",
               "boosting gradient: the slope per shot between consecutive K, zero-shot counted as K = 0",
               "significance: paired tests against zero-shot with a multiple-testing correction (Holm by default) "
               "over each method's settings; FewDR reports uncorrected comparisons",
               "the ± of the headline is ours: the SD over trials of the split's macro R@10; FewDR's SD is per test "
               "sample across the trials (per_query_sd, column q-SD: each test query's SD over the trials, "
               "averaged over the split)")
PROTOCOL_NOTES = {
    "boosting_gradient": "ours: novel R@10 against K (zero-shot = K 0); per_shot = delta R@10 / delta K",
    "aggregation": "R@10 per split: macro average over classes (our reading); query_mean: mean over test queries",
    "our_choices": list(OUR_CHOICES),  # a run adds its similarity and where its negatives come from
    "embedding_cache": "few-shot and full-shot encoders are never written to the shared embedding cache "
                       "(in-memory only); the basic-learned model is a saved checkpoint folder and caches "
                       "under its own weights fingerprint",
}


# --------------------------------------------------------------------------------------------
# aggregation (pure functions)


def sample_sd(values: Sequence[float]) -> Optional[float]:
    """Sample standard deviation (n - 1 denominator); None for fewer than two values."""
    v = np.asarray(list(values), dtype=np.float64)
    return exact.sd(v) if v.size >= 2 else None


def hits_at(run: Mapping[str, Sequence[Tuple[str, float]]], qrels: Mapping[str, Mapping[str, int]],
            qids: Sequence[str], k: int) -> Dict[str, float]:
    """FewDR R@k per query: 1.0 when a relevant passage is in the top k, else 0.0."""
    out = {}
    for q in qids:
        rel = {d for d, g in qrels.get(q, {}).items() if g > 0}
        out[q] = 1.0 if any(d in rel for d, _ in list(run.get(q, []))[:k]) else 0.0
    return out


def class_fractions(hits: Mapping[str, float], test_by_class: Mapping[str, Sequence[str]]) -> Dict[str, Fraction]:
    """Per class the exact mean of its test queries' hits (0/1: hit count / test queries), as a Fraction."""
    return {c: sum((Fraction(hits[q]) for q in qs), Fraction(0)) / len(qs)
            for c, qs in sorted(test_by_class.items()) if qs}


def class_scores(hits: Mapping[str, float], test_by_class: Mapping[str, Sequence[str]]) -> Dict[str, float]:
    """Per class the mean of its test queries' hits, the correctly rounded float of :func:`class_fractions`."""
    return {c: float(v) for c, v in class_fractions(hits, test_by_class).items()}


def macro(per_class: Mapping[str, float], classes: Sequence[str]) -> Optional[float]:
    vals = [per_class[c] for c in classes if c in per_class]
    return exact.mean(vals) if vals else None


WIN_RULE = ("win = the class's K-shot R@10 (mean over trials) is strictly greater than zero-shot's; "
            "ties: equal hit fractions, compared exactly (as fractions of hit counts, not as rounded floats)")


def winning_ratio(k_shot: Mapping[str, Real], zero_shot: Mapping[str, Real], classes: Sequence[str]) -> Optional[float]:
    """Share of ``classes`` whose K-shot score is strictly greater than zero-shot (:data:`WIN_RULE`).
    Pass exact scores (:func:`class_fractions`, means of them): floats are compared as they are, so
    two roundings of one hit fraction would count as a win."""
    cs = [c for c in classes if c in k_shot and c in zero_shot]
    return sum(Fraction(k_shot[c]) > Fraction(zero_shot[c]) for c in cs) / len(cs) if cs else None


def boosting_gradient(points: Sequence[Tuple[int, float]]) -> List[dict]:
    """Slopes between consecutive (K, R@10) points, in R@10 per shot."""
    pts = sorted((int(k), float(v)) for k, v in points if v is not None)
    return [{"from_k": a[0], "to_k": b[0], "delta": b[1] - a[1], "per_shot": (b[1] - a[1]) / (b[0] - a[0])}
            for a, b in zip(pts, pts[1:]) if b[0] != a[0]]


def split_classes(plan: FewShotPlan) -> Dict[str, List[str]]:
    return {"base": list(plan.classes.base), "novel": list(plan.classes.novel),
            "all": sorted(list(plan.classes.base) + list(plan.classes.novel))}


def split_qids(plan: FewShotPlan) -> Dict[str, List[str]]:
    sc = split_classes(plan)
    return {s: plan.queries.test_ids(sorted(sc[s])) for s in SPLITS}


def query_mean(hits: Mapping[str, float], qids: Sequence[str]) -> Optional[float]:
    """The mean of the hits over ``qids`` (every test query counts once, whatever its class)."""
    return exact.mean([hits[q] for q in qids]) if qids else None


def summarise_setting(hits: Mapping[str, float], plan: FewShotPlan) -> dict:
    per_class = class_scores(hits, plan.queries.test)
    out = {s: macro(per_class, cs) for s, cs in split_classes(plan).items()}
    out["per_class"] = per_class
    out["query_mean"] = {s: query_mean(hits, qs) for s, qs in split_qids(plan).items()}
    return out


def summarise_trials(trial_hits: Sequence[Mapping[str, float]], zero: Mapping[str, float], plan: FewShotPlan) -> dict:
    """Mean / SD over trials, per-query SD, winning ratios (mean over trials and per trial)."""
    sc = split_classes(plan)
    sq = split_qids(plan)
    per_trial = [summarise_setting(h, plan) for h in trial_hits]
    trial_class = [class_fractions(h, plan.queries.test) for h in trial_hits]
    zero_class = class_fractions(zero, plan.queries.test)
    mean_class = {c: sum((t[c] for t in trial_class), Fraction(0)) / len(trial_class) for c in zero_class}
    out: dict = {"per_class_mean": {c: float(v) for c, v in mean_class.items()}}
    for s in SPLITS:
        vals = [t[s] for t in per_trial if t[s] is not None]
        q_sd = [sample_sd([h[q] for h in trial_hits]) for q in sq[s]]
        q_sd = [v for v in q_sd if v is not None]
        qm = [query_mean(h, sq[s]) for h in trial_hits]
        out[s] = {"mean": exact.mean(vals) if vals else None, "sd": sample_sd(vals), "trials": vals,
                  "per_query_sd": exact.mean(q_sd) if q_sd else None,
                  "query_mean": exact.mean(qm) if sq[s] else None}
    out["winning_ratio"] = {s: winning_ratio(mean_class, zero_class, sc[s]) for s in SPLITS}
    out["winning_ratio_per_trial"] = {s: [winning_ratio(t, zero_class, sc[s]) for t in trial_class]
                                      for s in SPLITS}
    return out


def vs_reference(trial_hits: Sequence[Mapping[str, float]], reference: Mapping[str, float], plan: FewShotPlan) -> dict:
    """K-shot trials against a second reference (the raw checkpoint when basic learning ran):
    ``delta`` = trial-mean macro R@10 - the reference's, ``winning_ratio`` as in
    :func:`summarise_trials` with that reference."""
    s = summarise_trials(trial_hits, reference, plan)
    ref = summarise_setting(reference, plan)
    return {"delta": {sp: None if s[sp]["mean"] is None or ref[sp] is None else s[sp]["mean"] - ref[sp]
                      for sp in SPLITS},
            "winning_ratio": s["winning_ratio"]}


# --------------------------------------------------------------------------------------------
# significance at the level of the headline (pure functions)


def headline_comparison(zero: Mapping[str, float], trial_hits: Sequence[Mapping[str, float]],
                        test_by_class: Mapping[str, Sequence[str]], classes: Sequence[str], *,
                        test: str = "randomization", seed: int = 0, n_resamples: int = 10000,
                        key: Sequence[str] = ()) -> dict:
    """One setting (its trials' per-query hits; one element for full-shot) against the
    zero-shot reference on one split, tested at the level of the headline.

    Means are computed exactly as the headline: ``mean_zero_shot`` = macro R@10 of zero-shot,
    ``mean_k_shot`` = mean over trials of each trial's macro R@10; ``delta`` = their difference.
    Trials are combined per query first (the query's hit averaged over trials; by linearity the
    macro average of those equals the trial-mean headline). Test ``randomization``: the stratified
    sign-flip test of :func:`bench.evaluation.stats.weighted_sign_flip_test` on the per-query differences with macro
    weights (statistic = ``delta``); ``t-test`` / ``wilcoxon``: :func:`bench.evaluation.stats.paired_test`
    on the per-class means (unit = class; mean of the class differences = ``delta``).
    Also per trial: ``delta_trials`` (trial macro R@10 - zero-shot) and their SD (n-1)."""
    qids, w = macro_weights(test_by_class, classes)
    cs = [c for c in classes if test_by_class.get(c)]
    out: dict = {"n": len(qids), "n_classes": len(cs)}
    if not qids or not trial_hits:
        out.update(mean_zero_shot=None, mean_k_shot=None, delta=None, delta_trials=[], delta_sd_trials=None,
                   statistic=None, p_value=float("nan"), method="", note="no test queries in this split",
                   n_nonzero=0, win=0, tie=0, loss=0)
        return out
    zero_macro = macro(class_scores(zero, test_by_class), cs)
    trial_macros = [macro(class_scores(h, test_by_class), cs) for h in trial_hits]
    mean_k = exact.mean(trial_macros)
    a = np.array([zero[q] for q in qids], dtype=np.float64)
    b = np.array([exact.mean([h[q] for h in trial_hits]) for q in qids], dtype=np.float64)
    d = b - a
    if test == "randomization":
        res = weighted_sign_flip_test(d, w, n_resamples=n_resamples, seed=seed, key=key)
        unit = "query (weighted)"
    else:
        za = np.array([exact.mean([zero[q] for q in test_by_class[c]]) for c in cs])
        kb = np.array([exact.mean([exact.mean([h[q] for q in test_by_class[c]]) for h in trial_hits]) for c in cs])
        res = paired_test(za, kb, test, seed=seed, n_resamples=n_resamples, key=key)
        unit = "class"
    wn, t, l = win_tie_loss(a, b)
    deltas = [float(v - zero_macro) for v in trial_macros]
    out.update(unit=unit, mean_zero_shot=zero_macro, mean_k_shot=mean_k, delta=mean_k - zero_macro,
               n_trials=len(trial_hits), delta_trials=deltas, delta_sd_trials=sample_sd(deltas),
               statistic=res.statistic, p_value=res.pvalue, method=res.method, note=res.note,
               n_nonzero=int(np.sum(w * d != 0.0)), win=wn, tie=t, loss=l)
    return out


STAT_UNIT = {
    "randomization": "test query, weighted by 1/(test queries of its class x classes in the split), so that the "
                     "weighted mean difference is the macro-averaged headline difference",
    "t-test": "class (its test queries' mean R@10; n = classes in the split), so that the mean class difference "
              "is the macro-averaged headline difference",
    "wilcoxon": "class (its test queries' mean R@10; n = classes in the split), so that the mean class difference "
                "is the macro-averaged headline difference",
}
STAT_TRIALS = ("K-shot: each test query's R@10 is averaged over the K's trials before pairing (by linearity the "
               "macro average of those equals the headline, the mean over trials of each trial's macro R@10), so "
               "trial-to-trial variation enters each per-query difference; the test conditions on the drawn trials. "
               "Per trial: delta_trials (that trial's macro R@10 - zero-shot) and delta_sd_trials (sample SD, n-1). "
               "Trials are not used as the test's replicates: with 5 trials a sign-flip test over trials cannot "
               "reach p < 2/2^5 = 0.0625, and it would ignore the sampling of test queries. full-shot: one run")


def statistics_block(hits, plan: FewShotPlan, cfg: FewShotConfig) -> dict:
    """Per method, setting and split: the setting vs zero-shot (``hits[ZERO]``: the basic-learned
    model when basic learning ran, else the checkpoint), tested at the level of the headline
    (:func:`headline_comparison`: statistic = macro-averaged R@10 difference, trials averaged per
    query first); correction over one method x split's settings."""
    sc = split_classes(plan)
    zero = hits[ZERO]
    comps: Dict[str, Dict[str, Dict[str, dict]]] = {}
    sizes = {}
    for method in cfg.methods:
        settings: Dict[str, List[str]] = {}
        for k in plan.ks:
            settings[f"K={k}"] = [f"{method}/K={k}/trial={t.index}" for t in plan.trials[k]]
        if cfg.full_shot:
            settings[FULL] = [f"{method}/{FULL}"]
        comps[method] = {s: {} for s in settings}
        for split in SPLITS:
            raw = []
            for s, names in settings.items():
                c = headline_comparison(zero, [hits[n] for n in names], plan.queries.test, sc[split], test=cfg.test,
                                        seed=cfg.seed, n_resamples=cfg.n_resamples, key=(method, s, split))
                comps[method][s][split] = c
                raw.append((s, c["p_value"]))
            adj = adjust_pvalues([p for _, p in raw], cfg.correction)
            sizes[f"{method}/{split}"] = int(np.sum(np.isfinite([p for _, p in raw])))
            for (s, _), p in zip(raw, adj):
                c = comps[method][s][split]
                c["p_corrected"] = float(p)
                c["significant"] = bool(np.isfinite(p) and p < cfg.alpha)
    if cfg.test == "randomization":
        from bench.evaluation.stats import EXACT_MAX_N

        test_description = (
            "stratified paired randomization (sign-flip) test of the headline difference: each test query's "
            "(setting, zero-shot) pair is swapped with probability 1/2 (a query stays in its class), statistic T = "
            "sum_q w_q d_q = macro average over classes of the per-class mean difference; exact enumeration of "
            f"2^n' sign vectors over the n' queries with a non-zero difference when n' <= {EXACT_MAX_N}, otherwise "
            "seeded Monte Carlo with p = (b+1)/(m+1), b = #{|T*| >= |T|}")
        statistic = "T = delta (the macro-averaged R@10 difference, setting - zero-shot)"
    else:
        test_description = "class-level " + TEST_DESCRIPTIONS[cfg.test] + " (pairs: per-class mean R@10)"
        statistic = ("t on the per-class differences (mean = delta)" if cfg.test == "t-test"
                     else "W on the per-class differences (their mean = delta)")
    header = {
        "test": cfg.test,
        "test_description": test_description,
        "statistic": statistic,
        "sidedness": "two-sided",
        "correction": cfg.correction,
        "correction_description": CORRECTION_DESCRIPTIONS[cfg.correction],
        "family": "per method and split: that method's settings (each K, full-shot) vs zero-shot",
        "family_size": sizes,
        "alpha": cfg.alpha,
        "seed": cfg.seed,
        "unit": STAT_UNIT[cfg.test],
        "trials": STAT_TRIALS,
        "means": "mean_zero_shot / mean_k_shot are the headline values: R@10 macro-averaged over the split's classes "
                 "(K-shot: mean over trials of each trial's macro R@10); delta = mean_k_shot - mean_zero_shot",
        "difference": "d_q = the setting's R@10 for test query q (averaged over trials) - zero-shot R@10",
        "win_tie_loss": "per test query, unweighted counts: win = setting > zero-shot, tie = equal, "
                        "loss = setting < zero-shot",
    }
    if cfg.test == "randomization":
        header["randomization"] = {"exact_max_n": EXACT_MAX_N, "n_resamples": cfg.n_resamples,
                                   "exact_over": "queries with a non-zero weighted difference (n_nonzero)",
                                   "p_value": "exact: b/2^n'; monte carlo: (b+1)/(m+1)"}
    return {"header": header, "comparisons": comps}


def recorded_choices(similarity: str, train) -> dict:
    """protocol.sd / per_query_sd / similarity / negatives / our_choices of a run's result.json."""
    return {"our_choices": list(OUR_CHOICES) + run_choices(similarity, train),
            "sd": "ours: sample standard deviation over trials (n-1 denominator) of the split's macro R@10",
            "per_query_sd": "FewDR's SD (\"for each test sample across five trials\"): per test query, SD (n-1) of "
                            "its R@10 over trials; averaged over the split's test queries",
            "similarity": similarity_text(similarity, train), "negatives": negatives_text(train)}
