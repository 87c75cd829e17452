"""SWAPWORDS, fifth round (project round 7): new candidate kinds for questions and statements
(a wh-word with the copula and a noun phrase the parse calls its complement, "what is love" ->
"what love is"; a wh-phrase before the auxiliary, "what type of computer are you" -> "what type of
computer you are", "how honest are you" -> "how honest you are"; a pronoun statement's complement
fronted, "you are a coward" -> "a coward you are"), and more labels for the plain adjective kind.
Reads /work/shared (development only).

    python benchmarks/swapwords_round7.py fresh       # the blind listing the round-7 labels were written from
    python benchmarks/swapwords_round7.py build       # docs/validity/dev-SWAPWORDS-round7.tsv from both label files
    python benchmarks/swapwords_round7.py kinds       # Laplace kind scores on the tuning half (EVIDENCE)
    python benchmarks/swapwords_round7.py threshold [--held]
    python benchmarks/swapwords_round7.py confirm     # the blind listing of the round-7 confirmation sample
    python benchmarks/swapwords_round7.py confirm-score  # validity of docs/validity/confirm-SWAPWORDS-round7.tsv
    python benchmarks/swapwords_round7.py confirm2    # the second sample (after the fixes), confirm2-score its validity
    python benchmarks/swapwords_round7.py adj [tune|held|all]  # AUC of the round-4 features on the plain adjective kind
    python benchmarks/swapwords_round7.py penha       # Penha et al.'s random word swaps accepted
    python benchmarks/swapwords_round7.py losses      # as round 4, on the current generator
"""
from __future__ import annotations

import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import small_devsets as sd  # noqa: E402
import swapwords_round4 as r4  # noqa: E402

DEV = "docs/validity/dev-SWAPWORDS-round7.tsv"
OLD_DEV = "docs/validity/dev-SWAPWORDS.tsv"
LABELS = ("docs/validity/labels-SWAPWORDS.txt", "docs/validity/labels-SWAPWORDS-round7.txt")
CONFIRM4 = "docs/validity/confirm-SWAPWORDS-round4.tsv"
CONFIRM7 = "docs/validity/confirm-SWAPWORDS-round7.tsv"  # first sample (before the two fixes below)
CONFIRM7B = "docs/validity/confirm-SWAPWORDS-round7b.tsv"  # second sample, after them
NEW_KINDS = ("subject and auxiliary (copula, wh-subject)", "complement fronted")
ADJ = "adjective and its noun"
ADJ_PER_STYLE = 20


def _is_new(kind: str) -> bool:
    return kind in NEW_KINDS or kind.startswith("subject and auxiliary (wh-phrase")


def seen_queries():
    """(style, qid) of every query in a development set or confirmation sample before round 7."""
    from perturb.checks.devset import read_devset

    seen = {(r.style, r.qid) for r in read_devset(OLD_DEV)}
    with open(CONFIRM4, encoding="utf-8") as fh:
        seen |= {tuple(line.split("\t")[:2]) for line in fh.read().splitlines()[1:]}
    return seen


def seen_texts(*paths):
    """(style, text) of the queries of the development set and the confirmation samples in ``paths``:
    Cranfield holds a few titles twice under two ids, so a query drawn as fresh by its id can have been
    labelled under the other; such queries are dropped after the draw (the draw itself is unchanged)."""
    from perturb.checks.devset import read_devset

    out = set()
    for path in paths:
        if path.endswith(".tsv") and "/dev-" in path:
            out |= {(r.style, r.original) for r in read_devset(path)}
        else:
            with open(path, encoding="utf-8") as fh:
                out |= {(f[0], f[2]) for f in (line.split("\t") for line in fh.read().splitlines()[1:])}
    return out


def fresh():
    """Queries in no development set: every candidate of the new kinds (all such queries), and every
    plain adjective-and-noun candidate of up to ADJ_PER_STYLE queries per style drawn with
    ``default_rng(7701 + style index)``. Rows (style, qid, original, variation, span a, span b, kind, score)."""
    from perturb import make

    gen = make("SWAPWORDS")
    seen = seen_queries()
    out = []
    for k, (style, rows) in enumerate(r4.parsed().items()):
        adj_pool = []
        for q, t, d in rows:
            if (style, q) in seen:
                continue
            cs = gen.scored(d, t)
            for c in cs:
                if _is_new(c[5]):
                    out.append(r4.listing_row(gen, style, q, t, d, c))
            adj = [c for c in cs if c[5] == ADJ]
            if adj:
                adj_pool.append((q, t, d, adj))
        out += r4.drawn_rows(gen, style, adj_pool, 7701 + k, ADJ_PER_STYLE)
    out.sort(key=lambda r: (r[0], r[1], r[3]))
    old = seen_texts(OLD_DEV, CONFIRM4)
    return [r for r in out if (r[0], r[2]) not in old]


def build():
    """Both label files (rounds 1-4 and round 7) re-scored with the current verifier -> DEV."""
    import os
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as tmp:
        for path in LABELS:
            with open(path, encoding="utf-8") as fh:
                tmp.write(fh.read().rstrip("\n") + "\n")
    try:
        sd.build("SWAPWORDS", tmp.name, DEV)
    finally:
        os.unlink(tmp.name)


def adj_evidence(split="tune"):
    """AUC of each round-4 WordNet feature on the plain adjective kind of the round-7 development set
    (``split`` half; "all" for both)."""
    ia, inn, iv = r4._index("adj"), r4._index("noun"), r4._index("verb")
    rows = [(r, r4.features(a, n, ia, inn, iv)) for r, a, n in r4.adjective_rows(DEV, (ADJ,), False)
            if split == "all" or r.split == split]
    inval = [f for r, f in rows if not r.valid]
    val = [f for r, f in rows if r.valid]
    print(f"plain adjective kind, {split}: {len(rows)} rows ({len(val)} valid, {len(inval)} invalid)")
    print("invalid:", "; ".join(f"{a.text} {n.text}" for r, a, n in r4.adjective_rows(DEV, (ADJ,), False)
                                 if not r.valid and (split == "all" or r.split == split)))
    for k in rows[0][1]:
        auc = r4._auc([f[k] for f in inval], [f[k] for f in val])
        extra = ""
        if all(f[k] in (0, 1) for _, f in rows):
            extra = f"  invalid with it {sum(f[k] for f in inval)}/{len(inval)}, valid {sum(f[k] for f in val)}/{len(val)}"
        print(f"  AUC(higher = invalid) {auc:.2f}  {k}{extra}")


def kinds():
    for k, (score, v, n) in sd.kind_scores(DEV).items():
        print(f"{score:.2f}  {v}/{n}  {k}")


def confirmation(per_style: int = 30, seed: int = 11, second: bool = False):
    """Fresh queries (>= 2 words, in no development set or earlier confirmation sample, none labelled in
    round 7), ``default_rng(7901 + style index)`` (second sample: ``7951 + style index``, none in the first
    sample either), the generator's own output at its default threshold."""
    import numpy as np
    from perturb import make
    from perturb.checks.devset import read_devset

    seen = seen_queries() | {(r.style, r.qid) for r in read_devset(DEV)}
    if second:
        with open(CONFIRM7, encoding="utf-8") as fh:
            seen |= {tuple(line.split("\t")[:2]) for line in fh.read().splitlines()[1:]}
    gen = make("SWAPWORDS")
    old = seen_texts(DEV, CONFIRM4, *([CONFIRM7] if second else []))  # the same text under another id
    out, drawn = [], {}
    for k, (style, rows) in enumerate(r4.parsed().items()):
        pool = [(q, t) for q, t, _ in rows if (style, q) not in seen]
        rng = np.random.default_rng((7951 if second else 7901) + k)
        pick = [pool[i] for i in sorted(rng.permutation(len(pool))[:per_style])]
        drawn[style] = len(pick)
        for (q, t), p in zip(pick, gen.perturb_batch(pick, seed)):
            if p.applied and (style, t) not in old:
                out.append((style, q, t, p.text, p.detail))
    return out, drawn


def confirm_score(path=CONFIRM7):
    import re
    from collections import Counter
    from bench.evaluation.intervals import wilson_ci as wilson

    rows = [line.split("\t") for line in open(path, encoding="utf-8").read().splitlines()[1:]]
    k, n = sum(r[5] == "1" for r in rows), len(rows)
    lo, hi = wilson(k, n)
    print(f"confirmation: {k}/{n} = {100 * k / n:.1f}% (Wilson 95% {100 * lo:.1f}-{100 * hi:.1f}%)")
    by = Counter()
    for r in rows:
        kind = re.search(r"\((.*), score [0-9.]+\)$", r[4]).group(1)
        by[(r[0], "style")] += 0
        by[(kind, "v")] += r[5] == "1"
        by[(kind, "n")] += 1
    for st in sorted({r[0] for r in rows}):
        sub = [r for r in rows if r[0] == st]
        print(f"  {st}: {sum(r[5] == '1' for r in sub)}/{len(sub)}")
    for kind in sorted({key for key, t in by if t == "n"}):
        print(f"  kind {by[(kind, 'v')]}/{by[(kind, 'n')]}  {kind}")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "fresh":  # blind listing: no score, no kind
        for n, r in enumerate(fresh()):
            print(n, r[0], repr(r[2]), "=>", repr(r[3]), sep="\t")
    elif cmd in ("confirm", "confirm2"):
        rows, drawn = confirmation(second=cmd == "confirm2")
        print("#", drawn, len(rows), "applied")
        for n, r in enumerate(rows):
            print(n, r[0], repr(r[2]), "=>", repr(r[3]), sep="\t")
    elif cmd == "threshold":
        r4.threshold(DEV, held="--held" in sys.argv)
    else:
        {"build": build, "kinds": kinds, "confirm-score": confirm_score, "confirm2-score": lambda: confirm_score(CONFIRM7B),
         "adj": lambda: adj_evidence(*(sys.argv[2:3] or ["tune"])), "penha": r4.penha,
         "losses": lambda: r4.losses(0.83)}[cmd]()
