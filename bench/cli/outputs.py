"""The ``--force`` option of the commands that write files the user names (``-o``, ``--md``,
``--json``, ``--drop-rate-output``, ``bench perturb --out``). What may be written where is the output
policy, :mod:`bench.core.written` (the one module: :func:`~bench.core.written.check_output_files`
before any work, :func:`~bench.core.written.write_output_files` at the end), re-exported here for the
commands."""
from __future__ import annotations

from bench.core.written import (RECORD, STDOUT, append_output_file, check_output_files,  # noqa: F401  (re-exported)
                                write_output_files)


def add_force(p) -> None:
    p.add_argument("--force", action="store_true",
                   help="replace an existing output file that drbench did not write (or that was edited since); "
                        f"drbench records what it writes in {RECORD} beside the files")
