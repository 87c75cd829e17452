"""What drbench wrote: the one marker, :data:`RECORD` (``.drbench-written.json``), and the rules
built on it for files and folders.

The record in a folder maps the name (a relative path) of each file drbench wrote there to the
SHA-256 of the bytes it wrote; a folder drbench wrote as a whole (a run folder, a ``bench perturb``
folder, a checkpoint) also carries ``"folder"`` (the command that wrote it) and names every file in
it, sub-folders included. The files themselves stay byte for byte what the command produces.

- A file is "one drbench wrote" when the record beside it names it with the hash of its current
  bytes (:func:`why_not_replaceable`; the ``-o`` / ``--md`` / ``--json`` outputs, bench/cli/outputs.py).
- A folder is "one drbench wrote" when its record has ``"folder"`` and names every file in it
  with the hash of its current bytes (:func:`folder_problem`). Only such a folder (or an empty
  one, or one inside the cache home, which is drbench's own) is ever replaced; anything else is
  refused with the fix (``--force``, or a new folder). With ``force`` the run's files are moved
  into the folder one by one and nothing else in it is removed (:func:`replace_folder`).
- A new folder is written beside its destination under a temporary name and swapped in only
  when complete, so a failed run (disk full, an error, Ctrl-C) leaves the previous complete one.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import Dict, Iterator, List, Optional

from bench.core.errors import BenchError
from bench.core.io import atomic_write_text, canonical_json

#: the sidecar that records what drbench wrote in a folder (git-ignored, except in committed runs)
RECORD = ".drbench-written.json"
ABOUT = ("files drbench wrote in this folder and the SHA-256 of what it wrote: drbench replaces such a file "
         "(or, with \"folder\", the whole folder) without --force while it is unchanged")


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


def recorded_files(folder: Path) -> Dict[str, dict]:
    files = read_record(folder).get("files")
    return files if isinstance(files, dict) else {}


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


def why_not_replaceable(path: Path) -> str:
    """Why the existing file ``path`` is not one drbench wrote: "folder", "unrecorded" (no record of
    it beside it), "changed" (recorded, but its bytes differ); "" when it is, or is empty, or absent."""
    if not path.exists():
        return ""
    if path.is_dir():
        return "folder"
    data = path.read_bytes()
    if not data:
        return ""
    entry = recorded_files(path.parent).get(path.name)
    if not isinstance(entry, dict):
        return "unrecorded"
    return "changed" if entry.get("sha256") != hashlib.sha256(data).hexdigest() else ""


# --------------------------------------------------------------------------- folders


def _files(folder: Path) -> List[str]:
    """Relative names of the files under ``folder`` (links count as files), the record left out."""
    out = []
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names):
            rel = os.path.relpath(os.path.join(root, name), folder).replace(os.sep, "/")
            if rel != RECORD:
                out.append(rel)
    return out


def folder_record(folder: Path, command: str) -> None:
    """Record every file under ``folder`` as written by drbench ``command``, and the folder as a whole."""
    folder = Path(folder)
    write_record(folder, {rel: {"sha256": file_sha256(folder / rel), "command": command} for rel in _files(folder)},
                 command)


def _in_cache_home(folder: Path) -> bool:
    """Whether ``folder`` is an artefact folder in the cache home (at least two levels below it, e.g.
    ``checkpoints/<name>``): drbench's own, rebuilt when damaged. The cache home and its top-level
    folders (``embeddings``, ``variations``, ...) are not."""
    from bench.core.paths import cache_home

    try:
        home = cache_home().resolve()
        parents = Path(folder).resolve().parents
        return home in parents and Path(folder).resolve().parent != home
    except OSError:
        return False


def folder_problem(folder: Path, limit: int = 3) -> str:
    """Why ``folder`` may not be replaced: "" when it is absent, empty, inside the cache home, or a
    folder drbench wrote whose files are all unchanged; else the reason, naming a few files."""
    folder = Path(folder)
    if not folder.exists() and not folder.is_symlink():
        return ""
    if folder.is_symlink():
        return "it is a symbolic link"
    if not folder.is_dir():
        return "it is a file"
    if _in_cache_home(folder):
        return ""
    files = _files(folder)
    record = read_record(folder)
    if not files and not (folder / RECORD).exists():
        return "" if not any(folder.iterdir()) else "it holds empty folders drbench did not write"
    if not isinstance(record.get("folder"), str):
        shown = ", ".join(files[:limit]) + (f" and {len(files) - limit} more" if len(files) > limit else "")
        return f"drbench did not write it (no {RECORD} naming it a drbench folder; it holds {shown or 'no files'})"
    known = recorded_files(folder)
    foreign = [f for f in files if f not in known]
    if foreign:
        shown = ", ".join(foreign[:limit]) + (f" and {len(foreign) - limit} more" if len(foreign) > limit else "")
        return f"it holds {len(foreign)} file(s) drbench did not write there ({shown})"
    changed = [f for f in files if known[f].get("sha256") != file_sha256(folder / f)]
    if changed:
        shown = ", ".join(changed[:limit]) + (f" and {len(changed) - limit} more" if len(changed) > limit else "")
        return f"{len(changed)} of its file(s) changed since drbench wrote them ({shown})"
    return ""


def check_folder_replaceable(folder: Path, what: str, force: bool, fix: str) -> None:
    """Refuse, before any work, to replace ``folder`` when it is not one drbench wrote (unless ``force``)."""
    why = folder_problem(folder)
    if why and (not force or why in ("it is a file", "it is a symbolic link")):
        extra = "" if why in ("it is a file", "it is a symbolic link") else \
            ", or add --force to write into it (its other files are kept; same-named files are replaced)"
        raise BenchError(f"{what} {folder} is not replaced: {why}. Fix: {fix}{extra}")


def _unique_beside(folder: Path, tag: str) -> Path:
    return folder.parent / f".{folder.name}.{tag}-{os.getpid()}-{uuid.uuid4().hex[:8]}"


@contextlib.contextmanager
def replace_folder(folder: Path, command: str, force: bool = False) -> Iterator[Path]:
    """Yield an empty temporary folder beside ``folder``; when the block succeeds, record its files
    (:data:`RECORD`) and put it in place of ``folder``. ``folder`` is swapped out whole only when it
    may be replaced (:func:`folder_problem`); with ``force`` and a folder that may not, the new files
    are moved into it one by one (``result.json`` last, removed first), the files an earlier drbench
    run recorded there and unchanged are removed, and nothing else is touched. On failure the
    temporary folder is removed and ``folder`` is left as it was. Paths removed are only ever the
    temporary ones made here and (whole-folder swap) the old folder drbench wrote."""
    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".new", dir=folder.parent))
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o777 & ~umask)  # mkdtemp makes 0700; give the usual folder mode
    try:
        yield tmp
        folder_record(tmp, command)
        why = folder_problem(folder)
        if why and not force:
            raise BenchError(f"{folder} is not replaced: {why} (it changed during the run). Fix: give a new folder, "
                             f"or add --force")
        if why:
            _merge_into(tmp, folder, command)
            shutil.rmtree(tmp, ignore_errors=True)
            return
        old = None
        if folder.exists():
            old = _unique_beside(folder, "old")
            os.replace(folder, old)
        os.replace(tmp, folder)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _merge_into(src: Path, folder: Path, command: str) -> None:
    """Move ``src``'s files into ``folder`` (``--force`` on a folder drbench may not replace whole)."""
    old = recorded_files(folder)
    new = recorded_files(src)
    if (folder / "result.json").is_file() and "result.json" in new:
        (folder / "result.json").unlink()  # a folder with a result.json is complete
    for rel, entry in old.items():  # an earlier drbench run's own files, unchanged: stale unless rewritten
        p = folder / rel
        if rel not in new and p.is_file() and isinstance(entry, dict) and entry.get("sha256") == file_sha256(p):
            p.unlink()
    for rel in sorted(new, key=lambda r: r == "result.json"):
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        os.replace(src / rel, folder / rel)
    write_record(folder, new, command)


def cached_folder_problem(folder: Path, command: str) -> str:
    """For a folder drbench reuses (a checkpoint it trained, kept in the cache home or an ``--out``):
    "" when every file its record names is there with the recorded SHA-256 and no file was added;
    else what differs. A folder without a record (written before records existed) is accepted and
    recorded now, as the embedding cache does with entries older than their checksums."""
    folder = Path(folder)
    if not isinstance(read_record(folder).get("folder"), str):
        folder_record(folder, command)
        return ""
    known = recorded_files(folder)
    missing = [f for f in known if not (folder / f).is_file()]
    changed = [f for f in known if f not in missing and known[f].get("sha256") != file_sha256(folder / f)]
    added = [f for f in _files(folder) if f not in known]
    parts = [f"{what}: {', '.join(names[:3])}" + (f" and {len(names) - 3} more" if len(names) > 3 else "")
             for what, names in (("missing", missing), ("changed", changed), ("added", added)) if names]
    return "; ".join(parts)
