"""Apertium plumbing for :class:`perturb.resources.translators.ApertiumTranslator`: an installed
mode's steps, where its HMM tagger sits, the stream patterns used to cut reading sets, the
package versions, and :class:`RunMemo` (a hop two pivots share runs once per batch)."""
from __future__ import annotations

import re
import shlex
import subprocess
import threading
from pathlib import Path
from typing import Dict, List, Optional


class RunMemo:
    """One result per key for threads that may ask for it at the same time: the first computes it,
    the others wait for it. Each text translates as it would alone, so who computes it does not
    change the result."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done: Dict[tuple, "Future"] = {}

    def run(self, key: tuple, compute):
        from concurrent.futures import Future

        with self._lock:
            fut = self._done.get(key)
            owner = fut is None
            if owner:
                fut = self._done[key] = Future()
        if owner:
            try:
                fut.set_result(compute())
            except BaseException as exc:  # noqa: BLE001 - handed to every waiter
                fut.set_exception(exc)
        return list(fut.result())


MARKS = re.compile(r"(?<![\w*#@])[*#@](\w[\w'-]*)")  # as perturb.generators.backtrans.generator.strip_marks
SENTINEL = "0"  # the paragraph sent first in every call (see _translate_ordered)
NEW_CLASS = re.compile(r"^Word '(.*)'\.$", re.M)  # apertium-tagger -d: "A new ambiguity class was found" ... "Word 'x'."
# a lexical unit of an analysis stream: ^surface/readings$ (group 1 the surface, 2 the readings)
LU_FULL = re.compile(r"\^((?:\\.|[^/$\\^])*)/((?:\\.|[^$\\^])*)\$")
LU = re.compile(r"\^(?:\\.|[^/$\\^])*/((?:\\.|[^$\\^])*)\$")
_READING_SPLIT = re.compile(r"(?<!\\)/")


def mode_steps(mode: str, modes_dir: Optional[Path] = None) -> Optional[List[List[str]]]:
    """The steps of an installed apertium mode (its ``.mode`` file), ``$1``/``$2`` kept as
    arguments (:func:`filled`); None when the file is not found or does not start with
    ``lt-proc``."""
    roots = [modes_dir] if modes_dir else [Path("/usr/share/apertium/modes"), Path("/usr/local/share/apertium/modes")]
    for root in roots:
        path = root / f"{mode}.mode"
        if path.is_file():
            steps = [shlex.split(step) for step in path.read_text(encoding="utf-8").split("|")]
            return steps if steps and steps[0][:1] == ["lt-proc"] else None
    return None


def tagger_at(steps: List[List[str]]) -> Optional[int]:
    """Index of the HMM tagger (``apertium-tagger -g``) when only the analyser and constraint
    grammars come before it; None otherwise (the perceptron, ``-gx``, keeps no ambiguity classes)."""
    for k, step in enumerate(steps):
        if step[:1] == ["apertium-tagger"] and step[1:2] and step[1].startswith("-g"):
            return None if "x" in step[1] or "-x" in step else k
        if step[:1] not in (["lt-proc"], ["cg-proc"]):
            return None
    return None


def filled(step: List[str]) -> List[str]:
    """A mode step with apertium's own arguments: ``$1`` the generator's ``-g`` (unknown words
    marked, as ``apertium`` without ``-u``), ``$2`` the tagger's (none)."""
    return [a for a in (x.replace("$1", "-g").replace("$2", "") for x in step) if a]


def first_reading(m: "re.Match") -> str:
    """A lexical unit ``^surface/r1/r2...$`` cut to ``^surface/r1$``."""
    return "^" + m.group(1) + "/" + _READING_SPLIT.split(m.group(2), 1)[0] + "$"


def debian_version(package: str) -> str:
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True, timeout=30)
        return out.stdout.strip() if out.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        return ""
