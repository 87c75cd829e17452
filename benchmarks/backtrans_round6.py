"""Round 6 of BACKTRANS (docs/methods.md, BACKTRANS "Round 6"): the fresh candidates to label, drawn
from queries not yet in docs/validity/dev-BACKTRANS.tsv, with the chained pivots and the new
evidence (moves, "of" inversions, contractions) in place and before any weight was changed:

* per query (seed 31; caps titles, chat, ANTIQUE, Cranfield): one passing candidate and the best
  refused one, as the previous rounds drew them;
* targeted: single-edit candidates whose evidence is an "of" inversion or a contraction, and
  passing candidates proposed only by a chained pivot (the new evidence would otherwise be seldom
  drawn).

    DRBENCH_BT_PIVOTS=cat,epo,glg,spa,spa-cat,spa-glg,cat-spa,glg-spa \\
        python benchmarks/backtrans_round6.py sample /tmp/bt6/fresh.tsv /tmp/bt6/listing.txt

The listing (to label by reading) shows the query and the variation only, no score or evidence.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

from benchmarks.backtrans_dev import DEV, _gen, _sent, candidates_of, load_table, styles

PER_STYLE = {"long-question": 8, "caps-title": 14, "chat-question": 20, "community-question": 14}
TARGETED = {"of_inversion": 25, "contraction": 25, "chain_only": 20}
CHAINS = {"spa-cat", "spa-glg", "cat-spa", "glg-spa"}


def sample(out_tsv: str, listing: str, seed: int = 31) -> None:
    from perturb.checks.devset import COLUMNS, read_devset, split_of
    from perturb.generators.backtrans import score as backtrans_score
    from perturb.resources.words import apply_case_style, case_style

    gen = _gen()
    table = load_table(gen)
    seen = {(c.style, c.qid) for c in read_devset(DEV)}
    rng = random.Random(seed)
    rows, keys = [], set()

    def row(style, qid, text, c, why):
        var = apply_case_style(c.text, case_style(text))
        if (style, qid, var) in keys:
            return
        keys.add((style, qid, var))
        old = [t.lower() for t, _, _ in backtrans_score.tokens(_sent(text))]
        rows.append(["BACKTRANS", style, qid, text, var, c.detail(old), f"{c.score:g}", split_of(style, qid), "", why])

    fresh = {}
    for style, qs in styles().items():
        if style == "keyword-title":
            continue  # the caps-title rows are the same titles
        qs = [(q, t) for q, t in qs if (style, q) not in seen]
        rng.shuffle(qs)
        fresh[style] = qs
        n = 0
        for qid, text in qs:
            if n >= PER_STYLE.get(style, 0):
                break
            cands = candidates_of(gen, table, text)
            good = [c for c in cands if c.score >= backtrans_score.THRESHOLD]
            bad = [c for c in cands if c.score < backtrans_score.THRESHOLD]
            if not cands:
                continue
            if good:
                row(style, qid, text, rng.choice(good), "general:pass")
            if bad:
                row(style, qid, text, max(bad, key=lambda c: (c.score, c.text)), "general:best-refused")
            n += 1
    pools = {k: [] for k in TARGETED}
    for style, qs in fresh.items():
        for qid, text in qs:
            for c in candidates_of(gen, table, text):
                if len(c.edits) == 1 and "of_inversion" in c.reasons:
                    pools["of_inversion"].append((style, qid, text, c))
                if len(c.edits) == 1 and "contraction" in c.reasons:
                    pools["contraction"].append((style, qid, text, c))
                if c.score >= backtrans_score.THRESHOLD and c.pivots <= CHAINS:
                    pools["chain_only"].append((style, qid, text, c))
    for kind, pool in pools.items():
        for style, qid, text, c in rng.sample(pool, min(TARGETED[kind], len(pool))):
            row(style, qid, text, c, f"targeted:{kind}")
    Path(out_tsv).write_text("\n".join("\t".join(r) for r in [list(COLUMNS)] + rows) + "\n", encoding="utf-8")
    with open(listing, "w", encoding="utf-8") as f:
        for i, r in enumerate(rows):
            f.write(f"{i}\t{r[1]}\n   Q: {r[3]}\n   V: {r[4]}\n")
    print(len(rows), "rows;", {k: len(v) for k, v in pools.items()}, "in the targeted pools")


CONFIRM = {"long-question": 8, "caps-title": 12, "chat-question": 22, "community-question": 12}


def confirm(out_tsv: str, listing: str, seed: int = 37) -> None:
    """A confirmation sample for the adopted pivots and weights: queries in no earlier row of the
    dev set, one passing candidate each, picked as the generator picks (uniform among the passing
    ones), to label by reading (the listing shows no score)."""
    from perturb.checks.devset import COLUMNS, read_devset
    from perturb.generators.backtrans import score as backtrans_score
    from perturb.resources.words import apply_case_style, case_style

    gen = _gen()
    table = load_table(gen)
    seen = {(c.style, c.qid) for c in read_devset(DEV)}
    rng = random.Random(seed)
    rows = []
    for style, qs in styles().items():
        if style not in CONFIRM:
            continue
        qs = [(q, t) for q, t in qs if (style, q) not in seen]
        rng.shuffle(qs)
        n = 0
        for qid, text in qs:
            if n >= CONFIRM[style]:
                break
            good = [c for c in candidates_of(gen, table, text) if c.score >= backtrans_score.THRESHOLD]
            if not good:
                continue
            c = rng.choice(good)
            old = [t.lower() for t, _, _ in backtrans_score.tokens(_sent(text))]
            rows.append(["BACKTRANS", style, qid, text, apply_case_style(c.text, case_style(text)), c.detail(old),
                         f"{c.score:g}", "confirm", "", "confirm"])
            n += 1
    Path(out_tsv).write_text("\n".join("\t".join(r) for r in [list(COLUMNS)] + rows) + "\n", encoding="utf-8")
    with open(listing, "w", encoding="utf-8") as f:
        for i, r in enumerate(rows):
            f.write(f"{i}\t{r[1]}\n   Q: {r[3]}\n   V: {r[4]}\n")
    print(len(rows), "rows")


if __name__ == "__main__":
    if sys.argv[1] == "sample":
        sample(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "confirm":
        confirm(sys.argv[2], sys.argv[3])
