"""The report of a ``"fewshot"`` run (FewDR protocol: zero-shot, then per method basic / each K /
full-shot; splits base, novel, all), read from the result file's own layout
(:mod:`bench.results.schema_fewshot`): headline table with the tests against zero-shot, the run's
plots (embedded), per-class and per-trial detail, the statistics block and the plan.

Values are R@cutoff x100 (as the suite's console table), mean over trials with the sample SD over
trials; delta = setting - zero-shot in points; markers follow the corrected p-values recorded in
``result.json`` (nothing is recomputed here).
"""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

from bench.reporting.report import markup as M
from bench.core.progress import count
from bench.results.rundir import Run, numeric_leaves

SPLITS = ("novel", "all", "base")
ZERO = "zero-shot"


def x100(v: Any, nd: int = 1) -> str:
    return f"{100 * v:.{nd}f}" if M.finite(v) else "n/a"


def settings(result: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Every (method, setting) in protocol order: basic, each K (ascending), full-shot."""
    out = []
    for method, mo in (result.get("methods") or {}).items():
        entries = []
        if isinstance(mo.get("basic"), dict):
            entries.append(("basic", mo["basic"], False))
        for k in sorted(mo.get("k") or {}, key=lambda x: int(x)):
            entries.append((f"K={k}", mo["k"][k], True))
        if isinstance(mo.get("full-shot"), dict):
            entries.append(("full-shot", mo["full-shot"], False))
        for name, e, trials in entries:
            scores = {s: ((e.get(s) or {}).get("mean"), (e.get(s) or {}).get("sd")) if trials else (e.get(s), None)
                      for s in SPLITS}
            out.append({"method": method, "setting": name, "label": f"{method} {name}", "scores": scores,
                        "win": e.get("winning_ratio") or {}, "per_class": e.get("per_class_mean" if trials else
                                                                               "per_class") or {},
                        "trials": e.get("trials") if trials else None})
    return out


def _cmp(result: Dict[str, Any], method: str, setting: str, split: str) -> Dict[str, Any]:
    return (((result.get("statistics") or {}).get("comparisons") or {}).get(method) or {}).get(setting, {}).get(
        split) or {}


HEAD_COLS: List[M.Column] = [("label", "setting", "text")] + [
    c for s in SPLITS for c in ((s, f"{s} R@10 x100 (±SD)", "num"), (f"d_{s}", f"delta {s} (p corrected)", "num"))
] + [("win", "winning ratio novel / all", "num")]


def headline_rows(result: Dict[str, Any]) -> List[M.Row]:
    zs = result.get("zero_shot") or {}
    refs = result.get("references") or {}
    basic = "basic_learned" in refs and refs.get("zero_shot") == "basic-learned"
    rows: List[M.Row] = [{"label": f"{ZERO} (basic-learned)" if basic else ZERO, "cls": "base",
                          **{s: x100(zs.get(s)) for s in SPLITS}}]
    ck = refs.get("checkpoint") if basic else None
    if isinstance(ck, dict):  # FewDR's reference is the basic-learned model; the raw checkpoint beside it
        rows.append({"label": "checkpoint (raw, not a reference)", "cls": "", **{s: x100(ck.get(s)) for s in SPLITS}})
    for st in settings(result):
        r: M.Row = {"label": st["label"], "cls": ""}
        for s in SPLITS:
            mean, sd = st["scores"][s]
            r[s] = x100(mean) + (f" ±{x100(sd)}" if M.finite(sd) else "")
            c = _cmp(result, st["method"], st["setting"], s)
            d = c.get("delta")
            if M.finite(d):
                mark = M.sig_mark(c.get("significant"), d)
                r[f"d_{s}"] = f"{100 * d:+.2f} (p {M.pval(c.get('p_corrected'))})" + (f" {mark}" if mark else "")
                r[f"_d_{s}"] = mark.split()[-1] if mark else ""
        w = st["win"]
        r["win"] = f"{M.pct(w.get('novel'), 0)} / {M.pct(w.get('all'), 0)}" if w else ""
        rows.append(r)
    return rows


def _spread(sd: Any, result: Dict[str, Any], k: Any) -> str:
    """" ± 1.3 (SD over 5 trials)" of the K-shot headline; "" when the SD is undefined (one trial)."""
    if not M.finite(sd):
        return ""
    trials = len(((result.get("plan") or {}).get("trials") or {}).get(str(k)) or [])
    return f" \u00b1 {x100(sd)} (SD over {trials} trials)" if trials else f" \u00b1 {x100(sd)} (SD over trials)"


def summary_lines(result: Dict[str, Any]) -> List[str]:
    h = (result.get("summary") or {}).get("headline") or {}
    out = []
    if h:
        ks = (h.get("k_shot") or {}).get("novel") or {}
        out.append(f"Headline ({h.get('method')} at K={h.get('k')}, novel classes): R@10 {x100(ks.get('mean'))}"
                   f"{_spread(ks.get('sd'), result, h.get('k'))} vs zero-shot {x100((h.get('zero_shot') or {}).get('novel'))} "
                   f"(delta {100 * h['delta_novel']:+.2f} points)" if M.finite(h.get("delta_novel")) else
                   f"Headline: {h.get('method')} at K={h.get('k')}")
    sig = [(st, s) for st in settings(result) for s in SPLITS
           if _cmp(result, st["method"], st["setting"], s).get("significant")]
    hd = (result.get("statistics") or {}).get("header") or {}
    what = f"({hd.get('test')}, {hd.get('correction')} correction, alpha {hd.get('alpha')})"
    if not hd:
        out.append("No tests against zero-shot in this result.")
    elif sig:
        out.append(f"Significantly different from zero-shot {what}: " + "; ".join(
            f"{st['label']} on {s}: {100 * _cmp(result, st['method'], st['setting'], s)['delta']:+.2f} points"
            for st, s in sig) + ".")
    else:
        out.append(f"No setting differs significantly from zero-shot on any split {what}.")
    deltas = [(_cmp(result, st["method"], st["setting"], "novel").get("delta"), st["label"]) for st in settings(result)]
    deltas = [d for d in deltas if M.finite(d[0])]
    out += extremes_sentence(deltas)
    return out


def extremes_sentence(deltas: List[Tuple[float, str]]) -> List[str]:
    """Novel-class deltas against zero-shot, as (delta, setting label): one setting is named with
    its delta; of several, the largest drop is the most negative delta and the largest gain the
    most positive, each named only when there is one (a setting is never called both)."""
    if not deltas:
        return []
    if len(deltas) == 1:
        d, label = deltas[0]
        return [f"Novel classes: {label} {100 * d:+.2f} points against zero-shot."]
    drops = [x for x in deltas if x[0] < 0]
    gains = [x for x in deltas if x[0] > 0]
    parts = []
    if drops:
        lo = min(drops)
        parts.append(f"largest drop {lo[1]} ({100 * lo[0]:+.2f} points)")
    else:
        parts.append("no setting below zero-shot")
    if gains:
        hi = max(gains)
        parts.append(f"largest gain {hi[1]} ({100 * hi[0]:+.2f} points)")
    else:
        parts.append("no setting above zero-shot")
    return [f"Novel classes ({len(deltas)} settings against zero-shot): " + ", ".join(parts) + "."]


RESOLUTION_RULE = ("resolution rule: with n' test queries whose R@10 differs from zero-shot, the exact sign-flip "
                   "test's smallest attainable p is 2/2^n' (two-sided; 1/2^n' one-sided); when it exceeds alpha/m "
                   "(m = the correction family's size, Holm's first step) no difference can be significant, "
                   "whatever its size")


def smallest_p(n_nonzero: int, two_sided: bool = True) -> float:
    """The smallest p-value the exact sign-flip test can return with ``n_nonzero`` non-zero differences."""
    if n_nonzero <= 0:
        return 1.0
    return min(1.0, 2.0 ** (1 - n_nonzero) if two_sided else 2.0 ** (-n_nonzero))


def resolution_warnings(result: Dict[str, Any]) -> List[str]:
    """Comparisons that cannot be significant because too few test queries differ (RESOLUTION_RULE)."""
    h = (result.get("statistics") or {}).get("header") or {}
    if h.get("test") != "randomization":
        return []
    exact_max = int((h.get("randomization") or {}).get("exact_max_n", 20))
    alpha = float(h.get("alpha", 0.05))
    two = str(h.get("sidedness", "two-sided")) == "two-sided"
    out = []
    for st in settings(result):
        for s in SPLITS:
            c = _cmp(result, st["method"], st["setting"], s)
            k = c.get("n_nonzero")
            if not isinstance(k, int) or k > exact_max:
                continue
            m = 1 if h.get("correction") == "none" else int((h.get("family_size") or {}).get(f"{st['method']}/{s}", 1))
            pmin = smallest_p(k, two)
            if pmin > alpha / max(1, m):
                out.append(f"{st['label']} on {s}: {k} of {c.get('n')} test queries differ, smallest p "
                           f"{pmin:.3g} > {alpha:g}/{m}")
    if not out:
        return []
    return ["the test cannot reach significance (" + RESOLUTION_RULE.split(":")[0] + ") for " + "; ".join(out)
            + ". These rows say nothing about whether the setting helps: more test queries (or classes) are needed."]


# per-class R@10 values are hit fractions (hits / (test queries x trials)); two distinct ones differ by at
# least 1 / (product of the denominators), far above this, while two roundings of one fraction differ by ~1e-16
TIE_TOL = 1e-9
TIE_RULE = f"ties (not shaded): equal hit fractions, read from the stored floats as within {TIE_TOL:g}"


def class_table(result: Dict[str, Any]) -> Tuple[List[M.Column], List[M.Row]]:
    """Per class: split, test / training queries, zero-shot and every setting's R@10 x100."""
    plan = result.get("plan") or {}
    split_of = {c: s for s in ("novel", "base") for c in (plan.get("classes") or {}).get(s, [])}
    sizes = plan.get("class_sizes") or {}
    zs = (result.get("zero_shot") or {}).get("per_class") or {}
    sts = settings(result)
    cols: List[M.Column] = [("class", "class", "text"), ("split", "split", "text"), ("test", "test q", "num"),
                            ("train", "train q", "num"), (ZERO, ZERO, "num")]
    cols += [(st["label"], st["label"], "num") for st in sts]
    order = {"novel": 0, "base": 1}
    rows = []
    for c in sorted(zs, key=lambda c: (order.get(split_of.get(c, ""), 2), c)):
        r: M.Row = {"class": c, "split": split_of.get(c, "left out"), "test": str((sizes.get(c) or {}).get("test", "")),
                    "train": str((sizes.get(c) or {}).get("train", "")), ZERO: x100(zs.get(c))}
        for st in sts:
            v = st["per_class"].get(c)
            r[st["label"]] = x100(v)
            if M.finite(v) and M.finite(zs.get(c)) and abs(v - zs[c]) > TIE_TOL:
                r["_" + st["label"]] = "better" if v > zs[c] else "worse"
        rows.append(r)
    return cols, rows


TRIAL_COLS: List[M.Column] = [("label", "setting", "text"), ("trial", "trial", "num"), ("n", "train q", "num"),
                              ("novel", "novel", "num"), ("all", "all", "num"), ("base", "base", "num"),
                              ("win", "winning ratio novel", "num"), ("steps", "steps", "num"),
                              ("loss", "loss first -> last", "num")]


def trial_rows(result: Dict[str, Any]) -> List[M.Row]:
    rows = []
    for st in settings(result):
        for t in st["trials"] or []:
            tr = t.get("train") or {}
            rows.append({"label": st["label"], "trial": str(t.get("trial", "")), "n": str(t.get("n_train_queries", "")),
                         **{s: x100(t.get(s)) for s in SPLITS},
                         "win": M.pct((t.get("winning_ratio") or {}).get("novel"), 0), "steps": str(tr.get("steps", "")),
                         "loss": f"{M.f4(tr.get('first_loss'), 3)} -> {M.f4(tr.get('last_loss'), 3)}"})
    return rows


STAT_COLS: List[M.Column] = [
    ("label", "setting", "text"), ("split", "split", "text"), ("n", "test q", "num"), ("k", "classes", "num"),
    ("zs", "zero-shot", "num"), ("mean", "setting", "num"), ("delta", "delta", "num"), ("dsd", "SD of delta over trials", "num"),
    ("wtl", "W/T/L (queries)", "num"), ("p", "p", "num"), ("p_adj", "p corrected", "num"), ("sig", "significant", "text"),
    ("how", "p from", "wrap")]


def stat_rows(result: Dict[str, Any]) -> List[M.Row]:
    rows = []
    for st in settings(result):
        for s in SPLITS:
            c = _cmp(result, st["method"], st["setting"], s)
            if not c:
                continue
            mark = M.sig_mark(c.get("significant"), c.get("delta"))
            rows.append({"label": st["label"], "split": s, "n": str(c.get("n", "")), "k": str(c.get("n_classes", "")),
                         "zs": x100(c.get("mean_zero_shot"), 2), "mean": x100(c.get("mean_k_shot"), 2),
                         "delta": f"{100 * c['delta']:+.2f}" if M.finite(c.get("delta")) else "n/a",
                         "dsd": x100(c.get("delta_sd_trials"), 2), "wtl": f"{c.get('win')}/{c.get('tie')}/{c.get('loss')}",
                         "p": M.pval(c.get("p_value")), "p_adj": M.pval(c.get("p_corrected")),
                         "sig": f"yes {mark}" if c.get("significant") else "no",
                         "how": str(c.get("method", "")) + (f"; {c['note']}" if c.get("note") else ""),
                         "cls": mark.split()[-1] if mark else ""})
    return rows


def method_lines(result: Dict[str, Any]) -> List[str]:
    h = (result.get("statistics") or {}).get("header") or {}
    out = [f"{k}: {h[k]}" for k in ("test_description", "statistic", "unit", "trials", "means", "win_tie_loss")
           if h.get(k)]
    if h:
        out.append(f"correction: {h.get('correction')} ({h.get('correction_description', '')}); family: "
                   f"{h.get('family', '')}; alpha = {h.get('alpha')}; sidedness: {h.get('sidedness')}; "
                   f"seed = {h.get('seed')}")
    if h.get("test") == "randomization":
        out.append(RESOLUTION_RULE)
    if result.get("measure_definition"):
        out.append(f"measure: {result['measure_definition']}")
    return out


def plan_lines(run: Run) -> List[str]:
    r = run.result
    plan = r.get("plan") or {}
    cls = plan.get("classes") or {}
    out = [f"classes: {len(cls.get('base', []))} base, {len(cls.get('novel', []))} novel "
           f"({cls.get('source', '')}); test ratio {plan.get('test_ratio')}; K = {plan.get('ks')}; "
           f"{count(len(plan.get('trial_seeds') or []), 'trial')} per K"]
    if plan.get("short_class_rule_description"):
        out.append(f"short classes: {plan['short_class_rule_description']}")
    for k, u in (plan.get("usable_classes") or {}).items():
        if str(k) in {str(x) for x in plan.get("ks") or []}:
            out.append(f"K={k}: usable classes (>= {k} training queries): base {len(u.get('base', []))}, "
                       f"novel {len(u.get('novel', []))}")
    out += [f"K={k} not run: {why}" for k, why in (plan.get("skipped_k") or {}).items()]
    out += [f"plan: {n}" for n in plan.get("notes") or []]
    out += [f"dataset: {n}" for n in r.get("dataset_notes") or []]
    out += [f"note: {n}" for n in (r.get("notes") or []) + run.notes]
    if run.per_query is not None:
        out.append(f"per-query table: {run.per_query_path.name}, {len(run.per_query)} rows, "
                   f"{count(run.per_query['set'].nunique(), 'set')}")
    elif not run.per_query_path.is_file():
        out.append(f"per-query table: {run.per_query_path.name} not found in the run folder")
    return out


def run_plots(run: Run) -> List[Any]:
    """(name, base64 PNG or None, note) for every plot the result lists."""
    out = []
    for name in run.result.get("plots") or []:
        p = run.folder / str(name)
        b64 = M.png_file_b64(p) if p.is_file() else None
        out.append((str(name), b64, "" if b64 else f"plot {name} listed in result.json is not a PNG in {run.folder}"))
    return out


def _old_result(run: Run, fmt: str) -> str:
    """A few-shot result without ``methods`` (written before the layout was fixed): its summary, flat."""
    rows = [{"k": k, "v": M.f4(v)} for k, v in sorted(numeric_leaves(run.result.get("summary") or {}).items())]
    cols: List[M.Column] = [("k", "key", "text"), ("v", "value", "num")]
    note = "this few-shot result has no methods block (an older layout): its summary values only"
    if fmt == "md":
        return "\n".join([f"## drbench report: {run.display}", "", f"note: {note}", ""] + M.md_table(cols, rows)) + "\n"
    return M.page(f"drbench report: {run.display}", [f"<p class=\"note\">note: {M.esc(note)}</p>",
                                                     M.html_table(cols, rows)])


def render_fewshot(run: Run, fmt: str = "html", plots: bool = True) -> str:
    r = run.result
    if not isinstance(r.get("methods"), dict):
        return _old_result(run, fmt)
    meta = (f"suite {run.suite}, seed {run.seed}, dataset {run.dataset_name} (fingerprint {run.dataset_fingerprint[:12]}),"
            f" model {run.model_name} (fingerprint {run.model_fingerprint[:12]}), drbench {r.get('drbench_version', '?')}")
    legend = ("R@10 x100, macro over classes; K-shot: mean ± sample SD over trials; delta = setting - zero-shot in "
              f"points; {M.SIG_WORSE} worse / {M.SIG_BETTER} better = significant after correction; winning ratio = "
              "share of classes whose K-shot R@10 is strictly above zero-shot's, as recorded in result.json (ties: "
              "equal hit fractions)")
    ccols, crows = class_table(r)
    per_class = ("R@10 x100 per class (K-shot: mean over trials); shaded: above (green) or below (red) zero-shot; "
                 + TIE_RULE)
    title = f"drbench report: {run.model_name} on {run.dataset_name} (few-shot)"
    if fmt == "md":
        L = [f"## {title}", "", meta, "", "### Headline", ""] + summary_lines(r) + [""]
        L += [f"> **small-n warning:** {M.md_cell(w)}\n" for w in resolution_warnings(r)]
        L += M.md_table(HEAD_COLS, headline_rows(r)) + ["", legend, "", "### Per class", "", per_class, ""]
        L += M.md_table(ccols, crows) + ["", "### Trials", ""] + M.md_table(TRIAL_COLS, trial_rows(r))
        L += ["", "### Statistics", ""] + M.md_table(STAT_COLS, stat_rows(r)) + [""]
        L += [f"- {M.md_cell(x)}" for x in method_lines(r)] + ["", "### Plan and notes", ""]
        L += [f"- {M.md_cell(x)}" for x in plan_lines(run)]
        return "\n".join(L).rstrip() + "\n"
    e = M.esc
    body = [f"<p class=\"meta\">{e(meta)}</p>", "<h2>Headline</h2>"]
    body += [f"<p class=\"headline\">{e(x)}</p>" for x in summary_lines(r)]
    body += [f"<div class=\"warn\"><b>small-n warning:</b> {e(w)}</div>" for w in resolution_warnings(r)]
    body.append(M.html_table(HEAD_COLS, headline_rows(r), row_class=lambda x: x.get("cls", ""),
                             cell_class=lambda x, k: x.get("_" + k, "")))
    body.append(f"<p class=\"legend\">{e(legend)}</p>")
    if plots:
        body.append("<h2>Plots</h2>")
        for name, b64, note in run_plots(run):
            body.append(M.img(b64, name) if b64 else f"<p class=\"note\">{e(note)}</p>")
    body += ["<h2>Per class</h2>", f"<p class=\"legend\">{e(per_class)}</p>",
             M.html_table(ccols, crows, cell_class=lambda x, k: x.get("_" + k, "")),
             "<h2>Trials</h2>", M.html_table(TRIAL_COLS, trial_rows(r)),
             "<h2>Statistics</h2>", M.html_table(STAT_COLS, stat_rows(r), row_class=lambda x: x.get("cls", "")),
             "<ul class=\"method\">" + "".join(f"<li>{e(x)}</li>" for x in method_lines(r)) + "</ul>",
             "<h2>Plan and notes</h2><ul class=\"method\">" + "".join(f"<li>{e(x)}</li>" for x in plan_lines(run))
             + "</ul>"]
    return M.page(title, body)

