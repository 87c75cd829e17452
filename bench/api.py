"""The Python API, for notebooks and scripts::

    import bench
    r = bench.evaluate(model="bm25", generators=["EXTRAPUNC", "SWAPWORDS"])
    r.summary            # one row per set (pandas)
    r.compare(other)     # as `bench compare`
    r.report("r.html")   # as `bench report`

``bench.evaluate`` runs a suite exactly as ``bench evaluate`` does: the options are the command's
(by dest: ``top_k=10``, ``no_progress=True``), checked by the same parser, and options of another
suite are refused. It writes the same run folder (default ``runs/<model>__<dataset>__<suite>__s<seed>``, plus
``__h<hash>`` when options that change the result are set)
and returns it loaded. ``bench.load_run`` loads a saved run folder into the same object.
"""
from __future__ import annotations

import os

from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

from bench.config import EvaluateConfig, config_from_keywords
from bench.core.errors import BenchError
from bench.results.rundir import Run
from bench.results.rundir import load_run as _load
from bench.results.suite import suite_of
from bench.reporting.compare import compare
from bench.reporting.report import ReportOptions, report

PathLike = Union[str, Path]


class RunResult:
    """A run folder, loaded: ``result`` (the result.json dict), ``per_query`` (DataFrame),
    ``summary`` (DataFrame), ``folder``; ``compare(other)`` and ``report(path)``."""

    def __init__(self, run: Run):
        self._run = run

    @property
    def folder(self) -> Path:
        return self._run.folder

    @property
    def result(self) -> Dict[str, Any]:
        return self._run.result

    @property
    def typed(self) -> "ResultFile":
        """result.json as its typed model: ``.data`` is a :class:`bench.results.schema.SetsResult` or
        :class:`~bench.results.schema.FewshotResult` (TypedDicts, checked against the schema when
        loaded), ``.layout`` and ``.model`` say which."""
        from bench.results.schema import ResultFile

        return ResultFile.from_data(self._run.result, str(self.folder / "result.json"))

    @property
    def sets(self) -> List[Dict[str, Any]]:
        """The ``sets`` entries of a "sets" layout result (:class:`bench.results.schema.SetEntry`)."""
        return list(self._run.sets)

    @property
    def per_query(self) -> Any:
        """One row per (set, query): ``set``, ``qid``, ``applied`` and a column per measure."""
        return self._run.per_query

    @property
    def suite(self) -> str:
        return self._run.suite

    @property
    def summary(self) -> Any:
        """``"sets"`` layout: one row per set (index: set name) with a column per measure, a
        ``drop <measure>`` column per measure, ``n_applied``, ``n_evaluated``, ``applicability``
        (share of judged queries the generator changed), ``low_applicability`` (below
        bench.results.applicability.LOW_APPLICABILITY) and ``status``; then the rows VARIATIONS
        (AVG.) and, for a variations run, "VARIATIONS (AVG.) applied-only" (the mean of the sets'
        applied-only drop rates) with its 95% bootstrap interval in ``drop <measure> low`` /
        ``high`` (the whole block, method and B included, in ``df.attrs["applied_only"]``). ``"fewshot"`` layout:
        the headline table (one row per class group: all, base, novel)."""
        import pandas as pd

        from bench.reporting.frames import fewshot_frame, sets_frame

        if suite_of(self._run).layout == "sets":
            return sets_frame(self._run, pd)
        return fewshot_frame(self.result, pd)

    def compare(self, other: Union["RunResult", PathLike], metric: Optional[str] = None, *,
                baseline: Union["RunResult", PathLike, None] = None, test: str = "t-test",
                correction: str = "holm", alpha: float = 0.05, seed: int = 0, resamples: int = 10000) -> Any:
        """The table of ``bench compare`` (this run and ``other``) as a DataFrame: one row per
        run x set with the mean, the marker and the tests against ORIGINAL (and the baseline).
        When the two runs are comparable (the gate's rule), ``df.attrs["drop_rate"]`` holds the
        comparison of their VARIATIONS (AVG.) drop rates (difference, bootstrap interval, swap test;
        ``resamples`` = B), as ``bench compare`` prints it; otherwise it is empty."""
        import pandas as pd

        table = compare_runs(self, other, metric=metric, baseline=baseline, test=test, correction=correction,
                             alpha=alpha, seed=seed, resamples=resamples)
        df = pd.DataFrame.from_records(table.records())
        df.attrs["drop_rate"] = list(table.drop_rates)
        return df

    def report(self, path: Optional[PathLike] = None, fmt: str = "html", plots: bool = True, *, force: bool = False,
               **options: Any) -> Path:
        """Write the report of ``bench report`` (``fmt``: "html" or "md") to ``path`` (default:
        ``<folder>/report.<fmt>``) and return the path. A file drbench did not write is not replaced
        unless ``force=True``, as the command's ``--force`` (the output policy,
        :mod:`bench.core.written`). ``options``: those of :class:`bench.reporting.report.ReportOptions`
        (test, correction, seed, bootstrap, alpha, metric)."""
        from bench.core.written import check_output_files, write_output_files

        if fmt not in ("html", "md"):
            raise BenchError(f"fmt must be 'html' or 'md', not {fmt!r}")
        if path is not None and (isinstance(path, bool) or not isinstance(path, (str, os.PathLike))):
            raise BenchError(f"report({path!r}): give the file as a str or pathlib.Path (e.g. 'report.{fmt}')")
        out = Path(path) if path is not None else self.folder / f"report.{fmt}"
        check_output_files([("report(path)", out)], force, f"report('my-report.{fmt}')", "bench report",
                           force_option="force=True")
        text = report(self.folder, fmt, ReportOptions(**options), plots=plots)
        write_output_files([(out, text)], "bench report", say=False)
        return out

    def __repr__(self) -> str:
        return f"<RunResult {self.suite}: {self._run.display}, {self.folder}>"


def _folder(run: Union[RunResult, PathLike], what: str = "run") -> Path:
    """A run object's folder, or a folder given as a str / path; anything else is a BenchError."""
    if isinstance(run, RunResult):
        return run.folder
    if isinstance(run, bool) or not isinstance(run, (str, os.PathLike)) or not str(run).strip():
        raise BenchError(f"{what}={run!r}: give a run (bench.load_run / bench.evaluate) or its folder as a str or "
                         f"pathlib.Path")
    return Path(run)


def gate(baseline: Union[RunResult, PathLike], candidate: Union[RunResult, PathLike], metric: Optional[str] = None, *,
         max_drop_rate: float = 0.0, max_regression: float = 0.0, alpha: float = 0.05, correction: str = "maxt",
         family: str = "hierarchy", test: str = "t-test", strict: bool = False, seed: int = 0,
         resamples: Optional[int] = None) -> "Verdict":
    """``bench gate`` from Python: the :class:`bench.reporting.gate.Verdict` of ``candidate`` against
    ``baseline`` (run objects or folders), with ``.status`` (PASS / FAIL / INCONCLUSIVE), ``.passed``,
    ``.exit_code`` (the command's), ``.markdown()`` (what it prints) and ``.to_dict()`` (its --json).
    A training loop gates a checkpoint without a subprocess::

        verdict = bench.gate(baseline_run, bench.evaluate(model=my_model, name="ckpt-3", ...))
        if not verdict.passed: ...
    """
    from bench.reporting.gate import GateOptions, run_gate

    opts = GateOptions(metric=metric, max_drop_rate=max_drop_rate, max_regression=max_regression, alpha=alpha,
                       correction=correction, family=family, test=test, seed=seed, strict=strict,
                       **({"n_resamples": resamples} if resamples is not None else {}))
    opts.validate()  # each option in its allowed range (bench.core.options), else a BenchError
    return run_gate(_folder(baseline, "baseline"), _folder(candidate, "candidate"), opts)


def compare_runs(*runs: Union[RunResult, PathLike], metric: Optional[str] = None,
                 baseline: Union[RunResult, PathLike, None] = None, test: str = "t-test", correction: str = "holm",
                 alpha: float = 0.05, seed: int = 0, resamples: int = 10000) -> "CompareTable":
    """``bench compare`` from Python: the :class:`bench.reporting.compare.CompareTable` of the runs
    (``.records()`` one row per run x set, ``.drop_rates`` the comparable pairs, ``.markdown()``)."""
    if len(runs) < 1:
        raise BenchError("give at least one run to compare")
    from bench.core.options import check_resampling

    check_resampling(alpha, seed, resamples)
    try:
        return compare([_folder(r) for r in runs], metric=metric,
                       baseline=None if baseline is None else _folder(baseline), test=test, correction=correction,
                       alpha=alpha, seed=seed, resamples=resamples)
    except ValueError as exc:
        raise BenchError(str(exc)) from None


def leaderboard(*runs: Union[RunResult, PathLike], metrics: Optional[List[str]] = None,
                rank_by: str = "VARIATIONS (AVG.)", test: str = "t-test", correction: str = "holm",
                alpha: float = 0.05, seed: int = 0) -> "Leaderboard":
    """``bench leaderboard`` from Python: the :class:`bench.reporting.leaderboard.board.Leaderboard`
    of the runs (``.markdown()``, ``.csv()``, ``.wide_csv()``, ``.method_text()``)."""
    from bench.reporting.leaderboard import build

    return build([_folder(r) for r in runs], metrics=metrics, rank_by=rank_by, seed=seed, test=test,
                 correction=correction, alpha=alpha)


def perturb(queries: Any, generators: Optional[List[str]] = None, seed: int = 0, protocol: str = "validated") -> Any:
    """The variations of a plain list of queries, as ``bench perturb --queries FILE`` makes them: a
    pandas DataFrame with one row per (set, query): ``qid``, ``set``, ``text``, ``applied``.

    ``queries``: a list of strings (ids ``q1``, ``q2``, ...), a dict id -> text, or ``(id, text)``
    pairs. ``generators``: set names (default: all eight); ``seed`` and ``protocol`` as the command's.
    The same (id, text) gets the same variation as in a dataset run (one generation path,
    :func:`perturb.io.querylist.generate_for`). A set that could not be generated (a missing
    resource) is left out with a warning naming the reason, and listed in
    ``frame.attrs["not_generated"]``.
    """
    import warnings

    from perturb.io.querylist import generate_for, query_items, sets_frame

    frame = sets_frame(generate_for(query_items(queries), generators, seed, protocol))
    for name, reason in frame.attrs["not_generated"].items():
        warnings.warn(f"variation set {name} not generated: {reason}", stacklevel=2)
    return frame


def load_run(path: PathLike) -> RunResult:
    """A saved run folder (or its result.json), loaded (per_query.csv when present)."""
    return RunResult(_load(_folder(path, "path"), per_query=None))


def evaluate(model: Any = "minilm-l6", dataset: Any = "chatterbot", suite: str = "variations",
             out: Optional[PathLike] = None, verbose: bool = False, *, revision: Optional[str] = None,
             dataset_name: Optional[str] = None, **options: Any) -> RunResult:
    """Run ``suite`` for ``model`` on ``dataset`` as ``bench evaluate`` does and return the run.

    ``model``: a registered name, a model folder, or a model object (anything with ``encode``, or
    ``encode_queries`` / ``encode_corpus``, or a callable; :mod:`bench.models.objects`), named for
    the embedding cache by ``name=`` and ``revision=`` (unnamed: not cached). ``dataset``: a name,
    a folder or form, or a dataset object (BEIR-style dicts, pandas DataFrames, an ir_datasets
    dataset; :mod:`bench.data.objects`), named by ``dataset_name=``. ``options``: any option of
    ``bench evaluate`` by its dest (``generators=["MISSPELL"]``, ``top_k=10``, ``seed=1``,
    ``no_progress=True``), checked as the command checks them, into the typed
    :class:`bench.config.EvaluateConfig`. The suite returns its result without printing; the console
    report the command prints is printed only with ``verbose=True`` (the returned run holds it:
    ``summary``, ``report()``); status lines (stderr) show unless ``no_progress=True``."""
    if out is not None and (isinstance(out, bool) or not isinstance(out, (str, os.PathLike))):
        raise BenchError(f"out={out!r}: give the run folder as a str or pathlib.Path (e.g. out='runs/my-run')")
    config = config_from_keywords(model=model, dataset=dataset, suite=suite, out=out, revision=revision,
                                  dataset_name=dataset_name, **options)
    code, folder, _ = execute(config, console=verbose)
    if code != 0:
        raise BenchError(f"suite {config.suite} exited with code {code}; run folder: {folder}")
    return load_run(folder)


def files_line(out: Path) -> str:
    """The line naming the run folder's files (once the folder is in place)."""
    import json

    try:
        plots = json.loads((out / "result.json").read_text(encoding="utf-8")).get("plots")
    except (OSError, ValueError, AttributeError):
        plots = None
    line = f"\nresult: {out / 'result.json'}  per-query: {out / 'per_query.csv'}"
    if isinstance(plots, list):
        line += "  plots: " + (", ".join(str(out / str(p)) for p in plots) or "none")
    return line


def execute(config: EvaluateConfig, console: bool = False) -> Tuple[int, Path, Optional[dict]]:
    """Run ``config``: the exit code, the run folder and the suite's outcome (``{"result": ...,
    "per_query": ..., ...}``; None for a suite that only has ``run``). Every check that needs no
    model or data comes first. ``console``: print the suite's console report on stdout, as
    ``bench evaluate`` does (the command calls this with True); otherwise nothing is printed on
    stdout (status lines go to stderr)."""
    from bench.encoding.executor import make_executor

    args = config
    suite, measures = _checked_options(args)
    spec = _model_spec(args, suite)
    _check_targets(args, spec)
    executor = make_executor(args.executor, args.address)  # a bad --executor / --address fails before loading
    try:
        dataset = _dataset(args, suite, measures)
        spec = _with_dataset(spec, dataset, args)
        out = _run_folder(args, suite, spec, dataset)
        code, outcome = _run_suite(args, suite, spec, dataset, measures, out, executor, console)
        if console:
            print(files_line(Path(out)))
        return code, Path(out), outcome
    finally:
        shutdown = getattr(executor, "shutdown", None)
        if shutdown is not None:
            shutdown()


def _checked_options(args: EvaluateConfig):
    """The suite and the measures, after every check of the options and the dataset's form (the
    one place, bench.config.check_options): before any model or data is loaded."""
    import sys

    from bench.config import check_options
    from bench.evaluation.measures import trec_eval_notes
    from bench.results.suite import SUITES, suite_named

    suite = suite_named(SUITES.canonical(args.suite))
    measures = check_options(args, suite)
    for note in trec_eval_notes(args.metrics):
        print(f"bench: --metrics {note}", file=sys.stderr)
    return suite, measures


def _model_spec(args: EvaluateConfig, suite):
    """The model's spec (a registered name, a folder or a model object, identified by its outputs on
    the probe texts), with the options' overrides, said on stderr."""
    import dataclasses
    import sys

    from bench.config import check_label, check_model_overrides
    from bench.encoding import runtime
    from bench.encoding.objects import identify
    from bench.models.objects import is_encoder_object, object_spec
    from bench.models.spec import resolve_model

    obj = is_encoder_object(args.model)
    if obj:
        _check_object_options(args, suite)
        spec = object_spec(args.model, name=None if args.name is None else check_label(args.name),
                           revision=args.revision, similarity=args.similarity, batch_size=args.batch_size)
        spec = identify(spec, args.batch_size)
    elif args.revision is not None:
        raise BenchError("revision= identifies a model object; a registered name or a folder has its own identity "
                         "(its files). Fix: remove revision=")
    else:
        spec = resolve_model(args.model)
    check_model_overrides(args, spec)
    spec = spec.with_overrides(
        pooling=args.pooling, similarity=args.similarity, query_prefix=args.query_prefix,
        passage_prefix=args.passage_prefix, max_query_length=args.max_query_length,
        max_passage_length=args.max_passage_length)
    if args.name is not None:
        spec = dataclasses.replace(spec, name=check_label(args.name))
    if not obj:
        spec = runtime.apply(spec, args.device, args.dtype, args.backend)
    print(spec.describe(), file=sys.stderr)
    if spec.kind == "dense" and runtime.record(spec) is not None:
        print(runtime.describe(spec), file=sys.stderr)
    return spec


def _check_object_options(args: EvaluateConfig, suite) -> None:
    if not getattr(suite, "takes_objects", False):
        raise BenchError(f"--suite {suite.name} trains or loads the model's weights; a model object can be "
                         f"evaluated by --suite variations. Fix: give a model folder, or suite='variations'")
    for flag, value, default in (("device", args.device, "auto"), ("dtype", args.dtype, None),
                                 ("backend", args.backend, "torch"), ("executor", args.executor, "local")):
        if value not in (default, None):
            raise BenchError(f"{flag}={value!r} applies to model folders; a model object runs where it is. "
                             f"Fix: remove {flag}=")


def _check_targets(args: EvaluateConfig, spec) -> None:
    """An explicit --out, the cache home and the batch's memory, before any data is read."""
    from bench.core.paths import check_cache_home, check_writable_folder
    from bench.core.written import check_folder_replaceable
    from bench.encoding.memory import check_batch_memory
    from bench.models.objects import ObjectSpec

    if args.out is not None:
        check_writable_folder(args.out, "--out", "give --out a new or writable folder")
        check_folder_replaceable(args.out, "--out", bool(getattr(args, "force", False)), "give --out a new folder")
    if spec.kind == "dense":
        check_cache_home()
        if not isinstance(spec, ObjectSpec):
            check_batch_memory(spec, args.batch_size)


def _dataset(args: EvaluateConfig, suite, measures):
    """The dataset through the one door (bench.data.door), restricted to --queries, and the depth."""
    from bench.config import set_depth
    from bench.data.collections import restrict_queries
    from bench.data.door import open_dataset

    dataset = open_dataset(args.dataset, args.dataset_name, args.split)
    if args.queries is not None:
        dataset = restrict_queries(dataset, args.queries)
    set_depth(args, suite, measures, len(dataset.corpus))  # before any encoding
    return dataset


def _with_dataset(spec, dataset, args: EvaluateConfig):
    """A named model object's spec with the fingerprint of its outputs on the dataset's sample texts
    (its cache key: bench.encoding.objects)."""
    from bench.encoding.objects import with_sample
    from bench.models.objects import ObjectSpec

    return with_sample(spec, dataset, args.batch_size) if isinstance(spec, ObjectSpec) else spec


def _run_folder(args: EvaluateConfig, suite, spec, dataset) -> Path:
    """--out, or the default run folder (checked: writable, not another dataset's, replaceable)."""
    import sys

    from bench.config import _refuse_other_dataset, default_out, slug
    from bench.core.io import safe_name
    from bench.core.paths import check_writable_folder
    from bench.core.written import check_folder_replaceable

    if args.out is not None:  # checked before any work
        return Path(args.out)
    label = safe_name(spec.name, "model") if args.name is not None else slug(spec.name)
    out, changed = default_out(args, suite, label, dataset.name)
    check_writable_folder(out, "--out", "give --out a new or writable folder")
    _refuse_other_dataset(out, dataset)
    check_folder_replaceable(out, "run folder", bool(getattr(args, "force", False)), "give --out a new folder")
    if changed:
        print(f"run folder {out} (options that change the result: {' '.join(changed)})", file=sys.stderr)
    return Path(out)


def _run_suite(args, suite, spec, dataset, measures, out: Path, executor, console: bool):
    """The suite, written beside the old folder and swapped in when complete (a failed rerun keeps
    the previous run): its exit code and outcome (None for a suite that only has ``run``)."""
    import dataclasses

    from bench.core.written import replace_folder
    from bench.encoding.objects import scratch_root

    with scratch_root(spec) as scratch, replace_folder(out, "evaluate", bool(getattr(args, "force", False))) \
            as staging:
        if scratch is not None:  # an unnamed model object: its vectors for this run only
            spec = dataclasses.replace(spec, scratch=str(scratch))
        if console or not getattr(suite, "returns_results", False):  # the command, or a suite that only has run()
            return int(suite.run(args, spec, dataset, measures, staging, executor) or 0), None
        return 0, suite.evaluate(suite.config_from_args(args, measures), spec, dataset, staging, executor)
