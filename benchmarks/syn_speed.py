"""Cost of the verified SWAPSYN-WNET (round 6) beside the rule-based one, on the 7,000 queries of
benchmarks/variation_generation.py, in the order that benchmark runs them (SWAPSYN-GLOVE first, so
WordNet, GloVe and spaCy are loaded before either WNET runs). Wall and process CPU seconds, with
the 1-minute load average (the 2 cores are shared: compare CPU seconds).

    python benchmarks/syn_speed.py [--n 7000]
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv):
    n = int(argv[argv.index("--n") + 1]) if "--n" in argv else 7000
    from benchmarks.variation_generation import real_queries
    from perturb import make
    from perturb.generators.swapsyn.wordnet import SwapSynWordNet

    items = [(str(i), t) for i, (_, t) in enumerate(real_queries(n))]
    print("load average at start", os.getloadavg()[0])
    for label, gen in (("SWAPSYN-GLOVE (main's)", make("SWAPSYN-GLOVE")), ("SWAPSYN-WNET rules (before)", SwapSynWordNet()),
                       ("SWAPSYN-WNET verified (after)", make("SWAPSYN-WNET"))):
        t, c = time.time(), time.process_time()
        out = gen.perturb_batch(items, 0)
        print(f"{label}: {time.time() - t:.1f} s wall, {time.process_time() - c:.1f} s CPU, applied {sum(p.applied for p in out)}/{len(items)}",
              flush=True)
    print("load average at end", os.getloadavg()[0])


if __name__ == "__main__":
    main(sys.argv[1:])
