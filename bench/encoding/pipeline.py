"""The corpus-encoding pipeline: tokenise once, pad in a feeder thread, keep the model busy.

:meth:`bench.encoding.encoder.Encoder.encode_into` needs every text's token count before the
first batch (batches are cut from the texts sorted by length). The length pass used to throw
the token ids away and every batch tokenised its texts again; now :func:`tokenise_all` keeps
the ids (one flat int32 array and offsets: 4 bytes per token, about 30 MB for a 50,000-passage
shard of 150-token passages), and :func:`feed_batches` builds each padded batch from them in a
background thread, a few batches ahead of the forward pass, so the model (on a GPU: the device)
never waits for padding or tensor building. The fast tokenizers and torch release the GIL, so the
thread and the forward pass overlap.

The padded batch is the one ``tokenizer(texts, padding=True, truncation=True, max_length=...)``
returns (``input_ids``, ``attention_mask`` and, when the tokenizer has them, all-zero
``token_type_ids`` of a single sequence; the tokenizer's padding side and pad id), so the vectors
are the same bits as before (tests/bench/test_encode_pipeline.py).
"""
from __future__ import annotations

import queue
import threading
from dataclasses import dataclass
from typing import Iterator, Sequence, Tuple

import numpy as np

from bench.core.errors import BenchError

#: texts tokenised per tokenizer call in the length pass
CHUNK = 1024
#: padded batches the feeder thread may hold ahead of the forward pass
AHEAD = 4
_SUPPORTED = {"input_ids", "attention_mask", "token_type_ids"}


@dataclass
class TokenIds:
    """Every text's token ids (truncated, special tokens included), concatenated."""

    flat: np.ndarray  # int32, all ids
    offsets: np.ndarray  # int64, text i is flat[offsets[i]:offsets[i + 1]]

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)


def tokenise_all(tok, texts: Sequence[str], max_length: int) -> TokenIds:
    """Token ids of ``texts`` as the batch tokenizer call would produce them, kept compactly."""
    parts, lengths = [], []
    for start in range(0, len(texts), CHUNK):
        ids = tok(list(texts[start:start + CHUNK]), add_special_tokens=True, truncation=True, max_length=max_length,
                  return_attention_mask=False, return_token_type_ids=False)["input_ids"]
        lens = np.fromiter((len(x) for x in ids), dtype=np.int64, count=len(ids))
        flat = np.fromiter((t for x in ids for t in x), dtype=np.int32, count=int(lens.sum()))
        parts.append(flat)
        lengths.append(lens)
    lens = np.concatenate(lengths) if lengths else np.empty(0, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    return TokenIds(np.concatenate(parts) if parts else np.empty(0, dtype=np.int32), offsets)


def pad_batch(tok, ids: TokenIds, rows: np.ndarray) -> dict:
    """The padded batch of texts ``rows`` (in that order), as torch tensors on the CPU."""
    import torch

    names = set(getattr(tok, "model_input_names", ["input_ids", "attention_mask"]))
    if names - _SUPPORTED:
        raise BenchError(f"the tokenizer's model inputs {sorted(names)} include {sorted(names - _SUPPORTED)}, which "
                         f"the encoding pipeline does not build; only {sorted(_SUPPORTED)} are supported")
    lens = ids.lengths[rows]
    width = int(lens.max()) if len(rows) else 0
    pad = tok.pad_token_id if tok.pad_token_id is not None else 0
    input_ids = np.full((len(rows), width), pad, dtype=np.int64)
    mask = np.zeros((len(rows), width), dtype=np.int64)
    left = getattr(tok, "padding_side", "right") == "left"
    for j, (r, n) in enumerate(zip(rows, lens)):
        seg = ids.flat[ids.offsets[r]:ids.offsets[r] + n]
        if left:
            input_ids[j, width - n:] = seg
            mask[j, width - n:] = 1
        else:
            input_ids[j, :n] = seg
            mask[j, :n] = 1
    batch = {"input_ids": torch.from_numpy(input_ids)}
    if "token_type_ids" in names:
        batch["token_type_ids"] = torch.zeros_like(batch["input_ids"])
    batch["attention_mask"] = torch.from_numpy(mask)
    return batch


def batch_rows(order: np.ndarray, batch_size: int) -> Iterator[np.ndarray]:
    """The batches of a length order: consecutive ``batch_size`` slices, each in corpus order."""
    for start in range(0, len(order), batch_size):
        yield np.sort(order[start:start + batch_size])


def feed_batches(tok, ids: TokenIds, order: np.ndarray, batch_size: int,
                 ahead: int = AHEAD) -> Iterator[Tuple[np.ndarray, dict]]:
    """``(rows, padded batch)`` in order, built by a background thread up to ``ahead`` batches
    before they are used. An error in the thread is raised here; closing the iterator stops it."""
    q: "queue.Queue" = queue.Queue(maxsize=max(1, ahead))
    stop = threading.Event()
    done = object()

    def put(item) -> bool:
        while not stop.is_set():
            try:
                q.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def work():
        try:
            for rows in batch_rows(order, batch_size):
                if not put((rows, pad_batch(tok, ids, rows))):
                    return
            put(done)
        except BaseException as exc:  # handed to the consumer, raised there
            put(exc)

    thread = threading.Thread(target=work, name="drbench-batch-feeder", daemon=True)
    thread.start()
    try:
        while True:
            item = q.get()
            if item is done:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        thread.join()
