"""Dense indexes chosen by corpus size: exact by default, IVF or HNSW as an option.

``--index flat`` (default): exact inner-product search. A corpus of one shard is searched with
``faiss.IndexFlatIP`` exactly as before shards existed (:class:`bench.search.exact.DenseIndex`); a
larger corpus with :class:`ShardedFlatIndex`, which scores one memory-mapped shard at a time with
the same faiss kernel and merges the per-shard top lists, so the corpus matrix never has to fit
in memory (RAM: one shard plus the query block and its result lists).

``--index ivf``: ``faiss.IndexIVFFlat`` (inner product). Parameters and defaults:

- ``nlist`` (``--nlist``): number of inverted lists; default ``round(4 * sqrt(N))`` capped at
  ``N // 39`` (at least 1), where N is the corpus size. An explicit ``nlist`` above N is an error.
- ``nprobe`` (``--nprobe``, default 32): lists visited per query; clamped to ``nlist`` (the
  recorded value is the one used).
- training: k-means (faiss defaults, seed = run seed) on a seeded sample of
  ``min(N, 50 * nlist)`` corpus vectors drawn without replacement; deterministic.
- vectors are added shard by shard from the memory-mapped shards (the index holds N x dim
  floats in RAM, the texts are never needed).

``--index hnsw``: ``faiss.IndexHNSWFlat`` (inner product). ``M`` (``--hnsw-m``, default 32),
``efConstruction`` (default 200), ``efSearch`` (``--ef-search``, default 128; raised to the
number of candidates a search asks for, ``top_k + 16``, when smaller; the value used is
recorded). The graph is built with one thread, so the same vectors give the same graph
(faiss's parallel insertion order is not deterministic); search uses every thread.

For cosine similarity vectors are L2-normalised before indexing, as for the exact index. An
approximate index changes the numbers, so the variations suite records the index, its
parameters and a measured recall of the approximate top-k against the exact top-k (see
:func:`recall_vs_exact`) in ``result.json`` and prints it.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from bench.core.errors import BenchError
from bench.search.exact import Run, _doc_rank, _l2_normalise, topk_row
from bench.core.seeding import rng_for
from bench.encoding.shards import ShardedEmbeddings
from bench.search.exact import DenseIndex

INDEX_KINDS = ("flat", "ivf", "hnsw")
DEFAULT_NPROBE = 32
DEFAULT_HNSW_M = 32
DEFAULT_EF_CONSTRUCTION = 200
DEFAULT_EF_SEARCH = 128
DEFAULT_RECALL_QUERIES = 1000
TRAIN_POINTS_PER_LIST = 50
EXTRA_CANDIDATES = 16  # candidates asked beyond k, to break score ties by doc id (descending, as trec_eval)


@dataclass(frozen=True)
class IndexConfig:
    """What ``--index``, ``--nlist``, ``--nprobe``, ``--hnsw-m`` and ``--ef-search`` ask for."""

    kind: str = "flat"
    nlist: Optional[int] = None  # None: auto (see module docstring)
    nprobe: int = DEFAULT_NPROBE
    hnsw_m: int = DEFAULT_HNSW_M
    ef_construction: int = DEFAULT_EF_CONSTRUCTION
    ef_search: int = DEFAULT_EF_SEARCH
    seed: int = 0
    recall_queries: int = DEFAULT_RECALL_QUERIES  # queries measured against exact search (seeded sample)

    def __post_init__(self):
        if self.kind not in INDEX_KINDS:
            raise BenchError(f"--index must be one of {', '.join(INDEX_KINDS)}, got {self.kind!r}")
        for flag, value in (("--nlist", self.nlist), ("--nprobe", self.nprobe), ("--hnsw-m", self.hnsw_m),
                            ("--ef-search", self.ef_search), ("efConstruction", self.ef_construction),
                            ("--recall-queries", self.recall_queries)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise BenchError(f"{flag} must be a positive integer, got {value!r}")

    @property
    def approximate(self) -> bool:
        return self.kind != "flat"

    def resolve(self, n_docs: int) -> dict:
        """The parameters used for a corpus of ``n_docs`` vectors (validated; recorded as is)."""
        if self.kind == "flat":
            return {"kind": "flat"}
        if self.kind == "hnsw":
            return {"kind": "hnsw", "M": self.hnsw_m, "ef_construction": self.ef_construction,
                    "ef_search": self.ef_search, "build_threads": 1}
        auto = auto_nlist(n_docs)
        if self.nlist is None:
            nlist, source = auto, "auto: round(4*sqrt(N)) capped at N//39"
        else:
            if self.nlist > n_docs:
                raise BenchError(f"--nlist {self.nlist} exceeds the corpus size ({n_docs} documents): every inverted "
                                 f"list needs training vectors. Choose --nlist <= {n_docs} (about 4*sqrt(N) = {auto} "
                                 f"is usual) or omit --nlist for that default.")
            nlist, source = self.nlist, "--nlist"
        nprobe = min(self.nprobe, nlist)
        return {"kind": "ivf", "nlist": nlist, "nlist_source": source, "nprobe": nprobe,
                "nprobe_clamped": nprobe != self.nprobe, "train_size": min(n_docs, TRAIN_POINTS_PER_LIST * nlist),
                "train_seed": self.seed}


def auto_nlist(n_docs: int) -> int:
    return max(1, min(int(round(4 * math.sqrt(n_docs))), n_docs // 39))


# --------------------------------------------------------------------------------------------
# helpers


def _as_shards(emb) -> List[Tuple[int, np.ndarray]]:
    """``[(first row, block)]`` of a matrix, a memmap or a ShardedEmbeddings."""
    if isinstance(emb, ShardedEmbeddings):
        return list(emb.iter_shards())
    return [(0, emb)]


def _blocks(emb, chunk: int = 65536):
    """Row blocks of every shard, as contiguous float32 arrays (at most ``chunk`` rows)."""
    for start, shard in _as_shards(emb):
        for s in range(0, shard.shape[0], chunk):
            yield start + s, np.ascontiguousarray(shard[s:s + chunk], dtype=np.float32)


def _merge(best_s: np.ndarray, best_i: np.ndarray, s: np.ndarray, i: np.ndarray, keep: int,
           doc_rank: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Per row, the ``keep`` best of two candidate lists: score desc, then tie rank asc (doc id desc)
    (missing candidates are index -1 and sort last)."""
    cs = np.concatenate([best_s, s], axis=1)
    ci = np.concatenate([best_i, i], axis=1)
    valid = ci >= 0
    rank = np.where(valid, doc_rank[np.where(valid, ci, 0)], np.iinfo(np.int64).max)
    order = np.argsort(rank, axis=1, kind="stable")
    neg = np.where(valid, -cs.astype(np.float64), np.inf)
    order = np.take_along_axis(order, np.argsort(np.take_along_axis(neg, order, axis=1), axis=1, kind="stable"),
                               axis=1)[:, :keep]
    return np.take_along_axis(cs, order, axis=1), np.take_along_axis(ci, order, axis=1)


def _to_run(qids: Sequence[str], scores: np.ndarray, idx: np.ndarray, k: int, doc_ids: Sequence[str]) -> Run:
    run: Run = {}
    for r, qid in enumerate(qids):
        keep = [(doc_ids[j], float(sc)) for j, sc in zip(idx[r], scores[r]) if j >= 0][:k]
        run[qid] = keep
    return run


# --------------------------------------------------------------------------------------------
# exact search over shards


class ShardedFlatIndex:
    """Exact inner-product search over memory-mapped shards (the same results as
    ``DenseIndex``: score desc, ties by doc id descending, boundary ties re-scored against every document)."""

    name = "faiss.IndexFlatIP"
    approximate = False

    def __init__(self, doc_ids: Sequence[str], doc_emb, similarity: str):
        self.doc_ids = list(doc_ids)
        self.similarity = similarity
        self.doc_rank = _doc_rank(self.doc_ids)
        self._emb = doc_emb
        if len(self.doc_ids) != doc_emb.shape[0]:
            raise ValueError("one vector per document id")

    def _prep(self, x: np.ndarray) -> np.ndarray:
        x = np.ascontiguousarray(x, dtype=np.float32)
        return _l2_normalise(x) if self.similarity == "cos" else x

    def topk(self, q: np.ndarray, k: int) -> Tuple[np.ndarray, np.ndarray]:
        """``(scores, row indices)`` of the best ``k`` per query (prepared queries)."""
        import faiss

        nq = q.shape[0]
        best_s = np.empty((nq, 0), dtype=np.float32)
        best_i = np.empty((nq, 0), dtype=np.int64)
        for start, block in _blocks(self._emb):
            kk = min(k, block.shape[0])
            s, i = faiss.knn(q, self._prep(block), kk, metric=faiss.METRIC_INNER_PRODUCT)
            best_s, best_i = _merge(best_s, best_i, s, np.where(i >= 0, i + start, -1), k, self.doc_rank)
        return best_s, best_i

    def search(self, qids: Sequence[str], q_emb: np.ndarray, k: int) -> Run:
        q = self._prep(q_emb)
        n = len(self.doc_ids)
        k = min(k, n)
        k2 = min(n, k + EXTRA_CANDIDATES)
        if len(qids) == 0 or k == 0:
            return {qid: [] for qid in qids}
        scores, idx = self.topk(q, k2)
        run: Run = {}
        for r, qid in enumerate(qids):
            s, ix = scores[r], idx[r]
            if k2 < n and s[k2 - 1] >= s[k - 1]:
                full = self._scores_all(q[r])
                top = topk_row(full, k, self.doc_rank)
                run[qid] = [(self.doc_ids[j], float(full[j])) for j in top]
                continue
            run[qid] = [(self.doc_ids[ix[j]], float(s[j])) for j in range(k)]
        return run

    def _scores_all(self, q: np.ndarray) -> np.ndarray:
        return np.concatenate([self._prep(block) @ q for _, block in _blocks(self._emb)])

    def describe(self, k: int) -> dict:
        return {"kind": "flat"}


# --------------------------------------------------------------------------------------------
# approximate indexes


class ApproximateIndex:
    """faiss IVF (``IndexIVFFlat``) or HNSW (``IndexHNSWFlat``), inner product, built shard by
    shard from the memory-mapped corpus. Results are ordered by score, then doc id, among the
    candidates the index returns (no exhaustive re-scoring: that is what it approximates)."""

    approximate = True

    def __init__(self, doc_ids: Sequence[str], doc_emb, similarity: str, cfg: IndexConfig):
        import faiss

        self.doc_ids = list(doc_ids)
        self.similarity = similarity
        self.doc_rank = _doc_rank(self.doc_ids)
        self.cfg = cfg
        n, dim = doc_emb.shape
        if len(self.doc_ids) != n:
            raise ValueError("one vector per document id")
        self.params = cfg.resolve(n)
        if cfg.kind == "ivf":
            self.name = "faiss.IndexIVFFlat"
            quantizer = faiss.IndexFlatIP(dim)
            index = faiss.IndexIVFFlat(quantizer, dim, self.params["nlist"], faiss.METRIC_INNER_PRODUCT)
            index.cp.seed = int(cfg.seed)
            index.train(self._prep(self._sample(doc_emb, self.params["train_size"], cfg.seed)))
            for _, block in _blocks(doc_emb):
                index.add(self._prep(block))
            index.nprobe = self.params["nprobe"]
            self._quantizer = quantizer  # the IVF index does not own it
        else:
            self.name = "faiss.IndexHNSWFlat"
            index = faiss.IndexHNSWFlat(dim, self.params["M"], faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = self.params["ef_construction"]
            threads = faiss.omp_get_max_threads()
            faiss.omp_set_num_threads(1)  # deterministic graph: insertion order fixed
            try:
                for _, block in _blocks(doc_emb):
                    index.add(self._prep(block))
            finally:
                faiss.omp_set_num_threads(threads)
        self.index = index

    @staticmethod
    def _sample(doc_emb, size: int, seed: int) -> np.ndarray:
        n = doc_emb.shape[0]
        if size >= n:
            return np.concatenate([b for _, b in _blocks(doc_emb)])
        rows = np.sort(rng_for(seed, "ivf-train-sample", str(n)).choice(n, size=size, replace=False))

        if isinstance(doc_emb, ShardedEmbeddings):
            return doc_emb.rows(rows)
        return np.asarray(doc_emb[rows], dtype=np.float32)

    def _prep(self, x: np.ndarray) -> np.ndarray:
        x = np.ascontiguousarray(x, dtype=np.float32)
        return _l2_normalise(x) if self.similarity == "cos" else x

    def _candidates(self, k: int) -> int:
        return min(len(self.doc_ids), k + EXTRA_CANDIDATES)

    def topk(self, q: np.ndarray, k: int) -> Tuple[np.ndarray, np.ndarray]:
        k2 = self._candidates(k)
        if self.cfg.kind == "hnsw":
            self.index.hnsw.efSearch = max(self.params["ef_search"], k2)
        s, i = self.index.search(q, k2)
        empty_s = np.empty((q.shape[0], 0), dtype=np.float32)
        empty_i = np.empty((q.shape[0], 0), dtype=np.int64)
        return _merge(empty_s, empty_i, s, i, min(k, len(self.doc_ids)), self.doc_rank)

    def search(self, qids: Sequence[str], q_emb: np.ndarray, k: int) -> Run:
        if len(qids) == 0:
            return {}
        s, i = self.topk(self._prep(q_emb), k)
        return _to_run(qids, s, i, k, self.doc_ids)

    def describe(self, k: int) -> dict:
        out = dict(self.params)
        if self.cfg.kind == "hnsw":
            out["ef_search"] = max(self.params["ef_search"], self._candidates(k))
        return out


Index = Union["ShardedFlatIndex", "ApproximateIndex"]


def build_index(doc_ids: Sequence[str], doc_emb, similarity: str, cfg: Optional[IndexConfig] = None):
    """The index ``cfg`` asks for. Exact: ``DenseIndex`` for an in-memory matrix or a single
    memory-mapped shard (unchanged behaviour), ``ShardedFlatIndex`` for several shards."""
    cfg = cfg or IndexConfig()
    if cfg.approximate:
        return ApproximateIndex(doc_ids, doc_emb, similarity, cfg)
    if isinstance(doc_emb, ShardedEmbeddings) and len(doc_emb.paths) > 1:
        return ShardedFlatIndex(doc_ids, doc_emb, similarity)
    return DenseIndex(doc_ids, doc_emb, similarity)


def recall_vs_exact(index: ApproximateIndex, doc_emb, q_emb: np.ndarray, k: int,
                    at: Sequence[int] = (10,)) -> Dict[str, float]:
    """Mean over queries of |approximate top-j  &  exact top-j| / |exact top-j| for j in ``at``
    and ``k`` (keys ``recall@<j>``; a j beyond the corpus size means the whole corpus); the exact
    top lists come from :class:`ShardedFlatIndex` over the same vectors."""
    exact = ShardedFlatIndex(index.doc_ids, doc_emb, index.similarity)
    q = exact._prep(q_emb)
    k_asked, k = k, min(k, len(index.doc_ids))
    _, ex = exact.topk(q, k)
    _, ap = index.topk(q, k)
    out: Dict[str, float] = {}
    for cut in sorted(set(at) | {k_asked}):
        j = min(cut, k)  # a cut-off beyond the corpus size is the whole corpus
        hits = []
        for r in range(q.shape[0]):
            e, a = ex[r, :j], ap[r, :j]
            e = e[e >= 0]
            hits.append(len(set(e.tolist()) & set(a[a >= 0].tolist())) / max(1, e.size))
        out[f"recall@{cut}"] = float(np.mean(hits)) if hits else 0.0
    return out


def recall_sample(qids: Sequence[str], size: int, seed: int) -> Tuple[List[int], str]:
    """Positions of the queries measured against exact search: all of them when there are at most
    ``size``, else a seeded sample (without replacement, kept in query order)."""
    n = len(qids)
    if n <= size:
        return list(range(n)), f"all {n} ORIGINAL queries"
    pos = np.sort(rng_for(seed, "recall-vs-exact", str(n)).choice(n, size=size, replace=False))
    return [int(p) for p in pos], f"seeded sample of {size} of the {n} ORIGINAL queries"


def config_dict(cfg: IndexConfig) -> dict:
    return asdict(cfg)
