"""Atomic file writes and stable hashing: an interrupted run never leaves a half-written file."""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import socket
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator, Union

PathLike = Union[str, os.PathLike]

_PROCESS_START = time.time()
#: this writer's mark in a temporary name: pid and a tag of the host (for folders shared by hosts)
_HOST_TAG = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]
_ORPHAN = re.compile(r"\.w(\d+)-([0-9a-f]{8})\.[^/]*\.tmp$")


@contextlib.contextmanager
def atomic_path(path: PathLike, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it over ``path`` only if the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{writer_mark()}.", suffix=f"{suffix}.tmp",
                               dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp_path, 0o666 & ~umask)  # mkstemp makes 0600; give the usual file mode
    try:
        yield tmp_path
        os.replace(tmp_path, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()
        if isinstance(exc, OSError) and exc.filename is None and exc.errno is not None:
            # a write() or fsync() failure (disk full) names no file: name the one being written
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc
        raise


def atomic_write_bytes(path: PathLike, data: bytes) -> None:
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())


def atomic_write_text(path: PathLike, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def canonical_json(obj: Any) -> str:
    """Stable JSON: sorted keys, fixed separators, UTF-8, trailing newline."""
    return json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def atomic_write_json(path: PathLike, obj: Any) -> None:
    atomic_write_text(path, canonical_json(obj))


def sha256_hex(*parts: Union[str, bytes]) -> str:
    """SHA-256 over length-prefixed parts (so ("ab","c") and ("a","bc") differ)."""
    h = hashlib.sha256()
    for part in parts:
        b = part.encode("utf-8") if isinstance(part, str) else part
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()


def safe_name(name: str, default: str = "") -> str:
    """``name`` usable as a file or folder name: runs of other characters than letters, digits,
    ``.``, ``_`` and ``-`` become ``_`` (``default`` when nothing is left)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_") or default


def writer_gone(pid: int, host: str, mtime: float, stale_after: float = 86400.0) -> bool:
    """Whether the writer that marked a temporary name with ``pid`` and ``host`` (:data:`_HOST_TAG`)
    is gone: on this host, a process that no longer runs; on another host, a mark older than
    ``stale_after`` seconds."""
    if host == _HOST_TAG:
        return pid != os.getpid() and not _pid_alive(pid)
    return mtime < time.time() - stale_after


def writer_mark() -> str:
    """The mark of this writer in a temporary name: ``w<pid>-<host tag>``."""
    return f"w{os.getpid()}-{_HOST_TAG}"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_orphans(folder: PathLike, stale_after: float = 86400.0) -> int:
    """Remove temporary files (``.<name>.*.tmp``, see :func:`atomic_path`) left in ``folder`` by
    writers that died: written on this host by a process that is gone, or (no writer mark, i.e.
    by an older drbench) older than this process, or (another host) older than ``stale_after``
    seconds. Returns how many were removed."""
    folder = Path(folder)
    removed = 0
    if not folder.is_dir():
        return 0
    for p in folder.glob(".*.tmp"):
        try:
            mtime = p.stat().st_mtime
        except FileNotFoundError:
            continue
        m = _ORPHAN.search(p.name)
        if m:
            dead = writer_gone(int(m.group(1)), m.group(2), mtime, stale_after)
        else:
            dead = mtime < _PROCESS_START
        if dead:
            with contextlib.suppress(FileNotFoundError):
                p.unlink()
                removed += 1
    return removed


def visible(text: str) -> bool:
    """Whether ``text`` has a character one can see: not only white space, zero-width, control or
    format characters (U+200B, U+200D, U+FEFF ...), which ``str.strip`` keeps."""
    import unicodedata

    return any(not c.isspace() and unicodedata.category(c) not in ("Cc", "Cf", "Zs", "Zl", "Zp") for c in text)


def refuse_invisible(text: str, what: str, path: PathLike, lineno: int) -> None:
    """A DataError (file and line) when ``text`` of ``what`` (e.g. ``query '3'``) is empty or only
    invisible characters (:func:`visible`)."""
    if not visible(text):
        from bench.core.errors import DataError

        raise DataError(f"{what} has empty text" + (" (only invisible characters)" if text.strip() else ""), str(path),
                        lineno, fix="remove the record or give it text")


#: bidirectional embedding, override and isolate controls (U+202A..U+202E, U+2066..U+2069): they change
#: the order in which the text around them is shown, so a label holding one reads as another
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def refuse_bidi(text: str, option: str, fix: str) -> None:
    """A BenchError naming ``option`` when ``text`` holds a bidirectional control (:data:`BIDI_CONTROLS`)."""
    found = sorted({f"U+{ord(c):04X}" for c in str(text) if c in BIDI_CONTROLS})
    if found:
        from bench.core.errors import BenchError

        raise BenchError(f"{option} {text!r} holds the bidirectional control character(s) {', '.join(found)}, which "
                         f"change the order in which the text is shown. Fix: {fix}")
