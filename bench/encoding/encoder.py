"""Dense encoding with an on-disk, content-addressed embedding cache.

- :class:`Encoder`: batched, length-sorted, ``torch.inference_mode`` encoding of one role
  (queries or passages) of a :class:`~bench.models.spec.ModelSpec`.
- :class:`~bench.encoding.cache.EmbeddingCache` (in :mod:`bench.encoding.cache`): two stores under ``<cache home>/embeddings/<encoder key>/``
  (the key covers weights + tokenizer hash, pooling, normalisation, prefix, max length, dtype
  and role, see :func:`bench.models.spec.encoder_key`, the batch size, and beyond the reference
  runtime (cpu, torch) the device class, GPU name and backend, see :mod:`bench.encoding.runtime`):

  * ``matrix-<content key>.npy``: a text list (a corpus shard, see :mod:`bench.encoding.shards`) encoded
    in order, streamed to disk batch by batch and memory-mapped back; the content key hashes the
    ordered texts. A corpus of at most ``shard_size`` texts is one entry (as it always was); a
    larger one is one entry per shard, and :meth:`EmbeddingCache.matrix` returns a
    :class:`bench.encoding.shards.ShardedEmbeddings` view over them.
  * ``texts/<chunk>.npy`` + ``texts/<chunk>.keys``: a text-keyed store (queries). A text that
    was encoded once, in this run or any earlier one, is never encoded again; texts go through
    :meth:`Encoder.encode_canonical`, so a vector does not depend on the texts beside it.

  Every file is written to a temporary name and renamed, so an interrupted run leaves no
  corrupt entry; a chunk counts only when both of its files exist.
"""
from __future__ import annotations

import contextlib
from typing import Optional, Sequence

import numpy as np

from bench.models.loading import load_encoder, pool
from bench.models.spec import ModelSpec, encoder_key, weights_fingerprint
from bench.core.io import sha256_hex
from bench.core.progress import plural, progress, stage
from bench.encoding.runtime import key_parts
from bench.encoding.contract import VectorContract
from bench.encoding.pipeline import feed_batches, tokenise_all

#: canonical query batches pad every text to its token count rounded up to this multiple
LENGTH_STEP = 8


class Encoder:
    """Encode texts of one role with a Hugging Face encoder; the model loads on first use."""

    def __init__(self, spec: ModelSpec, role: str, batch_size: int = 64, device: Optional[str] = None,
                 progress: bool = True, shared: Optional["Encoder"] = None,
                 contract: Optional[VectorContract] = None):
        if role not in ("query", "passage"):
            raise ValueError("role must be 'query' or 'passage'")
        device = device or getattr(spec, "device", "cpu")  # resolved by bench.encoding.runtime.apply
        self.backend = getattr(spec, "backend", "torch")
        self.spec, self.role, self.batch_size, self.device, self.progress = spec, role, batch_size, device, progress
        self.folder = spec.resolve_path()
        self.weights_fp = shared.weights_fp if shared is not None else weights_fingerprint(self.folder, spec.modules)
        # the batch size is part of the key: a vector's last bits depend on the shape of the forward pass;
        # so are the device class and backend (nothing is added for cpu + torch: the keys of before)
        self.key = sha256_hex(encoder_key(spec, self.weights_fp, role), "batching-v2", str(batch_size),
                              *key_parts(device, self.backend))
        self.prefix = spec.query_prefix if role == "query" else spec.passage_prefix
        self.max_length = spec.max_query_length if role == "query" else spec.max_passage_length
        self._shared = shared  # the encoder whose model and tokenizer this one uses (loaded once)
        self._model = None
        self._tokenizer = None
        self._dense = None  # a sentence-transformers folder's modules (bench.models.st_folder.STHead), loaded with the model
        self.n_encoded = 0  # texts actually run through the model by this encoder
        # every batch is checked (bench.encoding.contract); the two roles of a model share one contract
        self.contract = contract or (shared.contract if shared is not None else VectorContract(spec.name))

    def __getstate__(self):
        # shipped to another process (e.g. a Ray task): the weights are reloaded there on first use
        state = dict(self.__dict__)
        state["_model"] = None
        state["_tokenizer"] = None
        state["_dense"] = None
        return state

    def load(self):
        if self._shared is not None:
            return self._shared.load()
        if self._model is None:
            # a status line: loading torch and the weights can take tens of seconds on a cold start
            with stage(f"loading model {self.spec.name} ({self.backend}, {self.device})", self.progress):
                if self.backend != "torch":
                    from bench.encoding.onnx_backend import load_onnx

                    model, tok = load_onnx(self.folder, self.weights_fp, self.backend)
                else:
                    model, tok = load_encoder(self.folder, self.spec.dtype, self.device)
                if self.spec.modules:
                    from bench.models.st_folder import load_head

                    self._dense = load_head(self.folder, self.spec.pooling, self.spec.dtype, self.device)
            self._model, self._tokenizer = model, tok
        return self._model, self._tokenizer

    def dense(self):
        """The loaded sentence-transformers modules (None when the spec has none)."""
        self.load()
        return self._shared.dense() if self._shared is not None else self._dense

    @property
    def dim(self) -> int:
        model, _ = self.load()
        dense = self.dense()
        return int(dense.dim) if dense is not None else int(model.config.hidden_size)

    def _forward(self, texts: Sequence[str], padding, max_length: int) -> np.ndarray:
        """One forward pass (tokenise, model, pool): float32 array (len(texts), dim)."""
        model, tok = self.load()
        batch = tok([self.prefix + t for t in texts], padding=padding, truncation=True, max_length=max_length,
                    return_tensors="pt")
        return self.forward_batch(batch)

    def forward_batch(self, batch) -> np.ndarray:
        """Model and pool on a tokenised batch (a dict of CPU tensors): the one forward pass
        every path (corpus shards, canonical query batches, :meth:`encode_batch`) goes through."""
        import torch

        model, _ = self.load()
        batch = {k: v.to(self.device) for k, v in batch.items()}
        with torch.inference_mode():
            out = model(**batch).last_hidden_state
            emb = pool(out, batch["attention_mask"], self.spec, self.dense())
        return self.contract.check(emb.float().cpu().numpy(), int(batch["input_ids"].shape[0]),
                                   f"{self.role} batch")

    def encode_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Encode one batch (no sorting, no cache): float32 array of shape (len(texts), dim)."""
        emb = self._forward(texts, True, self.max_length)
        self.n_encoded += len(texts)
        return emb

    def token_lengths(self, texts: Sequence[str]) -> np.ndarray:
        """Each text's token count after truncation (special tokens included)."""
        _, tok = self.load()
        lengths = np.empty(len(texts), dtype=np.int64)
        step = 1024  # tokenised in chunks: only the lengths are kept, never every text's token ids
        for start in range(0, len(texts), step):
            ids = tok([self.prefix + t for t in texts[start:start + step]], add_special_tokens=True,
                      truncation=True, max_length=self.max_length)["input_ids"]
            lengths[start:start + len(ids)] = [len(x) for x in ids]
        return lengths

    def length_order(self, texts: Sequence[str]) -> np.ndarray:
        """Indices sorting texts by descending token count (ties by position: stable)."""
        return np.argsort(-self.token_lengths(texts), kind="stable")

    def encode_into(self, texts: Sequence[str], out: np.ndarray, desc: str = "") -> None:
        """Encode ``texts`` in length-sorted batches, writing row i of ``out`` for text i.

        Batches: texts sorted by descending token count (ties by position), cut every
        ``batch_size``, each batch's texts in corpus order, padded to its longest text: the
        batches of :meth:`encode_batch` over :meth:`length_order`, so the vectors are the same
        bits. The texts are tokenised once (:func:`bench.encoding.pipeline.tokenise_all`: the
        length pass keeps the ids) and a feeder thread pads the next batches while the model runs
        (:func:`bench.encoding.pipeline.feed_batches`).
        """
        _, tok = self.load()
        ids = tokenise_all(tok, [self.prefix + t for t in texts], self.max_length)
        order = np.argsort(-ids.lengths, kind="stable")
        bar = progress(total=len(texts), desc=desc or f"encode {plural(self.role)}", unit="text",
                       enabled=self.progress)
        with contextlib.closing(feed_batches(tok, ids, order, self.batch_size)) as batches:
            for rows, batch in batches:  # an error here (or ^C) stops the feeder thread on the way out
                out[rows] = self.forward_batch(batch)
                self.n_encoded += len(rows)
                bar.update(len(rows))
        bar.close()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if texts:
            self.encode_into(texts, out)
        return out

    def encode_canonical(self, texts: Sequence[str], desc: str = "") -> np.ndarray:
        """Encode ``texts`` so that each row depends only on its own text (and the batch size),
        never on the other texts of the call.

        A forward pass's last bits depend on its shape (batch rows x padded length), and padding
        depends on the longest text of the batch, so the same query encoded beside other queries
        would get other bits. Here every text is padded to its own token count rounded up to
        :data:`LENGTH_STEP` (capped at the maximum length), texts of one padded length go
        through the model together, and every pass has exactly ``batch_size`` rows (the last
        pass of a length is filled with copies of its first text, whose rows are discarded).
        Rows of a pass do not interact, so a text's vector is a function of the text alone.
        """
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if not len(texts):
            return out
        groups: dict = {}
        for i, n in enumerate(self.token_lengths(texts)):
            groups.setdefault(min(-(-int(n) // LENGTH_STEP) * LENGTH_STEP, self.max_length or int(n)), []).append(i)
        bar = progress(total=len(texts), desc=desc or f"encode {plural(self.role)}", unit="text",
                       enabled=self.progress)
        for length in sorted(groups):
            rows = groups[length]
            for start in range(0, len(rows), self.batch_size):
                part = rows[start:start + self.batch_size]
                fill = part + [part[0]] * (self.batch_size - len(part))
                out[part] = self._forward([texts[i] for i in fill], "max_length", length)[:len(part)]
                self.n_encoded += len(part)
                bar.update(len(part))
        bar.close()
        return out
