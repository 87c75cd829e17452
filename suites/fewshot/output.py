"""What the few-shot suite shows: the console table and the PNG plots."""
from __future__ import annotations

from pathlib import Path
import sys
from typing import List, Optional

import numpy as np

from bench.tuning.plans import describe
from suites.fewshot.config import schedule_text
from suites.fewshot.metrics import BASIC, CHECKPOINT, FULL, SPLITS, WIN_RULE, ZERO
from bench.core.io import atomic_path
from bench.reporting.tables import grid
from bench.core.progress import count


# --------------------------------------------------------------------------------------------
# console table and plots


def pct(v, sd=None) -> str:
    if v is None:
        return "-"
    return f"{100 * v:.1f}" + (f" ±{100 * sd:.1f}" if sd is not None else "")


def statistics_lines(st: dict) -> List[str]:
    """The console description of the test: statistic, unit, trials, test, sidedness, correction."""
    if "trials" not in st:  # a result written before the headline-level test
        return [f"p = {st['test']} test per test query ({st['sidedness']}), {st['correction']} correction over each "
                f"method's settings; seed {st['seed']}"]
    if st["test"] == "randomization":
        what = "stratified paired randomization (sign-flip) test"
        unit = "test query weighted by 1/(test queries of its class x classes), so the statistic is"
    else:
        what = f"class-level paired {st['test']}"
        unit = "class (its mean R@10), so the mean class difference is"
    return [f"p = {what} of the headline difference (setting - zero-shot R@10, macro over classes), "
            f"{st['sidedness']}; unit: {unit} the headline delta; K-shot trials averaged per test query before "
            f"pairing; {st['correction']} correction over each method's settings per split; seed {st['seed']}"]


TABLE_HEADER = ["setting", "base R@10", "novel R@10", "all R@10", "q-mean(novel)", "win(novel)", "win(all)",
                "q-SD(novel)", "p(novel)"]


def _table_rows(result: dict, zs_label: str) -> list:
    """Rows: zero-shot, then per method basic / each K / full-shot; R@10 (x100, mean ± SD over
    trials) per split, winning ratio, per-query SD and the corrected p-value (novel)."""
    def qm(setting):  # the query-level mean of a setting's novel split (results before it: -)
        return pct((setting.get("query_mean") or {}).get("novel"))

    zs = result["zero_shot"]
    refs = result.get("references") or {}
    rows = [[zs_label, pct(zs["base"]), pct(zs["novel"]), pct(zs["all"]), qm(zs), "-", "-", "-", "-"]]
    if refs.get("basic_learned"):
        ck = refs["checkpoint"]
        rows.append([CHECKPOINT, pct(ck["base"]), pct(ck["novel"]), pct(ck["all"]), qm(ck), "-", "-", "-", "-"])
    comps = ((result.get("statistics") or {}).get("comparisons") or {})
    for m, mo in result["methods"].items():
        def p_of(setting):
            c = comps.get(m, {}).get(setting, {}).get("novel")
            return "-" if not c or c.get("p_corrected") is None else f"{c['p_corrected']:.3g}"

        if BASIC in mo:
            b = mo[BASIC]
            rows.append([f"{m} basic", pct(b["base"]), pct(b["novel"]), pct(b["all"]), qm(b), "-", "-", "-",
                         p_of(BASIC)])
        for k, e in mo["k"].items():
            wr = e["winning_ratio"]
            rows.append([f"{m} K={k}", pct(e["base"]["mean"], e["base"]["sd"]), pct(e["novel"]["mean"], e["novel"]["sd"]),
                         pct(e["all"]["mean"], e["all"]["sd"]), pct(e["novel"].get("query_mean")),
                         pct(wr["novel"]), pct(wr["all"]),
                         pct(e["novel"]["per_query_sd"]), p_of(f"K={k}")])
        if FULL in mo:
            f = mo[FULL]
            rows.append([f"{m} full-shot", pct(f["base"]), pct(f["novel"]), pct(f["all"]), qm(f), "-", "-", "-",
                         p_of(FULL)])
    return rows


def _method_lines(result: dict) -> list:
    """Per K its usable classes (or why it was not run), per method its modules, deviations and
    boosting gradient, then the plan's notes."""
    plan, out = result["plan"], []
    for k in plan["ks"]:
        u = plan["usable_classes"][str(k)]
        out.append(f"K={k}: usable (>= {k} training queries): base {len(u['base'])}/{len(plan['classes']['base'])}"
                   f" [{', '.join(u['base'])}], novel {len(u['novel'])}/{len(plan['classes']['novel'])}"
                   f" [{', '.join(u['novel'])}]; other classes: rule '{plan['short_class_rule']}'")
    for k, why in plan["skipped_k"].items():
        out.append(f"K={k} not run: {why}")
    for m, mo in result["methods"].items():
        arch = describe(m, mo.get("tuning") or {})
        if arch:
            out.append(f"tuning {arch}")
        for d in mo.get("deviations") or []:
            out.append(f"deviation from the paper: {d}")
    for m, mo in result["methods"].items():
        segs = mo["boosting_gradient"]["segments"]
        if segs:
            out.append(f"{m} boosting gradient (novel, R@10 x100 per shot): " +
                       ", ".join(f"{s['from_k']}->{s['to_k']}: {100 * s['per_shot']:+.3f}" for s in segs))
    for n in result.get("notes") or []:
        out.append(f"note: {n}")
    return out


def fewshot_table(result: dict) -> str:
    """The few-shot table (:func:`_table_rows`) under its title, with the notes that read it."""
    refs = result.get("references") or {}
    zs_label = f"{ZERO} ({refs['zero_shot']})" if refs.get("zero_shot") else ZERO
    lines = grid(TABLE_HEADER, _table_rows(result, zs_label))
    d = result["dataset"]
    plan = result["plan"]
    sizes = plan["class_sizes"]
    n_test = sum(v["test"] for v in sizes.values())
    title = (f"{result['model']['name']} on {d['name']} ({d['n_docs']} docs): few-shot (FewDR protocol), seed "
             f"{result['seed']}, {count(len(plan['trial_seeds']), 'trial')}, {len(plan['classes']['base'])} base / "
             f"{len(plan['classes']['novel'])} novel classes, {n_test} test queries")
    out = [title, "", *lines, ""]
    out.append("R@10 x100 = share of test queries with a relevant passage in the top 10, macro-averaged over "
               "classes (our reading of FewDR's \"mean R@10\"); q-mean = the same averaged over the novel test "
               "queries (K-shot: mean over trials); ± = sample SD over trials (n-1) of the macro R@10 (ours); q-SD = "
               "FewDR's SD: per test query over the trials, averaged over the novel test queries; win = winning ratio vs "
               "zero-shot: share of classes that win (" + WIN_RULE + ")")
    for c in (result.get("protocol") or {}).get("our_choices") or []:
        out.append(f"our choice, not FewDR's: {c}")
    if plan.get("excluded_classes"):
        ex = plan["excluded_classes"]
        out.append(f"--min-class-test {plan['min_class_test']}: {len(ex)} classes left out of every score "
                   f"({', '.join(f'{c}: {n} test queries' for c, n in ex.items())})")
    out.append(f"reference of win, p and boosting gradient: {zs_label}")
    st = (result.get("statistics") or {}).get("header") or {}
    if st:
        out.extend(statistics_lines(st))
    out.extend(training_lines(result))
    out.extend(_method_lines(result))
    return "\n".join(out)


def _steps(values) -> str:
    values = list(values)
    return f"{values[0]} per trial" if values and len(set(values)) == 1 else f"{', '.join(map(str, values))} (trials)"


def training_lines(result: dict) -> List[str]:
    """Training budget: basic learning, steps per trial of each K, full-shot; FewDR's schedule beside
    ours; the active deviations from FewDR."""
    out: List[str] = []
    paper = (result.get("protocol") or {}).get("paper_schedule")
    basic = (result.get("references") or {}).get("basic_learned")
    if basic:
        tr = basic["training"]
        out.append(f"basic learning (zero-shot model): {basic['method']} on {basic['n_train_queries']} training "
                   f"queries of {len(basic['classes'])} base classes, {count(basic['train']['steps'], 'step')} "
                   f"({schedule_text(tr['epochs'], tr['batch_size'], tr['lr'])})")
    for m, mo in result["methods"].items():
        parts = [f"K={k} {_steps(e['steps_per_trial'])}" for k, e in mo["k"].items() if "steps_per_trial" in e]
        if FULL in mo and "train" in mo[FULL]:
            parts.append(f"full-shot {mo[FULL]['train']['steps']}")
        if parts:
            tr = mo["training"]
            cap = f", at most {count(tr['max_steps'], 'step')}" if tr.get("max_steps") is not None else ""
            out.append(f"{m} training steps: {'; '.join(parts)} "
                       f"({schedule_text(tr['epochs'], tr['batch_size'], tr['lr'])}{cap})")
    if paper:
        out.append(f"FewDR's schedule: {schedule_text(paper['epochs'], paper['batch_size'], paper['lr'])}, "
                   f"query/passage {paper['max_query_length']}/{paper['max_passage_length']} tokens, for every stage")
    for d in result.get("deviations") or []:
        out.append(f"deviation from FewDR: {d['name']}: ours {d['ours']}; FewDR {d['paper']} ({d['why']})")
    return out


def write_plots(result: dict, out_dir: Path) -> List[str]:
    """R@10 against K with SD bands, and winning ratio per K (PNG, matplotlib Agg, imported here)."""
    try:
        import matplotlib

        matplotlib.use("Agg", force=True)
        import matplotlib.pyplot as plt
    except ImportError:
        return ["matplotlib is not installed: no plots (pip install matplotlib)"]

    ks = [int(k) for k in result["plan"]["ks"]]
    zs = result["zero_shot"]
    colors = {"base": "tab:blue", "novel": "tab:orange", "all": "tab:green"}
    styles = ["-", "--", ":", "-."]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    x_all = [0] + ks
    xpos = list(range(len(x_all)))
    labels = ["0 (zero-shot)"] + [str(k) for k in ks]
    for mi, (m, mo) in enumerate(result["methods"].items()):
        for s in SPLITS:
            means = [zs[s]] + [mo["k"][str(k)][s]["mean"] for k in ks]
            sds = [0.0] + [mo["k"][str(k)][s]["sd"] or 0.0 for k in ks]
            means = np.array([np.nan if v is None else 100 * v for v in means])
            sds = 100 * np.array(sds)
            ax.plot(xpos, means, styles[mi % len(styles)], marker="o", color=colors[s], label=f"{m} {s}")
            ax.fill_between(xpos, means - sds, means + sds, color=colors[s], alpha=0.15)
            if FULL in mo and mo[FULL][s] is not None:
                ax.axhline(100 * mo[FULL][s], color=colors[s], linestyle=styles[mi % len(styles)], alpha=0.4,
                           linewidth=1)
    ax.set_xticks(xpos)
    ax.set_xticklabels(labels)
    ax.set_xlabel("K (training queries per class)")
    ax.set_ylabel("R@10 (x100, macro over classes)")
    ax.set_title(f"{result['model']['name']} on {result['dataset']['name']}: R@10 vs K "
                 f"(bands: ±SD over trials; faint lines: full-shot)", fontsize=9)
    ax.legend(fontsize=7, loc="best")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    with atomic_path(out_dir / "fewshot_r10.png", suffix=".png") as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 4))
    methods = list(result["methods"])
    hatches = ["", "//", "..", "xx", "\\\\", "--", "oo", "++"]
    width = 0.8 / max(1, len(methods) * len(SPLITS))
    for mi, m in enumerate(methods):
        for si, s in enumerate(SPLITS):
            vals = [result["methods"][m]["k"][str(k)]["winning_ratio"][s] for k in ks]
            vals = [np.nan if v is None else 100 * v for v in vals]
            off = (mi * len(SPLITS) + si) * width - 0.4 + width / 2
            bars = ax.bar(np.arange(len(ks)) + off, vals, width, color=colors[s], label=f"{m} {s}",
                          hatch=hatches[mi % len(hatches)], edgecolor="white", linewidth=0.3)
            ax.bar_label(bars, labels=["-" if np.isnan(v) else f"{v:.0f}" for v in vals], fontsize=7, padding=1)
    ax.axhline(50, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xticks(np.arange(len(ks)))
    ax.set_xticklabels([f"K={k}" for k in ks])
    ax.set_ylim(0, 100)
    ax.set_ylabel("winning ratio (% of classes beating zero-shot)")
    ax.set_title("Winning ratio per K (trial-mean class R@10 > zero-shot)", fontsize=9)
    ax.legend(fontsize=7, ncol=max(1, len(methods) // 2))
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    with atomic_path(out_dir / "fewshot_winning_ratio.png", suffix=".png") as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    plt.close(fig)
    return []


def announce(model: str, dataset, cfg) -> None:
    """The status line of a few-shot run (stderr)."""
    print(f"bench: {model} on {dataset.name} ({len(dataset.corpus)} docs, {len(dataset.queries)} queries), "
          f"suite fewshot, methods {', '.join(cfg.methods)}, K {', '.join(map(str, sorted(set(cfg.ks))))}, "
          f"{count(cfg.n_trials, 'trial')}, seed {cfg.seed}", file=sys.stderr)


def render(out: dict, out_dir: Path, wall: Optional[float] = None) -> str:
    """The console report: the headline table (the command prints the total time, and the run
    folder's files once the folder is in place; ``wall`` is not printed)."""
    return fewshot_table(out["result"]) + "\n"  # bench evaluate names the run folder's files once it is in place
