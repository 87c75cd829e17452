"""drbench: robustness and few-shot benchmarks for dense retrieval models.

Importing this package does nothing heavy: no torch, faiss, spaCy or pandas, no downloads, no
writes. The Python API (:mod:`bench.api`: ``bench.evaluate``, ``bench.load_run``) is imported
on first use; so are ``bench.gate``, ``bench.compare`` and ``bench.leaderboard`` (the
commands' verdicts and tables from run objects) and ``bench.perturb`` (variations of a plain list
of queries).
"""
from bench.core.versions import __version__

__all__ = ["__version__", "evaluate", "load_run", "RunResult", "gate", "compare", "leaderboard", "perturb"]
_API = ("evaluate", "load_run", "RunResult", "gate", "compare", "leaderboard", "perturb")
_ALIASES = {"compare": "compare_runs"}  # bench.compare(run, run, ...) is bench.api.compare_runs


def __getattr__(name):  # PEP 562: the API is imported when first used
    if name in _API:
        from bench import api

        return getattr(api, _ALIASES.get(name, name))
    raise AttributeError(f"module 'bench' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_API))
