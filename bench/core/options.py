"""Command-line options declared as data, so library code and suites never import argparse.

An :class:`Option` holds the flags and the argparse keyword arguments of one option; the CLI
(:mod:`bench.cli.options`) turns declarations into parsers, and a suite reads the parsed values
by ``dest`` from a plain namespace.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Tuple


class BadValue(ValueError):
    """A value an option's type refuses, with the message to show (``argument --out: <message>``)."""


@dataclass(frozen=True)
class Option:
    flags: Tuple[str, ...]
    settings: Dict[str, Any] = field(default_factory=dict)  # argparse keyword arguments

    @property
    def dest(self) -> str:
        return self.settings.get("dest") or self.flags[0].lstrip("-").replace("-", "_")

    @property
    def default(self) -> Any:
        action = self.settings.get("action")
        if action == "store_true":
            return False
        if action == "store_false":
            return True
        return self.settings.get("default")

    def __hash__(self) -> int:
        return hash(self.flags)


def option(*flags: str, **settings: Any) -> Option:
    return Option(tuple(flags), dict(settings))
