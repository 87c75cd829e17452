"""What the model sees of each query: a variation whose edit lies beyond the model's query length
(the tokenizer cuts it off) is not a variation for that model.

For a dense model, every row of every set is tokenised as the query encoder does (query prefix,
special tokens, cut at ``max_query_length``). A row whose text is longer counts as truncated; an
applied row whose cut input is the cut input of the original query (its edit was cut off: an
EXTRAPUNC ``???`` at the end of a 64-token claim) is counted as not applied. The sets written to
the run folder and their fingerprints stay as generated (the model's view is not part of the set:
another model, or BM25, sees the whole text); the result records, per set, how many queries were
truncated and how many edits were cut (``truncated``: only when a query was).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Dict, List, Sequence, Tuple

from perturb.io.sets import VariationSet


def _ids(tok, prefix: str, limit: int):
    def cut(texts: Sequence[str]) -> List[Tuple[int, ...]]:
        # limit + 1 tells a text that is exactly ``limit`` tokens long from one that is cut
        batch = tok([prefix + t for t in texts], add_special_tokens=True, truncation=True, max_length=limit + 1)
        return [tuple(x) for x in batch["input_ids"]]

    return cut


def model_view(spec, sets: Sequence[VariationSet], original: Sequence[str]
               ) -> Tuple[List[VariationSet], Dict[str, dict]]:
    """The sets with ``applied`` as the model sees it, and per set ``{"n", "edits_cut", "max_length"}``
    (sets without a truncated query are left out). Sets are returned unchanged for non-dense models
    and for model objects (``bench.evaluate(model=obj)``: the object takes whole texts, and its own
    cut, if any, is not known)."""
    if getattr(spec, "kind", "dense") != "dense" or getattr(spec, "encoder", None) is not None:
        return list(sets), {}
    from bench.models.loading import load_tokenizer

    tok = load_tokenizer(spec.resolve_path())
    limit = int(spec.max_query_length)
    cut = _ids(tok, spec.query_prefix or "", limit)
    orig_ids = cut(list(original))
    seen_orig = [ids[:limit] for ids in orig_ids]
    counts: Dict[str, dict] = {}

    def view(vs: VariationSet) -> VariationSet:
        if vs.status != "ok":
            return vs
        ids = cut(vs.texts)
        long = [len(x) > limit for x in ids]
        if not any(long):
            return vs
        gone = [bool(a) and x[:limit] == seen_orig[i] for i, (a, x) in enumerate(zip(vs.applied, ids))]
        counts[vs.name] = {"n": int(sum(long)), "edits_cut": int(sum(gone)), "max_length": limit}
        if not any(gone):
            return vs
        made = vs.fingerprint()
        seen = replace(vs, applied=[bool(a) and not g for a, g in zip(vs.applied, gone)],
                       details=[("" if g else d) for d, g in zip(vs.details, gone)])
        seen.made_fingerprint = made
        return seen

    out = []
    for vs in sets:
        draws = getattr(vs, "draws", None)
        if draws:  # several generation seeds: each draw, and the combined set's "applied in any draw"
            new = [view(d) for d in draws]
            if any(n is not d for n, d in zip(new, draws)):
                made = vs.fingerprint()
                applied = [any(d.applied[i] for d in new) for i in range(len(vs.qids))]
                vs = replace(vs, draws=new, applied=applied)
                vs.made_fingerprint = made
            total = [counts[d.name] for d in draws if d.name in counts]
            if total:
                counts[vs.name] = {"n": max(c["n"] for c in total), "edits_cut": sum(c["edits_cut"] for c in total),
                                   "max_length": limit}
            out.append(vs)
        else:
            out.append(view(vs))
    return out, counts


def truncation_lines(result: dict) -> List[str]:
    """Console lines for the sets with truncated queries (none when no query was cut)."""
    lines = []
    for e in result.get("sets", []):
        t = e.get("truncated")
        if t:
            lines.append(f"{e['name']}: {t['n']} of {e.get('n_queries')} queries longer than the model's "
                         f"{t['max_length']}-token query length (cut)" +
                         (f"; {t['edits_cut']} variation(s) whose edit was cut off counted as not applied"
                          if t["edits_cut"] else ""))
    return lines
