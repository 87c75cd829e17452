"""The paper protocol against the RoDR authors' own variation sets of MS MARCO passage dev (small).

    python benchmarks/rodr_reference.py [--sample N] [--seed 0] [--sets MISSPELL,...] [--pivots cat,...] [--out FILE]

Reads the authors' eight sets (``../shared/data/rodr-msmarco-dev``, one variation per query of the
6,980 dev queries), takes the originals from them (:func:`originals`), runs
the paper protocol (``--protocol rodr``, seed ``--seed``, no variation cache) on the same originals
(all of them, or a seeded sample of ``--sample`` queries: both sides are then measured on that
sample) and writes one Markdown row per set and side to ``--out`` (default
``benchmarks/results/rodr_reference.md``):

* **changed**: the share of queries whose text changed (case and spacing ignored);
* **words/changed**: original words touched per changed query (words: runs of letters and digits;
  same number of words: the positions that differ; otherwise the replaced, deleted and inserted
  words of difflib's word alignment, the larger side of a replacement; a word whose case alone
  changed counts);
* of the touched original words: the share that are **stop words** (NLTK's 179, lower-cased), that
  are **capitalised** (first letter upper case), that are the query's **first** or **last** word.

With BACKTRANS among the sets, it also runs through the other Apertium round trips ``--pivots``
(default Catalan, Galician, Esperanto and Catalan then Spanish; rows ``BACKTRANS[cat]`` ...) and a
second table gives the touched words per changed query by kind (:func:`category`: case only,
contraction, marked unknown by apertium, article/determiner, morphology, word order, not English,
else deleted, inserted, substituted) for the authors' BackTrans, ours (Spanish) and each pivot,
with the share of changed queries whose words changed in case only (a mark added or removed) and
the most frequent words of the last three kinds.

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
from typing import Dict, List, Optional, Sequence, Tuple

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
#: the other Apertium round trips BACKTRANS is measured through (ours: Spanish, eng-spa / spa-eng)
PIVOTS = ("cat", "glg", "epo", "cat-spa")


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


def aligned(orig: str, new: str) -> List[Tuple[int, str, str]]:
    """``(position, original word, new word)`` of every original word an edit touches and every
    word it adds ("" for none; see the module doc): the same number of words, the positions that
    differ; otherwise difflib's non-equal blocks, a replacement's words paired in order."""
    a, b = _WORD.findall(orig), _WORD.findall(new)
    if len(a) == len(b):
        return [(i, w, v) for i, (w, v) in enumerate(zip(a, b)) if w != v]
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        out += [(i, a[i], b[j1 + i - i1] if j1 + i - i1 < j2 else "") for i in range(i1, i2)]
        out += [(min(i1, len(a) - 1), "", b[j]) for j in range(j1 + (i2 - i1), j2)]  # words added
    return out


def touched(orig: str, new: str) -> List[Tuple[int, str, int]]:
    """``(position, word, n words)`` of the original words an edit touches (see the module doc)."""
    n = len(_WORD.findall(orig))
    return [(i, w, n) for i, w, _ in aligned(orig, new)]


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


def backtrans_outputs(orig: Dict[str, str], qids: Sequence[str], pivot: str) -> Tuple[Dict[str, str], Dict[str, set]]:
    """The paper BACKTRANS through Apertium ``pivot`` (``spa``: the product's default offline): its
    text per query and the words apertium marked unknown in the back-translation (lower-cased; the
    generator removes the marks). Both from one translation of the batch (a shared run memo)."""
    from perturb.generators.backtrans.generator import round_trip
    from perturb.resources.translators import ApertiumTranslator, RunMemo
    from perturb.rodr.paper import PaperBackTranslate

    gen = PaperBackTranslate("apertium")
    gen.translator = ApertiumTranslator(pivot)
    gen.translator.shared = RunMemo()
    items = [(q, orig[q]) for q in qids]
    texts = {q: p.text for q, p in zip(qids, gen.perturb_batch(items, 0))}
    raw = round_trip(gen.translator, [t for _, t in items])
    marked = {q: {w.lower() for _, w in _MARKED.findall(back or "")} for q, (_, back) in zip(qids, raw)}
    return texts, marked


_MARKED = re.compile(r"(?<![\w*#@])([*#@])([^\W_]+)")
#: the kinds of touched word (:func:`category`), in the order they are asked
CATEGORIES = ("case only", "contraction", "marked unknown", "article/determiner", "morphology", "word order",
              "not English", "deleted", "inserted", "substituted")
_DETERMINERS = frozenset("a an the this that these those some any each every its his her their my your our".split())
_CLITICS = frozenset("s t re ll ve d m".split())  # what _WORD leaves of 's n't 're 'll 've 'd 'm


def category(w: str, v: str, a_low: Sequence[str], b_low: Sequence[str], marked: set) -> str:
    """The kind of one touched pair (``w`` the original's word, ``v`` the new one, "" for none;
    ``a_low``/``b_low`` the two texts' words lower-cased; ``marked`` the words apertium marked
    unknown): the first of :data:`CATEGORIES` that fits. Morphology: a shared lemma (WordNet's
    and lemminflect's, :func:`perturb.resources.lexicon.lemma_set`); word order: each word is in the
    other text; not English: a new word wordfreq does not know (Zipf < 1)."""
    from perturb.resources.lexicon import lemma_set
    from perturb.resources.words import zipf

    lw, lv = w.lower(), v.lower()
    if w and v and lw == lv:
        return "case only"
    if lw in _CLITICS or lv in _CLITICS:
        return "contraction"
    if lv and lv in marked:
        return "marked unknown"
    if lw in _DETERMINERS or lv in _DETERMINERS:
        return "article/determiner"
    if w and v and lemma_set(lw) & lemma_set(lv):
        return "morphology"
    if w and v and lw in b_low and lv in a_low:
        return "word order"
    if lv and lv not in a_low and zipf(lv) < 1.0:
        return "not English"
    return "deleted" if not v else "inserted" if not w else "substituted"


def categories(orig: Dict[str, str], var: Dict[str, str], qids: Sequence[str],
               marked: Optional[Dict[str, set]] = None) -> Tuple[Dict[str, float], Dict[str, list]]:
    """Touched words per changed query by :func:`category`, with ``marks and case only``: the share
    of changed queries whose words are the original's up to case; and the three most frequent words
    of the deleted, inserted and substituted kinds (``[(word, count)]``, lower-cased)."""
    from collections import Counter

    from perturb.base import same_query

    changed = [q for q in qids if not same_query(orig[q], var[q])]
    counts = dict.fromkeys(CATEGORIES, 0)
    words: Dict[str, Counter] = {k: Counter() for k in ("deleted", "inserted", "substituted")}
    bare = 0
    for q in changed:
        a_low = [w.lower() for w in _WORD.findall(orig[q])]
        b_low = [w.lower() for w in _WORD.findall(var[q])]
        bare += a_low == b_low
        for _, w, v in aligned(orig[q], var[q]):
            kind = category(w, v, a_low, b_low, (marked or {}).get(q, set()))
            counts[kind] += 1
            if kind in words:
                words[kind][(v if kind == "inserted" else w).lower()] += 1
    n = max(1, len(changed))
    out = {k: c / n for k, c in counts.items()}
    out["marks and case only"] = bare / n
    return out, {k: sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[:3] for k, c in words.items()}


def category_table(rows: List[Tuple[str, Tuple[Dict[str, float], Dict[str, list]]]]) -> str:
    cols = ("marks and case only",) + CATEGORIES
    head = "| BACKTRANS | " + " | ".join(cols) + " |\n|---|" + "---:|" * len(cols) + "\n"
    body = "".join(f"| {n} | " + " | ".join(f"{c[k]:.2f}" for k in cols) + " |\n" for n, (c, _) in rows)
    tops = "".join(f"- {n}: " + "; ".join(f"{k} " + ", ".join(f"{w} {m}" for w, m in top[k]) for k in top) + "\n"
                   for n, (_, top) in rows)
    title = "Most frequent deleted and substituted original words, inserted new words (count):"
    return f"{head}{body}\n{title}\n\n{tops}"


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


def pivot_rows(orig: Dict[str, str], qids: Sequence[str], pivots: Sequence[str]) -> Tuple[list, str]:
    """The BACKTRANS rows of the other Apertium round trips (``BACKTRANS[cat]`` ...) for the main
    table, and the category table of the authors' BackTrans, Spanish's and theirs."""
    theirs = read_set("BACKTRANS")
    cats = [("authors", categories(orig, theirs, qids))]
    rows = []
    for pivot in ["spa"] + [p for p in pivots if p != "spa"]:
        t0 = time.perf_counter()
        texts, marked = backtrans_outputs(orig, qids, pivot)
        cats.append((f"ours [{pivot}]", categories(orig, texts, qids, marked)))
        if pivot != "spa":
            rows.append((f"BACKTRANS[{pivot}]", measure(orig, theirs, qids), measure(orig, texts, qids)))
        print(f"BACKTRANS[{pivot}]: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    return rows, category_table(cats)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sample", type=int, default=0, help="a seeded sample of this many queries (0: all 6,980)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sets", default=",".join(FILES))
    ap.add_argument("--pivots", default=",".join(PIVOTS),
                    help="BACKTRANS also through these Apertium round trips, with the category table ('' for none)")
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
    cats = ""
    if args.pivots and "BACKTRANS" in args.sets.split(","):
        extra, cats = pivot_rows(orig, qids, [p for p in args.pivots.split(",") if p])
        rows += extra
    cmd = "python benchmarks/rodr_reference.py" + (f" --sample {args.sample}" if args.sample else "") + \
        (f" --seed {args.seed}" if args.seed else "")
    text = f"`{cmd}`\n\n" + table(rows) + (f"\nTouched words per changed query, by kind:\n\n{cats}" if cats else "")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
