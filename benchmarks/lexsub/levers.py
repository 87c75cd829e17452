"""What would move the synonym sets' frontier: more labels, a translation feature, a GloVe set apart from
WordNet, a lower chooser threshold, and the word cap.

    python benchmarks/lexsub/levers.py [--draws 3] [--n 200] [--seed 0] [--md FILE]

On ``check_fit.py``'s rows (its blind samples, featurised by the generators' own code) and folds (5, by the
SHA-256 of the lower-cased query):

* **learning curve**: the shipped check (monotone boosted trees over every feature) fitted on a share of each
  training fold's queries (a query is in the share when the SHA-256 of ``<draw>:<lower-cased query>`` falls in it;
  ``--draws`` draws per share), scored on the whole held-out fold: AUC over the picked rows, and per source the
  picks kept at the thresholds ``check_fit.py``'s rule chooses on that curve (precision >= 0.90 over >= 20 picked
  rows per class of pick);
* **translation agreement**: whether the swap leaves the text's Spanish translation (the installed Apertium
  eng-spa, as BACKTRANS runs it) unchanged, and the validity of each group; and the shipped check's cross-validated
  AUC with that bit as one more feature;
* **a GloVe set apart from WordNet**: the validity of the labelled picks whose substitute is (or is not) a
  WordNet synonym of the target (``wn_synonym``), per set: what the GloVe set would take on if it left WordNet's
  synonyms to the WordNet set;

and on ``benchmarks/variation_substance.py``'s five query styles (``--n`` each, seed ``--seed``):

* **the chooser's threshold lowered** (``make(name, threshold=T)``, the check as shipped): the queries each set
  changes per style before the word cap. Few of the check's labelled rows lie below the shipped threshold, so
  these counts are what its trees extrapolate, not validated picks;
* **the word cap**: the queries changed per style before and after the set-level cap (``cap_set``: no word in
  more than 5% of a batch's swaps, at least one), at the shipped thresholds.

Writes ``benchmarks/results/swapsyn_levers.md``. Numbers are measurements, never assertions.
"""
from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.lexsub import check_fit as cf  # noqa: E402
from perturb.generators.swapsyn import check, chooser  # noqa: E402

MD = ROOT / "benchmarks" / "results" / "swapsyn_levers.md"
CHOOSER_THRESHOLDS = (0.6, 0.4, 0.2)
SHARES = (0.25, 0.5, 0.75, 1.0)
SETS = ("SWAPSYN-GLOVE", "SWAPSYN-WNET")


def in_share(text: str, draw: int, share: float) -> bool:
    h = int(hashlib.sha256(f"{draw}:{text.lower()}".encode("utf-8")).hexdigest(), 16) % 10000
    return h < round(share * 10000)


def summary(rows, p, idx) -> tuple:
    """(AUC over the picked rows, {source: (kept, valid)}) at the thresholds check_fit's rule picks on ``p``."""
    ts = cf.thresholds_per_source(rows, p, idx)
    got = {}
    for source in ("glove", "wordnet"):
        keep = cf.kept(rows, p, idx, source, ts[source])
        got[source] = (len(keep), sum(rows[i]["valid"] for i in keep))
    return cf.auc([p[i] for i in idx], [rows[i]["valid"] for i in idx]), got


def translations(rows) -> dict:
    from perturb.resources.translators import ApertiumTranslator

    tr = ApertiumTranslator("spa")
    if not tr.available():
        raise SystemExit("Apertium eng-spa is not installed (apt-get install apertium apertium-eng-spa)")
    texts = sorted({r["original"] for r in rows} | {r["variation"] for r in rows})
    return dict(zip(texts, tr.to_pivot(texts)))


def _same(spa: dict, r: dict) -> int:
    a, b = spa.get(r["original"]), spa.get(r["variation"])
    return int(a is not None and b is not None and a.strip().lower() == b.strip().lower())


def report(rows, draws: int, argv: str) -> str:
    names = cf.VARIANTS[cf.SHIPPED][0]
    X = cf.columns(rows, names)
    idx = cf.picked(rows, chooser.load_model()["thresholds"])
    n_src = {s: sum(1 for i in idx if cf.SOURCE[rows[i]["set"]] == s) for s in ("glove", "wordnet")}
    lines = ["# What would move the synonym sets' frontier", "", f"`{argv}`", "",
             f"{len(rows)} labelled picks (`check_fit.py`'s rows), {len(idx)} at or above the chooser's thresholds (the rows "
             f"counted: {n_src['glove']} GloVe, {n_src['wordnet']} WordNet); {cf.FOLDS} folds by query. Kept: the picks at "
             f"the thresholds `check_fit.py`'s rule chooses on that curve (precision >= {cf.MIN_PRECISION:g} over >= "
             f"{cf.MIN_ROWS} rows per class of pick), with how many of them are valid.", "",
             "## Learning curve", "",
             f"The shipped check fitted on a share of each training fold's queries ({draws} draws per share below 1), "
             "scored on the whole held-out fold.", "",
             "| share of training queries | training rows (mean) | AUC, mean (range) | GloVe kept (valid), mean | "
             "WordNet kept (valid), mean |", "|---:|---:|---|---|---|"]
    for share in SHARES:
        results, n_train = [], []
        for draw in range(draws if share < 1 else 1):
            mask = np.array([share >= 1 or in_share(r["original"], draw, share) for r in rows])
            n_train.append(int(mask.sum()) * (cf.FOLDS - 1) / cf.FOLDS)
            results.append(summary(rows, cf.cross_validated(rows, names, X=X, train=mask), idx))
        if share >= 1:
            base = results[0]  # every training row: the shipped check's own cross-validation
        aucs = [a for a, _ in results]
        cells = []
        for source in ("glove", "wordnet"):
            k = np.mean([g[source][0] for _, g in results])
            v = np.mean([g[source][1] for _, g in results])
            cells.append(f"{k:.0f} ({v:.0f})")
        lines.append(f"| {share:.2f} | {np.mean(n_train):.0f} | {np.mean(aucs):.3f} ({min(aucs):.3f}-{max(aucs):.3f}) | "
                     + " | ".join(cells) + " |")
    spa = translations(rows)
    same = np.array([_same(spa, r) for r in rows], dtype=float)
    lines += ["", "## Translation agreement", "",
              "Whether the swap leaves the text's Apertium eng-spa translation unchanged.", "",
              "| set | translation unchanged: valid | translation changed: valid |", "|---|---|---|"]
    for name in SETS:
        mine = [(s, r["valid"]) for s, r in zip(same, rows) if r["set"] == name]
        lines.append(f"| {name} | " + " | ".join(cf._ci(sum(v for s, v in mine if s == b), sum(1 for s, _ in mine if s == b))
                                                 for b in (1, 0)) + " |")
    plus = summary(rows, cf.cross_validated(rows, list(names) + ["translation_unchanged"],
                                            X=np.column_stack([X, same])), idx)
    lines.append("")
    for label, (a, g) in (("shipped features", base), ("shipped features + translation unchanged", plus)):
        lines.append(f"- {label}: AUC {a:.3f}; GloVe kept {g['glove'][0]} ({g['glove'][1]} valid), "
                     f"WordNet kept {g['wordnet'][0]} ({g['wordnet'][1]} valid)")
    wn = check.NAMES.index("wn_synonym")
    lines += ["", "## A GloVe set apart from WordNet", "",
              "Validity of the labelled picks by whether the substitute is a WordNet synonym of the target (every labelled "
              "row, picked or not).", "",
              "| set | WordNet synonym: valid | not a WordNet synonym: valid |", "|---|---|---|"]
    for name in SETS:
        mine = [(r["x"][wn] > 0.5, r["valid"]) for r in rows if r["set"] == name]
        lines.append(f"| {name} | " + " | ".join(cf._ci(sum(v for s, v in mine if s == b), sum(1 for s, _ in mine if s == b))
                                                 for b in (True, False)) + " |")
    return lines


def query_rows(n: int, seed: int, below: int, total: int) -> list:
    """The chooser's threshold lowered, and the word cap, on the five styles (before / after the cap)."""
    from benchmarks.variation_substance import styles
    from perturb import make

    batches = styles(n, seed)
    names = list(batches)
    lines = ["", "## Below the chooser's threshold, and the word cap", "",
             f"Queries changed per style ({n} each, seed {seed}) and pooled. Below the shipped chooser threshold the check "
             f"has {below} of its {total:,} labelled rows: those counts are its trees' extrapolation, not validated picks. "
             "After the cap: "
             "as `bench perturb` runs a batch (no word in more than 5% of its swaps, at least one).", "",
             "| set | chooser threshold | " + " | ".join(names) + " | pooled |", "|---|---|" + "---:|" * (len(names) + 1)]
    for name in SETS:
        shipped = make(name).threshold
        for t in (shipped,) + CHOOSER_THRESHOLDS:
            gen = make(name, threshold=t)
            pre, post = [], []
            for style in names:
                texts = batches[style]
                raw = gen.perturb_batch([(f"q{i}", x) for i, x in enumerate(texts)], seed)
                pre.append(sum(r.applied for r in raw))
                if t == shipped:
                    post.append(sum(r.applied for r in gen.cap_set(texts, raw)))
            total = sum(len(batches[s]) for s in names)
            label = f"{t:g} (shipped)" if t == shipped else f"{t:g}"
            lines.append(f"| {name} | {label}, before the cap | " + " | ".join(str(k) for k in pre)
                         + f" | {100.0 * sum(pre) / total:.1f}% |")
            if post:
                lines.append(f"| {name} | {label}, after the cap | " + " | ".join(str(k) for k in post)
                             + f" | {100.0 * sum(post) / total:.1f}% |")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--draws", type=int, default=3)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--md", type=Path, default=MD)
    args = ap.parse_args(argv)
    rows = cf.featurise(cf.labelled_rows(cf.SAMPLES))
    shown = f"python benchmarks/lexsub/levers.py --draws {args.draws} --n {args.n} --seed {args.seed}"
    text = "\n".join(report(rows, args.draws, shown) + query_rows(args.n, args.seed, len(rows) - len(cf.picked(rows, chooser.load_model()['thresholds'])), len(rows))) + "\n"
    args.md.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
