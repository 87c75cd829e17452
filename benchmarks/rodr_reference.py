"""The paper protocol against the RoDR authors' own variation sets of MS MARCO passage dev (small).

    python benchmarks/rodr_reference.py [--sample N] [--seed 0] [--sets MISSPELL,...] [--out FILE]

Reads the authors' eight sets (``../shared/data/rodr-msmarco-dev``, one variation per query of the
6,980 dev queries), takes the originals from them (:func:`originals`), runs
the paper protocol (``--protocol rodr``, seed ``--seed``, no variation cache) on the same originals
(all of them, or a seeded sample of ``--sample`` queries: both sides are then measured on that
sample) and writes one Markdown row per set and side to ``--out`` (default
``benchmarks/results/rodr_reference.md``):

* **changed**: the share of queries whose text changed (case and spacing ignored);
* **words/changed**: original words touched per changed query (words: runs of letters and digits;
  same number of words: the positions that differ; otherwise the replaced, deleted and inserted
  words of difflib's word alignment, the larger side of a replacement);
* of the touched original words: the share that are **stop words** (NLTK's 179, lower-cased), that
  are **capitalised** (first letter upper case), that are the query's **first** or **last** word.

The originals: ExtraPunc appends one run of 1-3 identical marks of ``,.?!`` to the original, and
622 of the originals end in marks of their own (``?``, ``.``, ``??``, ``.,``). So only the appended
run is removed: of the texts left by removing 1, 2 or 3 copies of the last mark (as many as it
repeats), the one whose trailing marks are those of the authors' TransTense text of the query (which
keeps the original's marks; SwapWords' when TransTense's match none of them, then the longest cut).
On these files TransTense's decide every query and SwapWords' agree with them.

Measurements, not assertions.
"""
from __future__ import annotations

import argparse
import difflib
import os
import random
import re
import sys
import time
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DATA = ROOT.parent / "shared" / "data" / "rodr-msmarco-dev"
if not DATA.is_dir():
    DATA = Path("/work/shared/data/rodr-msmarco-dev")
#: our set name -> the authors' file suffix
FILES = {"MISSPELL": "MisSpell", "EXTRAPUNC": "ExtraPunc", "BACKTRANS": "BackTrans",
         "SWAPSYN-GLOVE": "SwapSyn_Glove", "SWAPSYN-WNET": "SwapSyn_WNet", "TRANSTENSE": "TransTense",
         "NOSTOPWORD": "NoStopword", "SWAPWORDS": "SwapWords"}
_WORD = re.compile(r"[^\W_]+")


def read_set(name: str) -> Dict[str, str]:
    out = {}
    with open(DATA / f"queries.dev.small.{FILES[name]}.tsv", encoding="utf-8") as fh:
        for line in fh:
            qid, _, text = line.rstrip("\n").partition("\t")
            out[qid] = text
    return out


_MARKS = re.compile(r"[,.?!]*$")
#: the sets whose texts keep the original's trailing marks, in the order they are asked
MARK_KEEPERS = ("TRANSTENSE", "SWAPWORDS")


def original_of(extrapunc: str, keepers: Sequence[str]) -> str:
    """The original of an ExtraPunc text (see the module doc): ``keepers`` are the same query's
    texts in sets that keep the original's own trailing marks, asked in order."""
    run = re.search(r"([,.?!])\1*$", extrapunc)
    if run is None:
        raise ValueError(f"an ExtraPunc text without appended marks: {extrapunc!r}")
    cuts = [extrapunc[:-k] for k in range(1, min(3, len(run.group(0))) + 1)]
    for keeper in keepers:
        want = _MARKS.search(keeper.rstrip()).group(0)
        fits = [c for c in cuts if _MARKS.search(c).group(0) == want]
        if fits:
            return fits[0]
    return cuts[-1]


def originals() -> Dict[str, str]:
    """The 6,980 originals, by query id: each ExtraPunc text without the run ExtraPunc appended."""
    keep = [read_set(name) for name in MARK_KEEPERS]
    return {qid: original_of(text, [k[qid] for k in keep if qid in k])
            for qid, text in read_set("EXTRAPUNC").items()}


def touched(orig: str, new: str) -> List[Tuple[int, str, int]]:
    """``(position, word, n words)`` of the original words an edit touches (see the module doc)."""
    a, b = _WORD.findall(orig), _WORD.findall(new)
    if len(a) == len(b):
        return [(i, w, len(a)) for i, (w, v) in enumerate(zip(a, b)) if w != v]
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        out += [(i, a[i], len(a)) for i in range(i1, i2)]
        out += [(min(i1, len(a) - 1), "", len(a))] * max(0, (j2 - j1) - (i2 - i1))  # words added
    return out


def measure(orig: Dict[str, str], var: Dict[str, str], qids: Sequence[str]) -> dict:
    from perturb.base import same_query
    from perturb.resources.words import stopwords

    stops = stopwords()
    changed = [q for q in qids if not same_query(orig[q], var[q])]
    words = [t for q in changed for t in touched(orig[q], var[q])]
    named = [t for t in words if t[1]]
    share = (lambda pred: sum(1 for t in named if pred(t)) / len(named) if named else 0.0)
    return {"n": len(qids), "changed": len(changed) / len(qids) if qids else 0.0,
            "words": len(words) / len(changed) if changed else 0.0,
            "stop": share(lambda t: t[1].lower() in stops), "cap": share(lambda t: t[1][:1].isupper()),
            "first": share(lambda t: t[0] == 0), "last": share(lambda t: t[0] == t[2] - 1)}


def ours(name: str, orig: Dict[str, str], qids: Sequence[str], seed: int) -> Dict[str, str]:
    from perturb import make
    from perturb.base import query_rng  # noqa: F401  (the generators seed each query from the text)

    gen = make(name, "rodr")
    items = [(q, orig[q]) for q in qids]
    return {q: p.text for q, p in zip(qids, gen.perturb_batch(items, seed))}


def table(rows: List[Tuple[str, dict, dict]]) -> str:
    head = ("| set | queries | changed (authors / ours) | words per changed query | stop words | capitalised "
            "| first word | last word |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
    fmt = "{:.3f} / {:.3f}"
    body = "".join(
        f"| {n} | {t['n']} | {fmt.format(t['changed'], o['changed'])} | {t['words']:.2f} / {o['words']:.2f} "
        f"| {fmt.format(t['stop'], o['stop'])} | {fmt.format(t['cap'], o['cap'])} "
        f"| {fmt.format(t['first'], o['first'])} | {fmt.format(t['last'], o['last'])} |\n"
        for n, t, o in rows)
    return head + body


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sample", type=int, default=0, help="a seeded sample of this many queries (0: all 6,980)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sets", default=",".join(FILES))
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "rodr_reference.md")
    args = ap.parse_args(argv)
    os.environ.setdefault("DRBENCH_NO_VARIATION_CACHE", "1")
    orig = originals()
    qids = sorted(orig, key=int)
    if args.sample and args.sample < len(qids):
        qids = sorted(random.Random(args.seed).sample(qids, args.sample), key=int)
    rows = []
    for name in args.sets.split(","):
        t0 = time.perf_counter()
        theirs, mine = read_set(name), ours(name, orig, qids, args.seed)
        rows.append((name, measure(orig, theirs, qids), measure(orig, mine, qids)))
        print(f"{name}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    cmd = "python benchmarks/rodr_reference.py" + (f" --sample {args.sample}" if args.sample else "") + \
        (f" --seed {args.seed}" if args.seed else "")
    text = f"`{cmd}`\n\n" + table(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
