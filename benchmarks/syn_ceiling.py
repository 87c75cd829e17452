"""The applicability ceiling of the synonym swaps (issue 22): every single-word candidate of both
sources on a fresh sample of queries, to be labelled by reading before any score is looked at.

    python benchmarks/syn_ceiling.py enumerate OUT.tsv [--seed 2202]   # fresh queries, all candidates
    python benchmarks/syn_ceiling.py append LABELLED.tsv               # the labelled rows into perturb/data/validity/SWAPSYN-*.tsv
    python benchmarks/syn_ceiling.py ceiling [--seed 2202]             # share of the sample's queries with >= 1 valid
    python benchmarks/syn_ceiling.py main                              # the default generators on the sample
    python benchmarks/syn_ceiling.py maindev                           # ... on every labelled query, per half
    python benchmarks/syn_ceiling.py penha                             # contextual cosine vs Penha et al.'s labels

Sample: 9 queries from each of five styles (Cranfield long questions; Cranfield titles, the first
sentence, 4 of the 9 upper-cased; chatterbot's judged questions; TREC DL 2019; ANTIQUE), none whose
(style, qid) was in a SWAPSYN development set then (``branch-syn-sample``; titles: neither case).
The labelled candidates are the ``ceiling-sample`` rows of perturb/data/validity/SWAPSYN-*.tsv.

Targets: tokens tagged NOUN, VERB, ADJ or ADV by spaCy (on the case-normalised copy), letters
only, not a stop word. Candidates (GLOVE: the 30 nearest GloVe 6B-50d neighbours of the target's
base form; WNET: the one-word lemmas of every WordNet sense of the base form for the POS) pass the
pre-declared cheap filter before labelling: letters only, lower-case, not the target or an
inflection of it, WordNet knows the candidate for the target's POS, and lemminflect has its form
for the target's tag (the swap is written in that form and the target's case).
"""
from __future__ import annotations

import csv
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.syn_common import GENS, labelled, neighbours, penha_one_word_swaps, styles  # noqa: E402

SEED = 2202
MARK = "all candidates, fresh sample"
PROVENANCE = "ceiling-sample"
COLS = ("generator", "style", "qid", "original", "variation", "detail", "target", "candidate")


def fresh_sample(seed: int):
    """The sample: queries in no SWAPSYN development set of the time (the ``branch-syn-sample``)."""
    have = set()
    for name in GENS:
        for r in labelled(name, "branch-syn-sample"):
            have.add((r.style.replace("-caps", ""), r.qid))
    st = styles()
    rng = random.Random(seed)
    out = []
    for style in ("long-question", "keyword-title", "chat-question", "web-query", "community-question"):
        pool = [it for it in st[style] if (style, it[0]) not in have]
        pick = rng.sample(pool, 9)
        for k, (qid, text) in enumerate(pick):
            if style == "keyword-title":
                text = text.split(". ")[0].rstrip(".")
                if k < 4:
                    out.append(("keyword-title-caps", qid, text.upper()))
                    continue
            out.append((style, qid, text))
    return out


def wn_lemmas(base: str, pos: str):
    """The one-word lemmas of every WordNet sense (the verified SWAPSYN-WNET's candidates)."""
    from perturb.generators.swapsyn.verifier import wordnet_lemmas

    return list(wordnet_lemmas(base, pos))


def enumerate_candidates(queries):
    from perturb.resources import parsing
    from perturb.generators.swapsyn.swap import SPACY_TO_WN
    from perturb.resources.words import match_case, stopwords, tagging_copy
    from perturb.resources.lexicon import base_forms, inflect_like
    from perturb.resources.vectors import is_inflection
    from perturb.resources.wordnet_reader import wordnet

    wn = wordnet()
    stops = stopwords()
    docs = parsing.parse([tagging_copy(t) for _, _, t in queries])
    rows = []
    for (style, qid, text), doc in zip(queries, docs):
        for tok in doc:
            word = parsing.original(tok, text)
            pos = SPACY_TO_WN.get(tok.pos_)
            if pos is None or not word.isalpha() or word.lower() in stops:
                continue
            low = word.lower()
            base = base_forms(low, pos)[-1]
            for gen, cands in (("SWAPSYN-GLOVE", neighbours(base)), ("SWAPSYN-WNET", wn_lemmas(base, pos))):
                seen = set()
                for c in cands:
                    if not c.isalpha() or c != c.lower() or c in (low, base) or is_inflection(low, c) or is_inflection(base, c):
                        continue
                    if not (wn.synsets(c, pos=pos) or (pos == "a" and wn.synsets(c, pos="s"))):
                        continue
                    cb = wn.morphy(c, pos) or c
                    if cb in (low, base):
                        continue
                    form = inflect_like(cb, tok.tag_, pos)
                    if not form or form.lower() == low:
                        continue
                    new = match_case(word, form)
                    var = text[:tok.idx] + new + text[tok.idx + len(word):]
                    if var in seen:
                        continue
                    seen.add(var)
                    rows.append((gen, style, qid, text, var, f"{pos}:{word!r}->{new!r}", low, cb))
    return rows


def append(labelled_path):
    """Append the fresh sample's labelled rows (the ``enumerate`` file with ``valid`` (1/0) and
    ``reason`` columns added by the labeller) to the development sets; score = branch syn's
    verifier (its weights, features recomputed by syn_evidence.py), 0 where it excludes the pair,
    so the column keeps one scorer."""
    import math

    from benchmarks.syn_evidence import lexical_features
    from perturb.checks import devset
    from perturb.tuning.fit import locate

    with open(labelled_path, encoding="utf-8") as fh:
        rows = [dict(r, valid=int(r["valid"])) for r in csv.DictReader(fh, delimiter="\t")]
    lexical_features(locate(rows))
    for name in GENS:
        path = devset.labelled_path(name)
        old = [c for c in devset.read_devset(path) if c.provenance != PROVENANCE]
        new = [devset.Candidate(name, r["style"], r["qid"], r["original"], r["variation"],
                                f"{r['detail']} ({MARK}, seed {SEED}; score: branch syn's verifier)",
                                0.0 if not math.isfinite(r["old_verifier"]) else round(r["old_verifier"], 4),
                                devset.split_of(r["style"], r["qid"]), bool(r["valid"]), r["reason"], PROVENANCE)
               for r in rows if r["generator"] == name]
        devset.write_devset(path, old + new)
        print(name, len(old), "+", len(new), "rows")


def ceiling(seed):
    """Per source: the sample's queries with at least one valid candidate (all its queries have a content word)."""
    qs = fresh_sample(seed)
    valid = {}
    for name in GENS:
        for c in labelled(name, PROVENANCE):
            if f"seed {seed}" in c.detail:
                valid.setdefault(name, set())
                if c.valid:
                    valid[name].add((c.style, c.qid))
    from bench.evaluation.intervals import wilson_ci

    both = valid.get("SWAPSYN-GLOVE", set()) | valid.get("SWAPSYN-WNET", set())
    for name, ok in list(valid.items()) + [("either", both)]:
        k = sum((s, q) in ok for s, q, _ in qs)
        lo, hi = wilson_ci(k, len(qs), 0.95)
        per = {st: f"{sum((s, q) in ok for s, q, _ in qs if s == st)}/{sum(s == st for s, _, _ in qs)}"
               for st in dict.fromkeys(s for s, _, _ in qs)}
        print(f"{name}: {k}/{len(qs)} queries with >= 1 valid candidate ({100 * k / len(qs):.1f}%,"
              f" Wilson {100 * lo:.1f}-{100 * hi:.1f}%) {per}")


def main_on_sample(seed, gen_seed=0):
    """The default SWAPSYN-GLOVE / -WNET on the fresh sample: changed queries per half, and the
    label of each output (any labelled row with the same text pair)."""
    from perturb.checks import devset
    from perturb import make

    lab = {}
    for name in GENS:
        for c in labelled(name):
            lab[(c.original, c.variation)] = c.valid
    qs = fresh_sample(seed)
    for name in ("SWAPSYN-GLOVE", "SWAPSYN-WNET"):
        out = make(name).perturb_batch([(q, t) for _, q, t in qs], gen_seed)
        for half in ("tune", "held"):
            sel = [(t, p) for (s, q, t), p in zip(qs, out) if devset.split_of(s, q) == half]
            ch = [(t, p) for t, p in sel if p.applied]
            print(f"default {name}, {half} half: changed {len(ch)}/{len(sel)};"
                  f" labels of the outputs {[lab.get((t, p.text)) for t, p in ch]}")


def penha_token_auc():
    """AUC of the swapped word's contextual-vector cosine (syn_evidence.token_features) and of the
    sentence cosine at separating Penha et al.'s human-valid from human-invalid one-word swaps."""
    from benchmarks.syn_common import auc
    from benchmarks.syn_evidence import minilm_features, token_features

    for method in ("WordSwapEmbedding", "WordSwapWordNet"):
        for fname in ("variations_antique_labeled.csv", "variations_trec2019_labeled.csv"):
            rows = penha_one_word_swaps(fname, method)
            token_features(rows)
            minilm_features(rows)
            y = [r["valid"] for r in rows]
            print(f"{method} {fname}: {len(rows)} one-word swaps ({sum(y)} human-valid); AUC token cosine "
                  f"{auc([r['tok_cos'] for r in rows], y):.3f}, sentence cosine {auc([r['minilm'] for r in rows], y):.3f}")


def main_on_dev(seed=0):
    """Main's generators on every labelled query (old development rows and the fresh sample), per half."""
    from benchmarks.syn_evidence import rows_of
    from perturb import make

    rows = rows_of()
    lab = {(r["original"], r["variation"]): r["valid"] for r in rows}
    for name in ("SWAPSYN-GLOVE", "SWAPSYN-WNET"):
        qs = sorted({(r["style"], r["qid"], r["original"], r["split"]) for r in rows if r["generator"] == name})
        out = make(name).perturb_batch([(f"{s}/{q}", t) for s, q, t, _ in qs], seed)
        for half in ("tune", "held"):
            sel = [(t, p) for (s, q, t, h), p in zip(qs, out) if h == half]
            ch = [(t, p) for t, p in sel if p.applied]
            known = [lab.get((t, p.text)) for t, p in ch]
            print(f"main {name} on the labelled {half} queries: changed {len(ch)}/{len(sel)}"
                  f" ({100 * len(ch) / max(1, len(sel)):.1f}%); labelled {sum(k is not None for k in known)}, valid {sum(k or 0 for k in known)}")
            for (t, p), k in zip(ch, known):
                if k is None:
                    print(f"   unlabelled: {t!r} -> {p.text!r}")


def main(argv):
    cmd = argv[0]
    if cmd == "penha":
        penha_token_auc()
    elif cmd == "main":
        main_on_sample(SEED)
    elif cmd == "maindev":
        main_on_dev()
    elif cmd == "append":
        append(argv[1])
    elif cmd == "ceiling":
        ceiling(int(argv[argv.index("--seed") + 1]) if "--seed" in argv else SEED)
    elif cmd == "enumerate":
        seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else SEED
        qs = fresh_sample(seed)
        rows = enumerate_candidates(qs)
        with open(argv[1], "w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh, delimiter="\t", lineterminator="\n")
            w.writerow(COLS)
            w.writerows(rows)
        with open(argv[1] + ".queries", "w", encoding="utf-8") as fh:
            for q in qs:
                fh.write("\t".join(q) + "\n")
        for g in ("SWAPSYN-GLOVE", "SWAPSYN-WNET"):
            print(g, sum(r[0] == g for r in rows), "candidates")
        print(len(qs), "queries")


if __name__ == "__main__":
    main(sys.argv[1:])
