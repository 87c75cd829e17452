"""How many candidates per query the cheap model should keep for the MiniLM pass (``prune`` in
``chooser.json``): what each setting changes, and what it costs.

    python benchmarks/lexsub/prune.py [--prunes 8,4,5,6,4/1] [--n 200] [--seed 0] [--msmarco 2000] [--md FILE]

A setting ``P`` keeps a query's ``P`` best candidates by cheap score; ``P/T`` keeps ``P``, or ``T`` per
target of the query if that is more (``prune`` and ``prune_per_target`` in ``chooser.json``). Per setting
(each in a fresh process with an empty cache home, so nothing encoded for one setting
serves another), both synonym sets as shipped except that setting:

* **queries**: ``benchmarks/variation_substance.py``'s five styles (``--n`` each, seed ``--seed``) and
  the first ``--msmarco`` MS MARCO dev (small) questions, each style one batch with the word cap:
  the share changed, and the queries whose variation (text and detail) differs from the first
  setting's (the reference, the shipped one by default);
* **blind4**: of the labelled pairs of ``benchmarks/data/validity/blind4`` (the blind sample of the
  shipped sets), how many the set still makes (its pick on the original, without the word cap) and
  how many of those the labeller judged valid;
* **SWORDS dev**: ``bench perturb --lexsub``'s coverage and precision (acceptable = at least half of
  the annotators) on the development split;
* **MiniLM texts**: the distinct texts encoded for all of the above (what the MiniLM time grows with;
  the wall time of one run on this shared machine is printed, not reported: ``speed.py`` times).

Writes ``benchmarks/results/swapsyn_prune.md``. Numbers are measurements, never assertions.
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

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

MD = ROOT / "benchmarks" / "results" / "swapsyn_prune.md"
SETS = ("SWAPSYN-GLOVE", "SWAPSYN-WNET")
BLIND4 = ROOT / "benchmarks" / "data" / "validity" / "blind4"
SWORDS = ROOT.parent / "shared" / "data" / "swords" / "swords-v1.1_dev.json.gz"


def _blind4() -> list:
    """(set, original, variation, valid) of every labelled pair of blind4 (``check_fit.labelled_rows``)."""
    from benchmarks.lexsub.check_fit import labelled_rows

    return [(r["set"], r["original"], r["variation"], r["valid"]) for r in labelled_rows([BLIND4])]


def one(setting: str, n: int, seed: int, msmarco: int) -> dict:
    """Everything measured at one setting (``P`` or ``P/T``), in this process."""
    from benchmarks.common import msmarco_queries
    from benchmarks.variation_substance import styles
    from perturb import make
    from perturb.checks.lexsub import read_lexsub, summary
    from perturb.generators.swapsyn import chooser, context

    prune, _, per_target = setting.partition("/")
    model = chooser.load_model()  # memoised: every generator below reads the two values set here
    model["prune"], model["prune_per_target"] = int(prune), int(per_target or 0)
    encoded, encode = [0], context.encode

    def counting(items):
        encoded[0] += len(set(items))
        return encode(items)

    context.encode = counting
    t0 = time.time()
    batches = dict(styles(n, seed))
    batches[f"MS MARCO first {msmarco}"] = [t for _, t in msmarco_queries()[:msmarco]]
    out = {"prune": setting, "queries": {}, "blind4": {}, "swords": {}}
    labelled = _blind4()
    lex = read_lexsub(SWORDS)
    for name in SETS:
        gen = make(name)
        for style, texts in batches.items():
            done = gen.cap_set(texts, gen.perturb_batch([(f"q{i}", t) for i, t in enumerate(texts)], seed))
            out["queries"][f"{name}|{style}"] = [[r.text, r.detail] if r.applied else None for r in done]
        mine = [(o, v, ok) for s, o, v, ok in labelled if s == name]
        picks = gen.perturb_batch([(f"b{i}", o) for i, (o, _, _) in enumerate(mine)], seed)
        kept = [ok for (o, v, ok), p in zip(mine, picks) if p.applied and p.text == v]
        out["blind4"][name] = [len(mine), len(kept), sum(kept)]
        rows = summary(lex, gen.lexsub(lex.targets))
        out["swords"][name] = {r["pos"]: [r["targets"], r["picks"], r["judged"], r["acceptable"]] for r in rows}
    out["texts"], out["wall"] = encoded[0], time.time() - t0
    return out


def _pct(k: int, n: int) -> str:
    return f"{100.0 * k / n:.1f}%" if n else "-"


def _query_rows(runs: list, ref: dict) -> list:
    keys = list(ref["queries"])
    styles_ = list(dict.fromkeys(k.split("|", 1)[1] for k in keys))
    lines = ["| prune | set | " + " | ".join(styles_) + " |", "|---:|---|" + "---|" * len(styles_)]
    for run in runs:
        for name in SETS:
            cells = []
            for style in styles_:
                mine, base = run["queries"][f"{name}|{style}"], ref["queries"][f"{name}|{style}"]
                changed = sum(r is not None for r in mine)
                differ = sum(a != b for a, b in zip(mine, base))
                cells.append(f"{_pct(changed, len(mine))} ({differ} differ)")
            lines.append(f"| {run['prune']} | {name} | " + " | ".join(cells) + " |")
    return lines


def _other_rows(runs: list) -> list:
    from bench.evaluation.intervals import wilson_ci

    lines = ["| prune | set | blind4 pairs still made | valid of those | SWORDS coverage (all) | SWORDS precision (all) | "
             "noun+verb coverage | MiniLM texts (whole run) |",
             "|---:|---|---:|---|---:|---|---:|---:|"]
    for run in runs:
        for name in SETS:
            total, made, valid = run["blind4"][name]
            lo, hi = wilson_ci(valid, made) if made else (float("nan"), float("nan"))
            sw = run["swords"][name]
            n, k, judged, good = sw["all"]
            nv = [sw[p] for p in sw if p in ("NOUN", "VERB")]
            nv_cov = _pct(sum(r[1] for r in nv), sum(r[0] for r in nv))
            prec = f"{good}/{judged} = {good / judged:.3f}" if judged else "-"
            lines.append(f"| {run['prune']} | {name} | {made}/{total} | {valid}/{made} = {_pct(valid, made)} "
                         f"({100 * lo:.1f}-{100 * hi:.1f}%) | {_pct(k, n)} | {prec} | {nv_cov} | {run['texts']:,} |")
    return lines


def _shipped(model: dict) -> str:
    per_target = int(model.get("prune_per_target", 0))
    return f"{model['prune']}/{per_target}" if per_target else str(model["prune"])


def report(runs: list, argv: str) -> str:
    from perturb.generators.swapsyn import chooser

    ref = runs[0]
    return "\n".join([
        "# How many candidates per query go through MiniLM (`prune`)", "", f"`{argv}`", "",
        f"Shipped: {_shipped(chooser.load_model())} (`perturb/generators/swapsyn/chooser.json`). A setting P keeps a "
        "query's P best candidates by cheap score; P/T keeps P, or T per target of the query if that is more. "
        f"Reference: prune {ref['prune']} (the first setting). Each cell: share of queries changed, and how many "
        "queries' variations (text and detail) differ from the reference's; the word cap applied over each batch.", "",
        *_query_rows(runs, ref), "",
        "blind4: the labelled pairs of the blind sample of the shipped sets (`benchmarks/data/validity/blind4`) that "
        "the set still makes on their originals (no word cap), and the share judged valid (Wilson 95%). SWORDS: the "
        "development split through `bench perturb --lexsub`. MiniLM texts: distinct texts encoded by the whole "
        "measurement of that setting (both sets, all batches, blind4 and SWORDS), from an empty cache.", "",
        *_other_rows(runs), ""])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prunes", default="8,4,5,6,4/1", help="comma-separated settings (P or P/T); the first is the reference")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--msmarco", type=int, default=2000)
    ap.add_argument("--md", type=Path, default=MD)
    ap.add_argument("--runs", type=Path, default=None,
                    help="a folder of an earlier measurement (its prune<N>.json files): only write the report")
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--json", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one is not None:
        args.json.write_text(json.dumps(one(args.one, args.n, args.seed, args.msmarco)), encoding="utf-8")
        return 0
    runs, scratch = [], args.runs or Path(tempfile.mkdtemp(prefix="drbench-prune-"))
    for prune in args.prunes.split(","):
        home, out = scratch / f"home{prune.replace('/', '-')}", scratch / f"prune{prune.replace('/', '-')}.json"
        if args.runs is not None:  # a report of runs measured earlier
            runs.append(json.loads(out.read_text(encoding="utf-8")))
            continue
        env = dict(os.environ, DRBENCH_HOME=str(home), DRBENCH_NO_VARIATION_CACHE="1", PYTHONPATH=str(ROOT))
        subprocess.run([sys.executable, __file__, "--one", str(prune), "--json", str(out), "--n", str(args.n),
                        "--seed", str(args.seed), "--msmarco", str(args.msmarco)], env=env, check=True)
        runs.append(json.loads(out.read_text(encoding="utf-8")))
        print(f"prune {prune}: {runs[-1]['texts']} texts, {runs[-1]['wall']:.0f} s", flush=True)
    shown = f"python benchmarks/lexsub/prune.py --prunes {args.prunes} --n {args.n} --seed {args.seed} --msmarco {args.msmarco}"
    args.md.write_text(report(runs, shown), encoding="utf-8")
    print(args.md.read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
