"""Self-checking cache entries: every ``.npy`` entry of the embedding cache has a checksum sidecar.

Sidecar
    ``<entry>.npy.sum.json``: ``{"size": bytes, "sha256": SHA-256 of the whole file, "sampled":
    SHA-256 of the size, the first and last 4 KiB and 16 evenly spaced 4 KiB blocks}``, written
    (atomically) right after the entry itself.

Check on read (:func:`entry_ok`)
    Always: the file's size and its ``.npy`` header (float32, two dimensions, C order, the
    expected number of rows, header + rows x columns x 4 bytes = the file's size), so a truncated
    file is caught before it is memory-mapped. Then the sidecar: the full SHA-256 for entries of
    at most :data:`FULL_HASH_MAX` bytes, the sampled hash for larger ones (a few reads, whatever
    the size). An entry without a sidecar (written before checksums existed, or by a writer that
    died between the entry and its sidecar; the entry itself is renamed into place complete) is
    accepted when its header and size are right, and its sidecar is recorded then, marked
    ``"verified": false``: the checksum is of the bytes found, not of the bytes written, so it
    guards the entry from then on without vouching for it (a later read keeps the mark;
    :func:`unverified` says so). A query chunk's
    sidecar also holds the SHA-256 of its ``.keys`` file (which text is which row), so a reordered
    or edited row index is caught like a damaged matrix.

A bad entry is removed with a warning on stderr, and the caller encodes it again; a folder where
an entry should be is an error naming it (drbench removes files of its cache, never folders).
Nothing here changes an entry's bytes, so results are identical with or without sidecars.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Optional

import numpy as np

from bench.core.io import atomic_write_json

SUFFIX = ".sum.json"
FULL_HASH_MAX = 64 << 20  # entries up to 64 MiB are hashed in full on every read
_BLOCK = 4096
_SAMPLES = 16


def sidecar(path: Path) -> Path:
    return Path(str(path) + SUFFIX)


def _hashes(path: Path, full: bool = True) -> dict:
    size = path.stat().st_size
    sampled = hashlib.sha256(str(size).encode())
    offsets = sorted({0, max(size - _BLOCK, 0), *(i * size // _SAMPLES for i in range(_SAMPLES))})
    out = {"size": size}
    with open(path, "rb") as fh:
        for off in offsets:
            fh.seek(off)
            sampled.update(fh.read(_BLOCK))
        out["sampled"] = sampled.hexdigest()
        if full:
            h = hashlib.sha256()
            fh.seek(0)
            for chunk in iter(lambda: fh.read(1 << 22), b""):
                h.update(chunk)
            out["sha256"] = h.hexdigest()
    return out


def _file_sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def record(path: Path, bound: Optional[Path] = None, verified: bool = True) -> None:
    """Write the checksum sidecar of a complete entry; ``bound``: a small file that belongs to the
    entry (the ``.keys`` row index of a query chunk), whose SHA-256 is recorded too. ``verified``:
    False for a sidecar reconstructed from an entry found without one (module docstring)."""
    sums = _hashes(Path(path))
    if bound is not None:
        sums["bound"] = {"name": Path(bound).name, "sha256": _file_sha256(Path(bound))}
    if not verified:
        sums["verified"] = False
    atomic_write_json(sidecar(path), sums)


def unverified(path: Path) -> bool:
    """Whether the entry's sidecar was reconstructed (its bytes were never checked against what was written)."""
    try:
        return json.loads(sidecar(path).read_text(encoding="utf-8")).get("verified") is False
    except (OSError, ValueError, AttributeError):
        return False


def header_problem(path: Path, rows: Optional[int] = None) -> Optional[str]:
    """What is wrong with the entry's size or ``.npy`` header, or None."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            version = np.lib.format.read_magic(fh)
            reader = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            shape, fortran, dtype = reader(fh)
            offset = fh.tell()
    except (OSError, ValueError) as exc:
        return f"unreadable .npy header ({exc})"
    if dtype != np.dtype(np.float32) or len(shape) != 2 or fortran:
        return f"not a C-ordered 2-D float32 matrix (dtype {dtype}, shape {shape})"
    if rows is not None and shape[0] != rows:
        return f"{shape[0]} rows, expected {rows}"
    expected = offset + int(np.prod(shape)) * 4
    if size != expected:
        return f"{size} bytes, expected {expected} (truncated or padded)"
    return None


def entry_problem(path: Path, rows: Optional[int] = None, bound: Optional[Path] = None) -> Optional[str]:
    """What is wrong with a cache entry (header, size, checksum; with ``bound``, the checksum of
    that file too), or None when it can be served."""
    path = Path(path)
    problem = header_problem(path, rows)
    if problem:
        return problem
    side = sidecar(path)
    if not side.exists():
        with contextlib.suppress(OSError):  # an entry from before checksums: recorded now, as unverified
            record(path, bound, verified=False)
        print(f"drbench: note: cache entry {path} had no checksum file; one was recorded from its bytes and "
              f"marked unverified", file=sys.stderr)
        return None
    try:
        want = json.loads(side.read_text(encoding="utf-8"))
        size = path.stat().st_size
        if want.get("size") != size:
            return f"{size} bytes, the checksum file says {want.get('size')}"
        full = size <= FULL_HASH_MAX
        got = _hashes(path, full=full)
        key = "sha256" if full else "sampled"
        if got[key] != want.get(key):
            return f"checksum mismatch ({key})"
        if bound is not None:
            if "bound" not in want:  # a sidecar from before the row index was covered: record it now
                with contextlib.suppress(OSError):
                    record(path, bound, verified=want.get("verified") is not False)
            elif want["bound"].get("sha256") != _file_sha256(bound):
                return f"{Path(bound).name} does not match its checksum (the text-to-row index was edited)"
    except (OSError, ValueError, AttributeError) as exc:
        return f"unreadable checksum file {side.name} ({exc})"
    return None


def entry_ok(path: Path, rows: Optional[int] = None, bound: Optional[Path] = None) -> bool:
    """True when the entry exists and can be served; a bad entry is removed (with its sidecar and
    ``bound`` file) with a warning, so that the caller encodes it again."""
    path = Path(path)
    for p in (path, sidecar(path), *([Path(bound)] if bound is not None else [])):
        if p.is_dir():
            from bench.core.errors import BenchError

            raise BenchError(f"cache entry {p} is a folder, not a file; drbench does not remove folders. Fix: move "
                             f"or delete it (rm -r {p}); the next run encodes the entry again")
    if not path.exists():
        return False
    problem = entry_problem(path, rows, bound)
    if problem is None:
        return True
    print(f"drbench: warning: cache entry {path} is damaged: {problem}; removing it and encoding again",
          file=sys.stderr)
    for p in (path, sidecar(path), *([Path(bound)] if bound is not None else [])):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(p)
    return False
