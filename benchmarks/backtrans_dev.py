"""Development measurements of BACKTRANS (Apertium, generate then verify): round trips of the dev
collections, candidates to label, the threshold curve, applicability per style with the reasons a
query gets no passing candidate, and Penha et al.'s human labels. Reads /work/shared (dev only).

    python benchmarks/backtrans_dev.py trips            # round trips of every style, cached
    python benchmarks/backtrans_dev.py sample OUT.tsv   # candidates to label (all scores)
    python benchmarks/backtrans_dev.py report [--apply] [--misfires] [--write]
                                                        # rescore the development rows of
                                                        # benchmarks/data/validity/BACKTRANS.tsv, curve,
                                                        # applicability, Penha (benchmarks.backtrans_report)
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.backtrans_common import CACHE, as_sent, backtranslator, candidates_of, load_table, styles  # noqa: E402


def trips():
    gen = backtranslator()
    texts = sorted({as_sent(t) for qs in styles().values() for _, t in qs})
    rt = gen._round_trips(texts)
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    old = json.loads(CACHE.read_text()) if CACHE.exists() else {}
    old.update({p: {t: r for t, r in zip(texts, res)} for p, res in rt.items()})
    CACHE.write_text(json.dumps(old, sort_keys=True))


def sample(out_path, per_style=28, seed=5):
    from perturb.checks.devset import split_of

    gen = backtranslator()
    table = load_table(gen)
    rng = random.Random(seed)
    rows = []
    for style, qs in styles().items():
        if style == "keyword-title":
            continue  # the caps-title rows are the same titles
        qs = list(qs)
        rng.shuffle(qs)
        n = 0
        for qid, text in qs:
            cands = candidates_of(gen, table, text)
            if not cands:
                continue
            good = [c for c in cands if c.score >= 0]
            bad = [c for c in cands if c.score < 0]
            pick = rng.sample(good, min(2, len(good))) + rng.sample(bad, min(1, len(bad)))
            from perturb.resources.words import apply_case_style, case_style
            for c in pick:
                rows.append(["BACKTRANS", style, qid, text, apply_case_style(c.text, case_style(text)), c.detail,
                             f"{c.score:g}", split_of(style, qid), "", "", ""])
            n += 1
            if n >= per_style:
                break
    from perturb.checks.devset import COLUMNS

    Path(out_path).write_text("\n".join("\t".join(r) for r in [list(COLUMNS)] + rows) + "\n", encoding="utf-8")
    print(len(rows), "rows")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "trips":
        trips()
    elif cmd == "sample":
        sample(sys.argv[2])
    elif cmd == "report":
        from benchmarks.backtrans_report import report

        report()
