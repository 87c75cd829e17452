"""Writing a folder under a temporary name beside it and swapping it in when complete
(:func:`replace_folder`); the temporary folders of writers that are gone removed
(:func:`clean_staging`); errors naming the final folder, never the temporary one."""
from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from pathlib import Path, PurePosixPath
from typing import Iterator, List

from bench.core.errors import BenchError, DataError
from bench.core.io import writer_gone, writer_mark
from bench.core.written.folders import _NOT_FORCEABLE, folder_problem
from bench.core.written.record import file_sha256, folder_record, kind_of, recorded_files, write_record


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
