"""Where drbench keeps its caches, and paths named inside data files kept inside their folder. Nothing
is created at import time."""
from __future__ import annotations

import os
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Optional

from bench.core.errors import BenchError, DataError


def cache_home() -> Path:
    """``$DRBENCH_HOME`` if set, else ``$XDG_CACHE_HOME/drbench``, else ``~/.cache/drbench``."""
    env = os.environ.get("DRBENCH_HOME")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "drbench"


def checkpoint_home(cache_root: Optional[Path] = None) -> Path:
    """Where the suites keep the checkpoints they train (few-shot basic learning, the domain
    suite's systems): ``checkpoints/`` beside the embedding cache ``cache_root`` when one is
    given, else under the cache home."""
    return Path(cache_root).parent / "checkpoints" if cache_root else cache_home() / "checkpoints"


def check_writable_folder(path: Path, what: str, fix: str) -> Path:
    """Refuse, before any work, a folder that cannot be created or written: an existing file, a
    path under a file, or a folder (or nearest existing parent) without write permission. Nothing
    is created here."""
    path = Path(path).expanduser()
    if not str(path).strip():
        raise BenchError(f"{what} is empty (it would mean the working folder). Fix: {fix}")
    walked = Path(path.anchor) if path.is_absolute() else Path()
    for part in path.parts[1:] if path.is_absolute() else path.parts:
        if part == ".." and walked != Path(walked.anchor) and walked != Path() and not walked.exists():
            # mkdir -p would create the missing folder only to climb out of it again
            raise BenchError(f"{what} {path}: {walked} does not exist, so '..' after it names no folder. Fix: "
                             f"give the folder without '..' (e.g. {what} {os.path.normpath(str(path))})")
        walked = walked / part
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


def inside_folder(folder: Path, name: str, source: Path, line: Optional[int], what: str) -> Path:
    """``folder / name`` for a file or folder ``name`` that data (a config, a manifest) names: refused
    with a :class:`DataError` naming ``source`` and ``line`` when ``name`` is absolute, climbs out with
    ``..``, or leads outside ``folder`` (through a symbolic link). Paths the user types are not checked
    here; only paths read from files are."""
    text = str(name)
    fix = f"name a path inside {folder} (relative, without '..')"
    if not text.strip():
        return Path(folder)
    pure = PurePosixPath(text.replace("\\", "/"))
    if pure.is_absolute() or PureWindowsPath(text).drive or PureWindowsPath(text).is_absolute():
        raise DataError(f"{what} {text!r} is an absolute path; paths named inside a file must stay in its folder",
                        str(source), line, fix)
    if ".." in pure.parts:
        raise DataError(f"{what} {text!r} climbs out of the folder with '..'", str(source), line, fix)
    target = Path(folder) / Path(*pure.parts)
    base = Path(folder).resolve()
    resolved = target.resolve()
    if resolved != base and base not in resolved.parents:
        raise DataError(f"{what} {text!r} leads outside {folder} (to {resolved}, through a symbolic link)",
                        str(source), line, fix)
    return target


def json_line(text: str, value: str) -> Optional[int]:
    """The 1-based line of a JSON text on which the string ``value`` first appears (for error messages)."""
    import json

    needle = json.dumps(value)
    for lineno, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return lineno
    return None
