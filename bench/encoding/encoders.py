"""The one place a model's encoders are made: :func:`make_encoders` wraps every model form in the
encoder contract (:mod:`bench.encoding.contract`)."""
from __future__ import annotations

from bench.encoding.contract import VectorContract
from bench.encoding.encoder import Encoder
from bench.encoding.objects import ObjectEncoder
from bench.models.objects import ObjectSpec


def make_encoders(spec, batch_size: int = 64, progress: bool = True):
    """The passage and query encoders of ``spec`` (a model object's own methods,
    :class:`~bench.encoding.objects.ObjectEncoder`, or the weights of a folder,
    :class:`~bench.encoding.encoder.Encoder`), sharing one :class:`VectorContract`: every batch is
    checked and queries must have the passages' width."""
    cls = ObjectEncoder if isinstance(spec, ObjectSpec) else Encoder
    contract = VectorContract(spec.name)
    passage = cls(spec, "passage", batch_size=batch_size, progress=progress, contract=contract)
    query = cls(spec, "query", batch_size=batch_size, progress=progress, shared=passage, contract=contract)
    return passage, query
