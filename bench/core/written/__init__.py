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

from bench.core.written.files import (append_output_file, check_output_files, run_owner, target_problem,
                                      why_not_replaceable, write_output_files)
from bench.core.written.folders import (CACHE_FOLDERS, cached_folder_problem, check_folder_replaceable,
                                        folder_problem)
from bench.core.written.record import (ABOUT, RECORD, STDOUT, file_sha256, folder_record, kind_of, read_record,
                                       record_files, recorded_files, safe_entry, write_record)
from bench.core.written.staging import clean_staging, replace_folder

__all__ = ["ABOUT", "CACHE_FOLDERS", "RECORD", "STDOUT", "append_output_file", "cached_folder_problem",
           "check_folder_replaceable", "check_output_files", "clean_staging", "file_sha256", "folder_problem",
           "folder_record", "kind_of", "read_record", "record_files", "recorded_files", "replace_folder", "run_owner",
           "safe_entry", "target_problem", "why_not_replaceable", "write_output_files", "write_record"]
