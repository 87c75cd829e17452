"""Round 6 of the synonym swaps (issue 22): a verifier fitted on every labelled row, then labels
where the decision is made (the candidates a pick could choose), a threshold chosen on a tuning
half, measured once on the held half.

    python -m perturb.tuning fit SWAPSYN-WNET|SWAPSYN-GLOVE       # per-source logistic -> perturb/generators/swapsyn/weights.py
    python benchmarks/syn_pick.py cv                              # 5-fold AUC / top precision of that model (a check)
    python benchmarks/syn_pick.py enumerate OUT.tsv [--seed 2612] # fresh queries, every candidate scoring >= FLOOR (no score shown)
    python benchmarks/syn_pick.py append LABELLED.tsv             # labelled rows into perturb/data/validity/SWAPSYN-*.tsv
    python benchmarks/syn_pick.py measure                         # tuning curve, chosen point, held validity (Wilson), per style
    python benchmarks/syn_pick.py confirm-list OUT.tsv            # seed 2613: the default WNET's passing candidates, to label
    python benchmarks/syn_pick.py confirm-append LABELLED.tsv     # ... into SWAPSYN-WNET.tsv (provenance confirmation-1)
    python benchmarks/syn_pick.py confirm-measure                 # validity with Wilson, applicability per style
    python benchmarks/syn_pick.py pooled                          # pick (>= 0.5929) + confirmation rows: validity vs threshold, >= 95% point
    python benchmarks/syn_pick.py third-freeze                    # seed 2614: third fresh sample -> SWAPSYN-WNET.queries.tsv (confirmation-2)
    python benchmarks/syn_pick.py third-list OUT.tsv              # the default WNET's applied outputs (seed 0), to label (no score)
    python benchmarks/syn_pick.py third-append LABELLED.tsv       # ... into SWAPSYN-WNET.tsv (provenance confirmation-2)
    python benchmarks/syn_pick.py third-measure                   # validity (Wilson), applicability per style
    python benchmarks/syn_pick.py overlap                         # GLOVE vs WNET outputs, before -> after, per style
    python benchmarks/syn_pick.py penha                           # the WNET verifier vs Penha et al.'s human labels

Sample (``enumerate``): 30 queries from each of five styles (Cranfield long questions; Cranfield
titles, first sentence, 12 of 30 upper-cased; chatterbot's judged questions; TREC DL 2019;
ANTIQUE), none whose (style, qid) is in a development set, seed 2612 (not used before). The drawn
samples are committed as perturb/data/validity/SWAPSYN-WNET.queries.tsv and read from there
(provenance ``dev-pick-sample``, ``confirmation-1``, ``confirmation-2``: the pick, confirmation and
third samples); their labelled rows have the same provenance in SWAPSYN-WNET.tsv / SWAPSYN-GLOVE.tsv.
The threshold rule (``pooled``) is :func:`perturb.tuning.rules.pooled_validity`.
"""
from __future__ import annotations

import csv
import pickle
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import SHARED  # noqa: E402
from benchmarks.syn_common import auc, labelled, penha_one_word_swaps, styles  # noqa: E402
from perturb.tuning.fit import SOURCES as GENS  # noqa: E402  (set -> the weights' source name)

SEED = 2612
PER_STYLE = 30
FLOOR = 0.2  # below any threshold considered (fixed before labelling)
MARK = "round 6 pick sample"
PICK = "dev-pick-sample"  # the provenance of its rows and queries
COLS = ("generator", "style", "qid", "original", "variation", "detail", "target", "candidate")


def score_with(model, x):
    from perturb.generators.swapsyn.verifier import logistic

    return logistic(model["weights"], model["intercept"], model["mu"], model["sd"], x)


def cmd_cv(k=5):
    """5-fold (by query) AUC and top precision of the fitted model on the rows it is fitted on."""
    import hashlib

    from perturb.tuning.fit import features, fit_model, fit_rows

    for name in GENS:
        gr = [r for r in features(fit_rows(name)) if r["x"] is not None]
        fold = [hashlib.sha256(f"{r['style']}\0{r['qid']}".encode()).digest()[2] % k for r in gr]
        s = np.zeros(len(gr))
        for f in range(k):
            m = fit_model([r for r, fo in zip(gr, fold) if fo != f])
            for i, (r, fo) in enumerate(zip(gr, fold)):
                if fo == f:
                    s[i] = score_with(m, r["x"])
        y = np.array([r["valid"] for r in gr], float)
        o = np.argsort(-s)
        print(f"{name}: {len(gr)} rows, {int(y.sum())} valid, 5-fold AUC {auc(s, y):.3f};",
              " ".join(f"top{n} {y[o[:n]].mean():.2f}" for n in (10, 20, 30, 50)))


CONFIRM_SEED = 2613
CONFIRM_MARK = "round 6 confirmation sample"
CONFIRM = "confirmation-1"
CONFIRM_THRESHOLD = 0.5929  # the threshold the confirmation sample was listed at (the default then)
THIRD_SEED = 2614
THIRD_MARK = "round 6 third sample"
THIRD = "confirmation-2"
SAMPLES = {"pick": PICK, "confirm": CONFIRM, "third": THIRD}  # the frozen samples by their former names
THIRD_PER = 250  # per style (60 gave 126 queries, 4 applied: enlarged before any output was read); ANTIQUE and TREC DL 2019 have no query left, 6 long questions


def fresh_sample(seed=SEED, per=PER_STYLE, exclude=(), caps=12):
    """(style, qid, text) of the fresh sample: queries in no development set (TREC DL 2019 has 43
    queries, all in some set: there, queries in no SWAPSYN set, i.e. none the verifier was fitted
    on, 22 of them). Titles are drawn from every Cranfield title, not syn_ceiling's 150."""
    import json

    from perturb.checks import devset

    have_syn, have_all = set(), set()
    for p in sorted(devset.VALIDITY.glob("*.tsv")):
        for r in devset.read_devset(p):
            if r.provenance in SAMPLES.values() or ".queries." in p.name:  # round 6's own rows do not count
                continue
            style = "keyword-title" if "title" in r.style else r.style
            have_all.add((style, r.qid))
            if "SWAPSYN" in p.name:
                have_syn.add((style, r.qid))
    st = styles()
    with open(SHARED / "cranfield" / "corpus.jsonl", encoding="utf-8") as fh:
        st["keyword-title"] = [(d["_id"], " ".join(d.get("title", "").split())) for d in map(json.loads, fh)]
        st["keyword-title"] = [t for t in st["keyword-title"] if t[1]]
    rng = random.Random(seed)
    out = []
    for style in ("long-question", "keyword-title", "chat-question", "web-query", "community-question"):
        have = have_syn if style == "web-query" else have_all
        pool = [it for it in st[style] if (style, it[0]) not in have and (style, it[0]) not in exclude]
        for k, (qid, text) in enumerate(rng.sample(pool, min(per, len(pool)))):
            if style == "keyword-title":
                text = text.split(". ")[0].rstrip(".")
                if k < caps:
                    out.append(("keyword-title-caps", qid, text.upper()))
                    continue
            out.append((style, qid, text))
    return out


def scored_candidates(queries, floor=FLOOR):
    """Every (generator, query, target, candidate) the generator scores >= ``floor``, with its score."""
    rows = []
    for name in GENS:
        gen = verified(name, floor)
        for (style, qid, text), cands in zip(queries, gen.scored([t for _, _, t in queries], floor)):
            for start, end, new, score, detail in cands:
                rows.append(dict(generator=name, style=style, qid=qid, original=text,
                                 variation=text[:start] + new + text[end:], detail=detail, score=score))
    return rows


def verified(name, threshold):
    from perturb.generators.swapsyn.glove import VerifiedSwapSynGlove
    from perturb.generators.swapsyn.wordnet import VerifiedSwapSynWordNet

    return (VerifiedSwapSynGlove if name == "SWAPSYN-GLOVE" else VerifiedSwapSynWordNet)(threshold)


def cmd_enumerate(out_path, seed):
    qs = pick_sample() if seed == SEED else fresh_sample(seed)
    rows = scored_candidates(qs)
    with open(out_path, "w", encoding="utf-8", newline="") as fh:  # the labelling listing: no score
        w = csv.writer(fh, delimiter="\t", lineterminator="\n")
        w.writerow(("generator", "style", "qid", "original", "variation", "valid", "reason"))
        for r in sorted(rows, key=lambda r: (r["style"], r["qid"], r["variation"], r["generator"])):
            w.writerow((r["generator"], r["style"], r["qid"], r["original"], r["variation"], "", ""))
    with open(out_path + ".scores.pkl", "wb") as fh:
        pickle.dump((qs, rows), fh)
    for g in GENS:
        print(g, sum(r["generator"] == g for r in rows), "candidates on",
              len({(r["style"], r["qid"]) for r in rows if r["generator"] == g}), "queries")
    print(len(qs), "queries")


def cmd_append(labelled_path):
    from perturb.checks import devset

    with open(labelled_path, encoding="utf-8") as fh:
        lab = {(r["generator"], r["original"], r["variation"]): (r["valid"], r["reason"]) for r in csv.DictReader(fh, delimiter="\t")}
    with open(labelled_path + ".scores.pkl", "rb") as fh:
        _, rows = pickle.load(fh)
    for name in GENS:
        path = devset.labelled_path(name)
        old = [c for c in devset.read_devset(path) if c.provenance != PICK]
        new = []
        for r in rows:
            if r["generator"] != name:
                continue
            v, reason = lab[(name, r["original"], r["variation"])]
            assert v in ("0", "1") and reason, (r["original"], r["variation"])
            new.append(devset.Candidate(name, r["style"], r["qid"], r["original"], r["variation"],
                                        f"{r['detail']} ({MARK}, seed {SEED})", round(r["score"], 4),
                                        devset.split_of(r["style"], r["qid"]), v == "1", reason, PICK))
        devset.write_devset(path, old + new)
        print(name, len(old), "+", len(new), "rows")


def pick_rows(name):
    return labelled(name, PICK)


GRID = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)


def cmd_measure(target=0.9, margin=0.0):
    from bench.evaluation.intervals import wilson_ci
    from perturb.checks import devset

    qs = pick_sample()
    for name in GENS:
        rows = pick_rows(name)
        tune = [c for c in rows if c.split == "tune"]
        held = [c for c in rows if c.split == "held"]
        n_tune_q = sum(devset.split_of(s, q) == "tune" for s, q, _ in qs)
        n_held_q = len(qs) - n_tune_q
        print(f"\n## {name}: {len(rows)} labelled pick candidates ({sum(c.valid for c in rows)} valid);"
              f" tuning {len(tune)} on {len({c.query for c in tune})} queries, held {len(held)} on {len({c.query for c in held})}")
        print("tuning half curve (applicability over all tuning queries of the sample):")
        for t in GRID:
            p = devset.point(tune, t)
            k = sum(c.valid for c in tune if c.score >= t)
            n = sum(c.score >= t for c in tune)
            print(f"  {t:.2f}: applied {p.n_applied}/{n_tune_q} ({100 * p.n_applied / n_tune_q:.1f}%), pick validity"
                  f" {100 * p.validity if p.n_applied else float('nan'):.1f}%, passing {k}/{n}")
        best = devset.choose(tune, target + margin)
        if best is None:
            print("no threshold reaches the target on the tuning half")
            continue
        th = best.threshold
        print(f"chosen on tuning: {th:.4f} (tune applied {best.n_applied}/{n_tune_q}, pick validity {100 * best.validity:.1f}%)")
        k, n, (lo, hi) = devset.held_validity(rows, th)
        p = devset.point(held, th)
        print(f"HELD at {th:.4f}: passing {k}/{n} valid ({100 * k / max(1, n):.1f}%, Wilson {100 * lo:.1f}-{100 * hi:.1f}%);"
              f" pick validity {100 * p.validity if p.n_applied else float('nan'):.1f}%; applied {p.n_applied}/{n_held_q}"
              f" ({100 * p.n_applied / n_held_q:.1f}%)")
        for style in dict.fromkeys(s for s, _, _ in qs):
            hq = [(s, q) for s, q, _ in qs if s == style and devset.split_of(s, q) == "held"]
            hs = [c for c in held if c.style == style]
            ps = devset.point(hs, th) if hs else None
            kk = sum(c.valid for c in hs if c.score >= th)
            nn = sum(c.score >= th for c in hs)
            print(f"  held {style}: applied {ps.n_applied if ps else 0}/{len(hq)}; passing {kk}/{nn} valid")


def frozen_path():
    from perturb.checks.devset import labelled_path

    return labelled_path("SWAPSYN-WNET", "queries")


FROZEN = frozen_path()


def frozen(sample):
    """The drawn sample as committed (development sets added later would change a new draw):
    ``sample`` pick, confirm or third (or its provenance)."""
    from perturb.checks.devset import read_devset

    return [(c.style, c.qid, c.original) for c in read_devset(FROZEN, SAMPLES.get(sample, sample))]


def pick_sample():
    return frozen("pick") if FROZEN.is_file() else fresh_sample()


def confirm_sample():
    """A second fresh sample (seed 2613): queries in no development set and not in the pick sample."""
    if FROZEN.is_file():
        return frozen("confirm")
    first = {("keyword-title" if "title" in s else s, q) for s, q, _ in fresh_sample()}
    return fresh_sample(CONFIRM_SEED, exclude=first)


def cmd_confirm_list(out_path):
    """The default SWAPSYN-WNET's passing candidates (>= its threshold) on the confirmation
    sample, for labelling (no score shown), and its picks (seed 0)."""
    qs = confirm_sample()
    gen = verified("SWAPSYN-WNET", CONFIRM_THRESHOLD)
    texts = [t for _, _, t in qs]
    cands = gen.scored(texts, gen.threshold)
    picks = gen.perturb_batch([(f"{s}/{q}", t) for s, q, t in qs], 0)
    rows = []
    for (style, qid, text), cs, p in zip(qs, cands, picks):
        for s0, e0, new, score, detail in cs:
            var = text[:s0] + new + text[e0:]
            rows.append(dict(generator="SWAPSYN-WNET", style=style, qid=qid, original=text, variation=var,
                             detail=detail, score=score, picked=int(p.applied and p.text == var)))
    with open(out_path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, delimiter="\t", lineterminator="\n")
        w.writerow(("generator", "style", "qid", "original", "variation", "valid", "reason"))
        for r in rows:
            w.writerow((r["generator"], r["style"], r["qid"], r["original"], r["variation"], "", ""))
    with open(out_path + ".scores.pkl", "wb") as fh:
        pickle.dump((qs, rows), fh)
    print(len(qs), "queries;", len(rows), "passing candidates on", len({(r["style"], r["qid"]) for r in rows}),
          "queries; picks", sum(p.applied for p in picks))


def cmd_confirm_append(labelled_path):
    from perturb.checks import devset

    with open(labelled_path, encoding="utf-8") as fh:
        lab = {(r["original"], r["variation"]): (r["valid"], r["reason"]) for r in csv.DictReader(fh, delimiter="\t")}
    with open(labelled_path + ".scores.pkl", "rb") as fh:
        _, rows = pickle.load(fh)
    path = devset.labelled_path("SWAPSYN-WNET")
    old = [c for c in devset.read_devset(path) if c.provenance != CONFIRM]
    new = []
    for r in rows:
        v, reason = lab[(r["original"], r["variation"])]
        assert v in ("0", "1") and reason
        new.append(devset.Candidate("SWAPSYN-WNET", r["style"], r["qid"], r["original"], r["variation"],
                                    f"{r['detail']} ({CONFIRM_MARK}, seed {CONFIRM_SEED}{'; picked, seed 0' if r['picked'] else ''})",
                                    r["score"], devset.split_of(r["style"], r["qid"]), v == "1", reason, CONFIRM))
    devset.write_devset(path, old + new)
    print(len(old), "+", len(new), "rows")


def cmd_confirm_measure():
    from bench.evaluation.intervals import wilson_ci
    from perturb.checks import devset

    qs = confirm_sample()
    rows = labelled("SWAPSYN-WNET", CONFIRM)
    k = sum(c.valid for c in rows)
    lo, hi = wilson_ci(k, len(rows), 0.95)
    p = devset.point(rows, 0.0)
    picked = [c for c in rows if "picked" in c.detail]
    kp = sum(c.valid for c in picked)
    plo, phi = wilson_ci(kp, len(picked), 0.95)
    print(f"confirmation (seed {CONFIRM_SEED}, {len(qs)} queries): passing candidates {k}/{len(rows)} valid"
          f" ({100 * k / max(1, len(rows)):.1f}%, Wilson {100 * lo:.1f}-{100 * hi:.1f}%); pick validity"
          f" {100 * p.validity:.1f}%; applied {p.n_applied}/{len(qs)} ({100 * p.n_applied / len(qs):.1f}%);"
          f" seed-0 picks {kp}/{len(picked)} valid (Wilson {100 * plo:.1f}-{100 * phi:.1f}%)")
    for style in dict.fromkeys(s for s, _, _ in qs):
        rs = [c for c in rows if c.style == style]
        print(f"  {style}: applied {len({c.query for c in rs})}/{sum(s == style for s, _, _ in qs)};"
              f" passing {sum(c.valid for c in rs)}/{len(rs)} valid")


def cmd_pooled(target=0.95):
    """Step 2 of the round-6 follow-up: validity of the pooled passing rows against the threshold,
    the chosen point (>= 95% valid: a margin, as it is chosen on these rows), by
    perturb.tuning.rules.pooled_validity: the pick sample's rows (both halves) scoring >= its first
    choice (CONFIRM_THRESHOLD) and every confirmation row (listed at it)."""
    from bench.evaluation.intervals import wilson_ci
    from perturb.tuning import rules

    every = labelled("SWAPSYN-WNET")
    rows = rules.pooled_rows(every)
    nq = len(pick_sample()) + len(confirm_sample())
    print(f"pooled round-6 WNET rows >= {CONFIRM_THRESHOLD}: {len(rows)} ({sum(c.valid for c in rows)} valid), {nq} queries")
    grid = sorted({round(x, 2) for x in np.arange(0.60, 0.90, 0.02)} | {CONFIRM_THRESHOLD})
    for t in grid:
        ps = [c for c in rows if c.score >= t]
        k = sum(c.valid for c in ps)
        lo, hi = wilson_ci(k, len(ps), 0.95) if ps else (float("nan"), float("nan"))
        print(f"  {t:.4f}: passing {k}/{len(ps)} valid ({100 * k / max(1, len(ps)):.1f}%, Wilson {100 * lo:.1f}-{100 * hi:.1f}%);"
              f" queries with a passing candidate {len({c.query for c in ps})}/{nq}")
    th = rules.pooled_validity(every, target)
    ps = [c for c in rows if c.score >= th]
    print(f"chosen (lowest labelled score with >= {100 * target:.0f}% of its passing rows valid): {th:.4f};"
          f" {sum(c.valid for c in ps)}/{len(ps)}, {len({c.query for c in ps})}/{nq} queries")
    for c in sorted(rows, key=lambda c: -c.score):
        if not c.valid:
            print(f"  invalid {c.score:.4f}: {c.original!r} -> {c.variation!r} ({c.reason})")


def third_sample():
    """A third fresh sample (seed 2614): queries in no development set and in neither earlier sample."""
    if FROZEN.is_file() and frozen("third"):
        return frozen("third")
    first = {("keyword-title" if "title" in s else s, q) for s, q, _ in frozen("pick") + frozen("confirm")}
    return fresh_sample(THIRD_SEED, per=THIRD_PER, exclude=first, caps=THIRD_PER * 2 // 5)


def cmd_third_freeze():
    from perturb.checks import devset

    qs = third_sample()
    old = [c for c in devset.read_devset(FROZEN) if c.provenance != THIRD] if FROZEN.is_file() else []
    new = [devset.Candidate("SWAPSYN-WNET", style, qid, text, "", "", float("nan"), devset.split_of(style, qid), None,
                            "", THIRD) for style, qid, text in qs]
    devset.write_devset(FROZEN, old + new)
    print(len(qs), "queries frozen")


def cmd_third_list(out_path):
    """The default SWAPSYN-WNET's outputs (seed 0) on the third sample, for labelling (no score shown)."""
    from perturb import make

    qs = third_sample()
    gen = make("SWAPSYN-WNET")
    picks = gen.perturb_batch([(f"{s}/{q}", t) for s, q, t in qs], 0)
    rows = [dict(style=s, qid=q, original=t, variation=p.text, detail=p.detail,
                 score=float(p.detail.split("(score ")[1].split()[0]))
            for (s, q, t), p in zip(qs, picks) if p.applied]
    with open(out_path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, delimiter="\t", lineterminator="\n")
        w.writerow(("generator", "style", "qid", "original", "variation", "valid", "reason"))
        for r in rows:
            w.writerow(("SWAPSYN-WNET", r["style"], r["qid"], r["original"], r["variation"], "", ""))
    with open(out_path + ".scores.pkl", "wb") as fh:
        pickle.dump((qs, rows, gen.threshold), fh)
    print(len(qs), "queries;", len(rows), "applied at", gen.threshold)


def cmd_third_append(labelled_path):
    from perturb.checks import devset

    with open(labelled_path, encoding="utf-8") as fh:
        lab = {(r["original"], r["variation"]): (r["valid"], r["reason"]) for r in csv.DictReader(fh, delimiter="\t")}
    with open(labelled_path + ".scores.pkl", "rb") as fh:
        _, rows, th = pickle.load(fh)
    path = devset.labelled_path("SWAPSYN-WNET")
    old = [c for c in devset.read_devset(path) if c.provenance != THIRD]
    new = []
    for r in rows:
        v, reason = lab[(r["original"], r["variation"])]
        assert v in ("0", "1") and reason
        new.append(devset.Candidate("SWAPSYN-WNET", r["style"], r["qid"], r["original"], r["variation"],
                                    f"{r['detail']} ({THIRD_MARK}, seed {THIRD_SEED}; picked, seed 0, threshold {th:g})",
                                    r["score"], devset.split_of(r["style"], r["qid"]), v == "1", reason, THIRD))
    devset.write_devset(path, old + new)
    print(len(old), "+", len(new), "rows")


def cmd_third_measure():
    from bench.evaluation.intervals import wilson_ci

    qs = third_sample()
    rows = labelled("SWAPSYN-WNET", THIRD)
    k = sum(c.valid for c in rows)
    lo, hi = wilson_ci(k, len(rows), 0.95)
    print(f"third sample (seed {THIRD_SEED}, {len(qs)} queries): applied outputs {k}/{len(rows)} valid"
          f" ({100 * k / max(1, len(rows)):.1f}%, Wilson {100 * lo:.1f}-{100 * hi:.1f}%);"
          f" applied {len(rows)}/{len(qs)} ({100 * len(rows) / len(qs):.1f}%)")
    for style in dict.fromkeys(s for s, _, _ in qs):
        rs = [c for c in rows if c.style == style]
        print(f"  {style}: applied {len(rs)}/{sum(s == style for s, _, _ in qs)}; valid {sum(c.valid for c in rs)}/{len(rs)}")
    for c in rows:
        if not c.valid:
            print(f"  invalid: {c.original!r} -> {c.variation!r} ({c.reason})")


def cmd_overlap(seed=0):
    """Applicability per style before -> after (the rule-based SWAPSYN-WNET of main, the verified
    default) and the overlap of the two sets (SWAPSYN-GLOVE, still main's generator, vs SWAPSYN-WNET):
    on the pick and confirmation samples, and on Cranfield's 225 queries and chatterbot's judged ones."""
    import json

    from bench.data.collections import load_dataset
    from perturb import make
    from perturb.generators.swapsyn.wordnet import SwapSynWordNet

    sets = {"pick sample (seed 2612)": pick_sample(), "confirmation sample (seed 2613)": confirm_sample()}
    with open(SHARED / "cranfield" / "queries.jsonl", encoding="utf-8") as fh:
        sets["Cranfield queries"] = [("cranfield", d["_id"], d["text"]) for d in map(json.loads, fh)]
    ds = load_dataset("chatterbot")
    sets["chatterbot judged queries"] = [("chatterbot", q, ds.queries[q].text) for q in ds.judged_query_ids()]
    gens = {"GLOVE (main)": make("SWAPSYN-GLOVE"), "WNET before (rules)": SwapSynWordNet(), "WNET after (verified)": make("SWAPSYN-WNET")}
    for label, qs in sets.items():
        items = [(f"{s}/{q}", t) for s, q, t in qs]
        out = {g: gen.perturb_batch(items, seed) for g, gen in gens.items()}
        print(f"\n## {label}: {len(qs)} queries")
        for style in dict.fromkeys(s for s, _, _ in qs):
            idx = [i for i, (s, _, _) in enumerate(qs) if s == style]
            print(f"  {style} ({len(idx)}): " + "; ".join(f"{g} {sum(out[g][i].applied for i in idx)}" for g in gens))
        tot = "; ".join(f"{g} {sum(p.applied for p in out[g])}/{len(qs)} ({100 * sum(p.applied for p in out[g]) / len(qs):.1f}%)" for g in gens)
        print("  all: " + tot)
        for a in ("WNET before (rules)", "WNET after (verified)"):
            both = [i for i in range(len(qs)) if out["GLOVE (main)"][i].applied and out[a][i].applied]
            same = [i for i in both if out["GLOVE (main)"][i].text == out[a][i].text]
            print(f"  overlap GLOVE (main) vs {a}: both changed {len(both)}, same text {len(same)}")


def cmd_penha():
    """The shipped SWAPSYN-WNET verifier against Penha et al.'s human labels: their one-word
    WordNet swaps (``WordSwapWordNet``, ANTIQUE and TREC DL; no-ops and multi-word changes left
    out) scored as our candidate would be (same features; a pair our cheap filter or exclusions
    refuse, or a target we do not swap, scores 0); accepted = score >= the shipped threshold.
    Precision / recall at accepting human-valid, and the share of human-invalid rejected."""
    from perturb import make
    from perturb.generators.swapsyn import verifier as sv
    from perturb.generators.swapsyn.swap import SPACY_TO_WN
    from perturb.resources import parsing
    from perturb.resources.words import stopwords, tagging_copy
    from perturb.resources.lexicon import base_forms
    from perturb.resources.wordnet_reader import wordnet

    gen = make("SWAPSYN-WNET")
    wn = wordnet()
    stops = stopwords()
    for fname in ("variations_antique_labeled.csv", "variations_trec2019_labeled.csv"):
        rows = [(r["original"], r["variation"], r["start"], r["word"], r["new"], r["valid"] == 1)
                for r in penha_one_word_swaps(fname, "WordSwapWordNet")]
        docs = dict(zip(sorted({r[0] for r in rows}), parsing.parse([tagging_copy(t) for t in sorted({r[0] for r in rows})])))
        model = gen.model()
        out = []
        for a, b, start, word, new, human in rows:
            doc = docs[a]
            tok = next((t for t in doc if t.idx == start), None)
            score = 0.0
            pos = SPACY_TO_WN.get(tok.pos_) if tok is not None else None
            if tok is not None and pos and any(t[0].i == tok.i for t in gen.targets(doc, a)):
                low = word.lower()
                cand = wn.morphy(new.lower(), pos) or new.lower()
                cands = [c for c in sv.candidates(low, pos, tok.tag_, "wordnet") if c[0] == cand]
                others = [t.lower_ for t in doc if t.is_alpha and t.lower_ not in stops and t.i != tok.i]
                got = sv.score_pairs(model, low, base_forms(low, pos)[-1], pos, cands, others, gen.in_term(tok),
                                     gen.in_collocation(tok), 0.0)
                score = got[0][1] if got else 0.0
            gen.__dict__.pop("_targets", None)
            out.append((score >= gen.threshold, human, score))
        tp = sum(a and h for a, h, _ in out)
        acc = sum(a for a, _, _ in out)
        val = sum(h for _, h, _ in out)
        inv = len(out) - val
        rej_inv = sum((not a) and (not h) for a, h, _ in out)
        print(f"{fname}: {len(out)} one-word WordNet swaps ({val} human-valid); accepted {acc}:"
              f" precision {tp}/{acc} ({100 * tp / max(1, acc):.1f}%), recall {tp}/{val} ({100 * tp / max(1, val):.1f}%),"
              f" human-invalid rejected {rej_inv}/{inv} ({100 * rej_inv / max(1, inv):.1f}%);"
              f" AUC of the score {auc([x for _, _, x in out], [h for _, h, _ in out]):.3f},"
              f" scored (not refused) {sum(x > 0 for _, _, x in out)}")


def main(argv):
    cmd = argv[0]
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else SEED
    if cmd == "fit":
        raise SystemExit("the fit is `python -m perturb.tuning fit SWAPSYN-WNET|SWAPSYN-GLOVE` (perturb.tuning.fit)")
    elif cmd == "cv":
        cmd_cv()
    elif cmd == "enumerate":
        cmd_enumerate(argv[1], seed)
    elif cmd == "append":
        cmd_append(argv[1])
    elif cmd == "measure":
        cmd_measure()
    elif cmd == "confirm-list":
        cmd_confirm_list(argv[1])
    elif cmd == "confirm-append":
        cmd_confirm_append(argv[1])
    elif cmd == "confirm-measure":
        cmd_confirm_measure()
    elif cmd == "pooled":
        cmd_pooled()
    elif cmd == "third-freeze":
        cmd_third_freeze()
    elif cmd == "third-list":
        cmd_third_list(argv[1])
    elif cmd == "third-append":
        cmd_third_append(argv[1])
    elif cmd == "third-measure":
        cmd_third_measure()
    elif cmd == "overlap":
        cmd_overlap()
    elif cmd == "penha":
        cmd_penha()


if __name__ == "__main__":
    main(sys.argv[1:])
