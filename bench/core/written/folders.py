"""Folders drbench writes as a whole (run folders, ``bench perturb`` folders, checkpoints): when one
may be replaced (:func:`folder_problem`, :func:`check_folder_replaceable`), and whether a folder it
reuses is still what it wrote (:func:`cached_folder_problem`)."""
from __future__ import annotations

from pathlib import Path

from bench.core.errors import BenchError
from bench.core.written.record import RECORD, _walk, file_sha256, folder_record, kind_of, read_record, recorded_files


#: the folders of the cache home whose sub-folders are drbench's own artefacts (rebuilt when damaged)
CACHE_FOLDERS = ("checkpoints",)


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
