"""A table of labelled bad pairs for the synonym sets, and its cross-validated effect on the pick check's rows
(measured, not shipped: it does not measurably help; ``benchmarks/results/swapsyn_pairs.md``).

    python benchmarks/lexsub/pairs.py [--md FILE]

A *pair* is (WordNet POS, the target's base form, the substitute's lemma): ``('v', 'help', 'assist')``.
Labels: every row with ``valid`` 0/1 of ``benchmarks/data/validity/SWAPSYN-*.tsv`` whose detail names a
one-word swap (``p:'word'->'new'``); a distinct (original, variation) text pair counts once, labelled by
the majority of its rows (ties invalid, as ``query_features.py``). The target's base form is the one the
candidates take (:func:`perturb.resources.senses.base_forms`), the substitute's lemma the detail's
``lemma`` (else WordNet's morphy of the new word). A pair is **refused** when at least ``MIN_PAIRS``
labelled text pairs have it and its Laplace validity ``(valid + 1) / (n + 2)`` is below ``MAX_VALIDITY``:
a substitution people judged wrong in most of the queries they saw it in.

Cross-validated effect: ``check_fit.py``'s rows (the blind samples of picks), folds (by query) and
cross-validated check probabilities. For each fold the table is built from the labelled rows of the
other folds' queries only (a row's fold is its query's, whatever file it comes from) and applied to the
fold's rows that the shipped chooser and check thresholds keep. Reported per source: the rows kept and
their precision without and with the table, and the rows the table refuses.

Writes the report to ``--md`` (default ``benchmarks/results/swapsyn_pairs.md``). Numbers are measurements.
"""
from __future__ import annotations

import argparse
import csv
import re
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.lexsub import check_fit  # noqa: E402
from bench.evaluation.intervals import wilson_ci  # noqa: E402

FILES = tuple(check_fit.VALIDITY / f"SWAPSYN-{s}.tsv" for s in ("GLOVE", "WNET"))
MD = ROOT / "benchmarks" / "results" / "swapsyn_pairs.md"
MIN_PAIRS, MAX_VALIDITY = 3, 0.5
COMMAND = "python benchmarks/lexsub/pairs.py"
SWAP = re.compile(r"^(?P<pos>[nvar]):'(?P<word>[^']*)'->'(?P<new>[^']*)'")
LEMMA = re.compile(r"lemma (?P<lemma>[a-z]+)")


def labelled_pairs(files=FILES) -> list:
    """[(original, key, valid)]: one entry per distinct labelled text pair, its majority label."""
    from perturb.resources.senses import base_forms
    from perturb.resources.wordnet_reader import wordnet

    votes, keys = defaultdict(list), {}
    for path in files:
        with open(path, encoding="utf-8", newline="") as fh:
            for r in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
                m = SWAP.match(r["detail"] or "")
                if m is None or r["valid"] not in ("0", "1"):
                    continue
                pos, word, new = m["pos"], m["word"].lower(), m["new"].lower()
                lm = LEMMA.search(r["detail"])
                lemma = lm["lemma"] if lm else (wordnet().morphy(new, pos) or new)
                text = (r["original"], r["variation"])
                keys[text] = (pos, base_forms(word, pos)[-1], lemma)
                votes[text].append(int(r["valid"]))
    return [(t[0], keys[t], int(2 * sum(v) > len(v))) for t, v in sorted(votes.items())]


def table(pairs) -> dict:
    """key -> (valid, n) of the refused pairs."""
    counts = defaultdict(lambda: [0, 0])
    for _, key, valid in pairs:
        counts[key][0] += valid
        counts[key][1] += 1
    return {k: (v, n) for k, (v, n) in counts.items() if n >= MIN_PAIRS and (v + 1) / (n + 2) < MAX_VALIDITY}


def key_of(row) -> tuple:
    from perturb.resources.senses import base_forms

    return row["pos"], base_forms(row["word"].lower(), row["pos"])[-1], row["lemma"]


def cross_validated_effect(pairs, rows, p, model) -> dict:
    """source -> (kept, valid, kept with the table, valid with it) over the rows both thresholds keep."""
    out = {s: [0, 0, 0, 0] for s in ("glove", "wordnet")}
    idx = check_fit.picked(rows, model["thresholds"])
    for k in range(check_fit.FOLDS):
        refused = table([x for x in pairs if check_fit.fold(x[0]) != k])
        for i in idx:
            r, source = rows[i], check_fit.SOURCE[rows[i]["set"]]
            if check_fit.fold(r["original"]) != k or p[i] < check_fit.check_threshold_of(model, r):
                continue
            cell = out[source]
            cell[0] += 1
            cell[1] += r["valid"]
            if key_of(r) not in refused:
                cell[2] += 1
                cell[3] += r["valid"]
    return out


def _ci(k: int, n: int) -> str:
    lo, hi = wilson_ci(k, n)
    return f"{k}/{n} = {k / n:.3f} ({lo:.2f}-{hi:.2f})"


def report(pairs, refused, effect) -> str:
    lines = ["# The synonym sets' labelled bad pairs", "", f"`{COMMAND}`", "",
             f"{len(pairs)} distinct labelled text pairs of benchmarks/data/validity/SWAPSYN-*.tsv; a (POS, target base "
             f"form, substitute lemma) pair is refused with >= {MIN_PAIRS} labelled text pairs and Laplace validity "
             f"below {MAX_VALIDITY:g}: {len(refused)} pairs.", "",
             "Cross-validated on the pick check's rows (benchmarks/results/swapsyn_check.md: its folds and probabilities; "
             "each fold's table built from the other folds' queries), at the shipped chooser and check thresholds:", "",
             "| source | kept, precision (Wilson 95%) | with the table | refused (invalid) |", "|---|---|---|---|"]
    for source, (n, k, n2, k2) in effect.items():
        lines.append(f"| {source} | {_ci(k, n)} | {_ci(k2, n2)} | {n - n2} ({(n - k) - (n2 - k2)}) |")
    lines += ["", "The refused pairs with the most labels:", "", "| POS | target | substitute | valid / labelled |",
              "|---|---|---|---:|"]
    for (pos, base, lemma), (v, n) in sorted(refused.items(), key=lambda kv: (-kv[1][1], kv[0]))[:30]:
        lines.append(f"| {pos} | {base} | {lemma} | {v}/{n} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    from perturb.generators.swapsyn import chooser

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--md", type=Path, default=MD)
    args = ap.parse_args(argv)
    pairs = labelled_pairs()
    rows, p = check_fit.cross_validated_rows()
    refused = table(pairs)
    args.md.write_text(report(pairs, refused, cross_validated_effect(pairs, rows, p, chooser.load_model())), encoding="utf-8")
    print(args.md.read_text(encoding="utf-8") + f"\nwrote {args.md}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
