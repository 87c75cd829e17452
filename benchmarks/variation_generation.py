"""Speed of the eight query-variation generators on 7,000 real queries, cold and warm cache.

    python benchmarks/variation_generation.py [--n 7000] [--seed 0] [--json OUT]

Queries (real text, distinct, in this order until ``--n``): Cranfield's 225 queries, chatterbot's
judged questions, the original queries and variations of Penha et al.'s CSVs, then sentences of
the Cranfield documents cut to 4-16 words (query-like lengths). Each run uses a fresh, empty
``$DRBENCH_HOME`` (so WordNet preparation and every variation are computed: *cold*), then runs the
same generation again in the same process (*warm*: every variation from the content cache).
Resource loading (spaCy, GloVe, WordNet, tables) is timed separately. Then all eight run once more
on a second empty cache as the product runs them (``generate_many``: BACKTRANS's Apertium round
trips in the background while the other seven run), timed as one wall-clock figure. Prints a JSON summary with
the 1-minute load average at start and end (the machine's 2 cores are shared: compare runs only
at similar load); numbers are measurements, never assertions.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import SHARED  # noqa: E402


def real_queries(n: int):
    seen, out = set(), []

    def add(text):
        text = " ".join(str(text).split())
        if text and text not in seen and len(out) < n:
            seen.add(text)
            out.append(text)

    with open(SHARED / "cranfield" / "queries.jsonl", encoding="utf-8") as fh:
        for line in fh:
            add(json.loads(line)["text"])
    from bench.data.collections import load_dataset

    ds = load_dataset("chatterbot")
    for q in ds.judged_query_ids():
        add(ds.queries[q].text)
    for name in ("variations_antique_labeled.csv", "variations_trec2019_labeled.csv"):
        with open(SHARED / "penha-variations" / name, encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh):
                add(row["original_query"])
                add(row["variation"])
    with open(SHARED / "cranfield" / "corpus.jsonl", encoding="utf-8") as fh:
        for line in fh:
            for sent in re.split(r"\s\.\s|\.\s", json.loads(line).get("text", "")):
                words = sent.split()
                if 4 <= len(words):
                    add(" ".join(words[:16]))
            if len(out) >= n:
                break
    return [(f"b{i}", t) for i, t in enumerate(out)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=7000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    home = tempfile.mkdtemp(prefix="drbench-bench-")
    os.environ["DRBENCH_HOME"] = home
    from perturb import PAPER_ORDER, make
    from perturb.io.cache import cached_perturb_batch

    items = real_queries(args.n)
    summary = {"queries": len(items), "seed": args.seed, "cpu_count": os.cpu_count(),
               "loadavg_1min_start": round(os.getloadavg()[0], 2), "generators": {}}
    t0 = time.perf_counter()
    gens = {name: make(name) for name in PAPER_ORDER}
    for gen in gens.values():
        gen.check()
        gen.perturb_batch(items[:3], args.seed + 1)  # load resources (another seed: nothing cached)
    summary["load_seconds"] = round(time.perf_counter() - t0, 2)
    cold_total = warm_total = 0.0
    for name, gen in gens.items():
        stats = {}
        t = time.perf_counter()
        out = cached_perturb_batch(gen, items, args.seed, stats)
        cold = time.perf_counter() - t
        wstats = {}
        t = time.perf_counter()
        again = cached_perturb_batch(gen, items, args.seed, wstats)
        warm = time.perf_counter() - t
        assert again == out
        cold_total += cold
        warm_total += warm
        summary["generators"][gen.label] = {
            "cold_seconds": round(cold, 2), "warm_seconds": round(warm, 3), "applied": sum(p.applied for p in out),
            "cold_misses": stats["misses"], "warm_misses": wstats["misses"]}
        print(f"{gen.label:26s} cold {cold:7.2f} s  warm {warm:6.3f} s  applied {summary['generators'][gen.label]['applied']:5d}"
              f"  warm misses {wstats['misses']}", flush=True)
    # as the product runs them (perturb.io.sets.generate_many): BACKTRANS's round trips start first
    # and overlap the other seven; a second fresh cache, resources already loaded as above
    from perturb.io.generation import generate_many

    os.environ["DRBENCH_HOME"] = tempfile.mkdtemp(prefix="drbench-bench-")
    t = time.perf_counter()
    sets = generate_many(PAPER_ORDER, items, [args.seed])
    summary["pipelined_cold_seconds"] = round(time.perf_counter() - t, 2)
    summary["pipelined_same_as_one_by_one"] = all(
        vs[0].texts == [p.text for p in cached_perturb_batch(gens[n], items, args.seed)] for n, vs in sets.items())
    print(f"all eight as the product runs them (BACKTRANS overlapping): cold {summary['pipelined_cold_seconds']:.2f} s,"
          f" same output: {summary['pipelined_same_as_one_by_one']}", flush=True)
    summary["loadavg_1min_end"] = round(os.getloadavg()[0], 2)
    summary["cold_total_seconds"] = round(cold_total, 2)
    summary["warm_total_seconds"] = round(warm_total, 2)
    print(json.dumps(summary, indent=2))
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
