"""The encoder of a model object (:mod:`bench.models.objects`): the interface of
:class:`bench.encoding.encoder.Encoder` that the embedding cache, the corpus shards and the
retriever use, over the object's own encode methods.

A corpus shard is given to the object in one call (the object batches as it likes; ``batch_size``
is passed when its method takes it); the query texts the cache has not seen are given in one call
too. The key of a named object covers its name, revision, the outputs on the probe texts, the
role, the prefix and the batch size; an unnamed object is not cached: its vectors are kept in a
temporary folder removed when the run ends (:func:`scratch_root`).
"""
from __future__ import annotations

import contextlib
import shutil
import tempfile
from pathlib import Path
from typing import Iterator, Optional, Sequence

import numpy as np

from bench.core.errors import BenchError
from bench.core.io import sha256_hex
from bench.core.progress import plural, progress
from bench.models.objects import ObjectSpec, call_encoder, probe_fingerprint


class ObjectEncoder:
    """Encode texts of one role with a model object (see module docstring)."""

    def __init__(self, spec: ObjectSpec, role: str, batch_size: int = 64, progress: bool = True, **_ignored):
        if role not in ("query", "passage"):
            raise ValueError("role must be 'query' or 'passage'")
        self.spec, self.role, self.batch_size, self.progress = spec, role, batch_size, progress
        self.device, self.backend = "cpu", "object"
        self.prefix = spec.query_prefix if role == "query" else spec.passage_prefix
        i = spec.identity
        self.key = sha256_hex("object-encoder-v1", str(i.get("name")), str(i.get("revision")), i["probe_fingerprint"],
                              role, self.prefix, str(batch_size))
        self.scratch = spec.scratch  # an unnamed object: the run's temporary folder instead of the cache
        self.n_encoded = 0
        self._dim: Optional[int] = None

    def __getstate__(self):
        raise BenchError(f"model {self.spec.name!r} is a Python object and cannot be shipped to other processes. Fix: "
                         f"use --executor local (the default) for model objects")

    def load(self):
        return self.spec.encoder, None

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(call_encoder(self.spec.encoder, self.role, ["dimension probe"], self.batch_size).shape[1])
        return self._dim

    def _encode(self, texts: Sequence[str], desc: str = "") -> np.ndarray:
        bar = progress(total=len(texts), desc=desc or f"encode {plural(self.role)}", unit="text",
                       enabled=self.progress)
        arr = call_encoder(self.spec.encoder, self.role, [self.prefix + t for t in texts], self.batch_size)
        if self._dim is not None and arr.shape[1] != self._dim:
            raise BenchError(f"model object {self.spec.identity.get('type')} returned vectors of {arr.shape[1]} "
                             f"dimensions, earlier {self._dim}. Fix: return vectors of one size")
        self._dim = int(arr.shape[1])
        self.n_encoded += len(texts)
        bar.update(len(texts))
        bar.close()
        return arr

    def encode_into(self, texts: Sequence[str], out: np.ndarray, desc: str = "") -> None:
        out[:] = self._encode(texts, desc)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts) if len(texts) else np.empty((0, self.dim), dtype=np.float32)

    def encode_canonical(self, texts: Sequence[str], desc: str = "") -> np.ndarray:
        return self.encode(texts)

    def check_unchanged(self) -> None:
        """A named object whose outputs on the probe texts changed during the run (trained in
        place?) would have mixed vectors of two models in one cache entry: refused."""
        if self.spec.cached and probe_fingerprint(self.spec.encoder, self.batch_size) != \
                self.spec.identity["probe_fingerprint"]:
            raise BenchError(f"model object {self.spec.name!r} changed its outputs during the run. Fix: do not train "
                             f"it while it is evaluated, or give a new revision=")


@contextlib.contextmanager
def scratch_root(spec) -> Iterator[Optional[Path]]:
    """The embedding folder of a run: None (the cache home) for a named object or any other
    model; a temporary folder, removed at the end, for an unnamed object (not cached)."""
    if not isinstance(spec, ObjectSpec) or spec.cached:
        yield None
        return
    folder = Path(tempfile.mkdtemp(prefix="drbench-object-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
