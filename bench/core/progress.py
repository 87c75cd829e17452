"""Progress for every long loop (encoding, corpus shards, training) and status lines for stages.

In a terminal (stderr is a TTY) a tqdm bar is drawn. Anywhere else (CI logs, ``| tee``, a
notebook's captured stderr) plain lines go to stderr at a bounded rate, at most one every
``INTERVAL`` seconds plus the final line::

    [encode queries] 512/884 (58%) 301.2/s ETA 00:01
    [encode queries] 884/884 (100%) 305.0/s in 00:03

``enabled=False`` (``--no-progress``) prints nothing in either mode.

A plain line that falls due at an update is printed at the next call (``set_postfix``, the next
``update`` or ``close``), so it carries the postfix set for that step (``loss`` of step N, not
N-1), and the last step's line is not printed twice: ``close`` prints the final line instead. A
loop with nothing to do and no known total (every shard cached) prints no line at all.
"""
from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Any, Iterator, Optional, TextIO, Tuple

#: seconds between two plain progress lines outside a terminal
INTERVAL = 10.0
#: a loop whose remaining time, at the pace of its first EARLY_STEPS steps, is at least INTERVAL
#: says its estimate then, before its first regular line ("ETA 05:40 (from the first 3 steps)")
EARLY_STEPS = 3

_clock = time.monotonic  # replaced by tests (a fake clock)


def _is_tty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _mmss(seconds: float) -> str:
    s = max(0, int(round(seconds)))
    return f"{s // 60:02d}:{s % 60:02d}"


def _rate(per_second: float, unit: str) -> str:
    """``301.2/s``, or ``84.0 s/shard`` when under one per second (never ``0.0/s``)."""
    if per_second >= 1.0:
        return f"{per_second:.1f}/s"
    return f"{1.0 / per_second:.1f} s/{unit}"


def plural(word: str) -> str:
    """``query`` -> ``queries``, ``passage`` -> ``passages`` (labels of progress lines)."""
    if word.endswith("y") and word[-2:-1] not in tuple("aeiou"):
        return word[:-1] + "ies"
    return word + "s"


def count(n: int, word: str) -> str:
    """``1 set``, ``3 sets``, ``0 trials``: a number and its noun, plural unless the number is 1."""
    return f"{n} {word if n == 1 else plural(word)}"


class Progress:
    """A progress counter with tqdm's ``update`` / ``set_postfix`` / ``close`` (and a context
    manager). Use :func:`progress` to make one."""

    def __init__(self, total: Optional[int] = None, desc: str = "", unit: str = "it", enabled: bool = True,
                 initial: int = 0, stream: Optional[TextIO] = None, interval: Optional[float] = None,
                 tty: Optional[bool] = None):
        self.total, self.desc, self.unit = total, desc, unit
        self.n = self.start = int(initial)
        self.stream = stream if stream is not None else sys.stderr
        self.interval = INTERVAL if interval is None else float(interval)
        self.enabled = bool(enabled)
        self.postfix = ""
        self.closed = False
        self._bar: Any = None
        self._t0 = self._last = _clock()
        self._due: Optional[Tuple[int, float]] = None  # (n, time) of a line waiting to be printed
        self._said = False  # a plain line was due (the early estimate is said only before the first)
        self._early: Optional[int] = None  # n of the early-estimate line
        if self.enabled and (_is_tty(self.stream) if tty is None else tty):
            from tqdm.auto import tqdm

            self._bar = tqdm(total=total, initial=initial, desc=desc, unit=unit, leave=False, file=self.stream)

    def update(self, n: int = 1) -> None:
        if self._bar is not None:
            self.n += int(n)
            self._bar.update(n)
            return
        if not self.enabled:
            self.n += int(n)
            return
        self._flush()  # a line due at the previous step, with that step's postfix
        self.n += int(n)
        now = _clock()
        if now - self._last >= self.interval and not (self.total and self.n >= self.total):
            self._last = now
            self._due = (self.n, now)
            self._said = True
        elif not self._said and self.total and EARLY_STEPS <= self.n - self.start and self.n < self.total:
            rate = (self.n - self.start) / max(now - self._t0, 1e-9)
            if (self.total - self.n) / rate >= self.interval:  # a long loop: say the estimate now
                self._last, self._due, self._said, self._early = now, (self.n, now), True, self.n

    def set_postfix(self, **values: Any) -> None:
        self.postfix = ", ".join(f"{k}={v}" for k, v in values.items())
        if self._bar is not None:
            self._bar.set_postfix(**values)
        elif self.enabled:
            self._flush()

    def _flush(self) -> None:
        if self._due is not None:
            n, when = self._due
            self._due = None
            print(self.line(when, final=False, n=n), file=self.stream, flush=True)

    def line(self, now: float, final: bool, n: Optional[int] = None) -> str:
        n = self.n if n is None else n
        elapsed = max(now - self._t0, 0.0)
        done = n - self.start
        rate = done / elapsed if elapsed > 0 else 0.0
        if self.total:
            count = f"{n}/{self.total} ({100.0 * n / self.total:.0f}%)"
        else:
            count = f"{n} {self.unit if n == 1 else plural(self.unit)}"
        text = f"[{self.desc or 'progress'}] {count}" + (f" {_rate(rate, self.unit)}" if done and rate > 0 else "")
        if final:
            text += f" in {_mmss(elapsed)}"
        elif self.total and rate > 0:
            text += f" ETA {_mmss((self.total - n) / rate)}"
            if n == self._early:
                text += f" (estimate from the first {done} {plural(self.unit)})"
        return text + (f" ({self.postfix})" if self.postfix else "")

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self._bar is not None:
            self._bar.close()
        elif self.enabled:
            self._due = None  # the final line below says the same, and more
            if self.n == self.start and not self.total:
                return  # nothing to do (every shard cached): no "0 shards in 00:00" line
            print(self.line(_clock(), final=True), file=self.stream, flush=True)

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def progress(total: Optional[int] = None, desc: str = "", unit: str = "it", enabled: bool = True,
             initial: int = 0, **kw: Any) -> Progress:
    """A tqdm bar in a terminal, rate-limited plain lines elsewhere, nothing when not ``enabled``."""
    return Progress(total=total, desc=desc, unit=unit, enabled=enabled, initial=initial, **kw)


@contextmanager
def stage(message: str, enabled: bool = True, stream: Optional[TextIO] = None) -> Iterator[None]:
    """One status line for a stage: ``generating MISSPELL: 884 queries ... done in 3.2 s``."""
    out = stream if stream is not None else sys.stderr
    if enabled:
        print(f"{message} ...", end="", file=out, flush=True)
    t0 = _clock()
    ok = False
    try:
        yield
        ok = True
    finally:
        if enabled:
            print(f" {'done' if ok else 'failed'} in {_clock() - t0:.1f} s", file=out, flush=True)
