"""One generic registry for every extension point.

Built-ins are registered lazily as ``"module:attr"`` strings, so importing a registry
imports nothing heavy. Third-party packages add entries through the entry-point group
named by the registry (e.g. ``drbench.generators``). Duplicate names raise; unknown
names raise :class:`UnknownName` with the closest matches.
"""
from __future__ import annotations

import difflib
import importlib
from typing import Any, Dict, Generic, Iterator, List, Optional, TypeVar, Union

T = TypeVar("T")


class UnknownName(KeyError):
    """Raised for a name no registry entry carries; the message suggests close matches."""

    def __init__(self, kind: str, name: str, known: List[str]):
        self.kind, self.name, self.known = kind, name, known
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
        if not close:
            lowered = {k.lower(): k for k in known}
            close = [lowered[m] for m in difflib.get_close_matches(name.lower(), list(lowered), n=3, cutoff=0.5)]
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        super().__init__(f"unknown {kind} {name!r}.{hint} Known: {', '.join(sorted(known)) or '(none)'}.")

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return self.args[0]


class DuplicateName(ValueError):
    pass


def load_target(target: str) -> Any:
    """Import ``"package.module:attr"`` and return the attribute."""
    module_name, _, attr = target.partition(":")
    if not attr:
        raise ValueError(f"lazy target {target!r} must look like 'module:attr'")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


class Registry(Generic[T]):
    """Maps names to objects (or lazy ``"module:attr"`` strings resolved on first use)."""

    def __init__(self, kind: str, entry_point_group: Optional[str] = None, case_sensitive: bool = False):
        self.kind = kind
        self.entry_point_group = entry_point_group
        self.case_sensitive = case_sensitive
        self._entries: Dict[str, Union[str, T]] = {}
        self._display: Dict[str, str] = {}
        self._entry_points_loaded = entry_point_group is None

    def _key(self, name: str) -> str:
        return name if self.case_sensitive else name.lower()

    def register(self, name: str, obj: Union[str, T, None] = None, *, replace: bool = False):
        """Register ``obj`` (or a lazy ``"module:attr"`` string) under ``name``.

        Used without ``obj`` it is a decorator.
        """
        if obj is None:
            def deco(o: T) -> T:
                self.register(name, o, replace=replace)
                return o
            return deco
        key = self._key(name)
        if key in self._entries and not replace:
            raise DuplicateName(f"{self.kind} {name!r} is registered twice")
        self._entries[key] = obj
        self._display[key] = name
        return obj

    def _load_entry_points(self) -> None:
        if self._entry_points_loaded:
            return
        self._entry_points_loaded = True
        from importlib.metadata import entry_points

        for ep in entry_points(group=self.entry_point_group):
            self.register(ep.name, ep.value)

    def names(self) -> List[str]:
        self._load_entry_points()
        return [self._display[k] for k in self._entries]

    def __contains__(self, name: str) -> bool:
        self._load_entry_points()
        return self._key(name) in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def get(self, name: str) -> T:
        self._load_entry_points()
        key = self._key(name)
        if key not in self._entries:
            raise UnknownName(self.kind, name, self.names())
        obj = self._entries[key]
        if isinstance(obj, str):
            obj = load_target(obj)
            self._entries[key] = obj
        return obj  # type: ignore[return-value]

    def canonical(self, name: str) -> str:
        """The registered spelling of ``name``."""
        self._load_entry_points()
        key = self._key(name)
        if key not in self._entries:
            raise UnknownName(self.kind, name, self.names())
        return self._display[key]
