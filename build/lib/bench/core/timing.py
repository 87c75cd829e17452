"""Wall-clock timing of named stages (recorded in timings.json, never in result.json)."""
from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Dict, Iterator


class Timer:
    """Accumulates wall-clock seconds per step name (kept out of the deterministic result)."""

    def __init__(self):
        self.seconds: Dict[str, float] = {}

    @contextmanager
    def __call__(self, step: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[step] = self.seconds.get(step, 0.0) + time.perf_counter() - t0
