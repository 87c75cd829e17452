"""The paper TRANSTENSE's verb table proxy, fitted on one half of the RoDR authors' MS MARCO queries and
measured on the other.

    python benchmarks/rodr_tense_table.py [--grid 3.0:5.6:0.1] [--seed 0]

TextFlint's ``Tense`` changes only verbs its downloaded verb table holds; the table is not available
offline (``perturb.rodr.paper.VerbTableProxy``). The proxy passes a verb whose spaCy lemma has a
wordfreq Zipf frequency of at least a threshold. The 6,980 queries (the originals of
:func:`benchmarks.rodr_reference.originals`) are split by a fixed rule: a query id's SHA-256 digest,
even first byte ``fit``, odd ``check``. For each threshold of the grid (and 0, no proxy) the paper
TRANSTENSE (seed ``--seed``) runs on both halves; the share changed (case and spacing ignored) is
compared with the authors' TransTense share of the same half. The chosen threshold
(``benchmarks.tuning.rules.closest_share``, the rule ``python -m benchmarks.tuning check`` re-derives) is the grid value whose ``fit``
share is closest to the authors' (ties: the lower one). Writes the curve to
``benchmarks/data/rodr/transtense_verb_table.json`` and a table to
``benchmarks/results/rodr_tense_table.md``. About 3 minutes on 2 cores (spaCy once per threshold).

Per query of the check half it also counts agreement: both changed, only ours, only the authors'.
"""
from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Dict, List, Sequence

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.rodr_reference import originals, read_set  # noqa: E402 (after the path set-up above)
from benchmarks.tuning.rules import closest_share  # noqa: E402

OUT = ROOT / "benchmarks" / "data" / "rodr" / "transtense_verb_table.json"
MD = ROOT / "benchmarks" / "results" / "rodr_tense_table.md"
PROXY = "verb table proxy"


def half_of(qid: str) -> str:
    """``fit`` or ``check``: the parity of the first byte of the query id's SHA-256 digest."""
    return "fit" if hashlib.sha256(qid.encode("utf-8")).digest()[0] % 2 == 0 else "check"


def run(texts: Dict[str, str], qids: Sequence[str], threshold: float, seed: int) -> Dict[str, str]:
    from perturb.rodr.paper import TRANSTENSE_SPEC, PaperTransTense

    gen = PaperTransTense()
    gen.spec = dataclasses.replace(
        TRANSTENSE_SPEC, constraints=TRANSTENSE_SPEC.constraints_with(**{PROXY: {"threshold": threshold}}))
    return {q: p.text for q, p in zip(qids, gen.perturb_batch([(q, texts[q]) for q in qids], seed))}


def changed(orig: Dict[str, str], var: Dict[str, str], qids: Sequence[str]) -> List[str]:
    from perturb.base import same_query

    return [q for q in qids if not same_query(orig[q], var[q])]


def grid_of(spec: str) -> List[float]:
    lo, hi, step = (float(x) for x in spec.split(":"))
    n = int(round((hi - lo) / step))
    return [0.0] + [round(lo + k * step, 6) for k in range(n + 1)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--grid", default="3.0:5.6:0.1", help="LOW:HIGH:STEP of the Zipf thresholds (0 is always added)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    os.environ.setdefault("DRBENCH_NO_VARIATION_CACHE", "1")
    orig, theirs = originals(), read_set("TRANSTENSE")
    qids = sorted(orig, key=int)
    halves = {h: [q for q in qids if half_of(q) == h] for h in ("fit", "check")}
    authors = {h: set(changed(orig, theirs, qs)) for h, qs in halves.items()}
    curve = {"seed": args.seed, "queries": {h: len(qs) for h, qs in halves.items()},
             "authors": {h: len(authors[h]) / len(qs) for h, qs in halves.items()}, "ours": {}, "agreement": {}}
    for z in grid_of(args.grid):
        t0 = time.perf_counter()
        mine = run(orig, qids, z, args.seed)
        ours = {h: set(changed(orig, mine, qs)) for h, qs in halves.items()}
        curve["ours"][f"{z:g}"] = {h: len(ours[h]) / len(halves[h]) for h in halves}
        a, o = authors["check"], ours["check"]
        curve["agreement"][f"{z:g}"] = {"both": len(a & o), "only_ours": len(o - a), "only_authors": len(a - o),
                                        "neither": len(halves["check"]) - len(a | o)}
        print(f"zipf >= {z:g}: fit {curve['ours'][f'{z:g}']['fit']:.3f}, check {curve['ours'][f'{z:g}']['check']:.3f}"
              f" ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    curve["chosen"] = closest_share(curve)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(curve, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    MD.write_text(table(curve), encoding="utf-8")
    print(table(curve))
    return 0


def table(curve: dict) -> str:
    chosen = f"{curve['chosen']:g}"
    lines = ["`python benchmarks/rodr_tense_table.py`", "",
             f"Queries: fit {curve['queries']['fit']}, check {curve['queries']['check']}. Authors' TransTense changed "
             f"share: fit {curve['authors']['fit']:.3f}, check {curve['authors']['check']:.3f}. Chosen on the fit "
             f"half: Zipf >= {chosen}.", "",
             "| lemma Zipf >= | changed, fit half | changed, check half | check: both | only ours | only authors |",
             "|---:|---:|---:|---:|---:|---:|"]
    for z, shares in sorted(curve["ours"].items(), key=lambda kv: float(kv[0])):
        ag = curve["agreement"][z]
        mark = " (chosen)" if z == chosen else (" (no proxy)" if float(z) == 0 else "")
        lines.append(f"| {z}{mark} | {shares['fit']:.3f} | {shares['check']:.3f} | {ag['both']} | {ag['only_ours']} | "
                     f"{ag['only_authors']} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
