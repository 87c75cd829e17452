"""Dense encoding with an on-disk, content-addressed embedding cache.

- :class:`Encoder`: batched, length-sorted, ``torch.inference_mode`` encoding of one role
  (queries or passages) of a :class:`~bench.models.spec.ModelSpec`.
- :class:`EmbeddingCache`: two stores under ``<cache home>/embeddings/<encoder key>/``
  (the key covers weights + tokenizer hash, pooling, normalisation, prefix, max length, dtype
  and role, see :func:`bench.models.spec.encoder_key`):

  * ``matrix-<content key>.npy``: a text list (a corpus shard, see :mod:`bench.encoding.shards`) encoded
    in order, streamed to disk batch by batch and memory-mapped back; the content key hashes the
    ordered texts. A corpus of at most ``shard_size`` texts is one entry (as it always was); a
    larger one is one entry per shard, and :meth:`EmbeddingCache.matrix` returns a
    :class:`bench.encoding.shards.ShardedEmbeddings` view over them.
  * ``texts/<chunk>.npy`` + ``texts/<chunk>.keys``: a text-keyed store (queries). A text that
    was encoded once, in this run or any earlier one, is never encoded again.

  Every file is written to a temporary name and renamed, so an interrupted run leaves no
  corrupt entry; a chunk counts only when both of its files exist.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from bench.core.io import atomic_path, sha256_hex
from bench.models.spec import ModelSpec, encoder_key, weights_fingerprint
from bench.core.paths import cache_home


def _text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def pool(last_hidden, attention_mask, spec: ModelSpec):
    """The spec's pooling (CLS or masked mean) and optional L2 normalisation, on torch tensors."""
    import torch

    if spec.pooling == "cls":
        emb = last_hidden[:, 0]
    else:
        mask = attention_mask.unsqueeze(-1).to(last_hidden.dtype)
        emb = (last_hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
    if spec.normalize:
        emb = torch.nn.functional.normalize(emb, p=2, dim=-1)
    return emb


class Encoder:
    """Encode texts of one role with a Hugging Face encoder; the model loads on first use."""

    def __init__(self, spec: ModelSpec, role: str, batch_size: int = 64, device: str = "cpu",
                 progress: bool = True, shared: Optional["Encoder"] = None):
        if role not in ("query", "passage"):
            raise ValueError("role must be 'query' or 'passage'")
        self.spec, self.role, self.batch_size, self.device, self.progress = spec, role, batch_size, device, progress
        self.folder = spec.resolve_path()
        self.weights_fp = shared.weights_fp if shared is not None else weights_fingerprint(self.folder)
        self.key = encoder_key(spec, self.weights_fp, role)
        self.prefix = spec.query_prefix if role == "query" else spec.passage_prefix
        self.max_length = spec.max_query_length if role == "query" else spec.max_passage_length
        self._shared = shared  # the encoder whose model and tokenizer this one uses (loaded once)
        self._model = None
        self._tokenizer = None
        self.n_encoded = 0  # texts actually run through the model by this encoder

    def __getstate__(self):
        # shipped to another process (e.g. a Ray task): the weights are reloaded there on first use
        state = dict(self.__dict__)
        state["_model"] = None
        state["_tokenizer"] = None
        return state

    def load(self):
        if self._shared is not None:
            return self._shared.load()
        if self._model is None:
            import torch
            from transformers import AutoModel, AutoTokenizer

            dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[self.spec.dtype]
            has_st = any(p.suffix == ".safetensors" for p in self.folder.iterdir())
            self._tokenizer = AutoTokenizer.from_pretrained(str(self.folder), local_files_only=True,
                                                            trust_remote_code=False)
            # transformers >= 4.56 names the argument `dtype`; older releases `torch_dtype`
            dtype_kw = "dtype" if _transformers_at_least("4.56") else "torch_dtype"
            self._model = AutoModel.from_pretrained(str(self.folder), local_files_only=True, trust_remote_code=False,
                                                    use_safetensors=has_st, **{dtype_kw: dtype})
            if (self.folder / "tuning.json").exists():  # a checkpoint with adapter-style modules (bench.tuning.adapters)
                from bench.tuning.adapters import load_tuned

                self._model = load_tuned(self.folder, self._model)
            self._model.eval().to(self.device)
        return self._model, self._tokenizer

    @property
    def dim(self) -> int:
        model, _ = self.load()
        return int(model.config.hidden_size)

    def encode_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Encode one batch (no sorting, no cache): float32 array of shape (len(texts), dim)."""
        import torch

        model, tok = self.load()
        batch = tok([self.prefix + t for t in texts], padding=True, truncation=True, max_length=self.max_length,
                    return_tensors="pt").to(self.device)
        with torch.inference_mode():
            out = model(**batch).last_hidden_state
            emb = pool(out, batch["attention_mask"], self.spec)
        self.n_encoded += len(texts)
        return emb.float().cpu().numpy()

    def length_order(self, texts: Sequence[str]) -> np.ndarray:
        """Indices sorting texts by descending token count (ties by position: stable)."""
        _, tok = self.load()
        lengths = np.empty(len(texts), dtype=np.int64)
        step = 1024  # tokenised in chunks: only the lengths are kept, never every text's token ids
        for start in range(0, len(texts), step):
            ids = tok([self.prefix + t for t in texts[start:start + step]], add_special_tokens=True,
                      truncation=True, max_length=self.max_length)["input_ids"]
            lengths[start:start + len(ids)] = [len(x) for x in ids]
        return np.argsort(-lengths, kind="stable")

    def encode_into(self, texts: Sequence[str], out: np.ndarray, desc: str = "") -> None:
        """Encode ``texts`` in length-sorted batches, writing row i of ``out`` for text i."""
        from tqdm.auto import tqdm

        order = self.length_order(texts)
        bar = tqdm(total=len(texts), desc=desc or f"encode {self.role}s", unit="text",
                   disable=not self.progress or None, leave=False)
        for start in range(0, len(order), self.batch_size):
            idx = order[start:start + self.batch_size]
            out[np.sort(idx)] = self.encode_batch([texts[i] for i in np.sort(idx)])
            bar.update(len(idx))
        bar.close()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if texts:
            self.encode_into(texts, out)
        return out


class EmbeddingCache:
    """Content-addressed embedding store for one encoder (see module docstring)."""

    def __init__(self, encoder: Encoder, root: Optional[Path] = None, shard_size: Optional[int] = None):
        from bench.encoding.shards import DEFAULT_SHARD_SIZE, check_shard_size

        self.encoder = encoder
        self.root = Path(root or cache_home() / "embeddings") / encoder.key
        self.shard_size = check_shard_size(shard_size if shard_size is not None else DEFAULT_SHARD_SIZE)
        self._index: Optional[Dict[str, Tuple[str, int]]] = None
        self._chunks: Dict[str, np.ndarray] = {}
        self.hits = 0
        self.misses = 0

    # ---- whole matrices (the corpus) -------------------------------------------------------
    def matrix(self, texts: Sequence[str], desc: str = ""):
        """Embeddings of ``texts`` in order, memory-mapped from the cache (missing shards encoded
        here): an ``np.memmap`` when the texts are one shard, else a
        :class:`bench.encoding.shards.ShardedEmbeddings`."""
        from bench.encoding.shards import encode_corpus, list_chunks

        if not len(texts):
            return np.empty((0, self.encoder.dim), dtype=np.float32)
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
                    if not keys.with_suffix(".npy").exists():
                        continue
                    for row, line in enumerate(keys.read_text(encoding="ascii").split()):
                        self._index.setdefault(line, (keys.stem, row))
        return self._index

    def _chunk(self, name: str) -> np.ndarray:
        if name not in self._chunks:
            self._chunks[name] = np.load(self.root / "texts" / f"{name}.npy", mmap_mode="r")
        return self._chunks[name]

    def texts(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of ``texts`` (duplicates allowed); only texts never seen before are encoded."""
        index = self._load_index()
        hashes = [_text_hash(t) for t in texts]
        new: Dict[str, str] = {}
        for h, t in zip(hashes, texts):
            if h not in index and h not in new:
                new[h] = t
        self.misses += len(new)
        self.hits += len(texts) - len(new)
        if new:
            new_hashes = sorted(new)
            emb = self.encoder.encode([new[h] for h in new_hashes])
            name = sha256_hex(*new_hashes)[:32]
            folder = self.root / "texts"
            with atomic_path(folder / f"{name}.npy", suffix=".npy") as tmp:
                with open(tmp, "wb") as fh:  # a file object: np.save would append ".npy" to a name
                    np.save(fh, emb)
            with atomic_path(folder / f"{name}.keys") as tmp:
                tmp.write_text("\n".join(new_hashes) + "\n", encoding="ascii")
            self._chunks[name] = emb
            for row, h in enumerate(new_hashes):
                index.setdefault(h, (name, row))
        if not texts:
            return np.empty((0, self.encoder.dim), dtype=np.float32)
        return np.stack([self._chunk(index[h][0])[index[h][1]] for h in hashes]).astype(np.float32, copy=False)


def _transformers_at_least(version: str) -> bool:
    import transformers

    def parts(v):
        return tuple(int(x) for x in v.split(".")[:2] if x.isdigit())

    return parts(transformers.__version__) >= parts(version)
