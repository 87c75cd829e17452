"""Command-line options declared as data, so library code and suites never import argparse.

An :class:`Option` holds the flags and the argparse keyword arguments of one option; the CLI
(:mod:`bench.cli.options`) turns declarations into parsers, and a suite reads the parsed values
by ``dest`` from a plain namespace.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Tuple

from bench.core.errors import BenchError


class BadValue(BenchError, ValueError):
    """A value an option's type refuses, with the message to show (``argument --out: <message>``);
    a :class:`~bench.core.errors.BenchError`, so an API caller gets the same clear error."""


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


# --------------------------------------------------------------------------------------------
# value checks every entry point shares (the command line through argparse types, the Python API
# through bench.config and the option objects' validate methods): the one place for the allowed
# ranges of counts, seeds, margins and name lists


#: the most Monte Carlo resamples a test or interval may draw (one float per resample is held)
MAX_RESAMPLES = 1_000_000


def _flag(option: str) -> str:
    """How a value is shown after its option: ``--seed 1.5`` (a flag) or ``seed=1.5`` (a keyword)."""
    return f"{option} " if option.startswith("-") else f"{option}="


def check_int(value: Any, option: str, low: int = None, high: int = None) -> int:
    """An integer (not a bool, not a float such as 1.7) in [low, high]; else BadValue naming the range."""
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise BadValue(f"{_flag(option)}{value!r}: give a whole number" + _range_text(low, high))
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise BadValue(f"{_flag(option)}{value}: out of range; give a whole number" + _range_text(low, high))
    return value


def check_number(value: Any, option: str, low: float, high: float) -> float:
    """A finite real number in [low, high] (``inf`` and ``nan`` refused); else BadValue naming the range."""
    import math
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)) \
            or not low <= float(value) <= high:
        raise BadValue(f"{_flag(option)}{value!r}: give a finite number from {low:g} to {high:g}")
    return float(value)


def _range_text(low, high) -> str:
    if low is not None and high is not None:
        return f" from {low:,} to {high:,}"
    if low is not None:
        return f" of at least {low:,}"
    return f" of at most {high:,}" if high is not None else ""


def name_list(text: Any) -> str:
    """The type of a comma-separated list of names (``--generators EXTRAPUNC,MISSPELL``): at least
    one name; an empty text or commas only would mean "none", which no command runs. Returns the
    text as given (it is part of the default run folder's hash)."""
    names = [p.strip() for p in str(text).split(",") if p.strip()]
    if not names:
        raise BadValue(f"{str(text)!r} names nothing; give one or more names separated by commas (e.g. "
                       f"EXTRAPUNC,MISSPELL), or leave the option out for the default")
    return str(text)


def int_in(option: str, low: int = None, high: int = None):
    """The argparse type of a whole-number option in [low, high] (the text ``1.7`` or ``-1`` refused
    with the range); the Python API converts keyword values through the same function."""
    def convert(text: Any) -> int:
        try:
            value = int(str(text).strip())
        except ValueError:
            raise BadValue(f"invalid int value: {str(text)!r} (give a whole number{_range_text(low, high)})") from None
        return check_int(value, option, low, high)

    convert.__name__ = "int"
    return convert


#: the type of every run seed: a whole number of at least 0 (numpy's generators take no negative seed)
seed_type = int_in("--seed", 0)


def check_alpha(alpha: Any, option: str = "--alpha") -> float:
    """A significance level strictly between 0 and 1."""
    import math

    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not math.isfinite(alpha) \
            or not 0 < alpha < 1:
        raise BadValue(f"{_flag(option)}{alpha!r}: give a number strictly between 0 and 1 (e.g. 0.05)")
    return float(alpha)


def check_resampling(alpha: Any, seed: Any, resamples: Any) -> None:
    """The level, seed and resample count of a test or bootstrap (``bench compare``, ``bench gate``,
    their Python functions): alpha in (0, 1), seed >= 0, 1 <= resamples <= MAX_RESAMPLES."""
    check_alpha(alpha)
    check_int(seed, "--seed", 0)
    check_int(resamples, "--resamples", 1, MAX_RESAMPLES)
