"""Composes the steps: model -> retriever (corpus encoded once, cached) -> runs -> measures.

Suites call :func:`make_retriever` once per (model, dataset) and then :meth:`Retriever.search`
for every query set; the corpus is never encoded twice and a query text is never encoded twice.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

from bench.data.model import Dataset
from bench.models.spec import ModelSpec
from bench.search.exact import Run
from bench.core.timing import Timer
from bench.encoding.cache import EmbeddingCache
from bench.encoding.encoders import make_encoders
from bench.encoding.shards import DEFAULT_SHARD_SIZE, dataset_chunks, encode_corpus
from bench.search.ann import IndexConfig, build_index, recall_sample, recall_vs_exact
from bench.search.exact import BM25Index


class Retriever:
    index_name = ""
    similarity = ""

    def search(self, qids: Sequence[str], texts: Sequence[str], k: int) -> Run:
        raise NotImplementedError

    def prepare(self, texts: Sequence[str]) -> None:
        """Optionally do per-text work for every query set at once (dense: encode each distinct
        query text in one length-sorted pass, so batches are full and never repeated)."""

    def stats(self) -> dict:
        return {}

    def index_record(self, k: int) -> dict:
        return {}

    def recall_vs_exact(self, qids, texts, k: int) -> Optional[dict]:
        return None


class DenseRetriever(Retriever):
    """The corpus encoded shard by shard into the embedding cache (through ``executor``: local by
    default, Ray when asked; only missing shards are computed), then indexed as ``index`` asks
    (exact by default, see :mod:`bench.search.ann`).

    ``dataset`` is a loaded :class:`~bench.data.model.Dataset` (the regular path: the dataset object,
    i.e. every text, is in memory; each shard's list of encoder texts is built when the shard is
    reached) or any iterable of ``(ids, texts)`` shards, e.g. :func:`bench.data.readers.iter_corpus_chunks`
    over a corpus file (the scale path: only the doc ids and the texts of the shards in flight are
    in memory). Vectors: shard files memory-mapped back; the exact index of a multi-shard corpus
    reads one shard at a time, an IVF / HNSW index holds every vector in RAM (see
    :mod:`bench.search.ann`).
    """

    def __init__(self, spec: ModelSpec, dataset, timer: Timer, cache_root: Optional[Path] = None,
                 batch_size: int = 64, progress: bool = True, index=None, shard_size: Optional[int] = None,
                 executor=None):
        self.spec, self.timer = spec, timer
        self.index_config = index or IndexConfig()
        shard_size = shard_size if shard_size is not None else DEFAULT_SHARD_SIZE
        self.passage_encoder, self.query_encoder = make_encoders(spec, batch_size, progress)
        self.passage_cache = EmbeddingCache(self.passage_encoder, cache_root, shard_size=shard_size)
        self.query_cache = EmbeddingCache(self.query_encoder, cache_root)
        chunks = dataset_chunks(dataset, shard_size) if isinstance(dataset, Dataset) else dataset
        with timer("corpus_encode"):
            self.corpus = encode_corpus(self.passage_encoder, chunks, self.passage_cache.root, shard_size,
                                        executor=executor, progress=progress)
        # the corpus matrix (encoded now, or read from the cache) sets the width queries must have
        self.passage_encoder.contract.expect_width(self.corpus.embeddings.shape[1], "passage")
        self.passage_cache.hits += self.corpus.passages_cached
        self.passage_cache.misses += self.corpus.passages_encoded
        doc_ids = self.corpus.doc_ids
        with timer("index_build"):
            self.index = build_index(doc_ids, self.corpus.embeddings, spec.similarity, self.index_config)
        self.index_name, self.similarity = self.index.name, spec.similarity

    def prepare(self, texts):
        with self.timer("query_encode"):
            self.query_cache.texts(list(dict.fromkeys(texts)))

    def search(self, qids, texts, k):
        with self.timer("query_encode"):
            q = self.query_cache.texts(list(texts))
        self.query_encoder.contract.expect_width(q.shape[1], "query")
        with self.timer("search"):
            return self.index.search(qids, q, k)

    def index_record(self, k: int) -> dict:
        """What result.json records about the index beyond its name (nothing for an exact index
        over one shard: those files stay as they were before shards and approximate indexes)."""
        out: dict = {}
        if self.corpus.n_shards > 1:
            out["corpus_shards"] = {"shard_size": self.corpus.shard_size, "n_shards": self.corpus.n_shards}
        if getattr(self.index, "approximate", False):
            out["index_params"] = self.index.describe(k)
        return out

    def recall_vs_exact(self, qids, texts, k: int) -> Optional[dict]:
        """For an approximate index: recall of its top-k against exact search on (a seeded sample
        of) the given queries; None for an exact index."""
        if not getattr(self.index, "approximate", False):
            return None

        pos, described = recall_sample(list(qids), self.index_config.recall_queries, self.index_config.seed)
        with self.timer("recall_vs_exact"):
            q = self.query_cache.texts([texts[i] for i in pos])
            recall = recall_vs_exact(self.index, self.corpus.embeddings, q, k, at=(10,))
        return {"queries": described, "n_queries": len(pos), "k": min(k, len(self.index.doc_ids)),
                "exact": "faiss inner product over every document (ShardedFlatIndex)", **recall}

    def stats(self) -> dict:
        """Encoding counts for timings.json. Queries, per look-up of a text's vector: ``query_cache_hits``
        = distinct texts served from the on-disk embedding cache, ``queries_encoded`` = texts encoded
        in this run, ``query_vectors_reused`` = look-ups served from a vector this run already had
        (an earlier set, or the pass over all distinct texts before the sets are searched);
        ``query_lookups`` = all look-ups."""
        return {
            "passages_encoded": self.corpus.passages_encoded,
            "passage_cache_hits": self.corpus.passages_cached,
            "queries_encoded": self.query_encoder.n_encoded,
            "query_cache_hits": self.query_cache.hits,
            "query_vectors_reused": self.query_cache.reused,
            "query_lookups": self.query_cache.lookups,
            "corpus_shards": {k: v for k, v in self.corpus.stats().items()
                              if k not in ("passages_encoded", "passages_cached")},
        }


class BM25Retriever(Retriever):
    similarity = "bm25"

    def __init__(self, spec: ModelSpec, dataset: Dataset, timer: Timer, **_ignored):
        self.timer = timer
        doc_ids = dataset.doc_ids()
        with timer("index_build"):
            self.index = BM25Index(doc_ids, [dataset.corpus[d].full_text() for d in doc_ids], spec.params)
        self.index_name = self.index.name
        self.n_docs = len(doc_ids)
        self.searched = self.short = 0  # rankings returned, and those with fewer than k documents

    def search(self, qids, texts, k):
        with self.timer("search"):
            run = self.index.search_texts(qids, texts, k)
        want = min(k, self.n_docs)
        self.searched += len(run)
        self.short += sum(len(docs) < want for docs in run.values())
        return run

    def index_record(self, k: int) -> dict:
        """Which BM25 (analysis and parameters, as the model spec's params) and how many rankings
        were shorter than ``k``: BM25 returns only documents that match a query term."""
        params = self.index.params
        return {"bm25": {"analyzer": params.get("analyzer", "bm25s"), "stemmer": params.get("stemmer", "none"),
                         "stopwords": params.get("stopwords", "en"), "k1": params.get("k1", 0.9),
                         "b": params.get("b", 0.4), "rankings": self.searched,
                         "rankings_short": self.short,
                         "short_reason": f"only documents that match a query term are returned: {self.short} of "
                                         f"{self.searched} rankings (queries x sets) hold fewer than "
                                         f"{min(k, self.n_docs)} documents"}}


def make_retriever(spec: ModelSpec, dataset: Dataset, timer: Timer, cache_root: Optional[Path] = None,
                   batch_size: int = 64, progress: bool = True, index=None, shard_size: Optional[int] = None,
                   executor=None) -> Retriever:
    """The retriever for ``spec``. Dense models take ``index`` (a :class:`bench.search.ann.IndexConfig`,
    default exact), ``shard_size`` and ``executor`` (corpus encoding); BM25 ignores them except an
    approximate index, which it cannot honour."""
    if spec.kind == "bm25":
        if index is not None and getattr(index, "approximate", False):
            from bench.core.errors import BenchError

            raise BenchError(f"--index {index.kind} applies to dense models; {spec.name!r} is BM25 (omit --index)")
        return BM25Retriever(spec, dataset, timer)
    return DenseRetriever(spec, dataset, timer, cache_root=cache_root, batch_size=batch_size, progress=progress,
                          index=index, shard_size=shard_size, executor=executor)


