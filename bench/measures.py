"""Retrieval measures, computed per query by ir_measures (trec_eval via pytrec_eval).

A :class:`Measure` is named in ir_measures syntax (``nDCG@10``, ``R@100``, ``AP``,
``P@10``) plus the familiar alias ``MRR@k`` (= ``RR@k``). Its ``str`` round-trips:
``parse_measure(str(m)) == m``; that name is the result-file key and the CSV column.

The run handed to trec_eval carries scores derived from our ranks (strictly decreasing), so the
measures follow our deterministic tie-breaking exactly instead of trec_eval's own (which orders
tied documents by reverse document id).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Dict, List, Mapping, Sequence

from bench.errors import BenchError

_ALIASES = {"MRR": "RR", "MAP": "AP", "Recall": "R", "NDCG": "nDCG", "ndcg": "nDCG", "map": "AP", "mrr": "RR"}

DEFAULT_MEASURES = ("MRR@10", "nDCG@10", "R@100")


@dataclass(frozen=True)
class Measure:
    name: str  # as the user wrote it, normalised (e.g. "MRR@10")

    def __str__(self) -> str:
        return self.name

    @property
    def irm(self):
        return _to_irm(self.name)

    @property
    def cutoff(self):
        return getattr(self.irm, "params", {}).get("cutoff")


@lru_cache(maxsize=None)
def _to_irm(name: str):
    import ir_measures

    base, sep, rest = name.partition("@")
    base = _ALIASES.get(base, base)
    try:
        return ir_measures.parse_measure(base + sep + rest)
    except (ValueError, NameError, KeyError, AttributeError, SyntaxError) as exc:
        raise BenchError(f"unknown measure {name!r} ({exc}). Use ir_measures names such as "
                         f"MRR@10, nDCG@10, R@100, AP, P@10") from None


def parse_measure(name: str) -> Measure:
    name = name.strip()
    base, sep, rest = name.partition("@")
    if base in ("mrr", "MRR"):
        base = "MRR"
    elif base in ("map", "MAP"):
        base = "MAP"
    elif base in ("ndcg", "NDCG"):
        base = "nDCG"
    m = Measure(base + sep + rest)
    _to_irm(m.name)  # validate now
    return m


def parse_measures(spec) -> List[Measure]:
    """``"MRR@10 nDCG@10, R@100"`` or a list of names -> measures (duplicates removed, order kept)."""
    names = spec.replace(",", " ").split() if isinstance(spec, str) else list(spec)
    out: List[Measure] = []
    for n in names:
        m = parse_measure(str(n))
        if m not in out:
            out.append(m)
    if not out:
        raise BenchError("no measures given")
    return out


def per_query(measures: Sequence[Measure], qrels: Mapping[str, Mapping[str, int]],
              run: Mapping[str, Sequence], query_ids: Sequence[str]) -> Dict[str, Dict[str, float]]:
    """``{measure name: {query id: value}}`` for every query in ``query_ids``.

    A query with no retrieved document scores 0 (trec_eval leaves it out; we keep every query
    in the average so sets are compared on the same queries).
    """
    import ir_measures

    qrels_list = [ir_measures.Qrel(q, d, int(g)) for q in query_ids for d, g in qrels.get(q, {}).items()]
    scored = []
    for q in query_ids:
        ranked = run.get(q, [])
        n = len(ranked)
        scored += [ir_measures.ScoredDoc(q, did, float(n - rank)) for rank, (did, _s) in enumerate(ranked)]
    by_irm: Dict[object, List[str]] = {}
    for m in measures:
        by_irm.setdefault(m.irm, []).append(m.name)
    out: Dict[str, Dict[str, float]] = {m.name: {q: 0.0 for q in query_ids} for m in measures}
    for metric in ir_measures.pytrec_eval.iter_calc(list(by_irm), qrels_list, scored):
        for name in by_irm[metric.measure]:
            if metric.query_id in out[name]:
                out[name][metric.query_id] = float(metric.value)
    return out
