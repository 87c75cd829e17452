"""The typed configuration of an evaluation, shared by ``bench evaluate`` and ``bench.evaluate``.

The options of ``bench evaluate`` are declared here as data (:class:`bench.core.options.Option`):
the command line (:mod:`bench.cli.evaluate`) turns them into an argparse parser and its namespace
into an :class:`EvaluateConfig` (:func:`config_from_namespace`); the Python API builds the same
config from keyword arguments (:func:`config_from_keywords`: the same names, the same checks and
messages, "did you mean" for an unknown name) without going through argv. Both hand it to
:func:`bench.api.execute`. Also here: the checks every evaluation makes before any work (labels,
counts, dataset forms, options of another suite) and the default run folder.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from bench.core.errors import BenchError
from bench.core.io import refuse_bidi, safe_name, visible
from bench.core.options import BadValue, Option, option, seed_type
from bench.data.forms import DATASET_FORMS, PREFIXES, check_dataset, forms_text  # noqa: F401 (re-exported)
from bench.encoding.runtime import BACKEND_OPTION, RUNTIME_OPTIONS
from bench.evaluation.measures import DEFAULT_MEASURES, canonical_measures
from bench.results.suite import SUITES, suite_named

#: --device, --dtype and --backend (bench evaluate: every suite, the few-shot suite included)
EVALUATE_RUNTIME = RUNTIME_OPTIONS + (BACKEND_OPTION,)


def out_folder(text: str) -> Path:
    """The type of every ``--out``: an empty name (which would mean the working folder) is a usage error."""
    if not str(text).strip():
        raise BadValue("an empty folder name would mean the working folder; give a folder, e.g. --out runs/my-run")
    return Path(text)


def check_at_least_one(args, *dests: str) -> None:
    """Refuse counts (``--batch-size``, ``--top-k`` ...) below 1 before any work starts."""
    for dest in dests:
        value = getattr(args, dest, None)
        if value is not None and value < 1:
            flag = "--" + dest.replace("_", "-")
            raise BenchError(f"{flag} {value}: must be at least 1. Fix: give {flag} N with N >= 1")


def slug(name: str) -> str:
    """A model or dataset name as a part of a default output folder name (a path keeps its last part)."""
    return safe_name(Path(name).name if ("/" in name or "\\" in name) else name)


#: the longest --name: it is part of the default run folder's name, and a file name has at most 255 bytes
MAX_NAME = 100


def check_label(value: str, option: str = "--name") -> str:
    """A model label given on the command line: one visible line (``org/model`` is fine), without a
    leading dot or ``.`` / ``..`` parts (it names the default run folder, which ``../x`` would hide),
    at most :data:`MAX_NAME` characters. Returns it stripped."""
    label = value.strip()
    fix = f"give a short label on one line, e.g. {option} my-model"
    if not visible(label) or any(c in label for c in "\n\r\t"):
        raise BenchError(f"{option} {value!r}: give a non-empty label on one line (no zero-width-only text). Fix: {fix}")
    refuse_bidi(label, option, fix)
    parts = label.replace("\\", "/").split("/")
    if label.startswith(".") or any(p in (".", "..") for p in parts):
        raise BenchError(f"{option} {value!r}: a label must not start with '.' or hold a '.' or '..' path part: it "
                         f"names the default run folder, which would be hidden or outside runs/. Fix: {fix}, and "
                         f"--out FOLDER for where the run goes")
    if len(label) > MAX_NAME:
        raise BenchError(f"{option}: {len(label)} characters, at most {MAX_NAME} (the label is part of the run "
                         f"folder's name). Fix: {fix}")
    return label


COMMON = (
    option("--model", default="minilm-l6",
           help="registered model name or a local HF / sentence-transformers folder (default: minilm-l6)"),
    option("--name", default=None, help="label of the model in the result, reports and the default run folder "
                                        "(default: the registered name, or the model folder's last component)"),
    option("--dataset", default="chatterbot", help="registered dataset, BEIR/MS MARCO folder, irds:ID or "
                                                   "trec:corpus=..,topics=..,qrels=.. (default: chatterbot)"),
    option("--split", default=None, help="qrels split (default: test; dev for MS MARCO folders)"),
    option("--seed", type=seed_type, default=0, help="run seed (default: 0)"),
    option("--metrics", default=" ".join(DEFAULT_MEASURES),
           help=f'measures, trec_eval-equal (default: "{" ".join(DEFAULT_MEASURES)}")'),
    option("--out", type=out_folder, default=None, help="run folder (default: runs/<model>__<dataset>__<suite>__s<seed>, "
                                                  "plus __h<hash> when options that change the result are set)"),
    option("--force", action="store_true",
           help="write into an existing --out folder that drbench did not write (or whose files were changed since): "
                "same-named files are replaced, its other files are kept (without it such a folder is refused)"),
    option("--queries", type=Path, default=None, help="evaluate only the query ids listed in this file (one per "
                                                      "line), e.g. a checkpoint's heldout_queries.txt"),
    option("--batch-size", type=int, default=64, help="encoding batch size (default: 64)"),
    option("--executor", default="local", help="where corpus shards and independent work units run: local "
                                               '(default) or ray (pip install "drbench[ray]")'),
    option("--address", default=None, help="with --executor ray: auto, HOST:PORT or ray://HOST:PORT (default: "
                                            "start a local Ray instance)"),
    option("--no-progress", action="store_true",
           help="hide progress bars (plain lines outside a terminal) and status lines"),
) + EVALUATE_RUNTIME
TOP_K_DEFAULT = 100
#: options several suites share; each suite says which it honours (Suite.shared)
SHARED = (
    option("--top-k", type=int, default=TOP_K_DEFAULT, help="documents retrieved per query (default: 100; raised to "
                                                             "the deepest cutoff of --metrics, e.g. R@1000)"),
    option("--test", default="t-test", choices=["t-test", "randomization", "wilcoxon"],
           help="paired test of each set against the suite's reference (default: t-test, as RoDR)"),
    option("--correction", default="holm", choices=["holm", "bh", "none"],
           help="multiple-comparison correction across the sets of a measure (default: holm)"),
)
MODEL_OVERRIDES = (
    option("--pooling", choices=["mean", "cls"], help="token pooling: mean or cls (default: the folder's; for a sentence-transformers folder it replaces its Pooling module's mode; a plain folder: cls)"),
    option("--similarity", choices=["dot", "cos"], help="score: dot product or cosine (default: from the folder's config, else dot)"),
    option("--query-prefix", help="text put before every query, e.g. \"query: \" (default: from the folder's config, else none)"),
    option("--passage-prefix", help="text put before every passage, e.g. \"passage: \" (default: from the folder's config, else none)"),
    option("--max-query-length", type=int, help="longest query in tokens, longer ones are cut (default: from the folder's config, else the tokenizer's maximum)"),
    option("--max-passage-length", type=int, help="longest passage in tokens, longer ones are cut (default: from the folder's config, else the tokenizer's maximum)"),
)


def _suites() -> list:
    return [suite_named(n) for n in SUITES.names()]


def refuse_foreign_options(args, suite) -> None:
    """Options that belong to other suites (or shared options the suite ignores) must not be set."""
    suites = _suites()
    own = {o.dest for o in suite.options} | set(suite.shared)
    owners: Dict[str, List[str]] = {}  # dest -> the suites that take it
    defaults = {}  # dest -> (flag, default)
    for other in suites:
        for o in other.options:
            owners.setdefault(o.dest, []).append(other.name)
            defaults[o.dest] = (o.flags[0], o.default)
    for o in SHARED:
        owners[o.dest] = owners.get(o.dest, []) + [s.name for s in suites if o.dest in s.shared]
        defaults[o.dest] = (o.flags[0], o.default)
    wrong = []
    for dest, (flag, default) in sorted(defaults.items()):
        if dest not in own and getattr(args, dest, default) != default:
            users = sorted(set(owners.get(dest, [])))
            wrong.append(f"{flag} (applies to {', '.join('--suite ' + u for u in users) or 'no suite'})")
    if wrong:
        raise BenchError(f"option(s) not used by --suite {suite.name}: {'; '.join(wrong)}. Remove them, or pick the "
                         f"suite they belong to")


def check_options(args, suite) -> list:
    """Every check of an evaluation's options that needs no model or data, in one place for the
    command and the Python API: options of other suites, counts, the seed, the measures (returned),
    the dataset's form and name, and the suite's own options (its ``config_from_args``)."""
    from bench.core.options import check_int
    from bench.data.collections import DATASETS
    from bench.data.forms import dataset_form
    from bench.evaluation.measures import parse_measures

    refuse_foreign_options(args, suite)
    check_at_least_one(args, "top_k", "batch_size")
    check_int(args.seed, "--seed", 0)
    measures = parse_measures(args.metrics)
    if dataset_form(args.dataset) == "spec":  # anything that is no dataset form is refused here
        check_dataset(str(args.dataset), DATASETS.names())
    if args.dataset_name is not None:
        check_dataset_name(args.dataset_name)
    if getattr(suite, "returns_results", False):
        suite.config_from_args(args, measures)  # the suite's own options (conflicts, names, ranges)
    return measures


def check_dataset_name(name) -> str:
    """``dataset_name=``: a label as ``--name`` is (a str on one line, at most :data:`MAX_NAME` characters)."""
    if not isinstance(name, str):
        raise BenchError(f"dataset_name={name!r}: give the dataset's name as a str (e.g. dataset_name='my-data')")
    return check_label(name, "dataset_name=")


def check_model_overrides(args, spec) -> None:
    """Model options that do not apply to ``spec`` are refused, never recorded as if used: BM25 has
    no pooling, similarity, prefixes or token lengths."""
    if spec.kind != "bm25":
        return
    given = [o.flags[0] for o in MODEL_OVERRIDES if getattr(args, o.dest, None) is not None]
    if given:
        raise BenchError(f"{', '.join(given)} configure a dense model; {spec.name!r} is BM25, which scores terms "
                         f"(no vectors, pooling or prefixes). Fix: remove {', '.join(given)}")


def set_depth(args, suite, measures, n_docs: int) -> None:
    """Every measure at the depth its cutoff needs, before any encoding: R@100 on 10 retrieved documents
    is recall at 10 under the name R@100. The depth a cutoff needs is at most the corpus size (a
    ranking of every document answers any deeper cutoff exactly). An explicit ``--top-k`` below it is
    refused; the default (``--top-k 100``) is raised to it, printed and recorded in result.json
    (``retrieval.depth``); an unchanged depth records nothing."""
    import sys

    if "top_k" not in suite.shared:
        return
    cut = [m for m in measures if m.cutoff is not None]
    if not cut:
        return
    deepest = max(cut, key=lambda m: m.cutoff)
    depth = min(deepest.cutoff, n_docs)
    if args.top_k >= depth:
        return
    if args.top_k != TOP_K_DEFAULT:
        raise BenchError(f"--top-k {args.top_k} retrieves {args.top_k} documents per query, but {deepest} needs the "
                         f"top {depth}: it would be measured at {args.top_k} under the name {deepest}. Fix: "
                         f"--top-k {depth}, or measures with a cutoff of at most {args.top_k}")
    whole = f" (the whole corpus, {n_docs} documents)" if depth == n_docs else ""
    args.depth_note = (f"raised from --top-k {args.top_k} to {depth}{whole}: the deepest cutoff asked for is "
                       f"{deepest}")
    print(f"bench: retrieval depth {args.depth_note}", file=sys.stderr)
    args.top_k = depth


#: options that do not change the numbers of a run (they are left out of the default folder's hash)
NOT_IN_RESULT = frozenset({"out", "force", "executor", "address", "no_progress", "trec_runs", "shard_size", "no_plots",
                           "device"})  # metrics compare across devices (bench.encoding.runtime.COMPARABILITY)


def changed_options(args, suite) -> List[Tuple[Option, object]]:
    """The options that can change the result and differ from their defaults, with their values
    (``--metrics`` in its canonical spelling), in flag order: what the default folder's hash covers
    and what the "another model" command repeats."""
    changed = {}
    for o in COMMON + SHARED + MODEL_OVERRIDES + tuple(suite.options):
        if o.dest in NOT_IN_RESULT or o.dest in ("model", "name", "dataset", "seed"):
            continue
        value = getattr(args, o.dest, o.default)
        if o.dest == "metrics":
            value = canonical_measures(value)
            if value == canonical_measures(o.default):
                continue
        if value != o.default:
            changed.setdefault(o.flags[0], (o, value))
    return [changed[flag] for flag in sorted(changed)]


def default_out(args, suite, model_label: str, dataset_name: str) -> Tuple[Path, List[str]]:
    """The default run folder ``runs/<model>__<dataset>__<suite>__s<seed>`` and, when options that
    can change the result differ from their defaults, ``__h<8 hex>``: the SHA-256 of those options'
    ``--flag=value`` texts (sorted; values as given, except ``--metrics``: its canonical spelling,
    :func:`bench.evaluation.measures.canonical_measures`, so ``mrr@10`` and ``MRR@10`` are one run).
    Returns the folder and those texts (a hash key, not a command line: the commands printed for
    the user are built by :func:`bench.cli.next_steps.option_argv`)."""
    import hashlib

    changed = sorted({f"{o.flags[0]}={value}" for o, value in changed_options(args, suite)})
    name = f"{model_label}__{slug(dataset_name)}__{suite.name}__s{args.seed}"
    if changed:
        name += "__h" + hashlib.sha256("\x1f".join(changed).encode("utf-8")).hexdigest()[:8]
    return Path("runs") / name, changed


def _refuse_other_dataset(out: Path, dataset) -> None:
    """A default run folder holding a run of another dataset with the same name is not overwritten."""
    import json

    try:
        old = json.loads((out / "result.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    had = str((old.get("dataset") or {}).get("fingerprint", ""))
    now = str(dataset.fingerprint())
    if had and now and had != now:
        raise BenchError(f"run folder {out} holds a run of another dataset named {dataset.name!r} (fingerprint "
                         f"{had[:12]}..., this one {now[:12]}...); not overwritten. Fix: give --out a new folder")


# --------------------------------------------------------------------------------------------
# the typed configuration


def declared_options() -> Dict[str, Option]:
    """Every option of ``bench evaluate`` by dest (the common ones first, then each suite's)."""
    declared: Dict[str, Option] = {"suite": option("--suite", default="variations")}
    for o in COMMON + SHARED + MODEL_OVERRIDES + tuple(o for s in _suites() for o in s.options):
        declared.setdefault(o.dest, o)
    return declared


#: dests with their own field in EvaluateConfig; every other option is in ``EvaluateConfig.options``
_FIELDS = ("model", "name", "dataset", "split", "seed", "metrics", "out", "queries", "batch_size", "executor",
           "address", "no_progress", "device", "dtype", "backend", "suite", "top_k", "test", "correction",
           "pooling", "similarity", "query_prefix", "passage_prefix", "max_query_length", "max_passage_length")


@dataclass
class EvaluateConfig:
    """What one evaluation runs: the model (a registered name, a folder, or a model object, see
    :mod:`bench.models.objects`), the dataset (a name, a folder or form, or a dataset object, see
    :mod:`bench.data.objects`), the suite, the common options as typed fields and the suite's own
    options in ``options`` (by dest). An attribute that is not a field reads ``options``, so a
    suite reads every value by its dest (``config.generators``) as it reads the parsed command line.
    ``revision`` and ``dataset_name`` exist only in Python: they name a model or dataset object."""

    model: Any = "minilm-l6"
    name: Optional[str] = None
    dataset: Any = "chatterbot"
    split: Optional[str] = None
    seed: int = 0
    metrics: str = " ".join(DEFAULT_MEASURES)
    out: Optional[Path] = None
    queries: Optional[Path] = None
    batch_size: int = 64
    executor: str = "local"
    address: Optional[str] = None
    no_progress: bool = False
    device: Optional[str] = "auto"
    dtype: Optional[str] = None
    backend: str = "torch"
    suite: str = "variations"
    top_k: int = 100
    test: str = "t-test"
    correction: str = "holm"
    pooling: Optional[str] = None
    similarity: Optional[str] = None
    query_prefix: Optional[str] = None
    passage_prefix: Optional[str] = None
    max_query_length: Optional[int] = None
    max_passage_length: Optional[int] = None
    options: Dict[str, Any] = field(default_factory=dict)
    revision: Optional[str] = None
    dataset_name: Optional[str] = None

    def __getattr__(self, dest: str) -> Any:  # only called for names that are not fields
        options = self.__dict__.get("options")
        if options is not None and dest in options:
            return options[dest]
        raise AttributeError(f"EvaluateConfig has no option {dest!r}")


def config_from_namespace(values: Any) -> EvaluateConfig:
    """The config of a parsed command line (every declared dest is an attribute of ``values``)."""
    known = {f.name for f in dataclasses.fields(EvaluateConfig)} - {"options"}
    given = dict(vars(values))
    return EvaluateConfig(**{k: given.pop(k) for k in list(given) if k in known}, options=given)


def _argument_error(opt: Option, message: str) -> BenchError:
    """The message argparse gives for a bad value (``argument --top-k: invalid int value: 'x'``)."""
    return BenchError(f"argument {'/'.join(opt.flags)}: {message}")


def _typed_value(opt: Option, key: str, value: Any) -> Any:
    """A keyword value checked and converted as the parser converts the text of ``--flag=value``."""
    settings = opt.settings
    if settings.get("action") in ("store_true", "store_false"):
        if not isinstance(value, bool):
            raise BenchError(f"option {key!r} is a flag: give True or False, not {value!r}")
        return value
    if isinstance(value, (list, tuple)):
        value = ",".join(str(v) for v in value)
    kind = settings.get("type")
    if kind is not None and not isinstance(kind, type):  # a converter function (out_folder): it takes the text
        try:
            value = kind(str(value))
        except BadValue as exc:
            raise _argument_error(opt, str(exc)) from None
    elif kind is not None:
        try:
            # through the text, as the parser converts it: 1.7 is no int (int(1.7) would give 1)
            value = kind(str(value)) if not isinstance(value, kind) or isinstance(value, bool) else value
        except (TypeError, ValueError):
            raise _argument_error(opt, f"invalid {getattr(kind, '__name__', repr(kind))} value: {str(value)!r}") from None
        if isinstance(value, bool) and kind is not bool:
            raise _argument_error(opt, f"invalid {kind.__name__} value: {str(value)!r}")
    else:
        value = str(value)
    choices = settings.get("choices")
    if choices is not None and value not in choices:
        raise _argument_error(opt, f"invalid choice: {value!r} (choose from {', '.join(map(repr, choices))})")
    return [value] if settings.get("action") == "append" else value


def unknown_option(key: str, declared: Dict[str, Option]) -> BenchError:
    """The error of a keyword that names no option, with the closest dest ("did you mean")."""
    import difflib

    close = difflib.get_close_matches(key.replace("-", "_"), list(declared), n=1)
    return BenchError(f"unknown option {key!r}" + (f"; did you mean {close[0]!r}?" if close else "") +
                      f" (options: {', '.join(sorted(declared))})")


def config_from_keywords(**values: Any) -> EvaluateConfig:
    """The config of ``bench.evaluate(**values)``: keys are option dests (``top_k``), checked and
    converted as the command line's parser checks ``--top-k=...`` (the same messages); a list is
    the comma-separated text; ``None`` keeps the default; a flag takes True / False. ``model`` and
    ``dataset`` may be objects (kept as given); ``revision`` and ``dataset_name`` name them."""
    from bench.data.objects import is_dataset_object
    from bench.models.objects import is_encoder_object

    declared = declared_options()
    config = EvaluateConfig(options={d: o.default for d, o in declared.items() if d not in _FIELDS})
    objects = {"revision", "dataset_name"}
    for key, value in values.items():
        dest = key.replace("-", "_")
        if dest not in declared and dest not in objects:
            raise unknown_option(key, declared)
        if value is None:
            continue
        if dest in objects or (dest == "model" and is_encoder_object(value)) or \
                (dest == "dataset" and is_dataset_object(value)):
            typed = value  # an object (bench.models.objects, bench.data.objects), or revision / dataset_name
        else:
            typed = _typed_value(declared[dest], key, value)
        if dest in _FIELDS or dest in objects:
            setattr(config, dest, typed)
        else:
            config.options[dest] = typed
    return config
