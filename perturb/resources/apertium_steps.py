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
SENTINEL = "0"  # the paragraph sent before every text (see ApertiumTranslator._deformat)
NEW_CLASS = re.compile(r"^Word '(.*)'\.$", re.M)  # apertium-tagger -d: "A new ambiguity class was found" ... "Word 'x'."
# a lexical unit of an analysis stream: ^surface/readings$ (group 1 the surface, 2 the readings)
LU_FULL = re.compile(r"\^((?:\\.|[^/$\\^])*)/((?:\\.|[^$\\^])*)\$")
LU = re.compile(r"\^(?:\\.|[^/$\\^])*/((?:\\.|[^$\\^])*)\$")
_READING_SPLIT = re.compile(r"(?<!\\)/")


# How a batch is kept from carrying anything from one text to the next (see
# ApertiumTranslator._deformat). Plain apertium carries three kinds of state along a run:
# * a text can end no sentence: apertium-destxt ends every paragraph with a full stop glued to its
#   last word ("vs" -> "vs.[][\n\n]"), and lt-proc reads the two as one word where they form an
#   entry (Spanish "vs.", Galician and Catalan "un."); the next text then continued that sentence
#   through the tagger, the lexical selection and the transfer ("por qué no comes" -> "why do not
#   eat" after a text ending in "vs", "why you do not eat" alone). Such a text still ends so (as
#   alone); what follows it no longer sees it;
# * the transfer steps keep their variables (def-var) from one rule to the next for the whole run,
#   across sentences ("do grow goldfish" -> "emmascarar goldfish" after one text, "ser goldfish"
#   after another, " goldfish" alone), and apertium-anaphora keeps its antecedents;
# * the HMM tagger's open class (cut before the tagger instead: ApertiumTranslator._run_alone).
# So every step runs in null-flush mode (-z) and each text goes as the sentinel paragraph "0" then
# the text's paragraph, a NUL after the pair: at a NUL every step flushes what it holds, the
# transfer steps reset their variables to their defaults and apertium-anaphora forgets its
# antecedents; the sentinel, one unambiguous number and a full stop, then sets what a first
# sentence sets (the tagger's previous tag, the capital of the next word, ...). Each text thus meets
# exactly what it meets alone, in a fresh run.
_PARAGRAPH_END = re.compile(r"\.\[\]\[\s*\]")


def null_separated(stream: str, texts: int) -> Optional[str]:
    """``stream`` (apertium-destxt's output for ``texts`` pairs of one-line paragraphs, the
    sentinel then a text) with a NUL after each pair; None when the stream does not end
    ``2 * texts`` paragraphs (never expected)."""
    ends = [m.end() for m in _PARAGRAPH_END.finditer(stream)]
    if len(ends) != 2 * texts:
        return None
    cuts = [0] + ends[1::2]
    return "".join(stream[a:b] + "\0" for a, b in zip(cuts, cuts[1:])) + stream[cuts[-1]:]


def null_flushed(step: List[str]) -> List[str]:
    """A mode step in null-flush mode (``-z``, which every apertium, lttoolbox, lex-tools, separable,
    anaphora and cg-proc step takes)."""
    return step[:1] + ["-z"] + step[1:]


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
