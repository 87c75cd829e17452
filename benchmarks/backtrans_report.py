"""Figures of BACKTRANS's verifier (docs/methods.md, BACKTRANS): the development rows of
benchmarks/data/validity/BACKTRANS.tsv rescored with the current scorer, the tuning-half curve and chosen threshold, held-back validity, applicability per
style with the reasons queries get no passing candidate, and Penha et al.'s human labels."""
from __future__ import annotations

import collections
import csv
import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.backtrans_common import as_sent, backtranslator, candidates_of, dev_path, load_table, styles  # noqa: E402
from benchmarks.common import SHARED  # noqa: E402


def rescored(gen, table):
    from perturb.resources.words import apply_case_style, case_style
    from perturb.checks.devset import DEVELOPMENT, read_devset

    out, missing = [], []
    for c in read_devset(dev_path(), DEVELOPMENT):
        cands = candidates_of(gen, table, c.original)
        hit = [k for k in cands if apply_case_style(k.text, case_style(c.original)) == c.variation]
        if not hit:
            missing.append(c)
            continue
        out.append(dataclasses.replace(c, score=round(hit[0].score, 4), detail=hit[0].detail))
    return out, missing


def breakdown(gen, table, threshold):
    from perturb.generators.backtrans.score import THRESHOLD

    res = {}
    for style, qs in styles().items():
        why = collections.Counter()
        kinds = collections.Counter()
        for _, text in qs:
            s = as_sent(text)
            trips = [table[p].get(s) for p in table]
            cands = candidates_of(gen, table, text)
            passing = [c for c in cands if c.score >= threshold]
            if passing:
                why["applied"] += 1
                evid = set().union(*(set(c.reasons) for c in passing))
                fw = {"article", "wh", "agreement", "leading_it", "inner_it", "function_word", "function_indel",
                      "preposition", "preposition_argument", "function_form", "article_one", "contraction"}
                kinds["only function-word edits pass" if evid <= fw else
                      "function words and spelling variants only" if evid <= fw | {"spelling"} else
                      "a content-word edit (synonym, form) passes"] += 1
            elif all(t is None for t in trips):
                why["no round trip (unstable in every pivot)"] += 1
            elif not cands:
                why["no pivot changed anything"] += 1
            else:
                why["only refused edits"] += 1
        res[style] = (len(qs), why, kinds)
    return res


def penha(threshold):
    from perturb.generators.backtrans.generator import pivot_leaks, strip_marks
    from perturb.generators.backtrans import score as backtrans_score

    out = {}
    for name in ("trec2019", "antique"):
        tp = fp = fn = tn = noop = 0
        for r in csv.DictReader(open(SHARED / f"penha-variations/variations_{name}_labeled.csv")):
            if r["method"] != "back_translation_pivot_language_de":
                continue
            q, v, valid = r["original_query"], r["variation"], r["valid"] == "True"
            leaks = {w.lower() for w in pivot_leaks(q, v, "deu", False)}
            cands = backtrans_score.candidates(q, {"deu": v}, {"deu": leaks}, original=q)
            whole = [c for c in cands if backtrans_score.apply_edits(q, backtrans_score.edits_of(q, v)) == c.text]
            if not whole:
                noop += 1
                continue
            acc = whole[0].score >= threshold
            tp += acc and valid; fp += acc and not valid; fn += (not acc) and valid; tn += (not acc) and not valid
        out[name] = dict(accepted=tp + fp, precision=f"{tp}/{tp + fp}", recall=f"{tp}/{tp + fn}",
                         invalid_rejected=f"{tn}/{tn + fp}", noop=noop)
    return out


def report():
    from perturb.checks.devset import (DEVELOPMENT, choose, curve, curve_table, held_validity, of_provenance,
                                       read_devset, write_devset)

    gen = backtranslator()
    table = load_table(gen)
    rows, missing = rescored(gen, table)
    print("rows", len(rows), "not regenerated", len(missing))
    for c in missing[:10]:
        print("  MISSING", c.original, "=>", c.variation)
    tune = [c for c in rows if c.split == "tune"]
    chosen = choose(tune, 0.95)  # a margin over the 90% goal
    thr = chosen.threshold if chosen else None
    grid = sorted({round(x, 2) for x in [-3, -2, -1, -0.5, 0, 0.5, 1, 1.5, 2, 3]} | ({thr} if thr is not None else set()))
    print(curve_table(curve(tune, grid), thr))
    print("chosen", chosen)
    if thr is not None:
        print("held", held_validity(rows, thr))
        held = [c for c in rows if c.split == "held"]
        print("held curve\n" + curve_table(curve(held, grid), thr))
    if "--write" in sys.argv:  # the development rows rescored, every other sample as it was
        everything = read_devset(dev_path())
        dev = {id(c) for c in of_provenance(everything, DEVELOPMENT)}
        others = [c for c in everything if id(c) not in dev]
        write_devset(dev_path(), rows + missing + others)
    if "--misfires" in sys.argv:
        for c in sorted(tune, key=lambda c: -c.score):
            if (c.score >= (thr if thr is not None else 0)) != c.valid:
                print(f"  {'FP' if not c.valid else 'FN'} {c.score:5.2f} {c.detail} | {c.reason}")
    t = thr if thr is not None else 0.0
    if "--apply" in sys.argv:
        for style, (n, why, kinds) in breakdown(gen, table, t).items():
            print(f"{style}: {why['applied']}/{n} = {100 * why['applied'] / n:.1f}%", dict(why), dict(kinds))
        print(penha(t))
