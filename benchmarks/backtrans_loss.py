"""Where BACKTRANS's applicability is lost (docs/methods.md, BACKTRANS): for every query of
the dev collections that the generator leaves unchanged, whether

(a) the resource gives nothing: every pivot's round trip equals the query after the scorer's
    normalisation (case-folded tokens; no candidate at all), or no pivot returned a round trip;
(b) candidates exist but all score below the threshold, counted by the evidence that sinks the best
    candidate (the most negative evidence of its weakest edit), and by how far below it is;
(c) other (should be empty: e.g. a passing candidate that ``settle`` still calls unchanged).

Reads the cached round trips of ``benchmarks/backtrans_dev.py trips`` ($DRBENCH_BT_TRIPS).

    python benchmarks/backtrans_loss.py                 # the table per style
    python benchmarks/backtrans_loss.py --list N SEED   # N refused best candidates per style, no scores
"""
from __future__ import annotations

import collections
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.backtrans_common import as_sent, backtranslator, load_table, styles  # noqa: E402


def _recording():
    """Wrap ``backtrans_score.score_edit`` so each scored edit's (score, evidence) is kept."""
    from perturb.generators.backtrans import score as bs

    seen = {}
    orig = bs.score_edit

    def rec(old, edit, leaks, n, ctx=bs.Context()):
        res = orig(old, edit, leaks, n, ctx)
        seen[edit] = res
        return res
    return seen, orig, rec


def classify(gen, table, text):
    """('applied'|'a'|'b'|'c', detail): detail is (sinking evidence, best score, best candidate)."""
    from perturb.generators.backtrans import score as bs
    from perturb.base import Perturbation, settle
    from perturb.resources.words import apply_case_style, case_style

    s = as_sent(text)
    trips = {p: (tuple(table[p][s]) if table[p].get(s) else None) for p in table}
    seen, orig, rec = _recording()
    bs.score_edit = rec
    try:
        cands = gen.verified_candidates(text, s, trips)
    finally:
        bs.score_edit = orig
    passing = [c for c in cands if bs.WEAKEST_EDIT.passes(c.score)]
    if passing:
        ok = [c for c in passing if settle(text, Perturbation(apply_case_style(c.text, case_style(text)), True, "")).applied]
        return ("applied", None) if ok else ("c", ("passing but settled unchanged", None, passing[0]))
    if all(t is None for t in trips.values()):
        return "a", ("no round trip from any pivot", None, None)
    if not cands:
        return "a", ("every round trip equals the query", None, None)
    best = max(cands, key=lambda c: (c.score, c.text))
    weakest = min(best.word_edits, key=lambda e: seen[e][0])
    why = seen[weakest][1]
    sink = min((w for w in why if bs.WEIGHTS[w] < 0), key=lambda w: (bs.WEIGHTS[w], w), default="(none negative)")
    return "b", (sink, best.score, best)


BAND = ((-1.0, "[-1, 0)"), (-2.0, "[-2, -1)"), (-3.0, "[-3, -2)"), (-99, "< -3"))


def band(score):
    return next(name for lo, name in BAND if score >= lo)


def table_of():
    gen = backtranslator()
    table = load_table(gen)
    out = {}
    for style, qs in styles().items():
        kinds, sinks, bands = collections.Counter(), collections.Counter(), collections.Counter()
        for _, text in qs:
            k, d = classify(gen, table, text)
            kinds[k] += 1
            if k == "a":
                kinds["a: " + d[0]] += 1
            if k == "b":
                sinks[d[0]] += 1
                bands[band(d[1])] += 1
        out[style] = (len(qs), kinds, sinks, bands)
    return out


def main():
    if "--list" in sys.argv:
        i = sys.argv.index("--list")
        n, seed = int(sys.argv[i + 1]), int(sys.argv[i + 2])
        listing(n, seed)
        return
    res = table_of()
    allsinks = collections.Counter()
    for n, kinds, sinks, bands in res.values():
        allsinks.update(sinks)
    order = [w for w, _ in allsinks.most_common()]
    print("| style | queries | changed | unchanged | (a) nothing from the resource | (b) only refused candidates | (c) other | (b) best score in [-1,0) / [-2,-1) / [-3,-2) / < -3 |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for style, (n, kinds, sinks, bands) in res.items():
        un = n - kinds["applied"]
        print(f"| {style} | {n} | {kinds['applied']} ({100 * kinds['applied'] / n:.1f}%) | {un} | {kinds['a']} | {kinds['b']} | {kinds['c']} | "
              + " / ".join(str(bands[b]) for _, b in BAND) + " |")
    print()
    print("| (b) sinking evidence of the best candidate | " + " | ".join(res) + " |")
    print("|---|" + "---:|" * len(res))
    for w in order:
        print(f"| `{w}` | " + " | ".join(str(res[s][2][w]) for s in res) + " |")
    print()
    for style, (n, kinds, sinks, bands) in res.items():
        print(style, {k: v for k, v in kinds.items() if k.startswith("a:")})


def listing(n, seed):
    """``n`` unchanged queries of kind (b) per style, their best refused candidate, without scores
    (for labelling by reading before the scores are looked at)."""
    from perturb.resources.words import apply_case_style, case_style

    gen = backtranslator()
    table = load_table(gen)
    rng = random.Random(seed)
    for style, qs in styles().items():
        if style == "keyword-title":
            continue  # the caps-title rows are the same titles
        rows = []
        for qid, text in qs:
            k, d = classify(gen, table, text)
            if k == "b":
                rows.append((qid, text, apply_case_style(d[2].text, case_style(text))))
        for qid, text, var in rng.sample(rows, min(n, len(rows))):
            print(f"{style}\t{qid}\t{text}\t{var}")


if __name__ == "__main__":
    main()
