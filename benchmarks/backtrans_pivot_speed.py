"""BACKTRANS alone on the 7,000 queries of benchmarks/variation_generation.py, for a list of
pivots: wall time and CPU time (this process and its apertium children), so pivot sets can be
compared on a shared machine (CPU seconds depend little on the load; wall seconds do).

    python benchmarks/backtrans_pivot_speed.py cat,epo,glg,spa [--n 7000]
"""
from __future__ import annotations

import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    pivots = sys.argv[1].split(",")
    n = int(sys.argv[sys.argv.index("--n") + 1]) if "--n" in sys.argv else 7000
    os.environ["DRBENCH_HOME"] = tempfile.mkdtemp(prefix="bt-speed-")
    from benchmarks.variation_generation import real_queries
    from perturb.generators.backtrans.generator import BackTranslate

    queries = real_queries(n)
    gen = BackTranslate(backend="apertium", pivots=pivots)
    load = os.getloadavg()[0]
    t0, c0 = time.time(), resource.getrusage(resource.RUSAGE_SELF)
    k0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = gen.perturb_batch(queries, 0)
    wall = time.time() - t0
    c1, k1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (c1.ru_utime - c0.ru_utime + c1.ru_stime - c0.ru_stime)
    child = (k1.ru_utime - k0.ru_utime + k1.ru_stime - k0.ru_stime)
    import hashlib

    digest = hashlib.sha256(json.dumps([[p.text, p.applied, p.detail] for p in out]).encode()).hexdigest()[:16]
    print(json.dumps({"pivots": pivots, "n": len(queries), "applied": sum(p.applied for p in out), "sha256": digest,
                      "wall_s": round(wall, 1), "cpu_self_s": round(cpu, 1), "cpu_apertium_s": round(child, 1),
                      "load_start": round(load, 2), "load_end": round(os.getloadavg()[0], 2)}))


if __name__ == "__main__":
    main()
