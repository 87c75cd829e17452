"""Composes the steps: model -> retriever (corpus encoded once, cached) -> runs -> measures.

Suites call :func:`make_retriever` once per (model, dataset) and then :meth:`Retriever.search`
for every query set; the corpus is never encoded twice and a query text is never encoded twice.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from pathlib import Path
from typing import Dict, Iterator, Optional, Sequence

from bench.data import Dataset
from bench.models import ModelSpec
from bench.retrieve import Run


class Timer:
    """Accumulates wall-clock seconds per step name (kept out of the deterministic result)."""

    def __init__(self):
        self.seconds: Dict[str, float] = {}

    @contextmanager
    def __call__(self, step: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[step] = self.seconds.get(step, 0.0) + time.perf_counter() - t0


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


class DenseRetriever(Retriever):
    def __init__(self, spec: ModelSpec, dataset: Dataset, timer: Timer, cache_root: Optional[Path] = None,
                 batch_size: int = 64, progress: bool = True):
        from bench.encode import EmbeddingCache, Encoder
        from bench.retrieve import DenseIndex

        self.spec, self.timer = spec, timer
        self.passage_encoder = Encoder(spec, "passage", batch_size=batch_size, progress=progress)
        self.query_encoder = Encoder(spec, "query", batch_size=batch_size, progress=progress,
                                     shared=self.passage_encoder)
        self.passage_cache = EmbeddingCache(self.passage_encoder, cache_root)
        self.query_cache = EmbeddingCache(self.query_encoder, cache_root)
        doc_ids = dataset.doc_ids()
        with timer("corpus_encode"):
            doc_emb = self.passage_cache.matrix([dataset.corpus[d].full_text() for d in doc_ids], desc="encode corpus")
        with timer("index_build"):
            self.index = DenseIndex(doc_ids, doc_emb, spec.similarity)
        self.index_name, self.similarity = self.index.name, spec.similarity

    def prepare(self, texts):
        with self.timer("query_encode"):
            self.query_cache.texts(list(dict.fromkeys(texts)))

    def search(self, qids, texts, k):
        with self.timer("query_encode"):
            q = self.query_cache.texts(list(texts))
        with self.timer("search"):
            return self.index.search(qids, q, k)

    def stats(self) -> dict:
        return {
            "passages_encoded": self.passage_encoder.n_encoded,
            "passage_cache_hits": self.passage_cache.hits,
            "queries_encoded": self.query_encoder.n_encoded,
            "query_cache_hits": self.query_cache.hits,
        }


class BM25Retriever(Retriever):
    similarity = "bm25"

    def __init__(self, spec: ModelSpec, dataset: Dataset, timer: Timer, **_ignored):
        from bench.retrieve import BM25Index

        self.timer = timer
        doc_ids = dataset.doc_ids()
        with timer("index_build"):
            self.index = BM25Index(doc_ids, [dataset.corpus[d].full_text() for d in doc_ids], spec.params)
        self.index_name = self.index.name

    def search(self, qids, texts, k):
        with self.timer("search"):
            return self.index.search_texts(qids, texts, k)


def make_retriever(spec: ModelSpec, dataset: Dataset, timer: Timer, cache_root: Optional[Path] = None,
                   batch_size: int = 64, progress: bool = True) -> Retriever:
    cls = BM25Retriever if spec.kind == "bm25" else DenseRetriever
    return cls(spec, dataset, timer, cache_root=cache_root, batch_size=batch_size, progress=progress)


def library_versions() -> Dict[str, str]:
    """Versions of the libraries that can change a number (recorded in every result file)."""
    from importlib import metadata

    out = {}
    for dist in ("torch", "transformers", "tokenizers", "faiss-cpu", "bm25s", "ir-measures", "pytrec-eval-terrier",
                 "numpy", "scipy", "nlpaug", "spacy", "nltk", "lemminflect", "peft", "matplotlib"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return out
