"""Errors a user can act on. Each says what was wrong, where (file and line) and what to do."""
from __future__ import annotations

import errno
from typing import Optional

#: errno values of a write the user can fix by freeing space or choosing another folder (disk full,
#: quota, permission, read-only file system)
WRITE_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EROFS, errno.EPERM)


class BenchError(Exception):
    """Base class: printed by the CLI without a traceback (exit code 2)."""


class DataError(BenchError):
    """Bad input data: carries the file, the line (1-based) and the fix."""

    def __init__(self, message: str, path: Optional[str] = None, line: Optional[int] = None, fix: str = ""):
        self.path, self.line, self.fix = path, line, fix
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        text = f"{where}{message}"
        if fix:
            text += f" Fix: {fix}"
        super().__init__(text)


class ResourceError(BenchError):
    """A model, package or data resource is missing; the message names the install step."""


class IncompatibleRuns(BenchError):
    """Two result files cannot be compared (different dataset, sets, seed or suite)."""
