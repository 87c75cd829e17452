"""The content-addressed embedding cache of one encoder (layout: see :mod:`bench.encoding.encoder`).

Whole corpora are stored as shard matrices (:mod:`bench.encoding.shards`); query texts in a
text-keyed store, so a text encoded once is never encoded again, across sets and runs.
"""
from __future__ import annotations

import contextlib
import hashlib
from pathlib import Path
from typing import Dict, Iterator, Optional, Sequence, Tuple

import numpy as np

from bench.core.errors import WRITE_ERRNOS, BenchError
from bench.core.io import atomic_path, clean_orphans, sha256_hex
from bench.core.paths import cache_home
from bench.encoding.encoder import Encoder
from bench.encoding.integrity import entry_ok, record
from bench.encoding.shards import (DEFAULT_SHARD_SIZE, check_shard_size, encode_corpus, list_chunks, open_entry,
                                   reserve_space)


_CLEANED: set = set()


@contextlib.contextmanager
def cache_write_errors(folder: Path) -> Iterator[None]:
    """An OSError while writing the cache (disk full, permission, read-only file system) becomes
    an error naming the folder and the fix."""
    try:
        yield
    except OSError as exc:
        in_folder = exc.filename is not None and str(exc.filename).startswith(str(folder))
        if not in_folder and exc.errno not in WRITE_ERRNOS:
            raise  # not a cache write (e.g. a model file): the caller's message applies
        raise BenchError(f"cannot write the embedding cache in {folder}: {exc.strerror or exc}. Fix: free space "
                         f"there, or set DRBENCH_HOME to a writable folder") from exc


def _text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """Content-addressed embedding store for one encoder (see module docstring)."""

    def __init__(self, encoder: Encoder, root: Optional[Path] = None, shard_size: Optional[int] = None):
        self.encoder = encoder
        scratch = getattr(encoder, "scratch", None)  # a model object without a name: not cached (bench.models.objects)
        self.root = Path(scratch or root or cache_home() / "embeddings") / encoder.key
        self.shard_size = check_shard_size(shard_size if shard_size is not None else DEFAULT_SHARD_SIZE)
        self._index: Optional[Dict[str, Tuple[str, int]]] = None
        self._chunks: Dict[str, np.ndarray] = {}
        for folder in (self.root, self.root / "texts"):
            if folder not in _CLEANED:  # temporary files of writers that died (once per process)
                _CLEANED.add(folder)
                clean_orphans(folder)
        # look-up counts. matrix(): passages, hits = served from disk, misses = encoded. texts(): per
        # look-up, hits = distinct texts served from the on-disk cache (their first look-up here),
        # misses = distinct texts encoded here, reused = look-ups of a text already served here
        # (an earlier call or a duplicate in the same call); lookups = all three together
        self.hits = 0
        self.misses = 0
        self.reused = 0
        self.lookups = 0
        self._served: set = set()

    # ---- whole matrices (the corpus) -------------------------------------------------------
    def matrix(self, texts: Sequence[str], desc: str = ""):
        """Embeddings of ``texts`` in order, memory-mapped from the cache (missing shards encoded
        here): an ``np.memmap`` when the texts are one shard, else a
        :class:`bench.encoding.shards.ShardedEmbeddings`."""
        if not len(texts):
            return np.empty((0, self.encoder.dim), dtype=np.float32)
        with cache_write_errors(self.root):
            out = encode_corpus(self.encoder, list_chunks(texts, self.shard_size), self.root, self.shard_size)
        self.hits += out.passages_cached
        self.misses += out.passages_encoded
        return out.embeddings

    # ---- text-keyed store (queries) --------------------------------------------------------
    def _load_index(self) -> Dict[str, Tuple[str, int]]:
        if self._index is None:
            self._index = {}
            folder = self.root / "texts"
            if folder.is_dir():
                for keys in sorted(folder.glob("*.keys")):
                    try:
                        lines = keys.read_text(encoding="ascii").split()
                    except (OSError, UnicodeDecodeError):
                        continue  # unreadable key list: its texts are encoded again
                    if not entry_ok(keys.with_suffix(".npy"), len(lines), bound=keys):
                        continue
                    for row, line in enumerate(lines):
                        self._index.setdefault(line, (keys.stem, row))
        return self._index

    def _chunk(self, name: str) -> np.ndarray:
        if name not in self._chunks:
            self._chunks[name] = open_entry(self.root / "texts" / f"{name}.npy")
        return self._chunks[name]

    def texts(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of ``texts`` (duplicates allowed); only texts never seen before are encoded."""
        index = self._load_index()
        hashes = [_text_hash(t) for t in texts]
        new: Dict[str, str] = {}
        for h, t in zip(hashes, texts):
            if h not in index and h not in new:
                new[h] = t
        first = set(hashes) - self._served
        self._served |= first
        self.lookups += len(hashes)
        self.misses += len(new)
        self.hits += len(first) - len(new)
        self.reused += len(hashes) - len(first)
        if new:
            new_hashes = sorted(new)
            name = sha256_hex(*new_hashes)[:32]
            folder = self.root / "texts"
            dim = self.encoder.dim  # loads the model before anything is written
            with cache_write_errors(folder):
                folder.mkdir(parents=True, exist_ok=True)
                # written as corpus shards are: a memory-mapped file whose blocks are reserved
                # before the texts are encoded, so a full disk is a clear error (errno ENOSPC,
                # naming the folder) before the work, never a short write
                with atomic_path(folder / f"{name}.npy", suffix=".npy") as tmp:
                    out = np.lib.format.open_memmap(tmp, mode="w+", dtype=np.float32, shape=(len(new_hashes), dim))
                    reserve_space(tmp)
                    emb = self.encoder.encode_canonical([new[h] for h in new_hashes])
                    out[:] = emb
                    out.flush()
                    del out
                    with atomic_path(folder / f"{name}.keys") as keys_tmp:  # before the matrix is in place
                        keys_tmp.write_text("\n".join(new_hashes) + "\n", encoding="ascii")
                record(folder / f"{name}.npy", bound=folder / f"{name}.keys")  # the row index is covered too
            self._chunks[name] = emb
            for row, h in enumerate(new_hashes):
                index.setdefault(h, (name, row))
        if not texts:
            return np.empty((0, self.encoder.dim), dtype=np.float32)
        return np.stack([self._chunk(index[h][0])[index[h][1]] for h in hashes]).astype(np.float32, copy=False)
