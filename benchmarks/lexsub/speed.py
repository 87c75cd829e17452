"""Generation time of both synonym sets on the 6,980 MS MARCO dev (small) queries, cold then warm.

    python benchmarks/lexsub/speed.py [--n 6980] [--home DIR]

Cold: a fresh cache home (``--home``, default a new temporary folder: no variation cache, no pivot
table, nothing memoised in the process) and ``generate_many`` of SWAPSYN-GLOVE and SWAPSYN-WNET, as
the product runs them; warm: the same in a second process on the same cache home (it reads the
variation cache). Prints wall and CPU seconds (user + system, all threads), how many texts went
through MiniLM and how many texts the sets chose a swap for (a warm run that reads every variation
from the cache still re-picks the queries the word-share cap sends back: those are the ones it
encodes), and the machine's load average (other work on the machine slows both)."""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def once(n: int) -> None:
    from benchmarks.common import msmarco_queries
    from perturb.generators.swapsyn import context
    from perturb.io.generation import generate_many

    items = msmarco_queries()[:n]
    encoded, choose = {}, context.encode

    def counting(batch):
        encoded["texts"] = encoded.get("texts", 0) + len(set(batch))
        return choose(batch)

    context.encode = counting
    t0, c0 = time.time(), time.process_time()
    sets = generate_many(["SWAPSYN-GLOVE", "SWAPSYN-WNET"], items, [0])
    wall, cpu = time.time() - t0, time.process_time() - c0
    changed = {k: sum(v[0].applied) for k, v in sets.items()}
    print(f"{len(items)} queries: wall {wall:.1f} s, CPU {cpu:.1f} s, texts through MiniLM {encoded.get('texts', 0)}, changed {changed}, "
          f"max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MiB, load {os.getloadavg()}",
          flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=6980)
    ap.add_argument("--home", default=None)
    ap.add_argument("--once", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.once:
        once(args.n)
        return 0
    home = args.home or tempfile.mkdtemp(prefix="drbench-swapsyn-speed-")
    env = dict(os.environ, DRBENCH_HOME=home, PYTHONPATH=str(ROOT))
    for label in ("cold", "warm"):
        print(f"{label} (load before: {os.getloadavg()})", flush=True)
        subprocess.run([sys.executable, __file__, "--once", "--n", str(args.n)], env=env, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
