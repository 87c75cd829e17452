"""Retrieval measures, computed per query by trec_eval (through pytrec_eval).

A :class:`Measure` is named ``FAMILY`` or ``FAMILY@k`` (``MRR@10``, ``nDCG@10``, ``R@100``,
``AP``, ``P@10``). Its ``str`` round-trips: ``parse_measure(str(m)) == m``; that name is the
result-file key and the CSV column. The accepted families, each with its trec_eval measure:

=========  ==========================  ==================================  =========
family     aliases                     trec_eval measure                   cutoff
=========  ==========================  ==================================  =========
RR         MRR, rr, mrr                ``recip_rank`` on the run cut at k  optional
nDCG       ndcg, NDCG                  ``ndcg_cut.k`` / ``ndcg``           optional
AP         MAP, ap, map                ``map_cut.k`` / ``map``             optional
R          Recall, recall              ``recall.k``                        required
P          precision                   ``P.k``                             required
Success    success                     ``success.k``                       required
Rprec      R-prec, rprec               ``Rprec``                           none
=========  ==========================  ==================================  =========

trec_eval's own names are accepted too and read as ours (as ir_measures does), and the reading is
said (:func:`trec_eval_notes`): ``recip_rank`` -> ``RR``; ``ndcg_cut_10`` / ``ndcg_cut.10`` ->
``nDCG@10``; ``recall_100`` -> ``R@100``; ``P_10`` -> ``P@10``; ``map_cut_10`` -> ``AP@10``;
``success_10`` -> ``Success@10``; ``map`` -> ``MAP``; ``ndcg`` -> ``nDCG``; ``Rprec`` -> ``Rprec``.

trec_eval's ``recip_rank`` has no cutoff, and ir_measures' pytrec_eval provider silently drops
the one of ``RR@k`` (a first relevant document at rank 11 scored 1/11 under ``RR@10``). ``RR@k``
is therefore computed as ``recip_rank`` on the run cut at rank k, which is what the measure means
(the MS MARCO definition of MRR@10).

Every value is trec_eval's on our ranking. Our rankings order documents by score (descending),
ties by document id descending, which is trec_eval's own rule; scores handed to trec_eval are
``n - rank`` (strictly decreasing), so it cannot reorder what we ranked. Relevance: grade >= 1
is relevant (trec_eval's default ``relevance_level``); nDCG gains are the grades.
A query with no retrieved document scores 0 (trec_eval leaves it out; we keep every query in the
average so sets are compared on the same queries).
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from bench.core.errors import BenchError

DEFAULT_MEASURES = ("MRR@10", "nDCG@10", "R@100")


@dataclass(frozen=True)
class _Family:
    name: str  # the canonical spelling used when the user wrote an alias without its own spelling
    trec_cut: Optional[str]  # trec_eval measure with a cutoff ("ndcg_cut"), None: no cutoff form
    trec_full: Optional[str]  # trec_eval measure without a cutoff ("ndcg"), None: cutoff required
    description: str


_FAMILIES: Dict[str, _Family] = {
    "RR": _Family("RR", None, "recip_rank", "reciprocal rank of the first relevant document (0 if none in the top k)"),
    "nDCG": _Family("nDCG", "ndcg_cut", "ndcg", "normalised DCG, gain = grade, discount log2(rank + 1)"),
    "AP": _Family("AP", "map_cut", "map", "average precision (over all relevant documents, top k only with @k)"),
    "R": _Family("R", "recall", None, "recall: relevant documents in the top k / all relevant documents"),
    "P": _Family("P", "P", None, "precision: relevant documents in the top k / k"),
    "Success": _Family("Success", "success", None, "1 if a relevant document is in the top k, else 0"),
    "Rprec": _Family("Rprec", None, "Rprec", "precision at rank R (R = number of relevant documents)"),
}
# spelling as written -> (family, spelling kept in the measure's name)
_SPELLINGS: Dict[str, Tuple[str, str]] = {
    "RR": ("RR", "RR"), "rr": ("RR", "RR"), "MRR": ("RR", "MRR"), "mrr": ("RR", "MRR"),
    "nDCG": ("nDCG", "nDCG"), "ndcg": ("nDCG", "nDCG"), "NDCG": ("nDCG", "nDCG"),
    "AP": ("AP", "AP"), "ap": ("AP", "AP"), "MAP": ("AP", "MAP"), "map": ("AP", "MAP"),
    "R": ("R", "R"), "Recall": ("R", "R"), "recall": ("R", "R"),
    "P": ("P", "P"), "precision": ("P", "P"),
    "Success": ("Success", "Success"), "success": ("Success", "Success"),
    "Rprec": ("Rprec", "Rprec"), "R-prec": ("Rprec", "Rprec"), "rprec": ("Rprec", "Rprec"),
}
# trec_eval's own names: measure[._]cutoff with its cutoff, or the name alone
_TREC_CUT = {"ndcg_cut": "nDCG", "map_cut": "AP", "recall": "R", "P": "P", "success": "Success"}
_TREC_FULL = {"recip_rank": "RR", "map": "MAP", "ndcg": "nDCG", "Rprec": "Rprec"}
_TREC_RE = re.compile(r"^(ndcg_cut|map_cut|recall|P|success)[._](\d+)$")
_NAME_RE = re.compile(r"^([A-Za-z][A-Za-z-]*)(?:@(\d+))?$")
_EXAMPLES = "MRR@10, nDCG@10, R@100, AP, P@10, Success@10, Rprec"


@dataclass(frozen=True)
class Measure:
    name: str  # normalised, e.g. "MRR@10"

    def __str__(self) -> str:
        return self.name

    @property
    def family(self) -> str:
        return _SPELLINGS[self.name.partition("@")[0]][0]

    @property
    def cutoff(self) -> Optional[int]:
        rest = self.name.partition("@")[2]
        return int(rest) if rest else None

    @property
    def description(self) -> str:
        return _FAMILIES[self.family].description

    @property
    def trec_eval(self) -> str:
        """The trec_eval measure (pytrec_eval spelling) that computes this one."""
        fam = _FAMILIES[self.family]
        if self.cutoff is None:
            return fam.trec_full  # type: ignore[return-value]
        if fam.trec_cut is None:  # RR@k: recip_rank on the run cut at k
            return fam.trec_full  # type: ignore[return-value]
        return f"{fam.trec_cut}.{self.cutoff}"

    @property
    def run_cut(self) -> Optional[int]:
        """Rank at which the run is cut before trec_eval sees it (RR@k only)."""
        return self.cutoff if self.family == "RR" else None


def _from_trec_eval(text: str) -> Optional[str]:
    """Our name for a trec_eval measure name (``ndcg_cut_10`` -> ``nDCG@10``), else None."""
    if text in _TREC_FULL:
        return _TREC_FULL[text]
    match = _TREC_RE.match(text)
    return f"{_TREC_CUT[match.group(1)]}@{match.group(2)}" if match else None


def trec_eval_notes(spec) -> List[str]:
    """One line per trec_eval name in ``spec`` that reads as another name of ours:
    ``recip_rank read as RR (trec_eval name)``."""
    names = spec.replace(",", " ").split() if isinstance(spec, str) else [str(n) for n in spec]
    notes = []
    for n in dict.fromkeys(t.strip() for t in names):
        ours = _from_trec_eval(n)
        if ours is not None and ours != n:
            notes.append(f"{n} read as {parse_measure(ours)} (trec_eval name)")
    return notes


def parse_measure(name: str) -> Measure:
    text = str(name).strip()
    text = _from_trec_eval(text) or text
    match = _NAME_RE.match(text)
    base = match.group(1) if match else text.partition("@")[0]
    if not match or base not in _SPELLINGS:
        close = difflib.get_close_matches(base, list(_SPELLINGS) + list(_TREC_FULL), n=1)
        hint = f" Did you mean {_SPELLINGS[close[0]][1] if close[0] in _SPELLINGS else close[0]}?" if close else ""
        raise BenchError(f"unknown measure {text!r}.{hint} Use one of: {_EXAMPLES} "
                         f"(families {', '.join(_FAMILIES)}; @k is a cutoff >= 1), or a trec_eval name: "
                         f"recip_rank, ndcg_cut_10, recall_100, P_10, map, map_cut_10, success_10, Rprec")
    family, spelling = _SPELLINGS[base]
    fam = _FAMILIES[family]
    cut = match.group(2)
    if cut is not None:
        if int(cut) < 1:
            raise BenchError(f"measure {text!r}: the cutoff must be at least 1")
        if fam.trec_cut is None and family != "RR":
            raise BenchError(f"measure {text!r}: {family} takes no cutoff; write {spelling}")
        return Measure(f"{spelling}@{int(cut)}")
    if fam.trec_full is None:
        raise BenchError(f"measure {text!r} needs a cutoff, e.g. {spelling}@10")
    return Measure(spelling)


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


def canonical_measures(spec) -> str:
    """The measures of ``spec`` in their canonical spelling, space-separated, in the given order
    (duplicates removed), e.g. ``"mrr@10, NDCG@10"`` -> ``"MRR@10 nDCG@10"``: the form a run's identity
    (its default folder's options hash) is computed from."""
    return " ".join(m.name for m in parse_measures(spec))


def per_query(measures: Sequence[Measure], qrels: Mapping[str, Mapping[str, int]],
              run: Mapping[str, Sequence], query_ids: Sequence[str]) -> Dict[str, Dict[str, float]]:
    """``{measure name: {query id: value}}`` for every query in ``query_ids``.

    ``run[q]`` is the ranking ``[(doc id, score), ...]``, best first, exactly as ranked by the
    retriever (ties already broken). Values are trec_eval's on that ranking.
    """
    import pytrec_eval

    qids = list(dict.fromkeys(query_ids))
    judged = {q: {str(d): int(g) for d, g in qrels.get(q, {}).items()} for q in qids}
    judged = {q: docs for q, docs in judged.items() if docs}
    out: Dict[str, Dict[str, float]] = {m.name: {q: 0.0 for q in qids} for m in measures}
    if not judged:
        return out
    # one trec_eval pass per run cut (None = the whole ranking)
    passes: Dict[Optional[int], List[Measure]] = {}
    for m in measures:
        passes.setdefault(m.run_cut, []).append(m)
    for cut, group in passes.items():
        trec_run = {}
        for q in judged:
            ranked = list(run.get(q, ()))
            if cut is not None:
                ranked = ranked[:cut]
            if ranked:
                n = len(ranked)
                trec_run[q] = {str(did): float(n - rank) for rank, (did, _s) in enumerate(ranked)}
        if not trec_run:
            continue
        evaluator = pytrec_eval.RelevanceEvaluator(judged, {m.trec_eval for m in group})
        values = evaluator.evaluate(trec_run)
        for m in group:
            key = m.trec_eval.replace(".", "_")
            column = out[m.name]
            for q, row in values.items():
                if q in column:
                    column[q] = float(row[key])
    return out
