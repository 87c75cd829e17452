"""Share of the spread: how much of a variation set's drop-rate interval comes from the generation
draw rather than from the queries, and how often the ranking of models on a set changes between
single draws (issue 23, item 4).

    python benchmarks/draws_spread.py --datasets /work/shared/data/cranfield,chatterbot \\
        --models bm25,bm25-robertson --seeds 0-4 --metric nDCG@10 [--out FILE.md]

(``--models bm25,minilm-l6`` for the dense model: slow on a CPU.) ``bm25-robertson`` is BM25 with
k1 = 1.2, b = 0.75 (the registered ``bm25`` uses Anserini's k1 = 0.9, b = 0.4): a second lexical
system, so that a ranking can be formed with BM25 alone.

Per dataset, model and set, with G draws (one per generation seed), from result.json's ``draws``
block (:mod:`bench.evaluation.draws`):

* ``drop``: the mean drop rate over draws; ``SD``: its SD over draws;
* ``draw var share (1 draw)``: s_e^2 / (s_a^2 + s_e^2), the share of a ONE-draw run's drop-rate
  variance that comes from the draw (within-query variance s_e^2, between-query s_a^2, one-way
  nested ANOVA on the linearised drop rate); ``width share (1 draw)``: the part of a one-draw
  interval's width that the draw adds, 1 - sqrt(1 - share); ``(G draws)``: the same with the
  run's G draws (s_e^2 / G);
* ``rank flips``: for every pair of models and every pair of draws (g, g'), whether the order of
  the two models' drop rates (and, separately, of their metric values) on the set differs between
  draw g and draw g'; the share of such draw pairs, over all model pairs.
"""
from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _spec(name: str):
    from bench.models.spec import ModelSpec, resolve_model

    if name == "bm25-robertson":
        return ModelSpec(name="bm25-robertson", kind="bm25", normalize=False, similarity="dot",
                         params={"k1": 1.2, "b": 0.75, "method": "lucene", "stopwords": "en"})
    return resolve_model(name)


def _dataset(spec: str):
    from bench.data.collections import load_dataset
    from bench.data.readers import load_beir

    return load_beir(Path(spec)) if Path(spec).is_dir() else load_dataset(spec)


def _flips(values: Dict[str, List[float]]) -> float:
    """Share of (model pair, draw pair) in which the order of the two models differs between the draws."""
    models = sorted(values)
    n = diff = 0
    for a, b in itertools.combinations(models, 2):
        signs = [(x > y) - (x < y) for x, y in zip(values[a], values[b])]
        for s, t in itertools.combinations(signs, 2):
            n += 1
            diff += s != t
    return diff / n if n else float("nan")


def main(argv=None) -> int:
    from bench.evaluation.measures import parse_measures
    from suites.variations import VariationsConfig, run
    from suites.variations.draws import parse_seeds

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", default="/work/shared/data/cranfield,chatterbot")
    ap.add_argument("--models", default="bm25,bm25-robertson")
    ap.add_argument("--seeds", default="0-4")
    ap.add_argument("--metric", default="nDCG@10")
    ap.add_argument("--generators", default=None, help="comma-separated subset (default: all eight)")
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args(argv)
    seeds = parse_seeds(a.seeds)
    measures = parse_measures(a.metric)
    m = measures[0].name
    lines = [f"metric {m}, generation seeds {a.seeds} (G = {len(seeds)}); drop and SD in percent; shares in percent",
             "", "| dataset | model | set | drop (mean) | SD over draws | 95% CI (queries+draws) | draw var share "
             "(1 draw) | width share (1 draw) | width share (G draws) |", "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    flips_rows = ["", "| dataset | set | rank flips: drop rate | rank flips: metric |", "|---|---|---:|---:|"]
    t0 = time.perf_counter()
    for ds_spec in a.datasets.split(","):
        ds = _dataset(ds_spec)
        per_set: Dict[str, Dict[str, dict]] = {}
        for model in a.models.split(","):
            with tempfile.TemporaryDirectory() as tmp:
                cfg = VariationsConfig(seed=0, measures=measures, progress=False, statistics=None,
                                       generators=a.generators.split(",") if a.generators else None,
                                       generation_seeds=seeds, cache_root=Path(tmp) / "cache")
                res = run(_spec(model), ds, cfg, None)["result"]
            for e in res["sets"]:
                d = ((e.get("draws") or {}).get("measures") or {}).get(m)
                if not d:
                    continue
                per_set.setdefault(e["name"], {})[model] = d
                c = d["components"]
                s1, sg = c["draw_share_1"], c["draw_share_G"]
                w1 = None if s1 is None else 1 - (1 - s1) ** 0.5
                wg = None if sg is None else 1 - (1 - sg) ** 0.5
                lo, hi = d["drop_rate_ci"]

                def p(x):
                    return "-" if x is None else f"{100 * x:.1f}"

                lines.append(f"| {ds.name} | {model} | {e['name']} | {p(d['drop_rate_mean'])} | {p(d['drop_rate_sd'])} "
                             f"| [{p(lo)}, {p(hi)}] | {p(s1)} | {p(w1)} | {p(wg)} |")
                print(lines[-1], flush=True)
        for name, by_model in per_set.items():
            if len(by_model) < 2:
                continue
            fd = _flips({k: v["drop_rates"] for k, v in by_model.items()})
            fm = _flips({k: v["metric_per_draw"] for k, v in by_model.items()})
            flips_rows.append(f"| {ds.name} | {name} | {100 * fd:.0f}% | {100 * fm:.0f}% |")
            print(flips_rows[-1], flush=True)
    out = lines + flips_rows + ["", f"models {a.models}; {time.perf_counter() - t0:.0f} s"]
    print(out[-1])
    if a.out:
        a.out.write_text("\n".join(out) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
