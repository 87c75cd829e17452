"""The output policy: every file and folder drbench writes (command line and Python API alike) goes
through this module, and the one marker, :data:`RECORD` (``.drbench-written.json``), says what
drbench wrote.

The record in a folder maps the name (a relative path) of each file drbench wrote there to the
SHA-256 of the bytes it wrote; a folder drbench wrote as a whole (a run folder, a ``bench perturb``
folder, a checkpoint) also carries ``"folder"`` (the command that wrote it) and names every file in
it, sub-folders included. The files themselves stay byte for byte what the command produces.
Record entries whose name is absolute or climbs out with ``..`` are ignored.

Files named by the user (``-o``, ``--md``, ``--json``, ``--drop-rate-output``, ``run.report(path)``;
:func:`check_output_files`, then :func:`write_output_files`):

- only regular files are written: a device, FIFO or socket is refused at once (``-`` is stdout);
- never through a symbolic link: a link at the path is refused;
- an existing file is replaced only when drbench wrote it and it is unchanged since (or it is
  empty), or with ``force``; a file a run folder recorded as its own (``result.json`` of a run) is
  never replaced by another command, ``force`` or not;
- two outputs of one command never name one file;
- every target is checked before any work or write, so a refusal writes nothing.

Folders (:func:`check_folder_replaceable`, then :func:`replace_folder`):

- a folder is replaced only when it is absent, empty, a folder drbench wrote whose files are all
  unchanged (:func:`folder_problem`), or inside one of drbench's own cache folders
  (:data:`CACHE_FOLDERS` in the cache home); otherwise it is refused with the fix (``--force``, or
  a new folder). With ``force`` the run's files are moved into it one by one and nothing else in it
  is removed (:func:`replace_folder`);
- a symbolic link inside the folder is never followed, written through or removed: it makes the
  folder one drbench did not write, and ``force`` refuses it too;
- a new folder is written beside its destination under a temporary name marked with the writer's
  process (:func:`bench.core.io.writer_mark`) and swapped in only when complete, so a failed run
  leaves the previous complete one; the temporary folders of a writer that is gone (a killed run)
  are removed by the next run into that folder; errors name the final folder, never the temporary one.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import stat
import sys
import tempfile
import time
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from bench.core.errors import BenchError, DataError
from bench.core.io import atomic_write_bytes, atomic_write_text, canonical_json, writer_gone, writer_mark

#: the sidecar that records what drbench wrote in a folder (git-ignored, except in committed runs)
RECORD = ".drbench-written.json"
ABOUT = ("files drbench wrote in this folder and the SHA-256 of what it wrote: drbench replaces such a file "
         "(or, with \"folder\", the whole folder) without --force while it is unchanged")
#: a file name that means standard output
STDOUT = "-"
#: the folders of the cache home whose sub-folders are drbench's own artefacts (rebuilt when damaged)
CACHE_FOLDERS = ("checkpoints",)


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


# --------------------------------------------------------------------------- files named by the user


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


def run_owner(path: Path, command: str) -> str:
    """The command whose run folder records ``path`` as one of its own files (``result.json`` of an
    ``evaluate`` run), when that is another command than ``command``; else ""."""
    path = Path(path)
    record = read_record(path.parent)
    owner = record.get("folder")
    entry = recorded_files(path.parent).get(path.name)
    if not isinstance(owner, str) or entry is None or entry.get("command") != owner:
        return ""
    return "" if owner == command else owner


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
    owner = run_owner(Path(path), command)
    if owner:
        return (f"it is one of the files of the run folder {Path(path).parent} (written by `{owner}`); replacing it "
                f"would break that run")
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


# --------------------------------------------------------------------------- folders


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


def _in_cache_home(folder: Path) -> bool:
    """Whether ``folder`` lies inside one of drbench's own cache folders (:data:`CACHE_FOLDERS`, e.g.
    ``checkpoints/<name>``), whose contents it rebuilds when damaged. Any other folder in the cache
    home (one the user made there) is treated as any folder."""
    from bench.core.paths import cache_home

    try:
        home = cache_home().resolve()
        resolved = Path(folder).resolve()
    except OSError:
        return False
    return any(home / sub in resolved.parents for sub in CACHE_FOLDERS)


def _some(names: List[str], limit: int) -> str:
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def folder_problem(folder: Path, limit: int = 3) -> str:
    """Why ``folder`` may not be replaced: "" when it is absent, empty, inside drbench's own cache
    folders, or a folder drbench wrote whose files are all unchanged; else the reason, naming a few files."""
    folder = Path(folder)
    kind = kind_of(folder)
    if kind == "":
        return ""
    if kind == "link":
        return "it is a symbolic link"
    if kind != "folder":
        return "it is a file"
    if _in_cache_home(folder):
        return ""
    files, links = _walk(folder)
    if links:
        return f"it holds {len(links)} symbolic link(s) drbench did not make ({_some(links, limit)})"
    record = read_record(folder)
    if not files and not (folder / RECORD).exists():
        return "" if not any(folder.iterdir()) else "it holds empty folders drbench did not write"
    if not isinstance(record.get("folder"), str):
        return f"drbench did not write it (no {RECORD} naming it a drbench folder; it holds {_some(files, limit) or 'no files'})"
    known = recorded_files(folder)
    foreign = [f for f in files if f not in known]
    if foreign:
        return f"it holds {len(foreign)} file(s) drbench did not write there ({_some(foreign, limit)})"
    changed = [f for f in files if known[f].get("sha256") != file_sha256(folder / f)]
    if changed:
        return f"{len(changed)} of its file(s) changed since drbench wrote them ({_some(changed, limit)})"
    return ""


#: reasons :func:`folder_problem` gives that ``force`` does not override
_NOT_FORCEABLE = ("it is a file", "it is a symbolic link", "symbolic link(s)")


def check_folder_replaceable(folder: Path, what: str, force: bool, fix: str) -> None:
    """Refuse, before any work, to replace ``folder`` when it is not one drbench wrote (unless
    ``force``); a file, a link, or a folder holding links is refused even with ``force``: drbench
    never writes through or removes a link."""
    why = folder_problem(folder)
    hard = any(reason in why for reason in _NOT_FORCEABLE)
    if why and (not force or hard):
        extra = ("" if hard else
                 ", or add --force to write into it (its other files are kept; same-named files are replaced)")
        if "symbolic link(s)" in why:
            extra = " (or remove the links from it)"
        raise BenchError(f"{what} {folder} is not replaced: {why}. Fix: {fix}{extra}")


# --------------------------------------------------------------------------- temporary folders


def _staging_pattern(name: str) -> "re.Pattern[str]":
    """Temporary folders :func:`replace_folder` makes beside the folder ``name``: marked
    ``.<name>.w<pid>-<host>.<random>.new|old``, or (older drbench) ``.<name>.<8 characters>.new``."""
    return re.compile(r"^\.%s\.(?:w(\d+)-([0-9a-f]{8})\.[A-Za-z0-9_]+\.(?:new|old)|[A-Za-z0-9_]{8}\.new)$"
                      % re.escape(name))


def clean_staging(folder: Path) -> List[Path]:
    """Remove the temporary folders beside ``folder`` left by writers that are gone (a killed run):
    marked by a process of this host that no longer runs, by another host more than a day ago, or
    unmarked and older than this process. Returns the folders removed."""
    folder = Path(folder)
    pattern = _staging_pattern(folder.name)
    removed: List[Path] = []
    if not folder.parent.is_dir():
        return removed
    from bench.core.io import _PROCESS_START

    for entry in folder.parent.iterdir():
        m = pattern.match(entry.name)
        if not m or kind_of(entry) != "folder":
            continue
        mtime = entry.lstat().st_mtime
        gone = writer_gone(int(m.group(1)), m.group(2), mtime) if m.group(1) else mtime < _PROCESS_START
        if gone:
            shutil.rmtree(entry, ignore_errors=True)  # rmtree removes links inside, never their targets
            removed.append(entry)
    return removed


def _staging(folder: Path, tag: str) -> str:
    return f".{folder.name}.{writer_mark()}.{tag}"


def _final_names(exc: BaseException, tmp: Path, folder: Path) -> BaseException:
    """``exc`` with the temporary folder's path replaced by the final folder's in its message."""
    staged, final = str(tmp), str(folder)
    if isinstance(exc, OSError) and exc.filename and staged in str(exc.filename):
        return type(exc)(exc.errno, exc.strerror, str(exc.filename).replace(staged, final))
    if isinstance(exc, BenchError) and staged in str(exc):
        if isinstance(exc, DataError) and exc.path:
            exc.path = str(exc.path).replace(staged, final)
        exc.args = tuple(a.replace(staged, final) if isinstance(a, str) else a for a in exc.args)
    return exc


@contextlib.contextmanager
def replace_folder(folder: Path, command: str, force: bool = False) -> Iterator[Path]:
    """Yield an empty temporary folder beside ``folder``; when the block succeeds, record its files
    (:data:`RECORD`) and put it in place of ``folder``. ``folder`` is swapped out whole only when it
    may be replaced (:func:`folder_problem`); with ``force`` and a folder that may not, the new files
    are moved into it one by one (:func:`_merge_into`). On failure the temporary folder is removed,
    ``folder`` is left as it was, and the error names ``folder``. The temporary folders of killed
    runs into ``folder`` are removed first (:func:`clean_staging`)."""
    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    clean_staging(folder)
    tmp = Path(tempfile.mkdtemp(prefix=_staging(folder, ""), suffix=".new", dir=folder.parent))
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o777 & ~umask)  # mkdtemp makes 0700; give the usual folder mode
    try:
        yield tmp
        folder_record(tmp, command)
        _put_in_place(tmp, folder, command, force)
    except BaseException as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        renamed = _final_names(exc, tmp, folder)
        if renamed is not exc:
            raise renamed from exc
        raise


def _put_in_place(tmp: Path, folder: Path, command: str, force: bool) -> None:
    why = folder_problem(folder)
    if why and (not force or any(reason in why for reason in _NOT_FORCEABLE)):
        raise BenchError(f"{folder} is not replaced: {why} (it changed during the run). Fix: give a new folder"
                         + ("" if any(reason in why for reason in _NOT_FORCEABLE) else ", or add --force"))
    if why:
        _merge_into(tmp, folder, command)
        shutil.rmtree(tmp, ignore_errors=True)
        return
    old = None
    if kind_of(folder) != "":
        old = folder.parent / (_staging(folder, f"{os.urandom(4).hex()}") + ".old")
        os.replace(folder, old)
    os.replace(tmp, folder)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _inside_without_links(folder: Path, rel: str) -> Path:
    """``folder / rel``, refused when a folder on the way (inside ``folder``) or the file itself is a link."""
    path = folder
    for part in PurePosixPath(rel).parts:
        path = path / part
        if kind_of(path) == "link":
            raise BenchError(f"{folder / rel} is not written: {path} is a symbolic link; drbench never writes "
                             f"through a link. Fix: remove the link, or give a new folder")
    return path


def _merge_into(src: Path, folder: Path, command: str) -> None:
    """Move ``src``'s files into ``folder`` (``--force`` on a folder drbench may not replace whole):
    ``result.json`` is removed first and put last (a folder with a result.json is complete), the files
    an earlier drbench run recorded there and unchanged are removed unless rewritten, nothing else is
    touched, and nothing is written or removed through a link."""
    old = recorded_files(folder)
    new = recorded_files(src)
    targets = {rel: _inside_without_links(folder, rel) for rel in new}  # every target checked before any move
    if kind_of(folder / "result.json") == "file" and "result.json" in new:
        (folder / "result.json").unlink()
    for rel, entry in old.items():
        if rel in new:
            continue
        with contextlib.suppress(BenchError):
            p = _inside_without_links(folder, rel)
            if kind_of(p) == "file" and entry.get("sha256") == file_sha256(p):
                p.unlink()
    for rel in sorted(new, key=lambda r: r == "result.json"):
        targets[rel].parent.mkdir(parents=True, exist_ok=True)
        os.replace(src / rel, targets[rel])
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
    files, links = _walk(folder)
    missing = [f for f in known if f not in files]
    changed = [f for f in known if f not in missing and known[f].get("sha256") != file_sha256(folder / f)]
    added = [f for f in files if f not in known] + links
    parts = [f"{what}: {', '.join(names[:3])}" + (f" and {len(names) - 3} more" if len(names) > 3 else "")
             for what, names in (("missing", missing), ("changed", changed), ("added", added)) if names]
    return "; ".join(parts)
