"""Atomic file writes and stable hashing: an interrupted run never leaves a half-written file."""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Iterator, Union

PathLike = Union[str, os.PathLike]


@contextlib.contextmanager
def atomic_path(path: PathLike, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it over ``path`` only if the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=f"{suffix}.tmp", dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp_path, 0o666 & ~umask)  # mkstemp makes 0600; give the usual file mode
    try:
        yield tmp_path
        os.replace(tmp_path, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()
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
