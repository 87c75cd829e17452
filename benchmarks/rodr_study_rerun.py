"""Numbers of results/rodr-study/README.md after a re-run, with the previous round's beside them.

Usage:
    python benchmarks/rodr_study_rerun.py NEW_DIR OLD_DIR [--round 7] [--changed SWAPWORDS] [--seeds 0 1 2] [--oq]

NEW_DIR and OLD_DIR each hold the study's files (run folders, training/*.json, drop_rate-*.csv,
heldout_queries-*.txt, compare-*.md); OLD_DIR is the previous round's, e.g. extracted with
``git archive <commit> results/rodr-study | tar -x -C /tmp/old``. ``--round`` names the new round
in the headings; ``--changed`` the sets whose generators changed in it (round 6: BACKTRANS
SWAPSYN-WNET SWAPWORDS; round 7: SWAPWORDS).

Prints: the MRR@10 table (ORIGINAL / VARIATIONS (AVG.) / drop rate of the average), the
drop-rate pairs, the significance markers of the compare tables, queries changed per set, whether
the held-out query files are identical, whether each training loss sequence equals the previous
round's, and the drop rate of the mean over the sets whose generators did not change.
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

MODELS = [("minilm", "minilm-l6"), ("dr", "dr"), ("dr-qv", "dr-qv"), ("rodr", "rodr")]
PAIRS = [("dr", "rodr"), ("dr", "dr-qv"), ("dr-qv", "rodr"), ("minilm-l6", "dr"), ("minilm-l6", "rodr")]


def result(root: Path, run: str) -> dict:
    return json.loads((root / run / "result.json").read_text())


def headline(res: dict) -> tuple[float, float, float]:
    orig = next(s for s in res["sets"] if s["name"] == "ORIGINAL")["metrics"]["MRR@10"]
    avg = res["summary"]["VARIATIONS (AVG.)"]
    return orig, avg["metrics"]["MRR@10"], avg["drop_rate"]["MRR@10"]


def per_query(root: Path, run: str) -> dict[tuple[str, str], float]:
    with open(root / run / "per_query.csv", newline="") as f:
        return {(r["set"], r["qid"]): float(r["MRR@10"]) for r in csv.DictReader(f)}


def drop_of_mean(pq: dict[tuple[str, str], float], sets: list[str]) -> float:
    qids = sorted({q for (s, q) in pq if s == "ORIGINAL"})
    orig = sum(pq[("ORIGINAL", q)] for q in qids) / len(qids)
    var = sum(sum(pq[(s, q)] for q in qids) / len(qids) for s in sets) / len(sets)
    return (orig - var) / orig


def drop_pairs(root: Path, name: str) -> dict[tuple[str, str], dict]:
    with open(root / f"drop_rate-{name}.csv", newline="") as f:
        return {(r["model_a"], r["model_b"]): r for r in csv.DictReader(f)}


def fmt_pair(r: dict) -> str:
    return (f"{100 * float(r['difference']):+.1f} [{100 * float(r['ci_low']):+.1f}, "
            f"{100 * float(r['ci_high']):+.1f}], p {float(r['p_value']):.2f}, "
            f"corrected {float(r['p_corrected']):.2f}")


def markers(root: Path, name: str) -> dict[str, str]:
    out = {}
    lines = (root / f"compare-{name}.md").read_text().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("| model | ORIGINAL"))
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        out[cells[0]] = "".join(ch for c in cells[1:] for ch in c if ch in "†‡▼▲") or "-"
    return out


def losses(path: Path) -> list[float]:
    return [x["loss"] for x in json.loads(path.read_text())["log"]["losses"]]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("new", type=Path)
    ap.add_argument("old", type=Path)
    ap.add_argument("--seeds", nargs="+", default=["0", "1", "2"])
    ap.add_argument("--oq", action="store_true", help="also the from-DR_OQ case (seed 0)")
    ap.add_argument("--round", type=int, default=7, help="the new round (headings)")
    ap.add_argument("--changed", nargs="+", default=["SWAPWORDS"], help="sets whose generators changed")
    a = ap.parse_args()
    CHANGED = set(a.changed)

    print(f"## MRR@10: ORIGINAL / VARIATIONS (AVG.) / drop rate (round {a.round - 1} -> round {a.round})")
    for run, label in MODELS:
        cells = []
        for s in a.seeds:
            o = headline(result(a.old, f"{run}-heldout-s{s}"))
            n = headline(result(a.new, f"{run}-heldout-s{s}"))
            cells.append(f"{o[0]:.4f}/{o[1]:.4f}/{100 * o[2]:.1f}% -> "
                         f"{n[0]:.4f} / {n[1]:.4f} / {100 * n[2]:.1f}%")
        print(f"| {label} | " + " | ".join(cells) + " |")

    print("\n## drop-rate pairs (difference pts [95% CI], p, Holm)")
    for pa, pb in PAIRS:
        for s in a.seeds:
            o = drop_pairs(a.old, f"s{s}")[(pa, pb)]
            n = drop_pairs(a.new, f"s{s}")[(pa, pb)]
            print(f"{pa} -> {pb} s{s}: {fmt_pair(o)}  ->  {fmt_pair(n)}")

    print("\n## compare markers (row: markers on any set; † ‡ = vs baseline)")
    for s in a.seeds:
        print(f"s{s}: old {markers(a.old, f's{s}')}\n    new {markers(a.new, f's{s}')}")

    print(f"\n## queries changed per set (n_applied), round {a.round - 1} -> round {a.round}")
    for s in a.seeds:
        o = {x["name"]: x["n_applied"] for x in result(a.old, f"dr-heldout-s{s}")["sets"]}
        n = {x["name"]: x["n_applied"] for x in result(a.new, f"dr-heldout-s{s}")["sets"]}
        print(f"s{s}: " + ", ".join(f"{k} {o[k]}->{n[k]}" for k in n if k != "ORIGINAL"))

    print(f"\n## held-out query files identical to round {a.round - 1}'s")
    for s in a.seeds:
        f = f"heldout_queries-s{s}.txt"
        print(f"s{s}: {(a.old / f).read_bytes() == (a.new / f).read_bytes()}")

    print(f"\n## training loss sequences equal to round {a.round - 1}'s (exact float equality)")
    recipes = ["dr", "dr-qv", "rodr"]
    for s in a.seeds:
        for r in recipes:
            o, n = losses(a.old / "training" / f"{r}-s{s}.json"), losses(a.new / "training" / f"{r}-s{s}.json")
            first = next((i for i, (x, y) in enumerate(zip(o, n)) if x != y), None)
            print(f"{r}-s{s}: equal={o == n} steps {len(o)}/{len(n)} first differing step {first} "
                  f"last loss {o[-1]:.6f} -> {n[-1]:.6f}")

    print(f"\n## per-query scores on the sets unchanged in round {a.round}, and drop rate of their mean")
    for s in a.seeds:
        for run, label in MODELS:
            po, pn = per_query(a.old, f"{run}-heldout-s{s}"), per_query(a.new, f"{run}-heldout-s{s}")
            sets = sorted({k[0] for k in pn} - CHANGED - {"ORIGINAL"})
            same = all(po[k] == pn[k] for k in pn if k[0] not in CHANGED)
            orig_same = all(po[k] == pn[k] for k in pn if k[0] == "ORIGINAL")
            print(f"s{s} {label}: ORIGINAL identical {orig_same}; unchanged sets identical {same}; "
                  f"drop of mean over {len(sets)} unchanged sets "
                  f"{100 * drop_of_mean(po, sets):.2f}% -> {100 * drop_of_mean(pn, sets):.2f}%; "
                  f"over the {len(CHANGED)} changed sets "
                  f"{100 * drop_of_mean(po, sorted(CHANGED)):.2f}% -> "
                  f"{100 * drop_of_mean(pn, sorted(CHANGED)):.2f}%")

    if a.oq:
        print("\n## from-DR_OQ, seed 0")
        o = headline(result(a.old, "rodr-oq-heldout-s0"))
        n = headline(result(a.new, "rodr-oq-heldout-s0"))
        print(f"rodr-from-dr-oq: {o[0]:.4f}/{o[1]:.4f}/{100 * o[2]:.1f}% -> {n[0]:.4f}/{n[1]:.4f}/{100 * n[2]:.1f}%")
        for k, r in drop_pairs(a.new, "from-dr-oq-s0").items():
            ro = drop_pairs(a.old, "from-dr-oq-s0")[k]
            print(f"{k[0]} -> {k[1]}: {fmt_pair(ro)}  ->  {fmt_pair(r)}")
        print(f"markers old {markers(a.old, 'from-dr-oq-s0')}\n        new {markers(a.new, 'from-dr-oq-s0')}")
        o, n = losses(a.old / "training" / "rodr-from-dr-oq-s0.json"), losses(a.new / "training" / "rodr-from-dr-oq-s0.json")
        print(f"rodr-from-dr-oq-s0 loss equal={o == n}")


if __name__ == "__main__":
    main()
