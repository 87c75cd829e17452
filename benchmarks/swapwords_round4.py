"""SWAPWORDS, fourth round (issue 22): where applicability is lost, evidence that splits the
adjective kinds, fresh candidates to label. Reads /work/shared (development only).

    python benchmarks/swapwords_round4.py losses            # per style: applicability at 0.8, the best candidate's
                                                            # kind of each unchanged query, kinds present
    python benchmarks/swapwords_round4.py adj [tune|held]   # AUC / counts of each WordNet feature on the 89
                                                            # adjective rows of rounds 1-3
    python benchmarks/swapwords_round4.py fresh             # the blind listing the 167 round-4 labels were written from
    python benchmarks/swapwords_round4.py threshold [--held] # tuning curve, choose_by_kind; --held: the held half once
    python benchmarks/swapwords_round4.py confirm           # the blind listing of the confirmation sample
    python benchmarks/swapwords_round4.py penha             # Penha et al.'s random word swaps accepted
"""
from __future__ import annotations

import sys
from collections import Counter, defaultdict

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import small_devsets as sd  # noqa: E402


def parsed():
    """style -> [(qid, text, doc)] for the label styles, eligible (>= 2 words) queries."""
    from perturb.resources import parsing
    from perturb.resources.words import tagging_copy

    out = {}
    for style, qs in sd.styles().items():
        if style not in sd.LABEL_STYLES:
            continue
        qs = [(q, t) for q, t in qs if len(t.split()) >= 2]
        docs = parsing.parse([tagging_copy(t) for _, t in qs])
        out[style] = [(q, t, d) for (q, t), d in zip(qs, docs)]
    return out


def losses(min_score: float = 0.8):
    from perturb import make

    gen = make("SWAPWORDS")
    for style, rows in parsed().items():
        best = Counter()
        present = Counter()
        changed = 0
        for q, t, d in rows:
            cs = gen.scored(d, t)
            for k in {c[5] for c in cs}:
                present[k] += 1
            if any(c[4] >= min_score for c in cs):
                changed += 1
                continue
            if not cs:
                best["(no candidate)"] += 1
                continue
            top = max(c[4] for c in cs)
            kinds = sorted({c[5] for c in cs if c[4] == top})
            best[" / ".join(kinds)] += 1
        n = len(rows)
        print(f"## {style}: {changed}/{n} = {100 * changed / n:.1f}% changed at {min_score}")
        print("unchanged queries, kind of the best candidate:")
        for k, v in best.most_common(12):
            print(f"  {v:4d}  {k}")
        print("kinds present (share of eligible queries):")
        for k, v in present.most_common(14):
            print(f"  {100 * v / n:5.1f}%  {k}")




# ---------------------------------------------------------------- adjective evidence
def _index(pos: str):
    """lemma -> (synset count, pointer symbols, tagged sense count) from WordNet's index.<pos>."""
    from pathlib import Path
    from perturb.resources.wordnet_reader import wordnet_meta

    out = {}
    with open(Path(wordnet_meta()["root"]) / f"index.{pos}", encoding="utf-8") as fh:
        for line in fh:
            if line.startswith(" "):
                continue
            f = line.split()
            n, p = int(f[2]), int(f[3])
            out[f[0]] = (n, frozenset(f[4:4 + p]), int(f[5 + p]))
    return out


ADJECTIVE_KINDS = tuple("adjective and its noun" + s for s in (
    "", " (noun modifier)", " (not a noun)", " (multi-word lemma)", " (term-forming adjective)", " (verb object)"))


def adjective_rows(path="docs/validity/dev-SWAPWORDS.tsv", kinds=ADJECTIVE_KINDS, rounds_1_3: bool = True):
    """(row, adjective token, noun token) for labelled rows of ``kinds`` (by default the 89 rows of
    rounds 1-3 the evidence was measured on: every sub-kind the fourth round split the kind into)."""
    from perturb import make
    from perturb.checks.devset import kind_of, read_devset
    from perturb.resources import parsing
    from perturb.resources.words import tagging_copy

    gen = make("SWAPWORDS")
    out = []
    for r in read_devset(path):
        if kind_of(r) not in kinds or (rounds_1_3 and "(round 4)" in r.detail):
            continue
        doc = parsing.parse([tagging_copy(r.original)])[0]
        for c in gen.scored(doc, r.original):
            if c[5] == kind_of(r) and gen.apply(doc, r.original, *c[:4]) == r.variation:
                a = doc.char_span(c[0], c[1])[0]
                b = doc.char_span(c[2], c[3])[0]
                adj, noun = (a, b) if a.pos_ == "ADJ" else (b, a)
                out.append((r, adj, noun))
                break
        else:
            raise SystemExit(f"not found: {r.original!r} -> {r.variation!r}")
    return out


_FIRST, _LAST = {}, {}


def _multiword_counts(inn):
    """How many multi-word noun lemmas of WordNet start with each word / end with each word."""
    if not _FIRST:
        for lemma in inn:
            if "_" in lemma:
                parts = lemma.split("_")
                _FIRST[parts[0]] = _FIRST.get(parts[0], 0) + 1
                _LAST[parts[-1]] = _LAST.get(parts[-1], 0) + 1
    return _FIRST, _LAST


def features(adj, noun, ia, inn, iv):
    from wordfreq import zipf_frequency

    first, last = _multiword_counts(inn)

    a, n = adj.lower_, noun.lower_
    nl = noun.lemma_.lower()
    sa = ia.get(a, (0, frozenset(), 0))
    return {
        "adj senses": sa[0],
        "adj tagged senses": sa[2],
        "no adj entry": int(a not in ia),
        "pertainym (\\)": int("\\" in sa[1]),
        "antonym (!)": int("!" in sa[1]),
        "similar-to (&)": int("&" in sa[1]),
        "attribute (=)": int("=" in sa[1]),
        "derivation (+)": int("+" in sa[1]),
        "also a noun": int(a in inn),
        "noun senses of adj": inn.get(a, (0,))[0],
        "also a verb": int(a in iv),
        "multiword a_n": int(f"{a}_{nl}" in inn or f"{a}_{n}" in inn),
        "zipf adj": zipf_frequency(a, "en"),
        "zipf noun": zipf_frequency(n, "en"),
        "suffix al/ic/ar/ary": int(a.endswith(("al", "ic", "ar", "ary"))),
        "noun senses": inn.get(nl, (0,))[0],
        "terms starting with adj": first.get(a, 0),
        "terms ending with noun": last.get(nl, 0),
        "adj terms per zipf": first.get(a, 0) / max(zipf_frequency(a, "en"), 1.0),
        "noun not a noun": int(nl not in inn and n not in inn),
    }


def _auc(pos, neg):
    """P(score of an invalid row > score of a valid row), ties half: AUC for 'higher = invalid'."""
    if not pos or not neg:
        return float("nan")
    w = sum((p > q) + 0.5 * (p == q) for p in pos for q in neg)
    return w / (len(pos) * len(neg))


def adjective_evidence(split=None, kinds=ADJECTIVE_KINDS):
    ia, inn, iv = _index("adj"), _index("noun"), _index("verb")
    rows = [(r, features(a, n, ia, inn, iv)) for r, a, n in adjective_rows(kinds=kinds)
            if split is None or r.split == split]
    inval = [f for r, f in rows if not r.valid]
    val = [f for r, f in rows if r.valid]
    print(f"{len(rows)} rows ({len(val)} valid, {len(inval)} invalid), split={split}")
    for k in rows[0][1]:
        auc = _auc([f[k] for f in inval], [f[k] for f in val])
        binary = all(f[k] in (0, 1) for _, f in rows)
        extra = ""
        if binary:
            extra = f"  invalid with it {sum(f[k] for f in inval)}/{len(inval)}, valid with it {sum(f[k] for f in val)}/{len(val)}"
        print(f"  AUC(higher = invalid) {auc:.2f}  {k}{extra}")
    return rows


# ---------------------------------------------------------------- fresh candidates to label (round 4)
FRESH_KINDS = ("adjective and its noun", "adjective and its noun (term evidence)", "co-modifiers",
               "subject and auxiliary (yes/no, do)", "gerund and its bare object", "adverb moved")


def drawn_rows(gen, style, pool, seed, n):
    """The listing rows of every candidate of ``n`` queries drawn from ``pool`` ((qid, text, doc,
    candidates) per query) with ``default_rng(seed)``, in pool order."""
    import numpy as np

    rng = np.random.default_rng(seed)
    return [listing_row(gen, style, q, t, d, c)
            for i in sorted(rng.permutation(len(pool))[:n]) for q, t, d, cs in [pool[i]] for c in cs]


def listing_row(gen, style, q, t, d, c):
    """One candidate of a label listing: (style, qid, text, variation, span a, span b, kind, score)."""
    return (style, q, t, gen.apply(d, t, *c[:4]), t[c[0]:c[1]], t[c[2]:c[3]], c[5], c[4])


def fresh(per_style: int = 30, path="docs/validity/dev-SWAPWORDS.tsv"):
    """Queries not yet labelled, drawn per style with ``default_rng(4401 + style index)`` among those
    with a candidate of FRESH_KINDS; every candidate of those kinds. Printed without scores or kinds
    (labels are written from this listing)."""
    from perturb import make
    from perturb.checks.devset import read_devset

    gen = make("SWAPWORDS")
    seen = {(r.style, r.qid) for r in read_devset(path)}
    out = []
    for k, (style, rows) in enumerate(parsed().items()):
        pool = []
        for q, t, d in rows:
            if (style, q) in seen:
                continue
            cs = [c for c in gen.scored(d, t) if c[5] in FRESH_KINDS]
            if cs:
                pool.append((q, t, d, cs))
        out += drawn_rows(gen, style, pool, 4401 + k, per_style)
    return out


# ---------------------------------------------------------------- threshold: tuning half, then held half once
def threshold(path="docs/validity/dev-SWAPWORDS.tsv", held: bool = False):
    from perturb.checks.devset import choose, choose_by_kind, curve, held_validity, point, read_devset

    rows = [r for r in read_devset(path) if r.generator == "SWAPWORDS"]
    tune = [r for r in rows if r.split == "tune"]
    chosen = choose_by_kind(tune)
    pooled = choose(tune)
    print(f"tuning half: {len(tune)} candidates, {len({r.query for r in tune})} queries; "
          f"choose_by_kind -> {chosen}; pooled choose -> {pooled.threshold if pooled else None}")
    print("| threshold (tuning half) | applicability | validity of the pick | queries applied | passing candidates valid |")
    print("|---:|---:|---:|---:|---:|")
    for p in curve(tune, [0.2, 0.3, 0.5, 0.64, 0.69, 0.75, 0.79, 0.8, 0.83, 0.89, 0.9, 0.93]):
        passing = [r for r in tune if r.score >= p.threshold]
        mark = " **chosen**" if p.threshold == chosen else ""
        print(f"| {p.threshold:g}{mark} | {100 * p.applicability:.1f}% | {100 * p.validity:.1f}% | "
              f"{p.n_applied}/{p.n_queries} | {sum(r.valid for r in passing)}/{len(passing)} |")
    if held:  # once, at the chosen threshold
        hrows = [r for r in rows if r.split == "held"]
        k, n, (lo, hi) = held_validity(rows, chosen)
        p = point(hrows, chosen)
        print(f"held half at {chosen}: {k}/{n} passing candidates valid = {100 * k / n:.1f}% "
              f"(Wilson 95% {100 * lo:.1f}-{100 * hi:.1f}%), validity of the pick {100 * p.validity:.1f}%, "
              f"{p.n_applied}/{p.n_queries} held queries applied")
        fresh_rows = [r for r in rows if "(round 4)" in r.detail]
        k4, n4, (lo4, hi4) = held_validity(fresh_rows, chosen)
        print(f"  of which round-4 rows (never seen before this measurement): {k4}/{n4} = {100 * k4 / max(n4, 1):.1f}% "
              f"(Wilson {100 * lo4:.1f}-{100 * hi4:.1f}%)")
        from perturb.checks.devset import kind_counts
        for kind, (v, m) in sorted(kind_counts(r for r in hrows if r.score >= chosen).items()):
            print(f"  held, passing: {v}/{m}  {kind}")
    return chosen


# ---------------------------------------------------------------- confirmation sample: the generator's own output
def confirmation(per_style: int = 30, seed: int = 11, path="docs/validity/dev-SWAPWORDS.tsv"):
    """Fresh queries (>= 2 words, none in the development set), ``default_rng(7401 + style index)``,
    the generator's own output at its default threshold, seed ``seed``: (style, qid, original, variation,
    detail) of the applied ones, and the number drawn per style."""
    import numpy as np
    from perturb import make
    from perturb.checks.devset import read_devset

    seen = {(r.style, r.qid) for r in read_devset(path)}
    gen = make("SWAPWORDS")
    out, drawn = [], {}
    for k, (style, rows) in enumerate(parsed().items()):
        pool = [(q, t) for q, t, _ in rows if (style, q) not in seen]
        rng = np.random.default_rng(7401 + k)
        pick = [pool[i] for i in sorted(rng.permutation(len(pool))[:per_style])]
        drawn[style] = len(pick)
        for (q, t), p in zip(pick, gen.perturb_batch(pick, seed)):
            if p.applied:
                out.append((style, q, t, p.text, p.detail))
    return out, drawn


# ---------------------------------------------------------------- Penha et al.'s word swaps accepted
def penha():
    """How many of Penha et al.'s human-labelled WordInnerSwapRandom variations are among our candidates,
    and how many of those pass the threshold (their rows are all labelled valid)."""
    import csv
    from perturb import make
    from perturb.resources import parsing
    from perturb.resources.words import tagging_copy

    gen = make("SWAPWORDS")
    for name in ("variations_trec2019_labeled.csv", "variations_antique_labeled.csv"):
        with open(f"{sd.SHARED}/penha-variations/{name}", encoding="utf-8") as fh:
            rows = [r for r in csv.DictReader(fh) if r["method"] == "WordInnerSwapRandom"]
        docs = parsing.parse([tagging_copy(r["original_query"]) for r in rows])
        among = accepted = 0
        for r, d in zip(rows, docs):
            t = r["original_query"]
            found = [c[4] for c in gen.scored(d, t) if gen.apply(d, t, *c[:4]) == r["variation"]]
            among += bool(found)
            accepted += bool(found) and max(found) >= gen.min_score
        print(f"{name}: {len(rows)} rows, {among} among our candidates, {accepted} accepted at {gen.min_score}")


if __name__ == "__main__":
    if sys.argv[1] == "confirm":  # blind listing: no detail
        rows, drawn = confirmation()
        print("#", drawn, len(rows), "applied")
        for n, r in enumerate(rows):
            print(n, r[0], repr(r[2]), "=>", repr(r[3]), sep="\t")
    elif sys.argv[1] == "fresh":  # the blind listing labels are written from: no score, no kind
        for n, r in enumerate(fresh()):
            print(n, r[0], repr(r[2]), "=>", repr(r[3]), f"[{r[4]} <-> {r[5]}]", sep="\t")
    else:
        {"losses": losses, "adj": lambda: adjective_evidence(*(sys.argv[2:3] or [None])),
         "threshold": lambda: threshold(held="--held" in sys.argv), "penha": penha}[sys.argv[1]]()
