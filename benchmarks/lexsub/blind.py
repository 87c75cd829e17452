"""A blind validity sample of the shipped SWAPSYN-GLOVE and SWAPSYN-WNET on fresh queries, and its scorer.

    python benchmarks/lexsub/blind.py sample [--seed 4711] [--per-cell 30] [--pool 400] [--out DIR] [--styles A,B]
    python benchmarks/lexsub/blind.py score LABELS [--key KEY] [--validity-dir DIR] [--md FILE] [--provenance P]
    python benchmarks/lexsub/blind.py still DIR [DIR ...] [--md FILE]
    python benchmarks/lexsub/blind.py added --held PROV,PROV --previous GLOVE_T,WNET_T --seed S --out DIR
    python benchmarks/lexsub/blind.py rest --held PROV,PROV --seed S --out DIR
    python benchmarks/lexsub/blind.py census --held PROV,PROV [--md FILE]
    python benchmarks/lexsub/blind.py merge DIR DIR --out DIR [--seed S]

``sample`` takes the queries of its styles (Cranfield document titles in capitals and in lower case, Cranfield
questions, chatterbot questions, TREC DL 2019 web queries, ANTIQUE community questions, MS MARCO dev
(small) questions, claim-like sentences of the Cranfield abstracts (:func:`claim_sentences`,
:func:`abstract_sentences`) and example sentences of the FreeDict dictionary (:func:`dictionary_sentences`); white
space runs made one space: :func:`collections`) that no row of
``benchmarks/data/validity/SWAPSYN-*.tsv`` holds: neither the text (case-folded) nor the query id
under any style name of the same collection. Each style is one batch for the shipped generators
(validated protocol, ``perturb.io.generation.generate_many``, as ``bench perturb`` runs them; the
set-level word cap applies over the batch): the whole collection when it has at most 1,000 queries
(its fresh queries are kept), else a seeded draw of ``--pool`` fresh queries. Per set and style, a
seeded draw of ``--per-cell`` changed queries. Writes to ``--out`` (default
``benchmarks/data/validity/blind``):

* ``listing.tsv``: ``item, original, variation``, for the labeller: each distinct pair once, GLOVE
  and WNET mixed, rows shuffled; no set, style or score;
* ``key.tsv``: ``item, set, style, qid, original, variation, detail, score``, one row per set
  that drew the pair;
* ``sample.md``: per set and style, the fresh queries, the share changed, the share of swaps whose
  target the chooser tags noun / verb / adjective, the share touching a content word (spaCy NOUN,
  PROPN, main VERB, ADJ: ``perturb.checks.substance``), the most replaced word's share of the swaps,
  the pairs drawn; per style, the queries both sets change and how many identically.

``score`` reads a labels file (``item, valid, reason``; tab-separated, valid 1 or 0, empty = not
labelled), prints per set and style the labelled pairs, the valid ones and the validity with its
Wilson 95% interval (pooled per set too), writes the labelled rows into ``<SET>.tsv`` of
``--validity-dir`` with provenance ``blind-chooser`` (the rows of an earlier scoring replaced; the
other rows kept as they are) and the table to ``--md`` (default
``benchmarks/results/swapsyn_blind.md``).

``still`` measures the shipped sets on earlier samples' labelled pairs: per sample folder (its ``key.tsv``
and ``labels.tsv``) and set, the labelled pairs the set still makes (its pick on the original equals the
labelled variation; the word cap, a property of a whole set, is not applied) and how many of those are
valid, pooled over the folders, with Wilson 95% intervals; written to ``--md`` (default
``benchmarks/results/swapsyn_heldout.md``). The still-made pairs are a uniform draw of the pairs both
versions make in each sample's pool; with the census of the pairs only the shipped version makes
(``added``), the pooled row is a blind validity of the shipped version on those pools.

``added`` draws what ``still`` cannot see: the pairs the shipped sets make that a previous version did not.
Pools: the MS MARCO dev questions and the Cranfield titles (capitals, lower case) that no labelled row
holds other than rows of the ``--held`` provenances (the held-out samples, whose queries stay held out);
the previous version is the shipped sets with one check threshold for every target (``--previous``,
GLOVE then WNET) applied to the chooser's first candidate only (:func:`top_pick_only`: spec version 7);
each pick without the word cap. Every such pair is drawn (a census), written to
``--out`` as ``sample`` writes (listing, key, ``sample.md``), to be labelled blind and passed to ``still``
beside the held-out samples. ``rest`` draws, on the same pools, every pair the shipped sets make that no
labelled row of the ``--held`` samples holds: labelled, the held samples and it are a census of the
shipped sets' pairs on those pools. ``census`` runs the shipped sets over those pools and the sentence pools
no fit holds (:data:`CENSUS_STYLES`) as `bench perturb` does (the word cap over each pool) and looks every
changed query up in the held samples' labels: the
validity of what a run makes there (default ``benchmarks/results/swapsyn_census.md``; the sets' caveat).
``merge`` lists the key rows of several ``rest`` folders (say, two versions' runs on the same pools) as one
blind sample, each (set, original, variation) once.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import os
import random
import re
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.core.errors import DataError  # noqa: E402 (after the path set-up above)
from bench.evaluation.intervals import wilson_ci  # noqa: E402

SETS = ("SWAPSYN-GLOVE", "SWAPSYN-WNET")
SEED = 4711
PROVENANCE = "blind-chooser"
VALIDITY = ROOT / "benchmarks" / "data" / "validity"
OUT = VALIDITY / "blind"
MD = ROOT / "benchmarks" / "results" / "swapsyn_blind.md"
HELDOUT_MD = ROOT / "benchmarks" / "results" / "swapsyn_heldout.md"
WHOLE_UP_TO = 1000  # a collection up to this size is one batch, as `bench perturb` runs it
KEY_COLUMNS = ("item", "set", "style", "qid", "original", "variation", "detail", "score")
LABEL_COLUMNS = ("item", "valid", "reason")
# the style names the labelled files use for the queries of one collection (qids of one scheme)
FAMILIES = {
    "keyword-title": "cranfield-titles", "keyword-title-upper": "cranfield-titles", "keyword-title-lower": "cranfield-titles",
    "keyword-title-caps": "cranfield-titles", "title-caps": "cranfield-titles", "caps-title": "cranfield-titles",
    "long-question": "cranfield-questions", "cranfield-question": "cranfield-questions",
    "web-query": "penha", "community-question": "penha", "web-question": "penha",
    "claim-sentence": "cranfield-sentences", "claim-sentence-2": "cranfield-sentences",
    "claim-sentence-3": "cranfield-sentences", "claim-sentence-long": "cranfield-sentences",
    "dictionary-sentence-2": "dictionary-sentence",
}
# the swap a SWAPSYN detail describes (perturb/generators/swapsyn/generator.py writes it)
SWAP = re.compile(r"^(?P<pos>\w):'(?P<word>[^']*)'->'(?P<new>[^']*)' \(score (?P<score>[0-9.]+)")


def _norm(text: str) -> str:
    return " ".join(text.split())


def collections() -> Dict[str, List[Tuple[str, str]]]:
    """style -> [(qid, text)], white space normalised: the development collections of
    benchmarks/small_devsets.py (every Cranfield title, in capitals) and the MS MARCO dev questions."""
    from benchmarks.common import SHARED, msmarco_queries
    from benchmarks.small_devsets import styles

    st = styles()
    with open(SHARED / "cranfield" / "corpus.jsonl", encoding="utf-8") as fh:
        titles = [(r["_id"], r["title"].upper()) for r in map(json.loads, fh) if r.get("title", "").strip()]
    out = {"keyword-title-upper": titles, "keyword-title-lower": [(q, t.lower()) for q, t in titles]}
    for style in ("long-question", "chat-question", "web-query", "community-question"):
        out[style] = st[style]
    out["msmarco-question"] = msmarco_queries()
    out["claim-sentence"] = first = claim_sentences()
    out["claim-sentence-2"] = second = claim_sentences(seed=SEED + 1, skip_docs={q.split(":")[0] for q, _ in first})
    drawn_docs = {q.split(":")[0] for q, _ in first + second}
    out["claim-sentence-3"] = [(q, t) for q, t in abstract_sentences() if q.split(":")[0] not in drawn_docs]
    out["dictionary-sentence"] = first_dict = dictionary_sentences()
    out["dictionary-sentence-2"] = dictionary_sentences(seed=SEED + 1, skip={t for _, t in first_dict})
    longer = abstract_sentences(LONG_CLAIM_WORDS)
    out["claim-sentence-long"] = sorted(random.Random(f"{SEED}:claim-sentence-long").sample(longer,
                                                                                         min(LONG_POOL, len(longer))))
    return {s: [(q, _norm(t)) for q, t in qs if t.strip()] for s, qs in out.items()}


CLAIM_WORDS = (8, 25)  # the word counts of a claim-like sentence
LONG_CLAIM_WORDS = (26, 40)  # the word counts of a long one
LONG_POOL = 400  # the seeded draw of long ones (``claim-sentence-long``)
CLAIM_POOL = 800
DICTIONARY_EXAMPLE = re.compile(r'^\s+"([^"\n]+)"\s+-\s', re.M)  # an English example line of a FreeDict entry


def dictionary_sentences(n: int = CLAIM_POOL, seed: int = SEED, skip: Iterable[str] = ()) -> List[Tuple[str, str]]:
    """A seeded draw of ``n`` English example sentences of the FreeDict English-German dictionary (the
    Debian package the German pivot reads; every sentence it shows after a headword, in any entry), of
    :data:`CLAIM_WORDS` words, ASCII, a capital first and one final stop, no other sentence mark, quote,
    slash or bracket: everyday statements of every domain, cased and punctuated, written to show a word's
    use (so idioms are frequent), none of the texts ``skip``; qid ``fd:`` and the first 12 hex digits of the
    sentence's SHA-1. ``dictionary-sentence`` is the first draw (blind16, in the pick check's fit since spec
    version 10), ``dictionary-sentence-2`` a second draw of the other sentences (held out)."""
    import gzip
    import hashlib

    from perturb.resources.freedict import ENG_DEU, folder_of

    lo, hi = CLAIM_WORDS
    with gzip.open(folder_of() / f"{ENG_DEU}.dict.dz", "rt", encoding="utf-8", errors="replace") as fh:
        found = {_norm(m) for m in DICTIONARY_EXAMPLE.findall(fh.read())}
    ok = sorted(t for t in found - set(skip) if t.isascii() and t[0].isupper() and t.endswith(".")
                and lo <= len(t.split()) <= hi and not re.search(r'[.!?;"/()\[\]]', t[:-1]))
    drawn = random.Random(f"{seed}:dictionary-sentence").sample(ok, min(n, len(ok)))
    return sorted((f"fd:{hashlib.sha1(t.encode('utf-8')).hexdigest()[:12]}", t) for t in drawn)




def claim_sentences(n: int = CLAIM_POOL, seed: int = SEED, skip_docs: Iterable[str] = ()) -> List[Tuple[str, str]]:
    """A seeded draw of ``n`` claim-like sentences (:func:`abstract_sentences`) of none of the documents
    ``skip_docs``; qid ``<doc>:<sentence>``. A style of its own (statements, not queries): ``claim-sentence``
    (blind12, in the pick check's fit since spec version 9), ``claim-sentence-2`` (a second draw from the
    other abstracts, blind13 and blind15, in the fit since spec version 10) and ``claim-sentence-3`` (every such
    sentence of the abstracts neither draw touches, blind16, in the fit since spec version 10)."""
    skip = set(skip_docs)
    found = [(q, s) for q, s in abstract_sentences() if q.split(":")[0] not in skip]
    return sorted(random.Random(f"{seed}:claim-sentence").sample(found, min(n, len(found))))


@lru_cache(maxsize=2)
def abstract_sentences(words: Tuple[int, int] = CLAIM_WORDS) -> Tuple[Tuple[str, str], ...]:
    """Every declarative sentence of the Cranfield abstracts (lower case, as the collection has them) of
    ``words`` words (default :data:`CLAIM_WORDS`), but each abstract's first (it mostly repeats the title),
    the final stop dropped, sorted by qid ``<doc>:<sentence>``; read once per process and word range.
    ``claim-sentence-long`` is a seeded draw of :data:`LONG_POOL` sentences of :data:`LONG_CLAIM_WORDS` words
    (held out: the sentences the fit holds are all shorter)."""
    from benchmarks.common import SHARED

    lo, hi = words
    found = []
    with open(SHARED / "cranfield" / "corpus.jsonl", encoding="utf-8") as fh:
        for r in map(json.loads, fh):
            text = _norm(r.get("text", ""))
            for k, s in enumerate(re.split(r"(?<=[a-z0-9)])\s*\.\s+(?=[a-z])", text)):
                s = s.strip().rstrip(" .")
                if k and lo <= len(s.split()) <= hi:
                    found.append((f"{r['_id']}:{k}", s))
    return tuple(sorted(found))


def used_queries(paths: Iterable[Path], skip: Sequence[str] = ()) -> Tuple[set, set]:
    """The case-folded texts and the (collection, qid) of every row of the labelled files, but the rows whose
    provenance is in ``skip``."""
    texts, ids = set(), set()
    for path in paths:
        with open(path, encoding="utf-8", newline="") as fh:
            for r in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
                if r.get("provenance") not in skip:
                    texts.add(_norm(r["original"]).casefold())
                    ids.add((FAMILIES.get(r["style"], r["style"]), r["qid"]))
    return texts, ids


def fresh(style: str, queries: Sequence[Tuple[str, str]], used: Tuple[set, set]) -> List[Tuple[str, str]]:
    texts, ids = used
    family = FAMILIES.get(style, style)
    return [(q, t) for q, t in queries if t.casefold() not in texts and (family, q) not in ids]


def batch(style, queries, new, seed: int, pool: int) -> List[Tuple[str, str]]:
    """The queries one style's generator run sees: the whole collection (ids made unique) when small,
    else a seeded draw of ``pool`` fresh queries."""
    if len(queries) <= WHOLE_UP_TO:
        return list({q: (q, t) for q, t in queries}.values())
    rng = random.Random(f"{seed}:{style}:pool")
    return sorted(rng.sample(sorted(new), min(pool, len(new))))


@dataclass(frozen=True)
class Swap:
    set: str
    style: str
    qid: str
    original: str
    variation: str
    detail: str

    @property
    def score(self) -> float:
        m = SWAP.match(self.detail)
        return float(m["score"]) if m else math.nan


def run_style(style, queries, used, seed, pool) -> Tuple[List[Tuple[str, str]], Dict[str, list]]:
    """The fresh queries of one style's batch and, per set, their (text, applied, detail)."""
    from perturb.io.generation import generate_many

    new = fresh(style, queries, used)
    if not new:
        return [], {s: [] for s in SETS}
    items = batch(style, queries, new, seed, pool)
    keep = {q for q, _ in new}
    sets = generate_many(SETS, items, [seed], protocol="validated", cache=False)
    idx = [i for i, (q, _) in enumerate(items) if q in keep]
    out = {}
    for name in SETS:
        vs = sets[name][0]
        if vs.status != "ok":
            raise SystemExit(f"{name} could not run: {vs.reason}")
        out[name] = [(vs.texts[i], vs.applied[i], vs.details[i]) for i in idx]
    return [items[i] for i in idx], out


def draw(name, style, queries, outputs, seed, per_cell) -> List[Swap]:
    changed = [Swap(name, style, q, t, v, d) for (q, t), (v, a, d) in zip(queries, outputs) if a]
    rng = random.Random(f"{seed}:{name}:{style}:draw")
    return sorted(rng.sample(changed, min(per_cell, len(changed))), key=lambda s: s.qid)


def cell_stats(queries, outputs, docs) -> dict:
    """Applicability and substance of one set on one style's fresh queries."""
    from perturb.checks.substance import substance_of

    texts = [t for _, t in queries]
    sub = substance_of(texts, [v for v, _, _ in outputs], [a for _, a, _ in outputs], docs)
    swaps = [SWAP.match(d) for _, a, d in outputs if a]
    swaps = [m for m in swaps if m]
    words = Counter(m["word"].lower() for m in swaps)
    top = sorted(words.items(), key=lambda kv: (-kv[1], kv[0]))[:1]
    return {"queries": len(texts), "changed": sub.changed,
            "nva": sum(m["pos"] in "nva" for m in swaps), "swaps": len(swaps),
            "content": sub.content, "top": top}


def listing(drawn: Sequence[Swap], seed: int) -> Tuple[List[Tuple[str, str, str]], List[tuple]]:
    """The labeller's rows (each distinct pair once, shuffled) and the key rows."""
    pairs = sorted({(s.original, s.variation) for s in drawn})
    random.Random(f"{seed}:listing").shuffle(pairs)
    width = max(3, len(str(len(pairs))))
    item = {p: f"b{k + 1:0{width}d}" for k, p in enumerate(pairs)}
    rows = [(item[p], *p) for p in pairs]
    key = sorted((item[(s.original, s.variation)], s.set, s.style, s.qid, s.original, s.variation, s.detail,
                  f"{s.score:.4f}") for s in drawn)
    return rows, key


def write_sample(out: Path, drawn: Sequence[Swap], seed: int, sample_md) -> None:
    """A sample to label in ``out``: ``listing.tsv`` and ``key.tsv`` (:func:`listing`) and ``sample.md``, the text
    ``sample_md(pairs, set rows)`` gives."""
    rows, key = listing(drawn, seed)
    out.mkdir(parents=True, exist_ok=True)
    write_tsv(out / "listing.tsv", ("item", "original", "variation"), rows)
    write_tsv(out / "key.tsv", KEY_COLUMNS, key)
    (out / "sample.md").write_text(sample_md(len(rows), len(key)), encoding="utf-8")
    print(f"{len(rows)} pairs to label ({len(key)} set rows): {out / 'listing.tsv'}")


def write_tsv(path: Path, header: Sequence[str], rows: Iterable[Sequence[str]]) -> None:
    lines = ["\t".join(header)]
    for r in rows:
        if any("\t" in f or "\n" in f for f in r):
            raise ValueError(f"tab or newline inside a field of {r[0]!r}")
        lines.append("\t".join(r))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _pct(k, n) -> str:
    return f"{100 * k / n:.1f}%" if n else "-"


def _interval(k, n) -> str:
    """The Wilson 95% interval of ``k`` of ``n`` in percent; "-" for none of none."""
    if not n:
        return "-"
    lo, hi = wilson_ci(k, n)
    return f"{100 * lo:.1f}-{100 * hi:.1f}%"


def sample_table(stats, overlap, drawn_n, argv: str) -> str:
    lines = [f"# The blind synonym sample: the fresh queries\n\n`{argv}`\n",
             "| set | style | fresh queries | changed | swaps on n/v/a (chooser's tag) | content word (spaCy) "
             "| top replaced word | pairs drawn |", "|---|---|---:|---:|---:|---:|---|---:|"]
    for (name, style), c in stats.items():
        top = f"{c['top'][0][0]} {_pct(c['top'][0][1], c['swaps'])}" if c["top"] else "-"
        lines.append(f"| {name} | {style} | {c['queries']} | {c['changed']} ({_pct(c['changed'], c['queries'])}) "
                     f"| {_pct(c['nva'], c['swaps'])} | {_pct(c['content'], c['changed'])} | {top} "
                     f"| {drawn_n[(name, style)]} |")
    lines += ["", "| style | both sets change | identical |", "|---|---:|---:|"]
    lines += [f"| {style} | {both} | {same} |" for style, (both, same) in overlap.items()]
    return "\n".join(lines) + "\n"


def sample(seed: int, per_cell: int, pool: int, out: Path, argv: str, only: Sequence[str] = ()) -> int:
    from perturb.checks.substance import parse_originals

    used = used_queries(sorted(VALIDITY.glob("SWAPSYN-*.tsv")))
    drawn, stats, overlap, drawn_n = [], {}, {}, {}
    styles = collections()
    unknown = sorted(set(only) - set(styles))
    if unknown:
        raise SystemExit(f"unknown style(s) {', '.join(unknown)}; the styles: {', '.join(styles)}")
    for style, queries in styles.items():
        if only and style not in only:
            continue
        qs, outs = run_style(style, queries, used, seed, pool)
        docs = parse_originals([t for _, t in qs])
        for name in SETS:
            stats[(name, style)] = cell_stats(qs, outs[name], docs)
            got = draw(name, style, qs, outs[name], seed, per_cell)
            drawn_n[(name, style)] = len(got)
            drawn += got
        g, w = outs[SETS[0]], outs[SETS[1]]
        both = [i for i in range(len(qs)) if g[i][1] and w[i][1]]
        overlap[style] = (len(both), sum(g[i][0] == w[i][0] for i in both))
        print(style, {n: stats[(n, style)] for n in SETS}, "both/identical", overlap[style], flush=True)
    write_sample(out, drawn, seed, lambda pairs, rows: sample_table(stats, overlap, drawn_n, argv))
    return 0


ADDED_STYLES = ("msmarco-question", "keyword-title-upper", "keyword-title-lower")
#: the census's pools: those of ``added`` and ``rest``, and the sentence pools no fit has seen
CENSUS_STYLES = ADDED_STYLES + ("claim-sentence-long", "dictionary-sentence-2")


def held_out_used(held: Sequence[str]) -> Tuple[set, set]:
    """:func:`used_queries` over every labelled file, leaving out the rows whose provenance is in ``held``."""
    return used_queries(sorted(VALIDITY.glob("*.tsv")), held)


def top_pick_only(gen):
    """``gen`` choosing as spec version 7 did: the chooser's first candidate, kept only if it passes the
    check (no later candidate is tried when the check refuses the first)."""
    from dataclasses import replace

    from perturb.generators.swapsyn import chooser

    def choose(texts, docs, only=None, banned=frozenset()):
        model, out = chooser.load_model(), []
        for i, p in enumerate(chooser.best(texts, gen.allowed(texts, docs, only, banned), model, gen.threshold)):
            if p is not None:
                prob = gen.check_probability(model, texts[i], docs[i], p)
                p = replace(p, check=prob) if gen.check_passes(p.pos, texts[i], prob) else None
            out.append(p)
        return out

    gen.choose = choose
    return gen


def pair_labels(held: Sequence[str]) -> Dict[tuple, bool]:
    """(set, case-folded original, variation) -> valid, over the labelled rows of the ``held`` provenances."""
    out: Dict[tuple, bool] = {}
    for name in SETS:
        with open(VALIDITY / f"{name}.tsv", encoding="utf-8", newline="") as fh:
            for r in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
                if r.get("provenance") in held and r.get("valid") in ("0", "1"):
                    out[(name, _norm(r["original"]).casefold(), r["variation"])] = r["valid"] == "1"
    return out


def pools(held: Sequence[str], styles: Sequence[str] = ADDED_STYLES):
    """(style, fresh queries) of each of ``styles``: the held-out pools (``held_out_used``)."""
    used, queries = held_out_used(held), collections()
    for style in styles:
        yield style, fresh(style, queries[style], used)


def _census(held: Sequence[str], seed: int, out: Path, title: str, argv: str, text: str, columns: str, keep,
            styles: Sequence[str] = ADDED_STYLES) -> int:
    """Every pair the shipped sets make on the held-out pools (:func:`pools`) that ``keep(name, items,
    now)`` selects (a list of booleans and a table cell), written as ``sample`` writes."""
    from perturb import make

    drawn, lines = [], []
    for style, items in pools(held, styles):
        for name in SETS:
            now = make(name).perturb_batch(items, 0)
            chosen, cell = keep(name, items, now)
            new = [Swap(name, style, q, x, a.text, a.detail) for (q, x), a, k in zip(items, now, chosen) if k]
            drawn += new
            lines.append(f"| {name} | {style} | {len(items)} | {sum(a.applied for a in now)} | {cell} | {len(new)} |")
            print(lines[-1], flush=True)
    head = [f"# {title}\n\n`{argv}`\n", text,
            f"| set | style | pool | changed now | {columns} | drawn |", "|---|---|---:|---:|---:|---:|"]
    write_sample(out, drawn, seed, lambda pairs, rows: "\n".join(head + lines) + "\n")
    return 0


def added(held: Sequence[str], previous: Sequence[float], seed: int, out: Path, argv: str) -> int:
    from perturb import make

    threshold = dict(zip(SETS, previous))

    def keep(name, items, now):
        t = threshold[name]
        before = top_pick_only(make(name, check_threshold=t, verb_check_threshold=t, long_check_threshold=t)).perturb_batch(items, 0)
        return [a.applied and (not b.applied or b.text != a.text) for a, b in zip(now, before)], sum(b.applied for b in before)

    shown = ", ".join(f"{n} {t:g}" for n, t in threshold.items())
    return _census(held, seed, out, "The pairs the shipped synonym sets add over a previous version, on held-out pools",
                   argv, f"Previous version: one check threshold for every target ({shown}), applied to the chooser's "
                         "first candidate only. Picks without the word cap. Every added pair is drawn.\n",
                   "changed before", keep)


def rest(held: Sequence[str], seed: int, out: Path, argv: str, styles: Sequence[str] = ADDED_STYLES) -> int:
    done = pair_labels(held)

    def keep(name, items, now):
        flags = [a.applied and (name, x.casefold(), a.text) not in done for (_, x), a in zip(items, now)]
        return flags, sum(a.applied for a in now) - sum(flags)

    return _census(held, seed, out, "The shipped synonym sets' pairs on the held-out pools that no held sample labels",
                   argv, "Every pair the shipped sets make on the pools (picks without the word cap) that no labelled row "
                         "of the held samples holds. With those samples, a census of the shipped sets' pairs there.\n",
                   "labelled already", keep, styles)


def merge(folders: Sequence[Path], seed: int, out: Path, argv: str) -> int:
    """One sample of the key rows of ``folders`` (``rest`` run by two versions on the same pools: each
    (set, original, variation) once, the first folder's row kept), listed afresh for one blind labelling."""
    drawn, seen = [], set()
    for folder in folders:
        for _, r in read_table(Path(folder) / "key.tsv", KEY_COLUMNS, "run `rest` into that folder first"):
            if (r["set"], r["original"], r["variation"]) not in seen:
                seen.add((r["set"], r["original"], r["variation"]))
                drawn.append(Swap(r["set"], r["style"], r["qid"], r["original"], r["variation"], r["detail"]))
    parts = "\n".join(f"* `{f}`: {(Path(f) / 'sample.md').read_text(encoding='utf-8')}" for f in folders)
    write_sample(out, drawn, seed, lambda pairs, rows: f"# Merged samples\n\n`{argv}`\n\n{pairs} pairs ({rows} set rows) "
                                                       f"from:\n\n{parts}\n")
    return 0


def census(held: Sequence[str], md: Path, argv: str, missing_out: Optional[Path] = None, seed: int = SEED) -> int:
    """The shipped sets' output on the held-out pools, as `bench perturb` makes it (the word cap over each
    style's pool), every changed query looked up in the held samples' labels: validity over the labelled
    ones, and how many are not labelled (0 for a census). ``missing_out``: the changed queries not labelled
    (the word cap's re-picks, which ``rest`` does not make) written there as ``sample`` writes, to label. A
    second table gives the overlap per pool (:func:`overlap_rows`)."""
    from perturb import make

    labels, rows, missing = pair_labels(held), [], []
    made: Dict[str, Dict[str, list]] = {}
    for style, items in pools(held, CENSUS_STYLES):
        texts = [t for _, t in items]
        for name in SETS:
            gen = make(name)
            done = made.setdefault(style, {})[name] = gen.cap_set(texts, gen.perturb_batch(items, 0))
            got = [labels.get((name, t.casefold(), r.text)) for t, r in zip(texts, done) if r.applied]
            missing += [(name, style, q, t, r.text, r.detail) for (q, t), r in zip(items, done)
                        if r.applied and (name, t.casefold(), r.text) not in labels]
            rows.append((name, style, len(items), len(got), sum(g is not None for g in got), sum(bool(g) for g in got)))
            print(rows[-1], flush=True)
    lines = [f"# The shipped synonym sets on the held-out pools, every changed query labelled\n\n`{argv}`\n",
             "Pools: the MS MARCO dev questions, the Cranfield titles (capitals, lower case), 400 long sentences of "
             "the Cranfield abstracts (26-40 words) and 800 example sentences of the FreeDict dictionary that no "
             "labelled row holds other than rows of the held samples. "
             "Each set runs over each pool as `bench perturb` runs it "
             "(the word cap over the pool); each changed query is looked up in the held samples' labels. Validity "
             "with its Wilson 95% interval, over the labelled changed queries.\n",
             "| set | style | pool | changed | labelled | valid | validity | Wilson 95% |", "|---|---|---:|---:|---:|---:|---:|---|"]
    for name in SETS:
        mine = [r for r in rows if r[0] == name]
        total = (name, "**pooled**", sum(r[2] for r in mine), sum(r[3] for r in mine), sum(r[4] for r in mine),
                 sum(r[5] for r in mine))
        for _, style, n, changed, labelled, valid in mine + [total]:
            lines.append(f"| {name} | {style} | {n} | {changed} | {labelled} | {valid} | {_pct(valid, labelled)} | "
                         f"{_interval(valid, labelled)} |")
    lines += ["", "Overlap: the queries both sets change, and those both change to the same text.", "",
              "| style | both change | identical | identical share | Wilson 95% |", "|---|---:|---:|---:|---|"]
    for style, both, same in overlap_rows(made):
        lines.append(f"| {style} | {both} | {same} | {_pct(same, both)} | {_interval(same, both)} |")
    md.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    for m in missing:
        print("not labelled:", *m, sep="\t")
    if missing_out is not None and missing:
        write_sample(missing_out, [Swap(*m) for m in missing], seed,
                     lambda pairs, rows: f"# The census's changed queries no held sample labels\n\n`{argv}`\n\n"
                                         f"{pairs} pairs ({rows} set rows).\n")
    return 0


def overlap_rows(made: Dict[str, Dict[str, list]]) -> List[Tuple[str, int, int]]:
    """(style, queries both sets change, of those the ones both change to the same text) per style of
    ``made`` (style -> set -> perturbations, one per query, both sets over the same queries), then pooled."""
    rows = []
    for style, by_set in made.items():
        a, b = (by_set[name] for name in SETS)
        both = [(x, y) for x, y in zip(a, b) if x.applied and y.applied]
        rows.append((style, len(both), sum(x.text == y.text for x, y in both)))
    return rows + [("**pooled**", sum(r[1] for r in rows), sum(r[2] for r in rows))]


# --------------------------------------------------------------------------- scoring
def read_table(path: Path, columns: Sequence[str], fix: str) -> List[Tuple[int, dict]]:
    """(line, row) of a tab-separated file whose header holds ``columns``; DataError naming the line."""
    try:
        fh = open(path, encoding="utf-8", newline="")
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror or exc}", str(path), None, fix) from None
    with fh:
        reader = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader, None) or []
        missing = [c for c in columns if c not in header]
        if missing:
            raise DataError(f"the header lacks {', '.join(missing)} (expected {' '.join(columns)})", str(path), 1, fix)
        rows = []
        for line, row in enumerate(reader, start=2):
            if not row:
                continue
            if len(row) != len(header):
                raise DataError(f"{len(row)} tab-separated fields, expected {len(header)}", str(path), line,
                                "one row per line, no tab inside a field")
            rows.append((line, dict(zip(header, row))))
    return rows


def read_labels(path: Path, items: set) -> Dict[str, Tuple[bool, str]]:
    """item -> (valid, reason) of the labelled rows (empty valid: not labelled, left out)."""
    fix = "label each listed item 1 (keeps the need) or 0, with a reason"
    out: Dict[str, Tuple[bool, str]] = {}
    for line, r in read_table(path, LABEL_COLUMNS, fix):
        item, valid = r["item"].strip(), r["valid"].strip()
        if item not in items:
            raise DataError(f"item {item!r} is not in the key", str(path), line, "use the items of listing.tsv")
        if item in out:
            raise DataError(f"item {item!r} labelled twice", str(path), line, "keep one label per item")
        if valid not in ("0", "1", ""):
            raise DataError(f"valid is {valid!r}, expected 1, 0 or empty", str(path), line, fix)
        if valid:
            out[item] = (valid == "1", r["reason"].strip())
    return out


def tally(key: Sequence[dict], labels: Dict[str, Tuple[bool, str]]) -> Dict[Tuple[str, str], List[int]]:
    """(set, style) -> [valid, labelled], and (set, "all") pooled over the styles."""
    counts: Dict[Tuple[str, str], List[int]] = defaultdict(lambda: [0, 0])
    for r in key:
        if r["item"] not in labels:
            continue
        valid = labels[r["item"]][0]
        for cell in ((r["set"], r["style"]), (r["set"], "all")):
            counts[cell][0] += valid
            counts[cell][1] += 1
    return dict(counts)


def validity_rows(counts: Dict[Tuple[str, str], List[int]]) -> List[Tuple[str, str, int, int, float, float]]:
    """(set, style, labelled, valid, low, high) in a stable order, each set's pooled row last."""
    cells = sorted(counts, key=lambda c: (c[0], c[1] == "all", c[1]))
    return [(s, st, counts[(s, st)][1], counts[(s, st)][0], *wilson_ci(counts[(s, st)][0], counts[(s, st)][1]))
            for s, st in cells]


def validity_table(rows, labels_path: str) -> str:
    lines = ["# Blind validity of the synonym sets on fresh queries\n",
             f"`python benchmarks/lexsub/blind.py score {labels_path}`\n",
             "| set | style | labelled | valid | validity | Wilson 95% |", "|---|---|---:|---:|---:|---|"]
    for s, st, n, k, lo, hi in rows:
        name = "**pooled**" if st == "all" else st
        lines.append(f"| {s} | {name} | {n} | {k} | {_pct(k, n)} | {100 * lo:.1f}-{100 * hi:.1f}% |")
    return "\n".join(lines) + "\n"


def devset_rows(key: Sequence[dict], labels: Dict[str, Tuple[bool, str]], name: str, provenance: str = PROVENANCE):
    from perturb.checks.devset import Candidate, split_of

    return [Candidate(name, r["style"], r["qid"], r["original"], r["variation"], r["detail"], float(r["score"]),
                      split_of(r["style"], r["qid"]), labels[r["item"]][0], labels[r["item"]][1], provenance)
            for r in key if r["set"] == name and r["item"] in labels]


def merge_into(path: Path, rows, provenance: str = PROVENANCE) -> None:
    """``path`` with its rows of ``provenance`` replaced by ``rows`` (formatted by write_devset, appended
    in its order); every other line kept byte for byte."""
    from perturb.checks.devset import write_devset

    old = path.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [old[0]] + [ln for ln in old[1:] if ln.rstrip("\n").split("\t")[-1] != provenance]
    with tempfile.TemporaryDirectory() as tmp:
        write_devset(Path(tmp) / "rows.tsv", rows)
        new = (Path(tmp) / "rows.tsv").read_text(encoding="utf-8").splitlines(keepends=True)[1:]
    path.write_text("".join(kept + new), encoding="utf-8")


def score(labels_path: Path, key_path: Path, validity_dir: Optional[Path], md: Optional[Path],
          provenance: str = PROVENANCE) -> int:
    key = [r for _, r in read_table(key_path, KEY_COLUMNS, "use the key.tsv `blind.py sample` wrote")]
    labels = read_labels(labels_path, {r["item"] for r in key})
    rows = validity_rows(tally(key, labels))
    for s, st, n, k, lo, hi in rows:
        print(f"{s}\t{st}\tlabelled {n}\tvalid {k}\t{_pct(k, n)}\tWilson 95% {100 * lo:.1f}-{100 * hi:.1f}%")
    if validity_dir is not None:
        for name in SETS:
            merge_into(validity_dir / f"{name}.tsv", devset_rows(key, labels, name, provenance), provenance)
    if md is not None:
        shown = labels_path.resolve()
        shown = shown.relative_to(ROOT) if ROOT in shown.parents else shown
        md.write_text(validity_table(rows, shown), encoding="utf-8")
    return 0


def still_made(folders: Sequence[Path]) -> Dict[Tuple[str, str], List[int]]:
    """(set, sample folder name) -> [labelled, still made, valid of those], and (set, "all") pooled."""
    from perturb import make

    counts: Dict[Tuple[str, str], List[int]] = defaultdict(lambda: [0, 0, 0])
    gens = {name: make(name) for name in SETS}
    for folder in folders:
        key = [r for _, r in read_table(folder / "key.tsv", KEY_COLUMNS, "use the key.tsv `blind.py sample` wrote")]
        labels = read_labels(folder / "labels.tsv", {r["item"] for r in key})
        for name, gen in gens.items():
            mine = [r for r in key if r["set"] == name and r["item"] in labels]
            picks = gen.perturb_batch([(r["item"], r["original"]) for r in mine], 0)
            for r, p in zip(mine, picks):
                made = p.applied and p.text == r["variation"]
                for cell in ((name, folder.name), (name, "all")):
                    counts[cell][0] += 1
                    counts[cell][1] += made
                    counts[cell][2] += made and labels[r["item"]][0]
    return dict(counts)


def still_table(counts: Dict[Tuple[str, str], List[int]], argv: str) -> str:
    lines = ["# Blind validity of the shipped synonym sets on earlier samples' labelled pairs\n",
             f"`{argv}`\n",
             "Per sample and set: the labelled pairs the shipped set still makes (its pick on the original, without the "
             "word cap), how many of them are valid, and of how many labelled pairs. The pairs still made are a uniform "
             "draw of the pairs both the shipped set and the sample's version make in that sample's pool. A folder drawn "
             "by `blind.py added` holds every pair the shipped sets "
             "make there that the earlier version did not (a census, so pooling each labelled pair once weights those "
             "pairs a little above their share of the changed queries).\n",
             "| set | sample | still made | valid | validity | Wilson 95% | labelled |", "|---|---|---:|---:|---:|---|---:|"]
    for s, sample in sorted(counts, key=lambda c: (c[0], c[1] == "all", len(c[1]), c[1])):
        n, made, k = counts[(s, sample)]
        shown = "**pooled**" if sample == "all" else sample
        lines.append(f"| {s} | {shown} | {made} | {k} | {_pct(k, made)} | {_interval(k, made)} | {n} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    sp = sub.add_parser("sample", help="draw the listing and the key")
    sp.add_argument("--seed", type=int, default=SEED)
    sp.add_argument("--per-cell", type=int, default=30, help="pairs per set and style (at most)")
    sp.add_argument("--pool", type=int, default=400, help="fresh queries of a large collection in its batch")
    sp.add_argument("--out", type=Path, default=OUT)
    sp.add_argument("--styles", default="", help="comma-separated styles (default: every style)")
    sc = sub.add_parser("score", help="validity of the labelled pairs")
    sc.add_argument("labels", type=Path)
    sc.add_argument("--key", type=Path, default=OUT / "key.tsv")
    sc.add_argument("--validity-dir", type=Path, default=VALIDITY, help="where <SET>.tsv are updated")
    sc.add_argument("--md", type=Path, default=MD)
    sc.add_argument("--provenance", default=PROVENANCE, help="the rows' provenance (rows of it are replaced)")
    sc.add_argument("--dry-run", action="store_true", help="print only: write neither the rows nor --md")
    st = sub.add_parser("still", help="validity of the labelled pairs the shipped sets still make")
    st.add_argument("folders", type=Path, nargs="+")
    st.add_argument("--md", type=Path, default=HELDOUT_MD)
    ad = sub.add_parser("added", help="the pairs the shipped sets add over a previous version, on held-out pools")
    ad.add_argument("--held", required=True, help="comma-separated provenances whose queries stay in the pools")
    ad.add_argument("--previous", required=True, help="the previous check threshold, GLOVE,WNET")
    ad.add_argument("--seed", type=int, default=SEED)
    ad.add_argument("--out", type=Path, required=True)
    ce = sub.add_parser("census", help="the shipped sets' output on the held-out pools, looked up in the held labels")
    ce.add_argument("--held", required=True, help="comma-separated provenances whose queries stay in the pools")
    ce.add_argument("--md", type=Path, default=ROOT / "benchmarks" / "results" / "swapsyn_census.md")
    ce.add_argument("--missing-out", type=Path, help="write the changed queries no held sample labels here, to label")
    ce.add_argument("--seed", type=int, default=SEED)
    rs = sub.add_parser("rest", help="every pair the shipped sets make on the held-out pools that no held sample labels")
    rs.add_argument("--held", required=True, help="comma-separated provenances whose queries stay in the pools")
    rs.add_argument("--seed", type=int, default=SEED)
    rs.add_argument("--out", type=Path, required=True)
    rs.add_argument("--styles", default=",".join(ADDED_STYLES), help="comma-separated pools (default: %(default)s)")
    mg = sub.add_parser("merge", help="one blind sample of the key rows of several folders")
    mg.add_argument("folders", type=Path, nargs="+")
    mg.add_argument("--seed", type=int, default=SEED)
    mg.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    shown = "python benchmarks/lexsub/blind.py " + " ".join(sys.argv[1:] if argv is None else argv)
    if args.command != "score":
        os.environ["DRBENCH_NO_VARIATION_CACHE"] = "1"  # every other command runs the shipped sets afresh
    if args.command == "census":
        return census(args.held.split(","), args.md, shown, args.missing_out, args.seed)
    if args.command == "merge":
        try:
            return merge(args.folders, args.seed, args.out, shown)
        except DataError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    if args.command == "rest":
        return rest(args.held.split(","), args.seed, args.out, shown, args.styles.split(","))
    if args.command == "added":
        return added(args.held.split(","), [float(t) for t in args.previous.split(",")], args.seed, args.out, shown)
    if args.command == "still":
        folders = [str(f.resolve().relative_to(ROOT)) if ROOT in f.resolve().parents else str(f) for f in args.folders]
        text = still_table(still_made(args.folders), "python benchmarks/lexsub/blind.py still " + " ".join(folders))
        print(text)
        args.md.write_text(text, encoding="utf-8")
        return 0
    if args.command == "sample":
        return sample(args.seed, args.per_cell, args.pool, args.out, shown, [s for s in args.styles.split(",") if s])
    try:
        return score(args.labels, args.key, None if args.dry_run else args.validity_dir,
                     None if args.dry_run else args.md, args.provenance)
    except DataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
