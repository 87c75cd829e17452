"""Reading result files written by older drbench versions: a registry of migrations.

``MIGRATIONS[v]`` turns a result file of ``schema_version`` ``v`` into one of a later version
(normally ``v + 1``); :func:`migrate` applies them in order up to :data:`SCHEMA_VERSION`. A file
from a newer drbench is refused with the version that wrote it; a version with no migration is
refused naming the file. Migrations work on the loaded dict only; the file on disk is untouched.

Version 0 is the layout before ``schema_version`` existed: the same keys as version 1, without
``schema_version`` and without ``per_query_file``.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional

from bench.core.errors import DataError

#: the version this drbench writes
SCHEMA_VERSION = 1


def _v0_to_v1(data: Dict[str, Any]) -> Dict[str, Any]:
    """Version 0 had no ``schema_version`` and did not name its per-query table (always per_query.csv)."""
    out = dict(data)
    out["schema_version"] = 1
    out.setdefault("per_query_file", "per_query.csv")
    return out


#: from_version: function(data) -> data of a later version
MIGRATIONS: Dict[int, Callable[[Dict[str, Any]], Dict[str, Any]]] = {0: _v0_to_v1}


def version_of(data: Dict[str, Any], source: Optional[str] = None) -> int:
    """The file's schema_version (0 when it has none)."""
    version = data.get("schema_version", 0)
    if isinstance(version, bool) or not isinstance(version, int):
        raise DataError(f"schema_version must be an integer, found {version!r}", source)
    return version


def migrate(data: Dict[str, Any], source: Optional[str] = None,
            migrations: Optional[Dict[int, Callable[[Dict[str, Any]], Dict[str, Any]]]] = None,
            current: int = SCHEMA_VERSION) -> Dict[str, Any]:
    """``data`` brought to version ``current`` (returned as it is when it already is)."""
    steps = MIGRATIONS if migrations is None else migrations
    version = version_of(data, source)
    if version > current:
        from bench.core.versions import __version__

        writer = data.get("drbench_version")
        raise DataError(f"written by a newer drbench ({'drbench ' + str(writer) if writer else 'unknown version'}, "
                        f"schema_version {version}); this drbench {__version__} reads schema_version {current} "
                        f"and older", source, fix="upgrade drbench (pip install -U drbench) to read this file")
    while version < current:
        step = steps.get(version)
        if step is None:
            known = ", ".join(str(v) for v in sorted(steps)) or "none"
            raise DataError(f"no migration from schema_version {version} to {current} (migrations exist from: "
                            f"{known})", source, fix="re-run the suite with this drbench version")
        data = step(data)
        new = version_of(data, source)
        if new <= version:
            raise RuntimeError(f"migration from schema_version {version} did not raise the version")
        version = new
    return data
