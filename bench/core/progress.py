"""Progress for every long loop (encoding, corpus shards, training) and status lines for stages.

In a terminal (stderr is a TTY) a tqdm bar is drawn. Anywhere else (CI logs, ``| tee``, a
notebook's captured stderr) plain lines go to stderr at a bounded rate, at most one every
``INTERVAL`` seconds plus the final line::

    [encode queries] 512/884 (58%) 301.2/s ETA 00:01
    [encode queries] 884/884 (100%) 305.0/s in 00:03

``enabled=False`` (``--no-progress``) prints nothing in either mode.
"""
from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Any, Iterator, Optional, TextIO

#: seconds between two plain progress lines outside a terminal
INTERVAL = 10.0

_clock = time.monotonic  # replaced by tests (a fake clock)


def _is_tty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _mmss(seconds: float) -> str:
    s = max(0, int(round(seconds)))
    return f"{s // 60:02d}:{s % 60:02d}"


def plural(word: str) -> str:
    """``query`` -> ``queries``, ``passage`` -> ``passages`` (labels of progress lines)."""
    if word.endswith("y") and word[-2:-1] not in tuple("aeiou"):
        return word[:-1] + "ies"
    return word + "s"


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
        if self.enabled and (_is_tty(self.stream) if tty is None else tty):
            from tqdm.auto import tqdm

            self._bar = tqdm(total=total, initial=initial, desc=desc, unit=unit, leave=False, file=self.stream)

    def update(self, n: int = 1) -> None:
        self.n += int(n)
        if self._bar is not None:
            self._bar.update(n)
        elif self.enabled:
            now = _clock()
            if now - self._last >= self.interval:
                self._last = now
                self._emit(now, final=False)

    def set_postfix(self, **values: Any) -> None:
        self.postfix = ", ".join(f"{k}={v}" for k, v in values.items())
        if self._bar is not None:
            self._bar.set_postfix(**values)

    def line(self, now: float, final: bool) -> str:
        elapsed = max(now - self._t0, 0.0)
        done = self.n - self.start
        rate = done / elapsed if elapsed > 0 else 0.0
        if self.total:
            count = f"{self.n}/{self.total} ({100.0 * self.n / self.total:.0f}%)"
        else:
            count = f"{self.n} {self.unit if self.n == 1 else plural(self.unit)}"
        text = f"[{self.desc or 'progress'}] {count}" + (f" {rate:.1f}/s" if done else "")
        if final:
            text += f" in {_mmss(elapsed)}"
        elif self.total and rate > 0:
            text += f" ETA {_mmss((self.total - self.n) / rate)}"
        return text + (f" ({self.postfix})" if self.postfix else "")

    def _emit(self, now: float, final: bool) -> None:
        print(self.line(now, final), file=self.stream, flush=True)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self._bar is not None:
            self._bar.close()
        elif self.enabled:
            self._emit(_clock(), final=True)

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
