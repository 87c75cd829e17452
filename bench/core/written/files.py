"""Files the user names (``-o``, ``--md``, ``--json``, ``--drop-rate-output``, ``run.report(path)``):
checked by :func:`check_output_files` before any work, written by :func:`write_output_files`."""
from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Dict, Iterable, List, Sequence, Tuple

from bench.core.errors import BenchError
from bench.core.io import atomic_write_bytes
from bench.core.written.record import RECORD, STDOUT, file_sha256, kind_of, read_record, record_files, recorded_files


def why_not_replaceable(path: Path) -> str:
    """Why the existing file ``path`` may not be replaced without ``force``: "unrecorded" (no record of
    it beside it), "changed" (recorded, but its bytes differ); "" when drbench wrote it and it is
    unchanged, or it is empty, or absent. Anything but a regular file is refused by
    :func:`target_problem`, never read here."""
    path = Path(path)
    if kind_of(path) != "file":
        return ""
    if path.stat().st_size == 0:
        return ""
    entry = recorded_files(path.parent).get(path.name)
    if entry is None:
        return "unrecorded"
    return "changed" if entry.get("sha256") != file_sha256(path) else ""


#: how many folders up a file's run folder is looked for (``RUN/variations/X.tsv`` is one up)
OWNER_DEPTH = 4


def run_owner(path: Path, command: str) -> Tuple[str, Path]:
    """(the command, the folder) of the run folder that records ``path`` as one of its own files
    (``result.json`` of an ``evaluate`` run, ``variations/X.tsv``), when that is another command than
    ``command``; else ("", path's folder)."""
    path = Path(os.path.abspath(Path(path).expanduser()))
    folder = path.parent
    for _ in range(OWNER_DEPTH):
        owner = read_record(folder).get("folder")
        rel = path.relative_to(folder).as_posix()
        entry = recorded_files(folder).get(rel)
        if isinstance(owner, str) and entry is not None and entry.get("command") == owner:
            return ("" if owner == command else owner), folder
        if folder.parent == folder:
            break
        folder = folder.parent
    return "", path.parent


def target_problem(path: Path, command: str) -> str:
    """Why ``path`` can never be an output of ``command`` (``force`` or not): not a regular file, a
    symbolic link, a folder, or a file another command's run folder records as its own; else ""."""
    kind = kind_of(Path(path))
    if kind == "link":
        return "it is a symbolic link; drbench never writes through a link"
    if kind == "folder":
        return "it is a folder; give a file name"
    if kind not in ("", "file"):
        return f"it is a {kind}, not a regular file; drbench writes regular files only (give '{STDOUT}' for stdout)"
    owner, folder = run_owner(Path(path), command)
    if owner:
        return f"it is one of the files of the run folder {folder} (written by `{owner}`); replacing it would break that run"
    return ""


def _listed(paths: Sequence[Path]) -> str:
    names = [str(p) for p in paths]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _same_file_key(path: Path) -> str:
    """One key per file, whatever the spelling (relative, ``./``, a linked parent)."""
    p = Path(path).expanduser()
    try:
        parent = p.parent.resolve()
    except OSError:
        parent = Path(os.path.abspath(p.parent))
    return os.path.normcase(str(parent / p.name))


def _refuse_shared_paths(named: Sequence[Tuple[str, Path]], fix: str) -> None:
    seen: Dict[str, str] = {}
    for option, path in named:
        key = _same_file_key(path)
        if key in seen:
            raise BenchError(f"{seen[key]} and {option} both name {path}: each output of one command needs its own "
                             f"file. Fix: give them different names ({fix})")
        seen[key] = option


def check_output_files(targets: Iterable[Tuple[str, object]], force: bool, fix: str, command: str,
                       appended: Sequence[str] = (), force_option: str = "--force") -> None:
    """Refuse, before any work or write, outputs ``targets`` ((option, path); None and ``-`` skipped)
    that break the policy (module docstring). ``fix``: the options with new file names, for the
    message (``-o board/leaderboard.csv``). ``appended``: the options whose file is added to, not
    replaced (any regular file may be added to). ``force_option``: how the message spells ``force``."""
    named = [(option, Path(str(p))) for option, p in targets if p is not None and str(p) != STDOUT]
    _refuse_shared_paths(named, fix)
    for option, path in named:
        why = target_problem(path, command)
        if why:
            raise BenchError(f"{option} {path} is not written: {why}. Fix: {fix}")
    if force:
        return
    found: Dict[str, List[Path]] = {}
    for option, path in named:
        why = "" if option in appended else why_not_replaceable(path)
        if why:
            found.setdefault(why, []).append(path)
    if found:
        raise BenchError(_not_overwritten(found, fix, force_option))


def _not_overwritten(found: Dict[str, List[Path]], fix: str, force_option: str) -> str:
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
    return (f"not overwritten: {'; '.join(parts)}. Fix: write to {'new files' if many else 'a new file'} "
            f"({fix}), or add {force_option} to replace {'them' if many else 'it'}")


def write_output_files(files: Sequence[Tuple[object, str]], command: str, say: bool = True) -> None:
    """Write each (path, text) atomically (checked by :func:`check_output_files` first), record it in
    its folder's :data:`RECORD`, and, with ``say``, name the files on stderr. The kind of each target
    is checked again right before writing."""
    by_folder: Dict[Path, Dict[str, str]] = {}
    for p, text in files:
        path = Path(str(p))
        why = target_problem(path, command)
        if why:
            raise BenchError(f"{path} is not written: {why}")
        data = text.encode("utf-8")
        atomic_write_bytes(path, data)
        by_folder.setdefault(path.parent, {})[path.name] = hashlib.sha256(data).hexdigest()
    for folder, written in by_folder.items():
        record_files(folder, written, command)
    if say:
        print("wrote " + ", ".join(str(p) for p, _ in files), file=sys.stderr)


def append_output_file(path: object, text: str, command: str) -> None:
    """Add ``text`` to the regular file ``path`` (created when absent), never through a link."""
    why = target_problem(Path(str(path)), command)
    if why:
        raise BenchError(f"{path} is not added to: {why}")
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(str(path), flags, 0o666)
    with os.fdopen(fd, "a", encoding="utf-8") as fh:
        fh.write(text)
