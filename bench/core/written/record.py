"""The marker: :data:`RECORD` (``.drbench-written.json``) in a folder names each file drbench wrote
there (a relative path) with the SHA-256 of the bytes it wrote; a folder drbench wrote as a whole also
carries ``"folder"`` (the command that wrote it). Entries whose name leaves the folder are ignored."""
from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Dict, List, Optional, Tuple

from bench.core.io import atomic_write_text, canonical_json


#: the sidecar that records what drbench wrote in a folder (git-ignored, except in committed runs)
RECORD = ".drbench-written.json"


ABOUT = ("files drbench wrote in this folder and the SHA-256 of what it wrote: drbench replaces such a file "
         "(or, with \"folder\", the whole folder) without --force while it is unchanged")


#: a file name that means standard output
STDOUT = "-"


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_record(folder: Path) -> dict:
    """The record of ``folder`` (``{}`` when there is none or it cannot be read)."""
    try:
        data = json.loads((Path(folder) / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def safe_entry(name: object) -> bool:
    """Whether a record entry's name stays inside its folder: relative, no ``..``, no drive, not empty."""
    if not isinstance(name, str) or not name.strip() or "\x00" in name:
        return False
    pure = PurePosixPath(name.replace("\\", "/"))
    win = PureWindowsPath(name)
    return not (pure.is_absolute() or win.drive or win.is_absolute() or ".." in pure.parts or name == RECORD)


def recorded_files(folder: Path) -> Dict[str, dict]:
    """The record's files (name -> entry); entries whose name leaves the folder (:func:`safe_entry`) are ignored."""
    files = read_record(folder).get("files")
    if not isinstance(files, dict):
        return {}
    return {name: entry for name, entry in files.items() if safe_entry(name) and isinstance(entry, dict)}


def write_record(folder: Path, files: Dict[str, dict], command: Optional[str] = None) -> None:
    """Write ``folder``'s record: ``files`` (name -> {"sha256", "command"}) and, for a folder drbench
    wrote as a whole, ``folder`` = the command (no time stamp: the same run gives the same bytes)."""
    record: dict = {"about": ABOUT, "files": dict(sorted(files.items()))}
    if command is not None:
        record["folder"] = command
    atomic_write_text(Path(folder) / RECORD, canonical_json(record))


def record_files(folder: Path, digests: Dict[str, str], command: str) -> None:
    """Add files drbench just wrote in ``folder`` (name -> SHA-256) to its record."""
    old = read_record(folder)
    files = recorded_files(folder)
    for name, digest in digests.items():
        files[name] = {"sha256": digest, "command": command}
    write_record(folder, files, old.get("folder") if isinstance(old.get("folder"), str) else None)


def kind_of(path: Path) -> str:
    """What is at ``path`` without following a link: "" (nothing), "file", "folder", "link", or the
    kind of special file ("character device", "block device", "FIFO", "socket")."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return ""
    except NotADirectoryError:
        return ""
    for test, name in ((stat.S_ISREG, "file"), (stat.S_ISDIR, "folder"), (stat.S_ISLNK, "link"),
                       (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
                       (stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket")):
        if test(mode):
            return name
    return "special file"


def _walk(folder: Path) -> Tuple[List[str], List[str]]:
    """(files, links) under ``folder`` as relative names, the record left out; a link (to a file or a
    folder) is listed under links and never followed."""
    files: List[str] = []
    links: List[str] = []
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(dirs + names):
            full = os.path.join(root, name)
            rel = os.path.relpath(full, folder).replace(os.sep, "/")
            if os.path.islink(full):
                links.append(rel)
            elif name in names and rel != RECORD:
                files.append(rel)
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]
    return files, links


def _files(folder: Path) -> List[str]:
    """Relative names of the regular files under ``folder``, the record left out (links are not files)."""
    return _walk(folder)[0]


def folder_record(folder: Path, command: str) -> None:
    """Record every file under ``folder`` as written by drbench ``command``, and the folder as a whole."""
    folder = Path(folder)
    write_record(folder, {rel: {"sha256": file_sha256(folder / rel), "command": command} for rel in _files(folder)},
                 command)
