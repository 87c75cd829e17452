"""Where drbench keeps its caches. Nothing is created at import time."""
from __future__ import annotations

import os
from pathlib import Path


def cache_home() -> Path:
    """``$DRBENCH_HOME`` if set, else ``$XDG_CACHE_HOME/drbench``, else ``~/.cache/drbench``."""
    env = os.environ.get("DRBENCH_HOME")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "drbench"
