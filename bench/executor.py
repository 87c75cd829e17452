"""The seam for scale-out: independent work units go through an executor.

``LocalExecutor`` runs them in this process, in order. A distributed engine (e.g. Ray) plugs in
by implementing ``map`` with the same contract: results come back in input order, and each
unit is a pure function of its inputs, so the result files do not depend on the executor.
"""
from __future__ import annotations

from typing import Callable, List, Protocol, Sequence, TypeVar

from bench.registry import Registry

A = TypeVar("A")
B = TypeVar("B")


class Executor(Protocol):
    name: str

    def map(self, fn: Callable[[A], B], items: Sequence[A]) -> List[B]:
        ...


class LocalExecutor:
    name = "local"

    def map(self, fn: Callable[[A], B], items: Sequence[A]) -> List[B]:
        return [fn(item) for item in items]


EXECUTORS: Registry = Registry("executor", "drbench.executors")
EXECUTORS.register("local", LocalExecutor)
