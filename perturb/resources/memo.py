"""A bounded memo for the generators' per-word look-ups (WordNet relations, frequencies, parses).

The look-ups are pure functions of their key, so a memo may forget: :class:`Memo` is a dict that
drops its oldest entries once it holds ``maxsize``, so a long-running process (a notebook, a
server generating sets for many collections) keeps a bounded footprint. Forgetting changes no
result, only the time to compute it again."""
from __future__ import annotations

from typing import Any, Callable, Hashable

DEFAULT_SIZE = 200_000


class Memo(dict):
    """A dict of at most ``maxsize`` entries, the oldest inserted dropped first."""

    def __init__(self, maxsize: int = DEFAULT_SIZE):
        super().__init__()
        if maxsize < 1:
            raise ValueError("a memo holds at least one entry")
        self.maxsize = int(maxsize)

    def __setitem__(self, key: Hashable, value: Any) -> None:
        super().__setitem__(key, value)
        while len(self) > self.maxsize:
            try:
                super().__delitem__(next(iter(self)))
            except (StopIteration, KeyError, RuntimeError):  # another thread changed it meanwhile
                break

    def get_or_compute(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The value kept for ``key``, else ``compute()`` kept and returned (the one memo pattern of
        the look-ups: their values are pure functions of the key)."""
        try:
            return self[key]
        except KeyError:
            value = compute()
            self[key] = value
            return value

    def setdefault(self, key: Hashable, default: Any = None) -> Any:
        if key in self:
            return self[key]
        self[key] = default
        return default

    def update(self, *args, **kwargs) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value
