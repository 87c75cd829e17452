"""Where BACKTRANS's time goes on the 7,000 queries of benchmarks/variation_generation.py: each
apertium process call (mode and stage: the deformatter, the analysis steps before the tagger, the
tagger's reading-set check, the tagger and the rest of the mode) with its wall and CPU seconds (the
child's own rusage from ``wait4``), the round trips' wall time, and the Python scoring after them.

    python benchmarks/backtrans_profile.py [--n 7000] [--cprofile]
"""
from __future__ import annotations

import collections
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    n = int(sys.argv[sys.argv.index("--n") + 1]) if "--n" in sys.argv else 7000
    os.environ["DRBENCH_HOME"] = tempfile.mkdtemp(prefix="bt-prof-")
    from benchmarks.variation_generation import real_queries
    from perturb.generators.backtrans import score as backtrans_score
    from perturb.generators.backtrans.generator import BackTranslate
    from perturb.resources.translators import ApertiumTranslator

    stats = collections.defaultdict(lambda: [0, 0.0, 0.0])
    lock = threading.Lock()

    def _call(self, mode, data, command=None):
        cmd = command or [self.executable, mode]
        stage = "tagger -d check" if "-d" in cmd and cmd[0] == "apertium-tagger" else \
            "tagger+rest" if cmd[0] == "bash" else cmd[0] if command else "whole mode"
        t0 = time.time()
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = p.communicate(data.encode("utf-8"))
        _, status, ru = os.wait4(p.pid, 0) if p.returncode is None else (0, 0, None)
        wall = time.time() - t0
        with lock:
            s = stats[(mode, stage)]
            s[0] += 1
            s[1] += wall
        return subprocess.CompletedProcess(cmd, p.returncode, out, err)

    # rusage per child: run each command under /usr/bin/time-like accounting via RUSAGE_CHILDREN deltas is
    # not per thread, so CPU is measured per stage in a second, serial pass below
    ApertiumTranslator._call = _call
    queries = real_queries(n)
    gen = BackTranslate(backend="apertium")
    texts = [t for _, t in queries]
    sent = [t.lower() if __import__("perturb.resources.words", fromlist=["case_style"]).case_style(t) in ("upper", "title") else t
            for t in texts]
    t0 = time.time()
    keep = os.environ.get("DRBENCH_BT_PROFILE_TRIPS")  # optional: reuse (or save) the round trips
    if keep and Path(keep).is_file():
        trips = json.loads(Path(keep).read_text())
        backtrans_score.warm()
    else:
        trips = gen._round_trips(sent, warm=backtrans_score.warm)
        if keep:
            Path(keep).write_text(json.dumps(trips))
    t_trips = time.time() - t0
    c1 = time.process_time()
    import cProfile
    import pstats

    prof = cProfile.Profile() if "--cprofile" in sys.argv else None
    t1 = time.time()
    if prof:
        prof.enable()
    digest = hashlib.sha256()
    for i, (text, s) in enumerate(zip(texts, sent)):
        cands = gen.verified_candidates(text, s, {p: r[i] for p, r in trips.items()})
        digest.update(repr([(c.text, c.score, sorted(c.pivots)) for c in cands]).encode())
    if prof:
        prof.disable()
    t_score = time.time() - t1
    print(json.dumps({"n": len(texts), "round_trips_wall_s": round(t_trips, 1), "scoring_s": round(t_score, 1),
                      "scoring_cpu_s": round(time.process_time() - c1, 1),
                      "candidates_sha": digest.hexdigest()[:16], "load": os.getloadavg()[0]}))
    for (mode, stage), (k, wall, _) in sorted(stats.items(), key=lambda kv: -kv[1][1]):
        print(f"{mode:10s} {stage:16s} calls {k:3d} wall {wall:6.1f}s")
    if prof:
        pstats.Stats(prof).sort_stats("cumulative").print_stats(30)


if __name__ == "__main__":
    main()
