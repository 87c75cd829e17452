"""Files a command writes where the user named them (``-o``, ``--md``, ``--json``,
``--drop-rate-output``, and the leaderboard's ``<stem>.wide.csv`` / ``<stem>.method.md`` beside
``-o``): an existing file is replaced only when drbench wrote it and it is unchanged since, or
with ``--force`` (issue 40 item 3: a README example silently rewrote committed results).

The marker is a sidecar, so the files themselves stay byte for byte what the command produces
(CSV without a comment line): :data:`RECORD` (``.drbench-written.json``, :mod:`bench.core.written`,
the one marker, also used for whole folders) in the file's folder maps each file name drbench
wrote there to the SHA-256 of the bytes it wrote. A file is "one drbench
wrote" when the record names it with the hash of its current bytes; an edited file, a file of the
user's, or a file that came with a clone (the record is git-ignored, so committed results have
none) is not. An empty file is replaced (nothing is lost: ``$GITHUB_STEP_SUMMARY`` starts empty).
Every target is checked before anything is written, so a refusal writes nothing.
"""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Dict, Iterable, List, Sequence, Tuple

from bench.core.errors import BenchError
from bench.core.io import atomic_write_bytes
from bench.core.written import RECORD, record_files, why_not_replaceable

STDOUT = "-"


def add_force(p) -> None:
    p.add_argument("--force", action="store_true",
                   help="replace an existing output file that drbench did not write (or that was edited since); "
                        f"drbench records what it writes in {RECORD} beside the files")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _listed(paths: List[Path]) -> str:
    names = [str(p) for p in paths]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def check_replaceable(paths: Iterable, force: bool, fix_example: str) -> None:
    """Refuse, before any work or write, to replace files drbench did not write (unless ``force``).
    ``fix_example``: the options with new file names, for the message (``-o board/leaderboard.csv``)."""
    found: Dict[str, List[Path]] = {}
    for p in paths:
        if p is None or str(p) == STDOUT:
            continue
        why = why_not_replaceable(Path(p))
        if why == "folder":
            raise BenchError(f"{p} is a folder; give a file name. Fix: {fix_example}")
        if why and not force:
            found.setdefault(why, []).append(Path(p))
    if not found:
        return
    parts = []
    for why, listed in found.items():
        many = len(listed) > 1
        records = sorted({str(p.parent / RECORD) for p in listed})
        if why == "unrecorded":
            parts.append(f"{_listed(listed)} {'exist' if many else 'exists'} and drbench did not write "
                         f"{'them' if many else 'it'} ({' / '.join(records)} has no record of "
                         f"{'them' if many else 'it'}: a committed, copied or hand-made file)")
        else:
            parts.append(f"{_listed(listed)} {'were' if many else 'was'} changed since drbench wrote "
                         f"{'them' if many else 'it'}")
    many = sum(len(v) for v in found.values()) > 1
    raise BenchError(f"not overwritten: {'; '.join(parts)}. Fix: write to {'new files' if many else 'a new file'} "
                     f"({fix_example}), or add --force to replace {'them' if many else 'it'}")


def write_outputs(files: Sequence[Tuple[object, str]], command: str) -> None:
    """Write each (path, text) atomically, record it in its folder's :data:`RECORD`, and say so on stderr."""
    by_folder: Dict[Path, Dict[str, str]] = {}
    for p, text in files:
        path = Path(p)
        data = text.encode("utf-8")
        atomic_write_bytes(path, data)
        by_folder.setdefault(path.parent, {})[path.name] = _sha256(data)
    for folder, written in by_folder.items():
        record_files(folder, written, command)
    print("wrote " + ", ".join(str(p) for p, _ in files), file=sys.stderr)
