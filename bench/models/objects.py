"""Encoder objects: a model given as a Python object instead of a registered name or a folder.

Accepted (checked in this order, per role):

- an object with ``encode_queries(texts, ...)`` and ``encode_corpus(texts, ...)`` (the BEIR / MTEB
  retrieval protocol; passages are given as strings, title and text joined as the benchmark joins
  them: :meth:`bench.data.model.Doc.full_text`);
- an object with ``encode_query`` / ``encode_document`` (sentence-transformers >= 5, MTEB v2);
- an object with ``encode(texts, ...)`` (a sentence-transformers model, or any class);
- a plain callable ``f(texts) -> vectors``.

Each call gets a list of strings and must return one vector per text (a numpy array, a torch
tensor or a list of lists), which the encoder contract checks (:mod:`bench.encoding.contract`);
``batch_size`` is passed when the method takes it (or ``**kwargs``).
A vector is what the object returns: no pooling or normalisation is added (cosine similarity
normalises at search time, as for every dense model).

The embedding cache: an object has no stable identity of its own. Given ``name=`` (and optionally
``revision=``), its vectors are cached under a key of that name and revision plus the SHA-256 of
its outputs on :data:`PROBE_TEXTS` (some longer than the usual length limits) and on a sample of
the dataset's own texts (:mod:`bench.encoding.objects`), so a changed model under an old name gets
a new key; without a name nothing is cached (vectors are kept for the run only). ``result.json`` records which
(``model.encoder_object``).
"""
from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Sequence

from bench.core.errors import BenchError
from bench.core.io import sha256_hex
from bench.models.spec import ModelSpec

_WORDS = ("retrieval models map queries and passages to vectors whose similarity ranks the passages for each "
          "query while the length of a text decides how much of it the encoder reads before it stops").split()


def _long_probe(n_words: int) -> str:
    return " ".join(_WORDS[i % len(_WORDS)] + ("." if i % 17 == 16 else "") for i in range(n_words))


#: texts every object encodes per role: the fingerprint of its outputs (part of the cache key). The
#: last two run past the usual length limits (about 330 and 1,200 tokens), so two objects that
#: differ only in where they cut a text (``max_seq_length`` 256 and 40) differ here
PROBE_TEXTS = ("what is dense retrieval", "how do i reset my password", "the capital of france",
               "Paris is the capital and largest city of France.", "a", "Neural networks map text to vectors, "
               "and a retriever ranks passages by the similarity of their vectors to the query's.",
               _long_probe(300), _long_probe(1100))
#: how libraries spell the similarities drbench implements (an object's ``similarity_fn_name``)
SIMILARITY_NAMES = {"cos": "cos", "cosine": "cos", "dot": "dot", "dot_product": "dot"}
#: how the cache treats an object (``model.encoder_object.cache``)
CACHED = "keyed by name, revision and the outputs on the probe texts and on a sample of the dataset's texts"
NOT_CACHED = "not cached (no name= given): vectors kept for this run only"
_METHODS = {"query": ("encode_queries", "encode_query"), "passage": ("encode_corpus", "encode_document")}


def is_encoder_object(model: Any) -> bool:
    """Whether ``model`` is an object to encode with (not a registered name, folder or spec)."""
    if isinstance(model, (str, bytes, ModelSpec)) or hasattr(model, "__fspath__"):
        return False
    return callable(getattr(model, "encode", None)) or callable(model) or any(
        callable(getattr(model, m, None)) for ms in _METHODS.values() for m in ms)


def method_for(obj: Any, role: str):
    """The callable that encodes texts of ``role`` ("query" or "passage") and its name."""
    for m in _METHODS[role]:
        fn = getattr(obj, m, None)
        if callable(fn):
            return fn, m
    fn = getattr(obj, "encode", None)
    if callable(fn):
        return fn, "encode"
    if callable(obj):
        return obj, "__call__"
    raise BenchError(f"model object {describe_class(obj)} has no encode(texts) method and is not callable. Fix: give "
                     f"it encode(texts) (or encode_queries / encode_corpus), see docs/python-api.md")


def describe_class(obj: Any) -> str:
    cls = obj if inspect.isfunction(obj) else type(obj)
    return f"{getattr(cls, '__module__', '?')}.{getattr(cls, '__qualname__', cls.__name__)}"


def _takes(fn, name: str) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == name or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


def call_encoder(obj: Any, role: str, texts: Sequence[str], batch_size: int) -> Any:
    """What the object's method of ``role`` returns for ``texts`` (checked by the encoder contract,
    :class:`bench.encoding.contract.VectorContract`), and the method's name."""
    fn, method = method_for(obj, role)
    kwargs: Dict[str, Any] = {}
    if _takes(fn, "batch_size"):
        kwargs["batch_size"] = batch_size
    if type(obj).__module__.startswith("sentence_transformers"):
        kwargs.update(convert_to_numpy=True, show_progress_bar=False)
    return fn(list(texts), **kwargs), method


@dataclass(frozen=True)
class ObjectSpec(ModelSpec):
    """The spec of an encoder object: its label, similarity and prefixes; ``encoder`` is the object
    (never written), ``identity`` what result.json records (``model.encoder_object``)."""

    encoder: Any = field(default=None, compare=False, repr=False)
    identity: Dict[str, Any] = field(default_factory=dict, compare=False)
    #: an unnamed object's embedding folder for this run (bench.encoding.objects.scratch_root); None: the cache
    scratch: Optional[str] = field(default=None, compare=False)
    #: (role, digest of the outputs on the probe texts) of each role (bench.encoding.objects.identify)
    probe_digests: tuple = field(default=(), compare=False, repr=False)

    @property
    def cached(self) -> bool:
        return bool(self.identity.get("cached"))

    @property
    def own_fingerprint(self) -> str:
        i = self.identity
        return sha256_hex("object-v1", str(i.get("name")), str(i.get("revision")), i["probe_fingerprint"],
                          self.similarity, self.query_prefix, self.passage_prefix)

    def to_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(ModelSpec)}
        d["params"] = dict(sorted(self.params.items()))
        d["modules"] = tuple(self.modules)
        return d

    def portable_dict(self) -> dict:
        """What result.json records as the spec: the label, similarity and prefixes (pooling, lengths
        and dtype are the object's own business; ``model.encoder_object`` says what it was)."""
        return {"name": self.name, "kind": self.kind, "similarity": self.similarity,
                "query_prefix": self.query_prefix, "passage_prefix": self.passage_prefix}

    def resolve_path(self):
        raise BenchError(f"model {self.name!r} is a Python object: it has no folder")

    def describe(self) -> str:
        cache = "cached under its name" if self.cached else "not cached"
        return (f"model {self.name}: Python object {self.identity.get('type')}, {self.similarity} similarity; "
                f"vectors {cache}")

    def with_overrides(self, **overrides) -> "ObjectSpec":
        clean = {k: v for k, v in overrides.items() if v is not None}
        wrong = sorted(set(clean) - {"similarity", "query_prefix", "passage_prefix"})
        if wrong:
            raise BenchError(f"{', '.join(wrong)} configure a model folder; a model object encodes as it is. Fix: "
                             f"remove {', '.join(wrong)}")
        return dataclasses.replace(self, **clean) if clean else self


def object_spec(obj: Any, name: Optional[str] = None, revision: Optional[str] = None, similarity: Optional[str] = None,
                batch_size: int = 64) -> ObjectSpec:
    """The :class:`ObjectSpec` of ``obj`` (its outputs on the probe texts are added by
    :func:`bench.encoding.objects.identify`, before any data is read). ``similarity``: "cos"
    (default) or "dot"; default the object's own ``similarity_fn_name`` (cosine or dot product;
    another is refused)."""
    if revision is not None and name is None:
        raise BenchError("revision= identifies a named model object. Fix: give name= too (e.g. name='my-model', "
                         f"revision={revision!r})")
    if inspect.isclass(obj):
        raise BenchError(f"model= is the class {obj.__module__}.{obj.__qualname__}, not a model object. Fix: give an instance "
                         f"(e.g. model={obj.__name__}(...))")
    method_for(obj, "query"), method_for(obj, "passage")
    if similarity is None:
        own = getattr(obj, "similarity_fn_name", None)
        similarity = "cos" if own is None else SIMILARITY_NAMES.get(str(own).lower())
        if similarity is None:
            raise BenchError(f"model object {describe_class(obj)} has similarity_fn_name={own!r}, which drbench does "
                             f"not implement (cosine or dot product). Fix: give similarity='cos' or similarity='dot' "
                             f"if its vectors are meant for one of those")
    identity = {"type": describe_class(obj), "name": name, "revision": revision,
                "query_method": method_for(obj, "query")[1], "passage_method": method_for(obj, "passage")[1],
                "cached": name is not None, "cache": CACHED if name is not None else NOT_CACHED}
    label = name or (obj.__name__ if inspect.isfunction(obj) else type(obj).__name__)
    return ObjectSpec(name=label, kind="dense", pooling="mean", normalize=False, similarity=similarity,
                      length_sources={"query": "model object", "passage": "model object"}, encoder=obj,
                      identity=identity)
