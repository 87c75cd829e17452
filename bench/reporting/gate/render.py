"""The gate verdict as GitHub-flavoured Markdown (step summary) and as GitHub Actions workflow
commands (``::error`` / ``::warning``, printed when GITHUB_ACTIONS=true)."""
from __future__ import annotations

import math
from typing import Any, List, Optional

from bench.evaluation import stats as S
from bench.core.progress import count
from bench.core.sheet import md_cell as md_escape


def fmt_p(p: Optional[float]) -> str:
    if p is None or not math.isfinite(p):
        return "n/a"
    return f"{p:.2e}" if p < 1e-3 else f"{p:.4f}"


def fmt(x: Optional[float], spec: str = "+.3f") -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return format(x, spec)


def reasons(v: Any) -> List[str]:
    """One line per regression shown (the checks that make the gate FAIL, then the localisation)."""
    o = v.options
    out = []
    for c in v.regressions:
        if c.kind == "metric":
            what = f"{v.metric} on {c.label} fell by {-c.change:.4f} ({c.baseline:.4f} -> {c.candidate:.4f})"
        else:
            what = f"drop rate of {c.label} rose by {c.change:.4f} ({c.baseline:.4f} -> {c.candidate:.4f})"
        side = "upper" if c.kind == "drop-rate" else "lower"
        out.append(f"{what}: a regression beyond the margin {c.margin:g} is shown "
                   f"(one-sided p_{o.correction} = {fmt_p(c.p_corrected)} < {o.alpha:g}; {side} "
                   f"{100 * (1 - o.alpha):.0f}% bound {c.bound:+.4f}; {c.tier})")
    return out


def inconclusive_reasons(v: Any) -> List[str]:
    deciding = [c for c in v.checks if v.options.family == "all" or c.tier == "primary"]
    out = []
    for c in deciding:
        if not c.noninferior and not c.regressed:
            what = f"{v.metric} on {c.label}" if c.kind == "metric" else f"drop rate of {c.label}"
            out.append(f"{what}: change {c.change:+.4f}, one-sided bound {fmt(c.bound, '+.4f')} is not within the "
                       f"margin {c.margin:g}, and no regression beyond it is shown")
    return out


def header_lines(v: Any) -> List[str]:
    o = v.options
    if o.correction == "maxt":
        test = ("one-sided studentized sign-flip test of each check against its margin "
                f"(m={o.n_resamples}, seed={o.seed}, p=(b+1)/(m+1))")
        corr = "Westfall-Young step-down max-T, one sign flip per query applied jointly to every check"
    else:
        test = (f"one-sided {S.TEST_DESCRIPTIONS[o.test]} of each metric check against its margin; drop-rate "
                "checks: one-sided paired swap randomization test (margin 0) or t-test on delta-method "
                "pseudo-values (margin > 0)")
        corr = S.CORRECTION_DESCRIPTIONS[o.correction]
    fam = ("hierarchy: the primary checks (metric on the reference set and on VARIATIONS (AVG.)) decide; the "
           "secondary checks (each set, every drop rate) localise, tested only when every primary check is "
           "rejected (serial gatekeeping)" if o.family == "hierarchy" else "all: every check decides")
    sizes = ", ".join(f"{k} {f['size']}" + ("" if f.get("tested", True) else " (not tested)")
                      for k, f in v.families.items())
    return [
        f"metric **{v.metric}** ({v.weighting}); change = candidate - baseline; margins: max regression "
        f"{o.max_regression:g} (absolute), max drop-rate increase {o.max_drop_rate:g}",
        f"FAIL test (H1: a regression beyond the margin): {test}",
        f"correction: {corr}; family: {fam} (checks tested: {sizes}; checks whose per-query differences are all "
        f"zero leave the family, and so do drop-rate checks where both runs equal the reference on every "
        f"query); alpha = {o.alpha:g}",
        f"PASS (non-inferiority): every deciding check's one-sided {100 * (1 - o.alpha):.0f}% t bound "
        f"(SD ddof=1, df = n-1) is within its margin; otherwise INCONCLUSIVE (exit "
        f"{1 if o.strict else 0}{', --strict' if o.strict else '; 1 with --strict'})",
    ]


def markdown(v: Any) -> str:
    o = v.options
    lines = [f"### drbench gate: **{v.status}**", ""]
    if v.baseline or v.candidate:
        lines += [f"baseline: `{v.baseline}`  ", f"candidate: `{v.candidate}`", ""]
    lines += [f"- {h}" for h in v.header_lines()]
    lines.append("")
    if v.status == "FAIL":
        lines.append(f"The candidate regressed on {len(v.regressions)} of {count(len(v.checks), 'check')}:")
        lines += [f"- {r}" for r in v.reasons()]
    elif v.status == "PASS":
        lines.append("The candidate holds: non-inferiority is shown on every deciding check "
                     f"({count(len(v.checks), 'check')}).")
    else:
        lines.append("> [!WARNING]")
        lines.append("> **INCONCLUSIVE**: no regression beyond the margins is shown, but neither is non-inferiority. "
                     "This is not evidence that the candidate holds.")
        lines += [f"> - {r}" for r in inconclusive_reasons(v)]
    for w in v.shown_warnings:  # once, and only where they change the reading (not on a FAIL)
        lines += ["", "> [!WARNING]", f"> {w}"]
    lines.append("")
    side = f"{100 * (1 - o.alpha):.0f}% bound"
    lines.append(f"| check | set | tier | n | baseline | candidate | change | margin | {side} | test | p (one-sided) | "
                 f"p ({o.correction}) | W/T/L (cand.) | d_z | MDE (80%) | outcome |")
    lines.append("|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|:---:|")
    for c in v.checks:
        wtl = f"{c.win}/{c.tie}/{c.loss}" if c.win is not None else ""
        outcome = f"**{c.outcome.upper()}**" if c.regressed else c.outcome
        lines.append(
            f"| {c.kind} | {md_escape(c.label)} | {c.tier} | {c.n} | {c.baseline:.4f} | {c.candidate:.4f} | "
            f"{c.change:+.4f} | {c.margin:g} | {fmt(c.bound, '+.4f')} | {c.test or 'left the family'} | "
            f"{fmt_p(c.p_value)} | {fmt_p(c.p_corrected)} | {wtl} | {fmt(c.d_z)} | {fmt(c.mde, '.4f')} | {outcome} |")
    notes = list(v.notes) + [f"{c.kind} {c.label}: {c.note}" for c in v.checks if c.note]
    if notes:
        lines.append("")  # a blank line ends the table (GFM would read the next line as a row)
        lines.append("Notes:")
        lines.append("")
        lines += [f"- {md_escape(n)}" for n in notes]
    return "\n".join(lines) + "\n"


def _command_escape(text: str) -> str:
    return str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def annotations(v: Any) -> List[str]:
    """GitHub Actions workflow commands: ``::error`` per regression, ``::warning`` for an
    INCONCLUSIVE verdict and for low power."""
    title = "title=drbench gate"
    out = [f"::error {title} {v.status}::{_command_escape(r)}" for r in v.reasons()]
    if v.status == "INCONCLUSIVE":
        msg = "INCONCLUSIVE: neither a regression beyond the margins nor non-inferiority is shown"
        details = inconclusive_reasons(v)
        out.append(f"::warning {title} INCONCLUSIVE::{_command_escape(msg + ('; ' + '; '.join(details) if details else ''))}")
    out += [f"::warning {title} power::{_command_escape(w)}" for w in v.shown_warnings]
    return out
