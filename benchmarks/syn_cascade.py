"""Round 7 (issue 22): a cascade for SWAPSYN, the round-6 logistic score as a cheap first stage
and MiniLM's contextual cosine of the swapped word with the target (``tok_cos``) computed only
for the candidates in a gray zone. Measurements only (nothing here is used by perturb/).

    python benchmarks/syn_cascade.py count [--n 7000]     # gray-zone candidates at floors 0.2/0.3/0.4, encode rate
    python benchmarks/syn_cascade.py depth OUT.pkl         # tok_cos AUC on the labelled rows at encoder depth 1-6
    python benchmarks/syn_cascade.py stage2 OUT.pkl DEPTH [FLOOR]  # the second stage on the round-6 pick sample
    python benchmarks/syn_cascade.py fresh-list OUT.tsv    # the fresh sample's passing candidates, to label
    python benchmarks/syn_cascade.py fresh-measure [LABELLED.tsv]  # their validity (default: the labelled
                                                           # cascade-sample rows of perturb/data/validity/SWAPSYN-WNET.tsv)

The fresh sample's 400 queries are frozen in perturb/data/validity/SWAPSYN-WNET.queries.tsv
(provenance ``cascade-sample``).
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.syn_common import auc, encode, encode_layers, load_minilm, rows_of  # noqa: E402

FLOORS = (0.2, 0.3, 0.4)
FRESH = "cascade-sample"  # the provenance of the fresh sample's queries and labelled rows


def span_vec(E, s, a, b):
    h, off, m = E[s]
    idx = [k for k in range(len(off)) if m[k] and off[k][1] > off[k][0] and off[k][0] < b and off[k][1] > a]
    return h[idx].mean(0) if idx else None


def tok_cos(E, original, variation, start, word, new):
    x = span_vec(E, original, start, start + len(word))
    y = span_vec(E, variation, start, start + len(new))
    if x is None or y is None:
        return 0.0
    return float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y) + 1e-9))


def rate(sample, n=600):
    """Encode rate on the gray-zone texts (floor 0.3, top 2), one thread, in process CPU seconds
    (the 2 cores are shared: CPU seconds of one thread stand for the idle wall time)."""
    c0 = time.process_time()
    import torch
    import transformers  # noqa: F401
    c_imp = time.process_time() - c0
    torch.set_num_threads(1)
    s = sample[:: max(1, len(sample) // n)][:n]
    ntok = None
    for layers in (1, 2, 3, None):
        c0 = time.process_time()
        tok, model = load_minilm(layers)
        c_load = time.process_time() - c0
        for max_length in (48, 24):
            c0 = time.process_time()
            encode(tok, model, s, max_length=max_length)
            dc = time.process_time() - c0
            print(f"layers {layers or 6} max_length {max_length}: torch+transformers import {c_imp:.2f} s CPU, model load {c_load:.2f} s CPU,"
                  f" {len(s)} texts {dc:.2f} s CPU = {len(s) / dc:.0f} texts/CPU-s (1 thread)", flush=True)


def cmd_count(n):
    from benchmarks.variation_generation import real_queries
    from perturb.generators.swapsyn.glove import VerifiedSwapSynGlove
    from perturb.generators.swapsyn.wordnet import VerifiedSwapSynWordNet
    from perturb.resources import parsing
    from perturb.generators.swapsyn.swap import tagging_copy

    texts = [t for _, t in real_queries(n)]
    print("queries", len(texts), "load", os.getloadavg()[0], flush=True)
    docs = parsing.parse([tagging_copy(t) for t in texts], 256)
    per = {}
    for gen in (VerifiedSwapSynGlove(), VerifiedSwapSynWordNet()):
        t0 = time.time()
        gen.prepare(texts, docs)
        per[gen.source] = [gen.scored_candidates(d, t, min(FLOORS)) for t, d in zip(texts, docs)]
        gen.__dict__.pop("_targets", None)
        print(gen.source, "scored", round(time.time() - t0, 1), "s", flush=True)
    sample = []
    for floor in FLOORS:
        for top in (1, 2, None):
            line = [f"floor {floor} top {top or 'all'}:"]
            texts_needed = set()
            for src, rows in per.items():
                cnt = q = 0
                for t, cs in zip(texts, rows):
                    cs = sorted((c for c in cs if c[3] >= floor), key=lambda c: (-c[3], c[0], c[2]))
                    if top:
                        cs = cs[:top]
                    if cs:
                        q += 1
                        texts_needed.add(t)
                    for c in cs:
                        cnt += 1
                        texts_needed.add(t[:c[0]] + c[2] + t[c[1]:])
                line.append(f"{src} {cnt} cands / {q} queries;")
            line.append(f"distinct texts to encode (originals + variations, both sources) {len(texts_needed)}")
            print(" ".join(line), flush=True)
            if floor == 0.3 and top == 2:
                sample = sorted(texts_needed)
    with open("/tmp/syn7_sample_texts.txt", "w") as fh:
        fh.write("\n".join(sample))
    rate(sample)
    print("load at end", os.getloadavg()[0])


def labelled_rows():
    """The labelled rows the former dev-SWAPSYN-*.tsv held (rounds 1-6), located."""
    return rows_of()


def cmd_depth(out_pkl):
    """tok_cos at every encoder depth for every labelled row; AUC per source (all rows / round-6 pick rows)."""
    import pickle

    rows = labelled_rows()
    tok, model = load_minilm()
    texts = sorted({r["original"] for r in rows} | {r["variation"] for r in rows})
    t0 = time.time()
    E = encode_layers(tok, model, texts)
    print(len(texts), "texts encoded in", round(time.time() - t0, 1), "s", flush=True)
    for r in rows:
        r["tok_cos_by_depth"] = []
        for d in range(len(E[r["original"]][0])):
            Ed = {k: (E[k][0][d], E[k][1], E[k][2]) for k in (r["original"], r["variation"])}
            r["tok_cos_by_depth"].append(round(tok_cos(Ed, r["original"], r["variation"], r["start"], r["word"], r["new"]), 3))
    with open(out_pkl, "wb") as fh:
        pickle.dump(rows, fh)
    for gen in ("SWAPSYN-GLOVE", "SWAPSYN-WNET"):
        for label, sel in (("all rows", lambda r: True), ("round-6 pick rows", lambda r: "round 6 pick sample" in r["detail"])):
            rs = [r for r in rows if r["generator"] == gen and sel(r)]
            y = [r["valid"] for r in rs]
            aucs = [auc([r["tok_cos_by_depth"][d] for r in rs], y) for d in range(len(rs[0]["tok_cos_by_depth"]))]
            print(gen, label, f"({len(rs)} rows, {sum(y)} valid): AUC by depth", " ".join(f"{d + 1}:{a:.3f}" for d, a in enumerate(aucs)))


def cmd_stage2(pkl, depth, floor=0.3):
    """Second stage on the round-6 pick sample (every candidate >= 0.2, labelled): logistic over
    logit(round-6 score) and tok_cos at ``depth``, fitted on the tuning half's rows scoring >=
    ``floor`` (L2 1.0, standardised), threshold by perturb.checks.devset.choose (90%) on the tuning
    half, measured once on the held half; beside it the round-6 score alone, chosen the same way."""
    import pickle
    from bench.evaluation.intervals import wilson_ci
    from perturb.checks import devset
    from perturb.tuning.fit import fit_logistic

    with open(pkl, "rb") as fh:
        rows = pickle.load(fh)
    for gen in ("SWAPSYN-GLOVE", "SWAPSYN-WNET"):
        rs = [r for r in rows if r["generator"] == gen and "round 6 pick sample" in r["detail"]]
        for r in rs:
            r["s1"] = float(r["detail"].split("(score ")[1].split()[0])
            r["tc"] = r["tok_cos_by_depth"][depth - 1]
        gz = [r for r in rs if r["s1"] >= floor]
        tune = [r for r in gz if r["split"] == "tune"]
        X = np.array([[np.log(r["s1"] / (1 - r["s1"])), r["tc"]] for r in gz])
        mu, sd = X[[i for i, r in enumerate(gz) if r["split"] == "tune"]].mean(0), X[[i for i, r in enumerate(gz) if r["split"] == "tune"]].std(0) + 1e-9
        Z = (X - mu) / sd
        ti = [i for i, r in enumerate(gz) if r["split"] == "tune"]
        w = fit_logistic(Z[ti], np.array([gz[i]["valid"] for i in ti], float))
        for r, z in zip(gz, Z):
            r["s2"] = round(float(1 / (1 + np.exp(-(w[0] + z @ w[1:])))), 4)
        yh = [r["valid"] for r in gz if r["split"] == "held"]
        print(f"{gen} depth {depth} floor {floor}: {len(gz)} gray-zone rows ({len(tune)} tuning, {sum(r['valid'] for r in tune)} valid);"
              f" weights (std) logit(s1) {w[1]:.3f}, tok_cos {w[2]:.3f}, intercept {w[0]:.3f}; mu {mu.round(4).tolist()} sd {sd.round(4).tolist()}")
        print(f"  held AUC: s1 {auc([r['s1'] for r in gz if r['split'] == 'held'], yh):.3f}, tok_cos {auc([r['tc'] for r in gz if r['split'] == 'held'], yh):.3f},"
              f" s2 {auc([r['s2'] for r in gz if r['split'] == 'held'], yh):.3f}")
        nq = {h: len({(r["style"], r["qid"]) for r in rs if r["split"] == h}) for h in ("tune", "held")}
        for key in ("s1", "s2"):
            cands = [devset.Candidate(r["generator"], r["style"], r["qid"], r["original"], r["variation"], r["detail"],
                                      r[key], r["split"], bool(r["valid"]), r["reason"]) for r in gz]
            pt = devset.choose([c for c in cands if c.split == "tune"], 0.9)
            if pt is None:
                print(f"  {key}: no threshold reaches 90% on the tuning half")
                continue
            th = pt.threshold
            tp = [c for c in cands if c.split == "tune" and c.score >= th]
            k, n, (lo, hi) = devset.held_validity(cands, th)
            hq = len({c.query for c in cands if c.split == "held" and c.score >= th})
            hp = devset.point([c for c in cands if c.split == "held"], th)
            print(f"  {key}: threshold {th:.4f}; tuning {sum(c.valid for c in tp)}/{len(tp)} passing valid,"
                  f" {len({c.query for c in tp})}/{nq['tune']} queries; held {k}/{n} valid"
                  f" ({100 * k / max(1, n):.1f}%, Wilson {100 * lo:.1f}-{100 * hi:.1f}%), pick validity {100 * hp.validity:.1f}%,"
                  f" {hq}/{nq['held']} queries")
        hs1 = [r for r in gz if r["split"] == "held" and r["s1"] >= 0.7202]
        print(f"  s1 at the shipped 0.7202: held {sum(r['valid'] for r in hs1)}/{len(hs1)} valid,"
              f" {len({(r['style'], r['qid']) for r in hs1})}/{nq['held']} queries")
        if gen == "SWAPSYN-WNET":
            # the later WNET samples: only candidates the round-6 score passed (>= 0.5929 listed / picked at 0.7202)
            for mark in ("round 6 confirmation sample", "round 6 third sample"):
                later = [r for r in rows if r["generator"] == gen and mark in r["detail"]]
                for r in later:
                    r["s1"] = float(r["detail"].split("(score ")[1].split()[0])
                    z = (np.array([np.log(r["s1"] / (1 - r["s1"])), r["tok_cos_by_depth"][depth - 1]]) - mu) / sd
                    r["s2"] = round(float(1 / (1 + np.exp(-(w[0] + z @ w[1:])))), 4)
                a = [r for r in later if r["s1"] >= 0.7202]
                b = [r for r in later if r["s2"] >= pt.threshold]
                print(f"  {mark} ({len(later)} labelled rows, {sum(r['valid'] for r in later)} valid): s1 >= 0.7202 {sum(r['valid'] for r in a)}/{len(a)};"
                      f" s2 >= {pt.threshold:.4f} {sum(r['valid'] for r in b)}/{len(b)}; invalid rows' s2:"
                      f" {[(r['new'], r['s2']) for r in later if not r['valid']]}")
        if "--show" in sys.argv:
            for r in sorted(gz, key=lambda r: -r["s2"])[:25]:
                print(f"    {r['split']} s2 {r['s2']:.3f} s1 {r['s1']:.3f} tc {r['tc']:.3f} valid {r['valid']} {r['word']}->{r['new']} | {r['original'][:60]}")


FRESH_SEED = 2707
FRESH_PER = 200
# the configuration fixed on the tuning half before the fresh sample was drawn (stage2 2 0.4):
CASCADE = dict(depth=2, floor=0.4, threshold=0.7405, intercept=1.220, w_logit=0.974, w_tok=0.824,
               mu=(0.3802, 0.6636), sd=(0.6856, 0.136))


def fresh_queries():
    """(style, qid, text): queries in no development set and in none of round 6's three samples
    (seed 2707), as frozen in perturb/data/validity/SWAPSYN-WNET.queries.tsv once drawn."""
    from benchmarks import syn_pick

    frozen = syn_pick.frozen(FRESH)
    if frozen:
        return frozen
    first = {("keyword-title" if "title" in s else s, q) for s, q, _ in
             syn_pick.frozen("pick") + syn_pick.frozen("confirm") + syn_pick.frozen("third")}
    return syn_pick.fresh_sample(FRESH_SEED, per=FRESH_PER, exclude=first, caps=FRESH_PER * 2 // 5)


def cascade_rows(qs, cfg=CASCADE):
    """Every SWAPSYN-WNET candidate scoring >= the floor (POS kept), with s1, tok_cos and s2."""
    from perturb.generators.swapsyn.wordnet import VerifiedSwapSynWordNet

    gen = VerifiedSwapSynWordNet()
    texts = [t for _, _, t in qs]
    per = gen.scored(texts, cfg["floor"])
    rows = []
    for (style, qid, text), cs in zip(qs, per):
        for start, end, new, score, detail in cs:
            rows.append(dict(style=style, qid=qid, original=text, variation=text[:start] + new + text[end:],
                             start=start, word=text[start:end], new=new, s1=score, detail=detail))
    tok, model = load_minilm(cfg["depth"])
    E = encode(tok, model, sorted({r["original"] for r in rows} | {r["variation"] for r in rows}))
    for r in rows:
        r["tc"] = round(tok_cos(E, r["original"], r["variation"], r["start"], r["word"], r["new"]), 3)
        z0 = (np.log(r["s1"] / (1 - r["s1"])) - cfg["mu"][0]) / cfg["sd"][0]
        z1 = (r["tc"] - cfg["mu"][1]) / cfg["sd"][1]
        r["s2"] = round(float(1 / (1 + np.exp(-(cfg["intercept"] + cfg["w_logit"] * z0 + cfg["w_tok"] * z1)))), 4)
    return rows


def cmd_fresh_list(out_path):
    """List (no scores) every fresh candidate the cascade passes or the shipped score passes (>= 0.7202)."""
    import csv

    from benchmarks import syn_pick
    from perturb.checks import devset

    qs = fresh_queries()
    if not syn_pick.frozen(FRESH):
        old = devset.read_devset(syn_pick.FROZEN) if syn_pick.FROZEN.is_file() else []
        devset.write_devset(syn_pick.FROZEN, old + [
            devset.Candidate("SWAPSYN-WNET", s, q, t, "", "", float("nan"), devset.split_of(s, q), None, "", FRESH)
            for s, q, t in qs])
    rows = cascade_rows(qs)
    keep = [r for r in rows if r["s2"] >= CASCADE["threshold"] or r["s1"] >= 0.7202]
    with open(out_path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, delimiter="\t", lineterminator="\n")
        w.writerow(("style", "qid", "original", "variation", "valid", "reason"))
        for r in sorted(keep, key=lambda r: (r["original"], r["variation"])):
            w.writerow((r["style"], r["qid"], r["original"], r["variation"], "", ""))
    from collections import Counter
    print(len(qs), "queries", dict(Counter(s for s, _, _ in qs)), ";", len(rows), "candidates >= floor;", len(keep), "listed")


def cmd_fresh_measure(labelled_path=None):
    import csv

    from benchmarks.syn_common import labelled
    from bench.evaluation.intervals import wilson_ci

    if labelled_path:  # a labelled fresh-list file
        with open(labelled_path, encoding="utf-8") as fh:
            lab = {(r["original"], r["variation"]): r for r in csv.DictReader(fh, delimiter="\t")}
    else:
        lab = {(c.original, c.variation): {"valid": "1" if c.valid else "0", "reason": c.reason}
               for c in labelled("SWAPSYN-WNET", FRESH)}
    qs = fresh_queries()
    rows = cascade_rows(qs)  # recomputed: the scores are deterministic (s1 and tok_cos rounded)
    for label, sel in (("cascade s2 >= %.4f" % CASCADE["threshold"], lambda r: r["s2"] >= CASCADE["threshold"]),
                       ("shipped s1 >= 0.7202", lambda r: r["s1"] >= 0.7202)):
        ps = [r for r in rows if sel(r)]
        v = [lab[(r["original"], r["variation"])]["valid"] == "1" for r in ps]
        k, n = sum(v), len(v)
        lo, hi = wilson_ci(k, n, 0.95)
        nq = len({(r["style"], r["qid"]) for r in ps})
        print(f"{label}: passing candidates {k}/{n} valid ({100 * k / max(1, n):.1f}%, Wilson {100 * lo:.1f}-{100 * hi:.1f}%);"
              f" queries with a passing candidate {nq}/{len(qs)} ({100 * nq / len(qs):.1f}%)")
        for style in dict.fromkeys(s for s, _, _ in qs):
            sp = [r for r in ps if r["style"] == style]
            print(f"   {style}: {len({r['qid'] for r in sp})}/{sum(s == style for s, _, _ in qs)} queries, "
                  f"{sum(lab[(r['original'], r['variation'])]['valid'] == '1' for r in sp)}/{len(sp)} valid")
        for r in ps:
            L = lab[(r["original"], r["variation"])]
            if L["valid"] != "1":
                print(f"   invalid: {r['word']} -> {r['new']} s1 {r['s1']:.3f} tc {r['tc']:.3f} s2 {r['s2']:.3f} | {r['original'][:70]} ({L['reason']})")


def main(argv):
    cmd = argv[0]
    n = int(argv[argv.index("--n") + 1]) if "--n" in argv else 7000
    if cmd == "rate":
        rate(open("/tmp/syn7_sample_texts.txt").read().split("\n"))
    elif cmd == "count":
        cmd_count(n)
    elif cmd == "stage2":
        cmd_stage2(argv[1], int(argv[2]), float(argv[3]) if len(argv) > 3 and not argv[3].startswith("-") else 0.3)
    elif cmd == "fresh-list":
        cmd_fresh_list(argv[1])
    elif cmd == "fresh-measure":
        cmd_fresh_measure(argv[1] if len(argv) > 1 else None)
    elif cmd == "depth":
        cmd_depth(argv[1])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
