"""How long the README's commands take: wall time and CPU-seconds of

* ``command1``: README command 1's run, ``bench evaluate --model minilm-l6 --suite variations``,
  from an empty cache (a fresh ``DRBENCH_HOME``: the eight variation sets generated, the corpus and
  every distinct query text encoded);
* ``fewshot-quick``: the README's quick few-shot recipe, ``bench evaluate --suite fewshot --ks 5
  --trials 1``, from an empty cache (basic learning included);
* ``fewshot-quick-warm``: the same again with the cache the previous stage left (basic learning
  and the corpus read from it);
* ``tests``: README command 2's test run, ``python -m pytest`` (the default markers).

Each stage runs as a child process; CPU-seconds are the children's user + system time
(``resource.getrusage(RUSAGE_CHILDREN)``, so Apertium and every other helper process a stage
waits for counts), wall time is the clock. The 1-minute load average before and after each stage
and the machine's CPU count are recorded with it: on a shared machine the wall time grows with the
load, the CPU-seconds much less. On an idle 2-core machine the wall time lies between the
CPU-seconds divided by 2 (both cores busy: torch encodes and trains on both) and the CPU-seconds
(one busy core: generation, I/O, Python).

What drives each figure is recorded beside it (queries, documents, sets; K, trials, training
steps), so a reader can scale it to another collection.

    python benchmarks/durations.py [--stages command1,fewshot-quick,tests]

writes ``benchmarks/results/durations.json`` (rows of stages not run this time are kept) and
``docs/durations.md`` (the table the README quotes); every run folder and cache lives in a
temporary folder removed at the end.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

ROOT = Path(__file__).resolve().parents[1]
BENCH = [sys.executable, "-c", "import sys; from bench.cli import main; sys.exit(main())"]

STAGES = {
    "command1": ("README command 1's run (variations, minilm-l6, chatterbot), empty cache",
                 ["evaluate", "--model", "minilm-l6", "--suite", "variations"]),
    "fewshot-quick": ("quick few-shot recipe (--ks 5 --trials 1), empty cache",
                      ["evaluate", "--model", "minilm-l6", "--suite", "fewshot", "--ks", "5", "--trials", "1"]),
    "fewshot-quick-warm": ("the same recipe again, cache warm (basic learning and corpus cached)",
                           ["evaluate", "--model", "minilm-l6", "--suite", "fewshot", "--ks", "5", "--trials", "1"]),
    "tests": ("README command 2's test run (python -m pytest, default markers)", None),
}


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _drivers(stage: str, out: Path, log: str) -> Dict[str, object]:
    """What the stage's time depends on, read from the run folder it wrote."""
    if stage == "tests":
        tail = [line for line in log.splitlines() if " passed" in line or " failed" in line]
        return {"summary": tail[-1].strip("= ") if tail else "?"}
    try:
        r = json.loads((out / "result.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    d = r.get("dataset") or {}
    got: Dict[str, object] = {"queries": d.get("n_judged_queries") or d.get("n_queries"), "documents": d.get("n_docs")}
    try:
        t = json.loads((out / "timings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        t = {}
    enc = t.get("encoding") or {}
    if stage == "command1":
        got["sets"] = len(r.get("sets") or []) - 1
        got["passages encoded"] = enc.get("passages_encoded")
        got["distinct query texts encoded"] = enc.get("queries_encoded")
    else:
        p = r.get("protocol") or {}
        got.update({"K": ",".join(map(str, p.get("ks") or [])), "trials": p.get("n_trials"),
                    "methods": ",".join(p.get("methods") or []), "full-shot": p.get("full_shot"),
                    "basic learning reused": t.get("basic_learning_reused")})
    seconds = t.get("seconds") or {}
    if seconds:  # the three longest parts, as timings.json names them
        top = sorted(seconds.items(), key=lambda kv: -float(kv[1]))[:3]
        got["longest parts"] = "; ".join(f"{k} {float(v):.0f} s" for k, v in top)
    return got


def run_stage(stage: str, work: Path, home: Path) -> Dict[str, object]:
    what, argv = STAGES[stage]
    env = dict(os.environ, DRBENCH_HOME=str(home), PYTHONPATH=str(ROOT))
    out = work / stage
    if argv is None:
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        cwd = ROOT
    else:
        cmd = BENCH + argv + ["--out", str(out), "--no-progress"]
        cwd = work
    load_before = os.getloadavg()[0]
    c0, t0 = _cpu(), time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, _cpu() - c0
    log = proc.stdout + proc.stderr
    return {"stage": stage, "what": what, "command": " ".join(["bench"] + argv) if argv else "python -m pytest",
            "exit_code": proc.returncode, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
            "load_1min_before": round(load_before, 1), "load_1min_after": round(os.getloadavg()[0], 1),
            "cpus": os.cpu_count(), "drivers": _drivers(stage, out, log),
            "log_tail": log.splitlines()[-3:] if proc.returncode else []}


def _mmss(s: float) -> str:
    return f"{int(s // 60)} min {int(round(s % 60)):02d} s" if s >= 60 else f"{s:.0f} s"


def table(rows: List[Dict[str, object]]) -> List[str]:
    lines = ["| what | command | wall time | CPU-seconds | idle 2-core estimate | load (1 min) before / after | "
             "drives it |", "|---|---|---:|---:|---:|---|---|"]
    for r in rows:
        cpu = float(r["cpu_s"])
        drivers = ", ".join(f"{k} {v}" for k, v in (r.get("drivers") or {}).items() if v not in (None, "", []))
        lines.append(f"| {r['what']} | `{r['command']}` | {_mmss(float(r['wall_s']))} | {cpu:.0f} | "
                     f"{_mmss(cpu / 2)} - {_mmss(cpu)} | {r['load_1min_before']} / {r['load_1min_after']} "
                     f"({r['cpus']} CPUs) | {drivers} |")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stages", default="command1,fewshot-quick,fewshot-quick-warm,tests",
                    help=f"comma-separated, from {', '.join(STAGES)}")
    ap.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "durations.json")
    ap.add_argument("--md", type=Path, default=ROOT / "docs" / "durations.md")
    args = ap.parse_args(argv)
    stages = [s.strip() for s in args.stages.split(",") if s.strip()]
    unknown = [s for s in stages if s not in STAGES]
    if unknown:
        ap.error(f"unknown stage(s) {unknown}; choose from {', '.join(STAGES)}")
    rows = []
    work = Path(tempfile.mkdtemp(prefix="drbench-durations-"))
    try:
        home = work / "home"  # empty at the first stage; the warm stage reuses what the others left
        for stage in stages:
            if stage in ("command1", "fewshot-quick") and home.exists():
                shutil.rmtree(home)  # a cold stage starts from an empty cache
            row = run_stage(stage, work, home)
            rows.append(row)
            print(json.dumps(row), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    try:  # stages measured before and not now are kept (the table shows every stage, each with its load)
        kept = [r for r in json.loads(args.json.read_text(encoding="utf-8")) if r["stage"] not in stages]
    except (OSError, ValueError):
        kept = []
    rows = sorted(kept + rows, key=lambda r: list(STAGES).index(r["stage"]))
    args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    md = ["# How long the README's commands take", "",
          "Measured by `python benchmarks/durations.py` (the numbers of `benchmarks/results/durations.json`). "
          "Wall time is what the machine gave, at the load shown (a shared machine: other jobs ran); "
          "CPU-seconds are the work itself and move far less with the load. On an idle 2-core machine the wall "
          "time lies between the CPU-seconds / 2 (both cores busy: encoding, training) and the CPU-seconds (one "
          "core: generation, Python); the column gives that range. The right column is what the time grows with.",
          ""] + table(rows) + [""]
    args.md.write_text("\n".join(md), encoding="utf-8")
    print("\n".join(table(rows)))
    return 0 if all(r["exit_code"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
