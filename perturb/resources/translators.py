"""Machine-translation backends for BACKTRANS (:mod:`perturb.generators.backtrans.generator`): a :class:`Translator` each,
both deterministic and offline.

* :class:`MarianTranslator`: Hugging Face MarianMT ``Helsinki-NLP/opus-mt-en-de`` / ``opus-mt-de-en``
  from local folders or the Hugging Face cache (``local_files_only=True``); never downloads.
* :class:`ApertiumTranslator`: Debian ``apertium`` + a pair's package (``apertium-eng-cat``,
  ``apertium-eng-spa``, ...), one pipeline per direction for all queries, each text translated as
  it would be alone (the texts NUL-separated for steps in null-flush mode, so no step keeps
  anything from one text to the next; words of an ambiguity class the HMM tagger does not know keep
  their first reading, so the tagger never changes state), unknown words marked (no ``-u``).
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from perturb.base import Resource, ResourceMissing
from perturb.resources.apertium_steps import (LU, LU_FULL, MARKS, NEW_CLASS, SENTINEL, RunMemo, debian_version,
                                              filled, first_reading, mode_steps, null_flushed,
                                              null_separated, tagger_at)

__all__ = ["ApertiumTranslator", "MarianTranslator", "RunMemo", "Translator", "route_directions", "route_modes",
           "filled", "mode_steps", "tagger_at"]

APERTIUM_INSTALL = "apt-get install apertium apertium-eng-cat apertium-eng-spa apertium-en-gl apertium-eo-en apertium-spa-cat"


def apertium_install(pivot: str) -> str:
    return f"apt-get install apertium {APERTIUM_PACKAGES[pivot]}"
MARIAN_INSTALL = ("put Helsinki-NLP/opus-mt-en-de and opus-mt-de-en in the Hugging Face cache (online: "
                  "huggingface-cli download Helsinki-NLP/opus-mt-en-de Helsinki-NLP/opus-mt-de-en) or point "
                  "$DRBENCH_MARIAN_EN_DE / $DRBENCH_MARIAN_DE_EN at local folders; needs pip install sentencepiece")
MARIAN_IDS = {"deu": ("Helsinki-NLP/opus-mt-en-de", "Helsinki-NLP/opus-mt-de-en")}
MARIAN_ENV = {"deu": ("DRBENCH_MARIAN_EN_DE", "DRBENCH_MARIAN_DE_EN")}
APERTIUM_PAIRS = {"spa": ("eng-spa", "spa-eng"), "cat": ("eng-cat", "cat-eng"), "glg": ("en-gl", "gl-en"),
                  "epo": ("en-eo", "eo-en"), "hbs": ("eng-hbs", "hbs-eng")}
# Chained pivots ("spa-cat": English -> Spanish -> Catalan -> English): the modes to the last pivot
# language, then back to English. Each hop is one apertium pipeline (marks removed between hops).
APERTIUM_CHAINS = {"spa-cat": (("eng-spa", "spa-cat"), "cat-eng"), "spa-glg": (("eng-spa", "es-gl"), "gl-en"),
                   "cat-spa": (("eng-cat", "cat-spa"), "spa-eng"), "glg-spa": (("en-gl", "gl-es"), "spa-eng")}
# The Debian package of each pivot's language data (its version goes into config()).
APERTIUM_PACKAGES = {"spa": "apertium-eng-spa", "cat": "apertium-eng-cat", "glg": "apertium-en-gl",
                     "epo": "apertium-eo-en", "hbs": "apertium-hbs-eng",
                     "spa-cat": "apertium-eng-spa apertium-spa-cat apertium-eng-cat",
                     "spa-glg": "apertium-eng-spa apertium-es-gl apertium-en-gl",
                     "cat-spa": "apertium-eng-cat apertium-spa-cat apertium-eng-spa",
                     "glg-spa": "apertium-en-gl apertium-es-gl apertium-eng-spa"}


def route_modes(pivot: str) -> tuple:
    """The apertium modes of ``pivot``'s round trip, in order (two for a pair, three for a chain)."""
    if pivot in APERTIUM_CHAINS:
        fwd, back = APERTIUM_CHAINS[pivot]
        return tuple(fwd) + (back,)
    return tuple(APERTIUM_PAIRS[pivot])


def route_directions(pivot: str) -> frozenset:
    """The translation directions (source, target language) a round trip goes through; two round
    trips that share one are not independent evidence for an edit (docs/methods.md, BACKTRANS)."""
    norm = {"en": "eng", "es": "spa", "gl": "glg", "eo": "epo", "ca": "cat"}
    out = set()
    for mode in route_modes(pivot):
        a, b = mode.split("_")[0].split("-")[:2]
        out.add((norm.get(a, a), norm.get(b, b)))
    return frozenset(out)
# Characters that would end a line for apertium (or Python's splitlines) inside one query.
_LINE_BREAKS = re.compile("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\x00]")


class Translator:
    """Translates lists of strings; ``backend`` and ``pivot`` name it. ``marks``: the outputs carry
    apertium-style unknown-word marks (``*word``, ``@word``, ``#word``)."""

    backend = ""
    pivot = ""
    marks = False

    def resources(self) -> List[Resource]:
        return []

    def available(self) -> bool:
        return all(r.found for r in self.resources())

    def config(self) -> dict:
        return {"backend": self.backend, "pivot": self.pivot}

    def to_pivot(self, texts: Sequence[str]) -> List[str]:
        raise NotImplementedError

    def from_pivot(self, texts: Sequence[str]) -> List[str]:
        raise NotImplementedError


# --------------------------------------------------------------------------- Apertium
def _texts_back(out: str, n: int) -> Optional[List[str]]:
    """The ``n`` translations in apertium's output for :meth:`ApertiumTranslator._deformat`'s
    stream (the sentinel and a text, one paragraph each, per text), or None when its paragraphs
    are out of step."""
    parts = (out[:-1] if out.endswith("\n") else out).split("\n\n")
    if len(parts) != 2 * n or any(p.strip() != SENTINEL for p in parts[::2]) or any("\n" in p for p in parts):
        return None
    return parts[1::2]


class ApertiumTranslator(Translator):
    backend = "apertium"

    def __init__(self, pivot: str = "spa", executable: Optional[str] = None, timeout: float = 600.0):
        if pivot not in APERTIUM_PAIRS and pivot not in APERTIUM_CHAINS:
            raise ValueError(f"apertium pivot {pivot!r} not supported; choose from "
                             f"{sorted(APERTIUM_PAIRS) + sorted(APERTIUM_CHAINS)}")
        self.pivot = pivot
        self.executable = executable or shutil.which("apertium") or ""
        self.timeout = timeout
        self._modes: Optional[set] = None
        self._version: Optional[str] = None

    def modes(self) -> set:
        if self._modes is None:
            modes: set = set()
            if self.executable:
                try:
                    out = subprocess.run([self.executable, "-l"], capture_output=True, text=True, timeout=60)
                    modes = set(out.stdout.split())
                except (OSError, subprocess.SubprocessError):
                    modes = set()
            self._modes = modes
        return self._modes

    def resources(self) -> List[Resource]:
        modes = route_modes(self.pivot)
        exe = Resource("apertium", bool(self.executable), where=self.executable,
                       install="" if self.executable else APERTIUM_INSTALL)
        have = self.modes()
        pair_ok = all(m in have for m in modes)
        pair = Resource(f"{APERTIUM_PACKAGES[self.pivot]} ({', '.join(modes)})", pair_ok,
                        where="apertium -l" if pair_ok else "", install="" if pair_ok else apertium_install(self.pivot))
        return [exe, pair]

    def config(self) -> dict:
        cfg = super().config()
        cfg["modes"] = list(route_modes(self.pivot))
        cfg["batching"] = ("sorted distinct texts, each a paragraph after a sentinel one, NUL-separated, "
                           "null-flush steps")
        cfg["unknown_marks"] = "kept (no -u), used to reject pivot-language leaks"
        cfg["stable_check"] = ("words of an ambiguity class the tagger does not know cut to their first reading"
                               if self.stable_check else "off")
        if self._version is None:
            self._version = " ".join(debian_version(p) for p in APERTIUM_PACKAGES[self.pivot].split())
        cfg["version"] = self._version
        return cfg

    marks = True  # outputs carry apertium's unknown-word marks (removed by the generator)
    stable_check = True  # drop texts whose tagging depends on the texts before them (see _run)

    def _call(self, mode: str, data: str, command: Optional[List[str]] = None) -> subprocess.CompletedProcess:
        out = subprocess.run(command or [self.executable, mode], input=data.encode("utf-8"), capture_output=True,
                             timeout=self.timeout)
        if out.returncode != 0:
            raise RuntimeError(f"apertium {mode} failed ({out.returncode}): {out.stderr.decode('utf-8', 'replace')[:500]}")
        return out

    shared: Optional["RunMemo"] = None  # set by BACKTRANS for one batch: pivots share equal hops

    def _run(self, mode: str, texts: Sequence[str]) -> List[Optional[str]]:
        """:meth:`_run_alone`, or its result for the same mode and texts when another pivot of the
        batch ran it (a chain "spa-cat" starts with the "spa" pivot's eng-spa hop)."""
        if self.shared is None:
            return self._run_alone(mode, texts)
        return self.shared.run((mode, tuple(texts)), lambda: self._run_alone(mode, texts))

    def _run_alone(self, mode: str, texts: Sequence[str]) -> List[Optional[str]]:
        """Translate ``texts`` with one apertium pipeline, each text on its own and never depending
        on the others.

        The distinct texts go in sorted order, one paragraph each after a sentinel paragraph, a NUL
        after each pair, every step in null-flush mode (:meth:`_deformat`): a blank line alone does
        not keep two texts apart (a text whose last word takes the full stop apertium adds, "vs"
        -> "vs.", ends no sentence, and the transfer keeps its variables over the whole run), a NUL
        does (each step flushes, the transfer steps reset their variables, apertium-anaphora its
        antecedents). One state is still shared: apertium's HMM tagger (3.8), meeting a word whose
        ambiguity class it was not trained on, replaces its open class (the tags it gives unknown
        words) by a known class, for the rest of the run; every later unknown word (lower-case "i",
        names) can then be tagged differently ("how can i get water" -> "coger" alone, "coge" after
        "can a robot get drunk?"). So the mode runs in two parts (:meth:`_translate_staged`): its
        analysis (``lt-proc``, any ``cg-proc``), then every lexical unit whose set of readings
        forms an ambiguity class the tagger does not know keeps its first reading only (a class of
        one tag is always known; which sets are unknown is asked of the tagger itself, one reading
        set at a time, so the answer does not depend on the batch), then the tagger and the rest
        of the mode. The tagger's state never changes: each text translates as it would alone.
        Without the mode file, the old check is used (the batch in two orders, texts whose two
        translations differ dropped). If the paragraphs come back out of step, each text is sent
        alone.
        """
        clean = [_LINE_BREAKS.sub(" ", t) for t in texts]
        if not clean:
            return []
        unique = sorted({t for t in clean if t.strip()})
        if not unique:
            return list(clean)
        table: Dict[str, Optional[str]]
        steps = mode_steps(mode) if self.stable_check else None
        if steps is not None and tagger_at(steps) is not None:
            table = dict(self._translate_staged(mode, unique, steps))
        elif steps is not None:  # no statistical tagger (a constraint grammar alone): no such state
            table = dict(self._translate_ordered(mode, unique))
        elif self.stable_check and len(unique) > 1:
            table = self._translate_ordered(mode, unique)
            other = self._translate_ordered(mode, unique[::-1])
            table = {t: (v if other.get(t) == v else None) for t, v in table.items()}
        else:
            table = dict(self._translate_ordered(mode, unique))
        return [table.get(t, t) for t in clean]

    def _translate_staged(self, mode: str, unique: Sequence[str], steps: List[List[str]]) -> Dict[str, Optional[str]]:
        """One pass of ``unique`` through the mode, the readings of lexical units of an ambiguity
        class the tagger does not know cut to their first (see :meth:`_run`)."""
        k = tagger_at(steps)
        stream = self._deformat(mode, unique)
        if stream is None:
            return self._one_by_one(unique, lambda t: self._translate_staged(mode, [t], steps))
        for step in steps[:k]:
            stream = self._call(mode, stream, null_flushed(filled(step))).stdout.decode("utf-8", "replace")
        unknown = self._unknown_classes(mode, sorted(set(LU.findall(stream))), filled(steps[k]))
        if unknown:
            stream = LU_FULL.sub(lambda m: first_reading(m) if m.group(2) in unknown else m.group(0), stream)
        tagger = steps[k][:1] + ["-d"] + steps[k][1:]
        rest = " | ".join(" ".join(shlex.quote(a) for a in null_flushed(filled(s))) for s in [tagger] + steps[k + 1:])
        out = self._call(mode, stream, ["bash", "-c", "set -o pipefail; " + rest + " | apertium-retxt"])
        left = set(NEW_CLASS.findall(out.stderr.decode("utf-8", "replace")))  # none expected
        parts = _texts_back(out.stdout.decode("utf-8", "replace"), len(unique))
        if parts is None:
            return self._one_by_one(unique, lambda t: self._translate_staged(mode, [t], steps))
        return {t: (None if left and any(w in t for w in left) else p) for t, p in zip(unique, parts)}

    def _unknown_classes(self, mode: str, readings: Sequence[str], tagger: List[str]) -> set:
        """The reading sets (``/``-joined analyses of a lexical unit) whose ambiguity class the
        tagger of ``mode`` does not know: each sent once, as a word of its own named by its index,
        to the tagger with ``-d``; whether it warns depends on the set alone."""
        if not readings:
            return set()
        data = " ".join(f"^w{i}/{r}$ ^./.<sent>$" for i, r in enumerate(readings)) + "\n"
        out = self._call(mode, data, tagger[:1] + ["-d"] + tagger[1:])
        hit = {int(m) for m in re.findall(r"^Word 'w(\d+)'\.$", out.stderr.decode("utf-8", "replace"), re.M)}
        return {readings[i] for i in hit}

    def _deformat(self, mode: str, unique: Sequence[str]) -> Optional[str]:
        """apertium-destxt's stream of ``unique``: each text a paragraph after a paragraph ``0``
        (every text follows a paragraph break, alone as in a batch: apertium capitalises the first
        word after one, "kio estas" alone, "Kio estas" second), a NUL after each pair, for the
        steps run in null-flush mode (:func:`perturb.resources.apertium_steps.null_separated`: no
        step keeps anything from one text to the next). None if the paragraphs are not found."""
        data = "\n\n".join(SENTINEL + "\n\n" + t for t in unique) + "\n"
        stream = self._call(mode, data, ["apertium-destxt"]).stdout.decode("utf-8", "replace")
        return null_separated(stream, len(unique))

    @staticmethod
    def _one_by_one(unique: Sequence[str], one) -> Dict[str, Optional[str]]:
        """The paragraphs came back out of step: each text sent alone (None when alone fails too)."""
        if len(unique) == 1:
            return {unique[0]: None}
        table: Dict[str, Optional[str]] = {}
        for t in unique:
            table.update(one(t))
        return table

    def _translate_ordered(self, mode: str, unique: Sequence[str]) -> Dict[str, Optional[str]]:
        """One call of the whole mode for ``unique`` in the given order (:meth:`_deformat`)."""
        stream = self._deformat(mode, unique)
        if stream is None:
            return self._one_by_one(unique, lambda t: self._translate_ordered(mode, [t]))
        out = self._call(mode, stream, [self.executable, "-z", "-f", "none", mode]).stdout.decode("utf-8", "replace")
        parts = _texts_back(self._call(mode, out, ["apertium-retxt"]).stdout.decode("utf-8", "replace"), len(unique))
        if parts is None:
            return self._one_by_one(unique, lambda t: self._translate_ordered(mode, [t]))
        return dict(zip(unique, parts))

    def to_pivot(self, texts):
        if self.pivot not in APERTIUM_CHAINS:
            return self._run(APERTIUM_PAIRS[self.pivot][0], texts)
        out: List[Optional[str]] = list(texts)
        for k, mode in enumerate(APERTIUM_CHAINS[self.pivot][0]):
            if k:  # unknown words pass through a hop marked: unmark them before the next one
                out = [None if t is None else MARKS.sub(r"\1", t) for t in out]
            keep = [i for i, t in enumerate(out) if t is not None]
            for i, t in zip(keep, self._run(mode, [out[i] for i in keep])):
                out[i] = t
        return out

    def from_pivot(self, texts):
        back = APERTIUM_CHAINS[self.pivot][1] if self.pivot in APERTIUM_CHAINS else APERTIUM_PAIRS[self.pivot][1]
        return self._run(back, texts)


# --------------------------------------------------------------------------- Marian
def _hf_cached(model_id: str) -> Optional[Path]:
    """The local snapshot folder of ``model_id`` in the Hugging Face cache, if complete."""
    try:
        from huggingface_hub import snapshot_download

        path = snapshot_download(model_id, local_files_only=True)
    except Exception:  # noqa: BLE001 - not cached (or hub lib missing): not found
        return None
    p = Path(path)
    return p if (p / "config.json").is_file() else None


class MarianTranslator(Translator):
    backend = "marian"
    _lock = threading.Lock()
    _loaded: Dict[str, tuple] = {}

    def __init__(self, pivot: str = "deu", en_pivot: Optional[str] = None, pivot_en: Optional[str] = None,
                 batch_size: int = 16, max_length: int = 256):
        if pivot not in MARIAN_IDS:
            raise ValueError(f"marian pivot {pivot!r} not supported; choose from {sorted(MARIAN_IDS)}")
        self.pivot = pivot
        env_fwd, env_back = MARIAN_ENV[pivot]
        self._paths = [en_pivot or os.environ.get(env_fwd), pivot_en or os.environ.get(env_back)]
        self.batch_size = int(batch_size)
        self.max_length = int(max_length)
        self._resolved: Optional[List[Optional[Path]]] = None

    def paths(self) -> List[Optional[Path]]:
        if self._resolved is None:
            out = []
            for given, model_id in zip(self._paths, MARIAN_IDS[self.pivot]):
                if given:
                    p = Path(given)
                    out.append(p if (p / "config.json").is_file() else None)
                else:
                    out.append(_hf_cached(model_id))
            self._resolved = out
        return self._resolved

    def resources(self) -> List[Resource]:
        out = []
        for path, model_id in zip(self.paths(), MARIAN_IDS[self.pivot]):
            out.append(Resource(f"MarianMT {model_id} (local)", path is not None, where=str(path or ""),
                                install="" if path else MARIAN_INSTALL))
        import importlib.util

        sp = importlib.util.find_spec("sentencepiece") is not None
        out.append(Resource("sentencepiece", sp, where="sentencepiece" if sp else "",
                            install="" if sp else "pip install sentencepiece"))
        return out

    def config(self) -> dict:
        cfg = super().config()
        cfg["models"] = list(MARIAN_IDS[self.pivot])
        cfg["local_paths"] = [str(p) if p else "" for p in self.paths()]
        return cfg

    def _model(self, which: int):
        path = self.paths()[which]
        if path is None:
            raise ResourceMissing(f"MarianMT {MARIAN_IDS[self.pivot][which]} not found locally ({MARIAN_INSTALL})")
        key = str(path.resolve())
        with self._lock:
            if key not in self._loaded:
                import torch
                from transformers import MarianMTModel, MarianTokenizer

                tok = MarianTokenizer.from_pretrained(str(path), local_files_only=True)
                model = MarianMTModel.from_pretrained(str(path), local_files_only=True).eval()
                self._loaded[key] = (tok, model, torch)
        return self._loaded[key]

    def _translate(self, which: int, texts: Sequence[str]) -> List[str]:
        tok, model, torch = self._model(which)
        order = sorted(range(len(texts)), key=lambda i: (len(texts[i]), i))  # length-sorted batches
        out: List[str] = [""] * len(texts)
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                idx = order[start: start + self.batch_size]
                enc = tok([texts[i] for i in idx], return_tensors="pt", padding=True, truncation=True,
                          max_length=self.max_length)
                gen = model.generate(**enc, max_new_tokens=self.max_length)
                for i, t in zip(idx, tok.batch_decode(gen, skip_special_tokens=True)):
                    out[i] = t
        return out

    def to_pivot(self, texts):
        return self._translate(0, texts)

    def from_pivot(self, texts):
        return self._translate(1, texts)
