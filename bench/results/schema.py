"""The typed result file: one model per suite layout, reading with migration and validation.

The models are ``TypedDict`` classes (:mod:`bench.results.schema_common`: the header and the
``"sets"`` layout; :mod:`bench.results.schema_fewshot`: the ``"fewshot"`` layout). The suites
build plain dicts of these shapes and the writer stores them as canonical JSON (sorted keys, two
spaces, trailing newline), so ``ResultFile.from_json(text).to_json() == text`` for every file a
suite writes. ``docs/result-schema.json`` (JSON Schema) and ``docs/result-schema.md`` are
generated from the models by :mod:`bench.results.schema_docs`.

Reading (:meth:`ResultFile.from_json`): parse, migrate older versions
(:mod:`bench.results.migrations`), then check the data against the model of its layout. A problem
raises :class:`~bench.core.errors.DataError` naming the file and the key path (``sets[3].metrics``).
Keys a model does not know are accepted (a plug-in suite may add its own); ``strict=True`` refuses
them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Optional, Union

from bench.core.errors import DataError
from bench.core.io import canonical_json
from bench.results.migrations import SCHEMA_VERSION, migrate
from bench.results.schema_common import Header
from bench.results.schema_sets import SetEntry, SetsResult
from bench.results.schema_fewshot import FewshotResult
from bench.results.suite import layout_of
from bench.results.typed import Problem, compile_type

__all__ = ["SCHEMA_VERSION", "MODELS", "ResultData", "ResultFile", "Header", "SetEntry", "SetsResult",
           "FewshotResult", "check_result"]

#: layout -> model of the whole file
MODELS: Dict[str, type] = {"sets": SetsResult, "fewshot": FewshotResult}
ResultData = Union[SetsResult, FewshotResult]

_CHECKERS: Dict[str, Any] = {}


def check_result(data: Any, layout: str, source: Optional[str] = None, strict: bool = False) -> None:
    """Raise DataError (file and key path) when ``data`` does not fit the model of ``layout``."""
    if not isinstance(data, dict):
        raise DataError("top level must be a JSON object", source)
    checker = _CHECKERS.get(layout)
    if checker is None:
        if layout not in MODELS:
            raise DataError(f"unknown result layout {layout!r} (known: {', '.join(MODELS)})", source)
        checker = _CHECKERS[layout] = compile_type(MODELS[layout])
    try:
        checker.check(data, "", strict)
    except Problem as exc:
        raise DataError(f"{exc.path}: {exc.message}" if exc.path else exc.message, source) from None


def content_suite(data: Dict[str, Any]) -> Optional[str]:
    """The suite a result file's content belongs to, from keys only one suite writes (None when
    the content does not tell): few-shot (``plan`` and ``methods``), domain (``source_dataset`` or
    ``pairwise``), variations (a ``VARIATIONS (AVG.)`` summary, ``protocol`` text or ``applicability``)."""
    if "plan" in data and "methods" in data:
        return "fewshot"
    if "source_dataset" in data or "pairwise" in data:
        return "domain"
    summary = data.get("summary")
    if (isinstance(summary, dict) and "VARIATIONS (AVG.)" in summary) or isinstance(data.get("protocol"), str) \
            or "applicability" in data:
        return "variations"
    return None


def _check_claimed_suite(data: Dict[str, Any], layout: str, source: Optional[str]) -> None:
    """A file whose ``suite`` names another suite than its content is refused in those words, not by
    a schema path of the claimed suite's layout."""
    claimed = str(data.get("suite", ""))
    actual = content_suite(data)
    if actual is None or actual == claimed or claimed not in ("variations", "domain", "fewshot"):
        return
    raise DataError(f"result.json says suite {claimed!r}, but its content is a {actual} run (keys only the {actual} "
                    f"suite writes), not {claimed}", source,
                    fix=f"restore \"suite\": \"{actual}\" or re-run the suite; a result.json must not be edited by hand")


#: the deepest nesting a result file may have (drbench writes about 8 levels); deeper input would
#: exhaust Python's recursion in the checks
MAX_DEPTH = 64


def _depth(data) -> int:
    """The nesting depth of parsed JSON, without recursion."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, (dict, list)):
            deepest = max(deepest, level)
            if level > MAX_DEPTH:
                return level
            stack.extend((v, level + 1) for v in (value.values() if isinstance(value, dict) else value))
    return deepest


@dataclass
class ResultFile:
    """A result file: its data (a :data:`ResultData` dict), layout and where it came from.
    ``migrated_from`` is the version on disk when it was older than :data:`SCHEMA_VERSION`."""

    data: ResultData
    layout: str
    source: Optional[str] = None
    migrated_from: Optional[int] = None

    @classmethod
    def from_data(cls, data: Any, source: Optional[str] = None, *, strict: bool = False) -> "ResultFile":
        if not isinstance(data, dict):
            raise DataError("top level must be a JSON object", source)
        before = data.get("schema_version", 0)
        data = migrate(data, source)
        layout = layout_of(data)
        _check_claimed_suite(data, layout, source)
        check_result(data, layout, source, strict)
        return cls(data, layout, source, before if before != SCHEMA_VERSION else None)

    @classmethod
    def from_json(cls, text: str, source: Optional[str] = None, *, strict: bool = False) -> "ResultFile":
        deep = DataError(f"nested more than {MAX_DEPTH} levels deep: not a result file drbench wrote", source,
                         fix="pass the result.json of a run folder written by `bench evaluate`")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataError(f"invalid JSON ({exc.msg})", source, exc.lineno) from None
        except RecursionError:
            raise deep from None
        if _depth(data) > MAX_DEPTH:
            raise deep
        return cls.from_data(data, source, strict=strict)

    @classmethod
    def from_path(cls, path: Union[str, Path], *, strict: bool = False) -> "ResultFile":
        p = Path(path)
        if not p.is_file():
            what = "not found" if p.name == "result.json" else "result file not found"  # the path names result.json
            raise DataError(what, str(p), fix="pass a run folder written by `bench evaluate` (it holds result.json)")
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise DataError("not UTF-8 text", str(p)) from None
        return cls.from_json(text, str(p), strict=strict)

    def to_json(self) -> str:
        """Canonical JSON, exactly as :func:`bench.results.writer.write_run` writes it."""
        return canonical_json(self.data)

    @property
    def version(self) -> int:
        return int(self.data["schema_version"])

    @property
    def suite(self) -> str:
        return str(self.data["suite"])

    @property
    def model(self) -> type:
        """The model (TypedDict class) of this file's layout."""
        return MODELS[self.layout]
