"""The encoder of a model object (:mod:`bench.models.objects`): the interface of
:class:`bench.encoding.encoder.Encoder` that the embedding cache, the corpus shards and the
retriever use, over the object's own encode methods, every output checked by the encoder contract
(:mod:`bench.encoding.contract`).

A corpus shard is given to the object in one call (the object batches as it likes; ``batch_size``
is passed when its method takes it); the query texts the cache has not seen are given in one call
too.

The cache-key rule of a named object (:func:`identify`, :func:`with_sample`): its vectors are
cached under its name, its revision and two fingerprints of its outputs, on the probe texts
(:data:`bench.models.objects.PROBE_TEXTS`, some longer than the usual length limits) and on a
deterministic sample of the dataset's own texts (:func:`sample_texts`: the longest and evenly
spaced passages and queries), plus the role, the prefix and the batch size. Two objects that
differ in any of these never share vectors. After every call that produced vectors for the cache
the outputs on the probe texts of that role are computed again (:meth:`ObjectEncoder.check_unchanged`):
an object changed during the run (trained in place) is refused before its vectors are stored under
the old key. An
unnamed object is not cached: its vectors are kept in a temporary folder removed when the run
ends (:func:`scratch_root`).
"""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import shutil
import tempfile
from pathlib import Path
from typing import Iterator, List, Optional, Sequence

import numpy as np

from bench.core.errors import BenchError
from bench.core.io import sha256_hex
from bench.core.progress import plural, progress
from bench.encoding.contract import VectorContract
from bench.models.objects import PROBE_TEXTS, ObjectSpec, call_encoder, describe_class

#: passages and queries of the dataset sample: the longest, and evenly spaced in dataset order
SAMPLE_LONGEST, SAMPLE_SPACED = 4, 4


def _vectors(obj, role: str, texts: Sequence[str], batch_size: int, contract: VectorContract) -> np.ndarray:
    out, method = call_encoder(obj, role, texts, batch_size)
    return contract.check(out, len(texts), f"{describe_class(obj)}.{method} ({plural(role)})")


def role_digest(obj, role: str, texts: Sequence[str], batch_size: int, contract: VectorContract) -> str:
    """SHA-256 of the object's float32 vectors of ``texts`` in ``role`` (and their shape)."""
    arr = _vectors(obj, role, texts, batch_size, contract)
    return sha256_hex(role, str(arr.shape), hashlib.sha256(arr.tobytes()).hexdigest())


def fingerprint(obj, texts: Sequence[str], batch_size: int, contract: VectorContract, tag: str) -> str:
    """SHA-256 of the object's float32 vectors of ``texts``, queries and passages."""
    return sha256_hex(tag, *(role_digest(obj, role, texts, batch_size, contract) for role in ("query", "passage")))


def sample_texts(dataset) -> List[str]:
    """The dataset texts of the sample (module docstring), in a fixed order: a function of the
    dataset's content and order alone."""
    passages = [doc.full_text() for doc in dataset.corpus.values()]
    queries = [dataset.queries[q].text for q in dataset.judged_query_ids()] or \
        [q.text for q in dataset.queries.values()]
    out: List[str] = []
    for texts in (passages, queries):
        longest = sorted(range(len(texts)), key=lambda i: (-len(texts[i]), i))[:SAMPLE_LONGEST]
        step = max(1, len(texts) // SAMPLE_SPACED)
        spaced = list(range(0, len(texts), step))[:SAMPLE_SPACED]
        out += [texts[i] for i in dict.fromkeys(longest + spaced)]
    return out


def identify(spec: ObjectSpec, batch_size: int = 64) -> ObjectSpec:
    """``spec`` with its probe fingerprint (the object's outputs checked: a bad object fails here,
    before any data is read)."""
    contract = VectorContract(spec.name)
    digests = {role: role_digest(spec.encoder, role, PROBE_TEXTS, batch_size, contract) for role in ("query", "passage")}
    probe = sha256_hex("probe-v2", digests["query"], digests["passage"])
    return dataclasses.replace(spec, identity={**spec.identity, "probe_fingerprint": probe},
                               probe_digests=tuple(sorted(digests.items())))


def with_sample(spec: ObjectSpec, dataset, batch_size: int = 64) -> ObjectSpec:
    """``spec`` with the fingerprint of its outputs on :func:`sample_texts` of ``dataset`` (named
    objects only: an unnamed object is not cached)."""
    if not spec.cached:
        return spec
    sample = fingerprint(spec.encoder, sample_texts(dataset), batch_size, VectorContract(spec.name), "sample-v1")
    return dataclasses.replace(spec, identity={**spec.identity, "sample_fingerprint": sample})


class ObjectEncoder:
    """Encode texts of one role with a model object (see module docstring)."""

    def __init__(self, spec: ObjectSpec, role: str, batch_size: int = 64, progress: bool = True,
                 contract: Optional[VectorContract] = None, **_ignored):
        if role not in ("query", "passage"):
            raise ValueError("role must be 'query' or 'passage'")
        self.spec, self.role, self.batch_size, self.progress = spec, role, batch_size, progress
        self.device, self.backend = "cpu", "object"
        self.prefix = spec.query_prefix if role == "query" else spec.passage_prefix
        self.contract = contract or VectorContract(spec.name)
        i = spec.identity
        self.key = sha256_hex("object-encoder-v2", str(i.get("name")), str(i.get("revision")), i["probe_fingerprint"],
                              str(i.get("sample_fingerprint")), role, self.prefix, str(batch_size))
        self.scratch = spec.scratch  # an unnamed object: the run's temporary folder instead of the cache
        self.n_encoded = 0

    def __getstate__(self):
        raise BenchError(f"model {self.spec.name!r} is a Python object and cannot be shipped to other processes. Fix: "
                         f"use --executor local (the default) for model objects")

    def load(self):
        return self.spec.encoder, None

    @property
    def dim(self) -> int:
        if self.contract.width is None:
            self._encode(["dimension probe"], check=False)
        return self.contract.width

    def _encode(self, texts: Sequence[str], desc: str = "", check: bool = True) -> np.ndarray:
        bar = progress(total=len(texts), desc=desc or f"encode {plural(self.role)}", unit="text",
                       enabled=self.progress and check)
        arr = _vectors(self.spec.encoder, self.role, [self.prefix + t for t in texts], self.batch_size, self.contract)
        if check:
            self.check_unchanged()
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
        """A named object whose outputs on the probe texts (of this encoder's role) changed during the
        run (trained in place?) would mix vectors of two models under one key: refused, before the
        vectors just computed are stored. Cost: the probe texts once per call of the object."""
        if not self.spec.cached:
            return
        now = role_digest(self.spec.encoder, self.role, PROBE_TEXTS, self.batch_size, VectorContract(self.spec.name))
        if now != dict(self.spec.probe_digests).get(self.role):
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
