"""The synonym sets' picks on the queries of the labelled files benchmarks/data/validity/SWAPSYN-*.tsv.

    python benchmarks/lexsub/query_labels.py

Those rows are (query, candidate swap, valid) judgements the developers made by reading the pair,
for earlier versions of the generators (`provenance`: the sample a row comes from; `ceiling-sample`
labels every candidate of 45 queries). The chooser was fitted on SWORDS only, so these queries are
held out from it. Each distinct query of both files is given to both shipped generators (no
set-level cap: each query alone); a pick whose (query, variation) pair some row labels counts as
judged. Prints, per set and per sample: queries, changed, judged picks, valid, Wilson 95%."""
from __future__ import annotations

import csv
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


from bench.evaluation.intervals import wilson_ci  # noqa: E402 (after the path set-up above)


def labels():
    """(original, variation) -> [valid, ...] and original -> the samples it appears in."""
    lab, samples = defaultdict(list), defaultdict(set)
    for name in ("SWAPSYN-WNET", "SWAPSYN-GLOVE"):
        with open(ROOT / "benchmarks" / "data" / "validity" / f"{name}.tsv", encoding="utf-8", newline="") as fh:
            for r in csv.DictReader(fh, delimiter="\t"):
                if r["valid"] in ("0", "1"):
                    lab[(r["original"], r["variation"])].append(int(r["valid"]))
                    samples[r["original"]].add(r["provenance"])
    return lab, samples


def main() -> int:
    from perturb import make

    lab, samples = labels()
    queries = sorted(samples)
    for name in ("SWAPSYN-WNET", "SWAPSYN-GLOVE"):
        out = make(name).perturb_batch([(f"q{i}", q) for i, q in enumerate(queries)], 0)
        groups = defaultdict(lambda: [0, 0, 0, 0])  # queries, changed, judged, valid
        for q, p in zip(queries, out):
            for g in ("all",) + tuple(sorted(samples[q])):
                row = groups[g]
                row[0] += 1
                row[1] += p.applied
                votes = lab.get((q, p.text)) if p.applied else None
                if votes:
                    row[2] += 1
                    row[3] += sum(votes) * 2 >= len(votes)  # the majority of the rows labelling the pair
        for g, (n, ch, ju, va) in sorted(groups.items(), key=lambda kv: (kv[0] != "all", kv[0])):
            lo, hi = wilson_ci(va, ju)
            print(f"{name}\t{g}\tqueries {n}\tchanged {ch} ({100 * ch / n:.1f}%)\tjudged picks {ju}\tvalid {va}"
                  f" ({100 * va / ju if ju else 0:.1f}%, {100 * lo:.1f}-{100 * hi:.1f}%)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
