"""Typed model of ``model.encoder_object``: a model given to ``bench.evaluate`` as a Python object
(:mod:`bench.models.objects`); part of the header of every result layout (:mod:`bench.results.schema_common`)."""
from __future__ import annotations

from typing import Annotated, Optional, TypedDict


class EncoderObject(TypedDict, total=False):
    """A model given as a Python object (bench.evaluate(model=obj)): what it was and how its vectors
    were cached (bench.models.objects)."""

    type: Annotated[str, "the object's class (module.QualifiedName), or the function's name"]
    name: Annotated[Optional[str], "the name= given (null: none, and the vectors were not cached)"]
    revision: Annotated[Optional[str], "the revision= given"]
    query_method: Annotated[str, "the method that encoded the queries (encode_queries, encode_query, encode, "
                                 "__call__)"]
    passage_method: Annotated[str, "the method that encoded the passages (encode_corpus, encode_document, encode, "
                                   "__call__)"]
    cache: Annotated[str, "how the embedding cache treated the object: keyed by name, revision and the outputs on "
                          "the probe texts and a sample of the dataset's texts, or not cached"]
    probe_fingerprint: Annotated[str, "SHA-256 of the object's vectors of the fixed probe texts (both roles)"]
    sample_fingerprint: Annotated[str, "SHA-256 of the object's vectors of a deterministic sample of the dataset's "
                                       "own texts (both roles; a named object only): part of its cache key"]
