"""Retrieval: exact dense search with faiss, and a BM25 baseline with bm25s.

(Sharded exact search and the approximate IVF / HNSW indexes live in :mod:`bench.search.ann`.)

Rankings are deterministic: by score (descending), ties broken by document id DESCENDING (string
order, which equals trec_eval's ``strcmp`` order on UTF-8 ids). That is trec_eval's own rule, so a
run written to a TREC file and re-read by trec_eval / ir_measures ranks exactly as we ranked it.
"""
from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import numpy as np
from bench.core.errors import DataError
from bench.core.io import atomic_write_text
from bench.data.model import natural_key

Run = Dict[str, List[Tuple[str, float]]]  # query id -> [(doc id, score)] best first
TIE_BREAK = "score desc, then doc id desc (trec_eval's order)"  # recorded in every result file


def _doc_rank(doc_ids: Sequence[str]) -> np.ndarray:
    """rank[i] = position of doc_ids[i] in DESCENDING string order (the tie-break key: among equal
    scores the lower rank comes first, as in trec_eval)."""
    order = sorted(range(len(doc_ids)), key=lambda i: doc_ids[i], reverse=True)
    rank = np.empty(len(doc_ids), dtype=np.int64)
    rank[order] = np.arange(len(doc_ids))
    return rank


def topk_row(scores: np.ndarray, k: int, doc_rank: np.ndarray) -> np.ndarray:
    """Indices of the top-k scores, ties (including those at the cut-off) broken by doc rank."""
    n = scores.shape[0]
    k = min(k, n)
    if k == 0:
        return np.empty(0, dtype=np.int64)
    if k < n:
        kth = np.partition(scores, n - k)[n - k]  # the k-th largest value
        cand = np.flatnonzero(scores >= kth)
    else:
        cand = np.arange(n)
    order = np.lexsort((doc_rank[cand], -scores[cand].astype(np.float64)))
    return cand[order[:k]]


class DenseIndex:
    """faiss exact inner-product search (``IndexFlatIP``). For cosine similarity the vectors are
    L2-normalised first (a no-op for models that already normalise)."""

    name = "faiss.IndexFlatIP"
    approximate = False
    chunk = 65536

    def __init__(self, doc_ids: Sequence[str], doc_emb: np.ndarray, similarity: str):
        import faiss

        self.doc_ids = list(doc_ids)
        self.similarity = similarity
        self.doc_rank = _doc_rank(self.doc_ids)
        self.index = faiss.IndexFlatIP(doc_emb.shape[1])
        # added in chunks, so a memory-mapped corpus is never copied whole a second time
        for start in range(0, doc_emb.shape[0], self.chunk):
            part = np.ascontiguousarray(doc_emb[start:start + self.chunk], dtype=np.float32)
            self.index.add(_l2_normalise(part) if similarity == "cos" else part)
        self._emb = doc_emb  # (memory-mapped) source, for the rare re-scoring of boundary ties

    def search(self, qids: Sequence[str], q_emb: np.ndarray, k: int) -> Run:
        q = np.ascontiguousarray(q_emb, dtype=np.float32)
        if self.similarity == "cos":
            q = _l2_normalise(q)
        n = len(self.doc_ids)
        k = min(k, n)
        k2 = min(n, k + 16)
        scores, idx = self.index.search(q, k2)
        run: Run = {}
        for i, qid in enumerate(qids):
            s, ix = scores[i], idx[i]
            if k2 < n and s[k2 - 1] >= s[k - 1]:
                # ties reach past what faiss returned: score this query against every document
                full = self._scores_all(q[i])
                top = topk_row(full, k, self.doc_rank)
                run[qid] = [(self.doc_ids[j], float(full[j])) for j in top]
                continue
            order = np.lexsort((self.doc_rank[ix], -s.astype(np.float64)))[:k]
            run[qid] = [(self.doc_ids[ix[j]], float(s[j])) for j in order]
        return run


    def _scores_all(self, q: np.ndarray) -> np.ndarray:
        """The query's score against every document, computed as faiss does (chunked)."""
        parts = []
        for start in range(0, self._emb.shape[0], self.chunk):
            part = np.asarray(self._emb[start:start + self.chunk], dtype=np.float32)
            if self.similarity == "cos":
                part = _l2_normalise(part)
            parts.append(part @ q)
        return np.concatenate(parts)


def _l2_normalise(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return (x / np.maximum(norms, 1e-12)).astype(np.float32)


class BM25Index:
    """BM25 over title + text with bm25s (parameters from the model spec; ``analyzer``:
    :mod:`bench.search.analysis`, ``lucene-english`` as Anserini, or ``bm25s``, bm25s' own
    tokenizer without stemming, which specs without ``analyzer`` use).

    Only documents that match at least one query term are returned (as Anserini / Pyserini do; a
    matching document always scores > 0 under BM25's positive idf): a query with no matching term
    retrieves nothing instead of zero-score documents in id order."""

    name = "bm25s"

    def __init__(self, doc_ids: Sequence[str], doc_texts: Sequence[str], params: dict):
        import bm25s

        self.doc_ids = list(doc_ids)
        self.doc_rank = _doc_rank(self.doc_ids)
        self.params = dict(params)
        self.stopwords = params.get("stopwords", "en")
        self.analyzer = params.get("analyzer", "bm25s")
        self.model = bm25s.BM25(k1=params.get("k1", 0.9), b=params.get("b", 0.4), method=params.get("method", "lucene"))
        if self.analyzer == "bm25s":
            tokens = bm25s.tokenize(list(doc_texts), stopwords=self.stopwords, show_progress=False)
            self.vocab = tokens.vocab
        else:
            from bench.search.analysis import analyze

            docs = analyze(doc_texts, self.analyzer)
            self.vocab = {t: i for i, t in enumerate(sorted({t for d in docs for t in d}))}
            tokens = bm25s.tokenization.Tokenized(ids=[[self.vocab[t] for t in d] for d in docs], vocab=self.vocab)
        self.model.index(tokens, show_progress=False)

    def _query_terms(self, text: str) -> List[str]:
        if self.analyzer == "bm25s":
            import bm25s

            return bm25s.tokenize([text], stopwords=self.stopwords, show_progress=False, return_ids=False)[0]
        from bench.search.analysis import analyze

        return analyze([text], self.analyzer)[0]

    def search_texts(self, qids: Sequence[str], texts: Sequence[str], k: int) -> Run:
        run: Run = {}
        for qid, text in zip(qids, texts):
            terms = [t for t in self._query_terms(text) if t in self.vocab]
            scores = self.model.get_scores(terms) if terms else np.zeros(len(self.doc_ids), dtype=np.float32)
            scores = np.asarray(scores, dtype=np.float32)
            matching = np.flatnonzero(scores > 0)
            top = matching[topk_row(scores[matching], k, self.doc_rank[matching])]
            run[qid] = [(self.doc_ids[j], float(scores[j])) for j in top]
        return run


def trec_id_problem(ident: str) -> str:
    """Why ``ident`` cannot be a field of a TREC run line ('' when it can)."""
    if not ident:
        return "it is empty"
    if any(ch.isspace() for ch in ident):
        return "it contains white space (TREC run lines are split on white space)"
    return ""


def write_trec_run(run: Run, path, tag: str) -> None:
    """TREC run file: ``qid Q0 docid rank score tag``, ranks from 1 in our (tie-broken) order.

    Scores are written with ``repr`` (the shortest text that reads back as the same double), so
    trec_eval, which sorts by score and then by doc id descending, re-ranks exactly as we ranked.
    Ids that cannot be a TREC field (white space, empty) are refused with a :class:`DataError`."""
    if not tag or trec_id_problem(tag):
        raise DataError(f"TREC run tag {tag!r} cannot be written: {trec_id_problem(tag)}")
    lines = []
    for qid in sorted(run, key=natural_key):
        for rank, (did, score) in enumerate(run[qid], start=1):
            for kind, ident in (("query", qid), ("document", did)):
                why = trec_id_problem(ident)
                if why:
                    raise DataError(f"{kind} id {ident!r} cannot be written to the TREC run {path}: {why}. "
                                    f"Rename the ids in the collection, or run without --trec-runs")
            lines.append(f"{qid} Q0 {did} {rank} {float(score)!r} {tag}")
    atomic_write_text(path, "\n".join(lines) + ("\n" if lines else ""))
