"""Where drbench keeps its caches. Nothing is created at import time."""
from __future__ import annotations

import os
from pathlib import Path
from bench.core.errors import BenchError


def cache_home() -> Path:
    """``$DRBENCH_HOME`` if set, else ``$XDG_CACHE_HOME/drbench``, else ``~/.cache/drbench``."""
    env = os.environ.get("DRBENCH_HOME")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "drbench"


def check_writable_folder(path: Path, what: str, fix: str) -> Path:
    """Refuse, before any work, a folder that cannot be created or written: an existing file, a
    path under a file, or a folder (or nearest existing parent) without write permission. Nothing
    is created here."""
    path = Path(path).expanduser()
    if path.exists() and not path.is_dir():
        raise BenchError(f"{what} {path} is a file; give a folder. Fix: {fix}")
    probe = path
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe != path and not probe.is_dir():
        raise BenchError(f"{what} {path} cannot be created: {probe} is a file, not a folder. Fix: {fix}")
    if not os.access(probe, os.W_OK | os.X_OK):
        where = "" if probe == path else f" (its nearest existing parent {probe} is not writable)"
        raise BenchError(f"{what} {path} cannot be written{where}: permission denied. Fix: {fix}")
    return path


def check_cache_home() -> Path:
    """The cache home, refused with a clear message when it cannot be written."""
    return check_writable_folder(cache_home(), "the drbench cache folder",
                                 "set DRBENCH_HOME to a writable folder (e.g. DRBENCH_HOME=/tmp/drbench)")
