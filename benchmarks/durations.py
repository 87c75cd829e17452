"""How long the README's commands take: wall time and CPU-seconds of

* ``command1``: README command 1's run, ``bench evaluate --model minilm-l6 --suite variations``,
  from an empty cache (a fresh ``DRBENCH_HOME``: the eight variation sets generated, the corpus and
  every distinct query text encoded);
* ``fewshot-quick``: the README's quick few-shot recipe, ``bench evaluate --suite fewshot --ks 5
  --trials 1``, from an empty cache (basic learning included);
* ``fewshot-quick-warm``: the same again with the cache the previous stage left (basic learning
  and the corpus read from it);
* ``tests``: README command 2's test run, ``python -m pytest`` (the default markers);
* ``synonyms``: both synonym sets (SWAPSYN-GLOVE, SWAPSYN-WNET) on the 6,980 MS MARCO dev (small)
  queries from an empty cache, the pivot table's first build included (``benchmarks/lexsub/speed.py
  --once``: the product's ``generate_many``; the queries from ``../shared/data``).

Each stage runs as a child process; CPU-seconds are the children's user + system time
(``resource.getrusage(RUSAGE_CHILDREN)``, so Apertium and every other helper process a stage
waits for counts), wall time is the clock. The 1-minute load average before and after each stage
and the machine's CPU count are recorded with it: on a shared machine the wall time grows with the
load, and the CPU-seconds grow too. The latest idle and the latest shared measurement of each stage
are kept.

What drives each figure is recorded beside it (queries, documents, sets; K, trials, training
steps), so a reader can scale it to another collection.

    python benchmarks/durations.py [--stages command1,fewshot-quick,tests,synonyms]

writes ``benchmarks/results/durations.json`` (rows of stages not run this time are kept) and
``docs/durations.md`` (the table the README links, with the installed size of the
dependencies, :func:`installed_size`); ``--write-docs`` rewrites that page from the JSON without
measuring; every run folder and cache lives in a
temporary folder removed at the end.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional, Dict, List

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
    "synonyms": ("both synonym sets on the 6,980 MS MARCO dev (small) queries, empty cache",
                 ["python", "benchmarks/lexsub/speed.py", "--once"]),
}
_SPEED_LINE = re.compile(r"^(\d+) queries: .*texts through MiniLM (\d+), changed (\{.*\}), max RSS (\d+) MiB", re.M)


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _drivers(stage: str, out: Path, log: str) -> Dict[str, object]:
    """What the stage's time depends on, read from the run folder it wrote."""
    if stage == "tests":
        tail = [line for line in log.splitlines() if " passed" in line or " failed" in line]
        return {"summary": tail[-1].strip("= ") if tail else "?"}
    if stage == "synonyms":
        got = _SPEED_LINE.search(log)
        if got is None:
            return {}
        changed = dict(re.findall(r"'SWAPSYN-(\w+)': (\d+)", got.group(3)))
        return {"queries": int(got.group(1)), "texts through MiniLM": int(got.group(2)),
                "changed GLOVE/WNET": f"{changed.get('GLOVE', '?')}/{changed.get('WNET', '?')}",
                "max RSS MiB": int(got.group(4))}
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
    elif argv[0] == "python":  # a lab script of this repository
        cmd, cwd = [sys.executable] + argv[1:], ROOT
    else:
        cmd = BENCH + argv + ["--out", str(out), "--no-progress"]
        cwd = work
    load_before = os.getloadavg()[0]
    c0, t0 = _cpu(), time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, _cpu() - c0
    log = proc.stdout + proc.stderr
    shown = "python -m pytest" if argv is None else " ".join(argv if argv[0] == "python" else ["bench"] + argv)
    return {"stage": stage, "what": what, "command": shown,
            "exit_code": proc.returncode, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
            "load_1min_before": round(load_before, 1), "load_1min_after": round(os.getloadavg()[0], 1),
            "cpus": os.cpu_count(), "drivers": _drivers(stage, out, log),
            "log_tail": log.splitlines()[-3:] if proc.returncode else []}


def _mmss(s: float) -> str:
    return f"{int(s // 60)} min {int(round(s % 60)):02d} s" if s >= 60 else f"{s:.0f} s"


def machine(row: Dict[str, object]) -> str:
    """"idle" when the 1-minute load before the stage was below the CPU count, else "shared"."""
    if row.get("load_range"):
        return "shared" if float(str(row["load_range"]).split("-")[0]) >= float(row["cpus"]) else "idle"
    return "shared" if float(row["load_1min_before"]) >= float(row["cpus"]) else "idle"


def _load(row: Dict[str, object]) -> str:
    if row.get("load_range"):
        return f"{row['load_range']} ({row['cpus']} CPUs)"
    return f"{row['load_1min_before']} -> {row['load_1min_after']} ({row['cpus']} CPUs)"


def installed_size(root: str = "drbench") -> Dict[str, object]:
    """Size on disk of the distributions ``root`` pulls in (its default dependencies, no extras, and
    theirs), summed over the files each one's RECORD lists: what command 1's ``pip install .``
    adds to site-packages."""
    import re
    from importlib import metadata as md

    def norm(name: str) -> str:
        return re.sub(r"[-_.]+", "-", name).lower()

    def requires(name: str) -> List[str]:
        from packaging.markers import Marker

        out = []
        for req in md.distribution(name).requires or []:
            marker = req.split(";", 1)[1] if ";" in req else ""
            if marker.strip() and not Marker(marker).evaluate({"extra": ""}):
                continue  # an extra, or another platform's
            out.append(re.match(r"[A-Za-z0-9_.\-]+", req).group(0))
        return out

    seen, todo = set(), [root]
    while todo:
        name = todo.pop()
        try:
            md.distribution(name)
        except md.PackageNotFoundError:
            continue
        if norm(name) not in seen:
            seen.add(norm(name))
            todo += requires(name)
    seen.discard(norm(root))
    sizes = []
    for name in seen:
        dist = md.distribution(name)
        files = [Path(dist.locate_file(f)) for f in dist.files or []]
        sizes.append((sum(f.stat().st_size for f in files if f.is_file()), dist.metadata["Name"], dist.version))
    sizes.sort(reverse=True)
    return {"distributions": len(sizes), "mib": round(sum(x[0] for x in sizes) / 2 ** 20),
            "largest": [f"{n} {v} {b / 2 ** 20:.0f} MiB" for b, n, v in sizes[:4]]}


def table(rows: List[Dict[str, object]], install: Optional[Dict[str, object]] = None) -> List[str]:
    lines = ["| what | command | machine: load (1 min) | wall time | CPU-seconds | drives it |",
             "|---|---|---|---:|---:|---|"]
    if install:
        lines.append(f"| command 1's Python install: what drbench pulls into site-packages | `pip install torch==2.13.0 && "
                     f"pip install .` | - | not measured here | - | {install['mib']:,} MiB installed, "
                     f"{install['distributions']} distributions; largest {'; '.join(install['largest'])} |")
    for r in rows:
        drivers = ", ".join(f"{k} {v}" for k, v in (r.get("drivers") or {}).items() if v not in (None, "", []))
        if r.get("source"):
            drivers = f"{drivers}; {r['source']}" if drivers else str(r["source"])
        wall = "not recorded" if r.get("wall_s") is None else _mmss(float(r["wall_s"]))
        lines.append(f"| {r['what']} | `{r['command']}` | {machine(r)}: {_load(r)} | {wall} | "
                     f"{float(r['cpu_s']):.0f} | {drivers} |")
    return lines


INTRO = ("Measured by `python benchmarks/durations.py` (the numbers of `benchmarks/results/durations.json`; "
         "`--write-docs` rewrites this page from it and measures the installed size). Each stage runs as a "
         "child process; CPU-seconds are its user + system time, wall time is the clock. A row is *idle* "
         "when the 1-minute load before it was below the CPU count, *shared* otherwise (other jobs ran); the "
         "table keeps the latest idle and the latest shared measurement of each stage. Both grow with the load, "
         "the wall time most and the CPU-seconds too (compare a stage's idle and shared rows): the jobs share "
         "caches and memory bandwidth. The right column is what a figure grows with.")


def render(rows: List[Dict[str, object]], install: Optional[Dict[str, object]]) -> str:
    return "\n".join(["# How long drbench's commands take", "", INTRO, ""] + table(rows, install) + [""])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stages", default="command1,fewshot-quick,fewshot-quick-warm,tests,synonyms",
                    help=f"comma-separated, from {', '.join(STAGES)}")
    ap.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "durations.json")
    ap.add_argument("--md", type=Path, default=ROOT / "docs" / "durations.md")
    ap.add_argument("--write-docs", action="store_true", help="rewrite --md from --json (and the installed size) "
                    "without measuring")
    args = ap.parse_args(argv)
    if args.write_docs:
        args.md.write_text(render(json.loads(args.json.read_text(encoding="utf-8")), installed_size()), encoding="utf-8")
        return 0
    stages = [s.strip() for s in args.stages.split(",") if s.strip()]
    unknown = [s for s in stages if s not in STAGES]
    if unknown:
        ap.error(f"unknown stage(s) {unknown}; choose from {', '.join(STAGES)}")
    rows = []
    work = Path(tempfile.mkdtemp(prefix="drbench-durations-"))
    try:
        home = work / "home"  # empty at the first stage; the warm stage reuses what the others left
        for stage in stages:
            if stage in ("command1", "fewshot-quick", "synonyms") and home.exists():
                shutil.rmtree(home)  # a cold stage starts from an empty cache
            row = run_stage(stage, work, home)
            rows.append(row)
            print(json.dumps(row), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    now = {(r["stage"], machine(r)) for r in rows}
    try:  # the latest idle and shared measurement of each stage is kept (a stage run now replaces its kind)
        kept = [r for r in json.loads(args.json.read_text(encoding="utf-8")) if (r["stage"], machine(r)) not in now]
    except (OSError, ValueError):
        kept = []
    rows = sorted(kept + rows, key=lambda r: (list(STAGES).index(r["stage"]), machine(r) != "idle"))
    args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    args.md.write_text(render(rows, installed_size()), encoding="utf-8")
    print("\n".join(table(rows)))
    return 0 if all(r["exit_code"] == 0 for r in rows if (r["stage"], machine(r)) in now) else 1

if __name__ == "__main__":
    sys.exit(main())
