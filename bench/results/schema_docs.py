"""Generate ``docs/result-schema.json`` (JSON Schema) and ``docs/result-schema.md`` (every key of
every model) from the typed models of :mod:`bench.results.schema`.

Regenerate after changing a model: ``python -m bench.results.schema_docs``. The test suite checks
that the committed files are up to date.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import List, Union

from bench.results.migrations import MIGRATIONS, SCHEMA_VERSION
from bench.results.schema import MODELS, Header
from bench.results.typed import iter_keys, json_schema, models_in

DOCS = Path(__file__).resolve().parents[2] / "docs"
SCHEMA_FILE = "result-schema.json"
MARKDOWN_FILE = "result-schema.md"

_ROOT = Union[tuple(MODELS.values())]  # type: ignore[valid-type]


def render_json_schema() -> str:
    schema = json_schema(
        _ROOT, title="drbench result.json",
        description=(f"A run's result file, schema_version {SCHEMA_VERSION}: one of the layouts "
                     f"{', '.join(MODELS)} (the suite declares which). Generated from bench/results/schema.py "
                     f"by `python -m bench.results.schema_docs`; do not edit."))
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown() -> str:
    out: List[str] = [
        "# result.json: the keys",
        "",
        "<!-- generated from bench/results/schema.py by `python -m bench.results.schema_docs`; do not edit -->",
        "",
        f"A run folder's `result.json` (schema_version {SCHEMA_VERSION}) is canonical JSON (sorted keys, two-space "
        "indent, UTF-8, trailing newline). Its keys are defined by typed models in `bench/results/schema.py`, one per "
        "suite layout: " + ", ".join(f"`{m.__name__}` (layout `{layout}`)" for layout, m in MODELS.items()) + ". "
        f"The JSON Schema generated from them is [`{SCHEMA_FILE}`]({SCHEMA_FILE}).",
        "",
        "Reading (`bench.results.rundir.load_result`, `bench.results.schema.ResultFile`) migrates a file of an older "
        "schema_version in order through the registry `bench.results.migrations.MIGRATIONS` (migrations exist from "
        f"version {', '.join(str(v) for v in sorted(MIGRATIONS))}; version 0 is the layout without `schema_version` "
        "and without `per_query_file`), refuses a file of a newer drbench naming the version that wrote it, and "
        "checks the data against the model of its layout; an error names the file and the key path "
        "(`sets[3].metrics`). Keys not listed here are accepted (a plug-in suite may add its own).",
        "",
        "`{name: T}` is an object whose keys are data (set names, measures, classes, methods); `T | null` may be "
        "null. Required keys are marked *yes*.",
        "",
    ]
    for model in models_in(Union[(Header, *MODELS.values())]):  # type: ignore[misc]
        out.append(f"## {model.__name__}")
        out.append("")
        if model.__doc__:
            out.append(" ".join(model.__doc__.split()))
            out.append("")
        out.append("| key | type | required | meaning |")
        out.append("|---|---|---|---|")
        for key, label, required, doc in iter_keys(model):
            out.append(f"| `{key}` | `{_cell(label)}` | {'yes' if required else ''} | {_cell(doc)} |")
        out.append("")
    return "\n".join(out)


def write_docs(folder: Path = DOCS) -> None:
    folder = Path(folder)
    (folder / SCHEMA_FILE).write_text(render_json_schema(), encoding="utf-8")
    (folder / MARKDOWN_FILE).write_text(render_markdown(), encoding="utf-8")


if __name__ == "__main__":
    write_docs()
    print(f"wrote {DOCS / SCHEMA_FILE} and {DOCS / MARKDOWN_FILE}")
