"""The corpus in shards: a deterministic plan, content-addressed shard files, resumable encoding.

Shard plan
    The corpus, in corpus order, cut into consecutive shards of ``shard_size`` documents
    (default :data:`DEFAULT_SHARD_SIZE`; the last shard is shorter; a corpus of at most
    ``shard_size`` documents is one shard). The plan depends on nothing but the corpus order and
    ``shard_size``, so every executor encodes the same shards with the same length-sorted batches
    and writes byte-identical vectors (batch composition changes the last bits of a float, which
    is why the local executor encodes shard by shard too).

Shard files
    ``<cache home>/embeddings/<encoder key>/matrix-<content key>.npy``: the content key is the
    SHA-256 of the shard's ordered texts (of their SHA-256 digests), the folder is the encoder's
    (weights, tokenizer, pooling, normalisation, prefix, max length, dtype, role). This is the
    store :meth:`bench.encoding.cache.EmbeddingCache.matrix` always used for a whole corpus: a corpus of
    one shard keeps the entry (name and bytes) it had before shards existed, and a shard is simply
    the entry of its own text list. Files are written to a temporary name and renamed.

Resume
    A shard whose file exists is never encoded again (a rerun, an interrupted run, or another
    suite on the same corpus and model); only missing shards are computed. A worker that dies
    loses at most the shard it was encoding.

Memory
    :func:`encode_corpus` consumes ``(ids, texts)`` chunks lazily: the driver holds the texts of
    the shard being submitted (plus, with Ray, one per busy worker), never the whole corpus; the
    vectors go to disk and come back memory-mapped (:class:`ShardedEmbeddings`). Only the doc ids
    are kept for the whole corpus.
"""
from __future__ import annotations

import errno
import hashlib
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from bench.core.io import atomic_path
from bench.encoding.integrity import entry_ok, record
from bench.core.errors import BenchError
from bench.core.progress import progress as progress_bar

if TYPE_CHECKING:  # pragma: no cover
    from bench.data.model import Dataset
    from bench.encoding.encoder import Encoder

DEFAULT_SHARD_SIZE = 50_000

#: test-only fault injection: ``"<shard index>:<marker file>"`` makes the Ray worker that runs
#: the first attempt at that shard exit abruptly (the marker file records that it happened)
KILL_SHARD_ENV = "DRBENCH_TEST_KILL_SHARD"

Chunk = Tuple[Optional[Sequence[str]], Sequence[str]]  # (doc ids or None, texts)


def check_shard_size(shard_size: int) -> int:
    if isinstance(shard_size, bool) or not isinstance(shard_size, int) or shard_size < 1:
        raise BenchError(f"--shard-size must be a positive integer, got {shard_size!r}")
    return shard_size


def content_key(texts: Iterable[str]) -> str:
    """The content key of an ordered text list (the same key the whole-corpus matrix always had)."""
    h = hashlib.sha256()
    for t in texts:
        h.update(hashlib.sha256(t.encode("utf-8")).hexdigest().encode())
    return h.hexdigest()


def shard_path(root: Path, key: str) -> Path:
    return Path(root) / f"matrix-{key}.npy"


def plan_bounds(n_docs: int, shard_size: int) -> List[Tuple[int, int]]:
    """``[(start, stop), ...]`` of the shards of a corpus of ``n_docs`` documents."""
    check_shard_size(shard_size)
    return [(s, min(s + shard_size, n_docs)) for s in range(0, n_docs, shard_size)]


# --------------------------------------------------------------------------------------------
# chunk sources: the corpus as (ids, texts) chunks of shard_size, in corpus order


def list_chunks(texts: Sequence[str], shard_size: int, ids: Optional[Sequence[str]] = None) -> Iterator[Chunk]:
    for start, stop in plan_bounds(len(texts), shard_size):
        yield (None if ids is None else ids[start:stop]), texts[start:stop]


def dataset_chunks(dataset: "Dataset", shard_size: int) -> Iterator[Chunk]:
    """A loaded dataset's corpus in shards (each shard's texts are built when it is reached)."""
    check_shard_size(shard_size)
    ids: List[str] = []
    texts: List[str] = []
    for did, doc in dataset.corpus.items():
        ids.append(did)
        texts.append(doc.full_text())
        if len(ids) == shard_size:
            yield ids, texts
            ids, texts = [], []
    if ids:
        yield ids, texts


# --------------------------------------------------------------------------------------------
# the shard store, read side


class ShardedEmbeddings:
    """The corpus matrix as memory-mapped shard files: array-like (``shape``, ``len``, integer,
    slice and integer-list indexing) without ever loading every shard at once."""

    dtype = np.dtype(np.float32)

    def __init__(self, paths: Sequence[Path], sizes: Sequence[int], dim: int):
        if len(paths) != len(sizes):
            raise ValueError("one size per shard file")
        self.paths = [Path(p) for p in paths]
        self.sizes = [int(s) for s in sizes]
        self.offsets = np.concatenate([[0], np.cumsum(self.sizes)]).astype(np.int64)
        self.dim = int(dim)
        self._open: Dict[int, np.ndarray] = {}

    @property
    def shape(self) -> Tuple[int, int]:
        return int(self.offsets[-1]), self.dim

    @property
    def ndim(self) -> int:
        return 2

    def __len__(self) -> int:
        return int(self.offsets[-1])

    def __getstate__(self):  # memory maps are reopened where the object lands (e.g. a Ray worker)
        state = dict(self.__dict__)
        state["_open"] = {}
        return state

    def shard(self, i: int) -> np.ndarray:
        if i not in self._open:
            arr = open_entry(self.paths[i])
            if arr.shape != (self.sizes[i], self.dim):
                raise ValueError(f"{self.paths[i]}: shape {arr.shape}, expected {(self.sizes[i], self.dim)}")
            self._open[i] = arr
        return self._open[i]

    def iter_shards(self) -> Iterator[Tuple[int, np.ndarray]]:
        """``(first row, memory-mapped shard)`` in corpus order."""
        for i in range(len(self.paths)):
            yield int(self.offsets[i]), self.shard(i)

    def rows(self, idx: Sequence[int]) -> np.ndarray:
        idx = np.asarray(idx, dtype=np.int64).reshape(-1)
        n = len(self)
        if idx.size and (idx.min() < -n or idx.max() >= n):
            raise IndexError("row index out of range")
        idx = np.where(idx < 0, idx + n, idx)
        out = np.empty((idx.size, self.dim), dtype=np.float32)
        which = np.searchsorted(self.offsets, idx, side="right") - 1
        for s in np.unique(which):
            sel = np.flatnonzero(which == s)
            out[sel] = self.shard(int(s))[idx[sel] - self.offsets[s]]
        return out

    def __getitem__(self, key):
        if isinstance(key, tuple):
            rows, cols = key[0], key[1:]
            return self[rows][(slice(None),) + cols] if not np.isscalar(rows) else self[rows][cols]
        if isinstance(key, (int, np.integer)):
            return self.rows([int(key)])[0]
        if isinstance(key, slice):
            return self.rows(np.arange(len(self))[key])
        return self.rows(key)

    def __array__(self, dtype=None, copy=None):
        out = np.concatenate([np.asarray(m) for _, m in self.iter_shards()]) if self.paths else \
            np.empty((0, self.dim), dtype=np.float32)
        return out.astype(dtype, copy=False) if dtype is not None else out


# --------------------------------------------------------------------------------------------
# encoding


@dataclass
class ShardJob:
    """One shard to encode: its position in the plan, its content key, texts and target file."""

    index: int
    key: str
    texts: Sequence[str]
    path: Path


@dataclass
class ShardDone:
    index: int
    n: int
    seconds: float  # encoding time inside the worker (model already loaded)
    worker: str

    def to_dict(self) -> dict:
        return {"shard": self.index, "n": self.n, "seconds": round(self.seconds, 4),
                "passages_per_s": round(self.n / self.seconds, 1) if self.seconds > 0 else None,
                "worker": self.worker}


def write_shard(path: Path, arr: np.ndarray) -> None:
    """Write an encoded shard atomically (used by executors that encode elsewhere)."""
    arr = np.ascontiguousarray(arr, dtype=np.float32)
    with atomic_path(path, suffix=".npy") as tmp:
        with open(tmp, "wb") as fh:  # a file object: np.save would append ".npy" to a name
            np.save(fh, arr)
    record(path)


def reserve_space(tmp: Path) -> None:
    """Make sure the blocks of a freshly created (sparse) memory-mapped file exist on disk before
    anything is written through the map: a full disk then fails here with ``ENOSPC`` (an
    ``OSError`` the cache turns into a message naming the folder) instead of killing the process
    with SIGBUS halfway through the encoding."""
    need = os.stat(tmp).st_size
    free = shutil.disk_usage(tmp.parent).free
    if free < need:
        raise OSError(errno.ENOSPC, f"No space left on device: the shard needs {need / 1e6:.1f} MB, "
                                    f"{free / 1e6:.1f} MB are free", str(tmp))
    if hasattr(os, "posix_fallocate"):
        fd = os.open(tmp, os.O_RDWR)
        try:
            os.posix_fallocate(fd, 0, need)
        except OSError as exc:
            if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):  # file systems without it
                raise OSError(exc.errno, exc.strerror, str(tmp)) from None
        finally:
            os.close(fd)


def encode_shard_local(encoder: "Encoder", job: ShardJob, desc: str = "") -> ShardDone:
    """Encode one shard in this process, streaming the vectors into a temporary memory-mapped
    file that is renamed over the shard's path when complete."""
    dim = encoder.dim  # loads the model on first use: not part of the shard's encoding time
    t0 = time.perf_counter()
    with atomic_path(job.path, suffix=".npy") as tmp:
        arr = np.lib.format.open_memmap(tmp, mode="w+", dtype=np.float32, shape=(len(job.texts), dim))
        reserve_space(tmp)
        encoder.encode_into(job.texts, arr, desc=desc)
        arr.flush()
        del arr
    record(job.path)
    return ShardDone(job.index, len(job.texts), time.perf_counter() - t0, f"local:{os.getpid()}")


def run_local(encoder: "Encoder", jobs: Iterable[ShardJob]) -> Iterator[ShardDone]:
    for job in jobs:
        yield encode_shard_local(encoder, job, desc=f"encode corpus shard {job.index}")


def kill_hook() -> Optional[Tuple[int, str]]:
    """The test-only fault injection of :data:`KILL_SHARD_ENV`, read in the driver."""
    spec = os.environ.get(KILL_SHARD_ENV)
    if not spec:
        return None
    index, _, marker = spec.partition(":")
    return int(index), marker


@dataclass
class CorpusEmbeddings:
    """What :func:`encode_corpus` returns: the doc ids (or None), the memory-mapped matrix (one
    ``np.memmap`` for a one-shard corpus, else :class:`ShardedEmbeddings`), and what happened."""

    doc_ids: Optional[List[str]]
    embeddings: Union[np.ndarray, ShardedEmbeddings]
    sharded: ShardedEmbeddings
    shard_size: int
    passages_encoded: int = 0
    passages_cached: int = 0
    shards_encoded: int = 0
    shard_log: List[dict] = field(default_factory=list)

    @property
    def n_shards(self) -> int:
        return len(self.sharded.paths)

    def stats(self) -> dict:
        return {"shard_size": self.shard_size, "shards": self.n_shards, "shards_encoded": self.shards_encoded,
                "passages_encoded": self.passages_encoded, "passages_cached": self.passages_cached,
                "shard_log": list(self.shard_log)}


def encode_corpus(encoder: "Encoder", chunks: Iterable[Chunk], root: Path, shard_size: int,
                  executor=None, progress: bool = False) -> CorpusEmbeddings:
    """Encode every missing shard of ``chunks`` (each chunk is one shard of the plan, as the
    chunk sources above produce them) through ``executor`` and return the memory-mapped corpus.

    The executor's ``encode_shards(encoder, jobs)`` is used when it has one (Ray: a pool of
    workers); any other executor, or none, encodes here, shard after shard.
    """
    root = Path(root)
    doc_ids: Optional[List[str]] = []
    paths: List[Path] = []
    sizes: List[int] = []
    state = {"cached": 0}

    def jobs() -> Iterator[ShardJob]:
        nonlocal doc_ids
        for i, (ids, texts) in enumerate(chunks):
            if not len(texts):
                continue
            if ids is None:
                doc_ids = None
            elif doc_ids is not None:
                doc_ids.extend(ids)
            key = content_key(texts)
            path = shard_path(root, key)
            paths.append(path)
            sizes.append(len(texts))
            if entry_ok(path, len(texts)):  # size, header and checksum; a bad entry is removed
                state["cached"] += len(texts)
                continue
            yield ShardJob(len(paths) - 1, key, texts, path)

    runner = getattr(executor, "encode_shards", None)
    done_iter = runner(encoder, jobs()) if runner is not None else run_local(encoder, jobs())
    log: List[ShardDone] = []
    bar = progress_bar(desc="corpus shards encoded", unit="shard", enabled=progress)
    for done in done_iter:
        log.append(done)
        bar.update(1)
    bar.close()
    if not paths:
        raise ValueError("the corpus is empty")
    dim = _npy_dim(paths[0])
    sharded = ShardedEmbeddings(paths, sizes, dim)
    emb = open_entry(paths[0]) if len(paths) == 1 else sharded
    log.sort(key=lambda d: d.index)
    return CorpusEmbeddings(doc_ids, emb, sharded, shard_size, passages_encoded=sum(d.n for d in log),
                            passages_cached=state["cached"], shards_encoded=len(log),
                            shard_log=[d.to_dict() for d in log])


def _npy_dim(path: Path) -> int:
    return int(open_entry(path).shape[1])


def open_entry(path: Path) -> np.ndarray:
    """Memory-map a cache entry; a damaged file (e.g. truncated after it was checked) is an error
    naming the file and the fix, not a raw mmap traceback."""
    try:
        return np.load(path, mmap_mode="r")
    except (OSError, ValueError) as exc:
        raise BenchError(f"cache entry {path} cannot be read ({exc}). Fix: delete it; the next run encodes it "
                         f"again") from None
