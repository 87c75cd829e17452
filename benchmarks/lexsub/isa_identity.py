"""Whether the synonym sets come out the same on CPUs with other vector instructions.

    python benchmarks/lexsub/isa_identity.py [--n 6980] [--isa native,avx2,sse]

MiniLM's float32 arithmetic takes other kernels on a CPU without AVX-512 (AVX2) or without AVX
(SSE): its states move by a few 1e-6 (``--states``: the largest difference over 512 queries). The
synonym sets read the states only through cosines rounded to 4 decimals and scores rounded to 4
decimals, so a set changes only where a value lies that close to a rounding boundary. This runs
SWAPSYN-GLOVE and SWAPSYN-WNET over the first ``--n`` MS MARCO dev (small) queries once per setting,
each in a fresh process with a fresh cache home, the kernels chosen by the libraries' own
environment variables (``MKL_ENABLE_INSTRUCTIONS``, ``ATEN_CPU_CAPABILITY``, ``ONEDNN_MAX_CPU_ISA``;
on a CPU that lacks an instruction set its setting runs the CPU's own), and prints each set's
fingerprint (SHA-256 of its rows and config) per setting, the queries that differ from the first
setting, and the wall time.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

ISA = {"native": {},
       "avx2": {"MKL_ENABLE_INSTRUCTIONS": "AVX2", "ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"},
       "sse": {"MKL_ENABLE_INSTRUCTIONS": "SSE4_2", "ATEN_CPU_CAPABILITY": "default", "ONEDNN_MAX_CPU_ISA": "SSE41"}}
SETS = ("SWAPSYN-GLOVE", "SWAPSYN-WNET")


def once(n: int, out: Path) -> None:
    """The sets of the first ``n`` queries, written to ``out`` as JSON (fingerprint and rows per set)."""
    import numpy as np

    from benchmarks.common import msmarco_queries
    from perturb.generators.swapsyn import context
    from perturb.io.generation import generate_many

    items = msmarco_queries()[:n]
    probe = [(t, 0, len(t.split()[0])) for _, t in items[:512]]
    states = context.encode(probe)
    t0 = time.time()
    sets = generate_many(list(SETS), items, [0])
    wall = time.time() - t0
    got = {"wall_s": round(wall, 1), "states": [np.concatenate(states[k]).tolist() for k in sorted(states)]}
    for name, (vs, *_rest) in sets.items():
        got[name] = {"fingerprint": vs.fingerprint(), "rows": list(zip(vs.qids, vs.texts, vs.details))}
    out.write_text(json.dumps(got), encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=6980)
    ap.add_argument("--isa", default="native,avx2,sse", help="settings, from " + ",".join(ISA))
    ap.add_argument("--once", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.once is not None:
        once(args.n, args.once)
        return 0
    import numpy as np

    names = [s for s in args.isa.split(",") if s]
    unknown = [s for s in names if s not in ISA]
    if unknown:
        ap.error(f"--isa: unknown {', '.join(unknown)} (known: {', '.join(ISA)})")
    work = Path(tempfile.mkdtemp(prefix="drbench-isa-"))
    runs = {}
    for name in names:
        env = dict(os.environ, DRBENCH_HOME=str(work / name / "home"), PYTHONPATH=str(ROOT), **ISA[name])
        out = work / f"{name}.json"
        subprocess.run([sys.executable, __file__, "--once", str(out), "--n", str(args.n)], env=env, check=True)
        runs[name] = json.loads(out.read_text(encoding="utf-8"))
    first = names[0]
    ref_states = np.array(runs[first]["states"])
    for name in names:
        run = runs[name]
        moved = float(np.abs(np.array(run["states"]) - ref_states).max())
        cells = []
        for s in SETS:
            differ = sum(a != b for a, b in zip(runs[first][s]["rows"], run[s]["rows"]))
            cells.append(f"{s} {run[s]['fingerprint'][:12]} ({differ} of {args.n} queries differ from {first})")
        print(f"{name}: states moved up to {moved:.2g} from {first}; " + "; ".join(cells) + f"; wall {run['wall_s']} s",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
