"""Where the generators' thresholds and fitted weights come from, kept apart from the product.

A threshold is written once, in its generator's :class:`perturb.spec.Spec`; its
:class:`perturb.spec.Tuning` names the labelled set it was chosen on (a file of
``benchmarks/data/validity/``) and the rule that chose it. This package holds those rules
(:mod:`benchmarks.tuning.rules`, :func:`rederive`), the logistic fit that writes the synonym verifier's
weights (:mod:`benchmarks.tuning.fit`), SWAPWORDS's kind table (:mod:`benchmarks.tuning.kinds`) and the
command line ``python -m benchmarks.tuning`` (``thresholds``, ``fit``, ``curve``, ``kinds``).

Part of the lab, not of the installed packages: it reads the generators and :mod:`perturb.checks`;
nothing in bench, perturb or suites imports it (pyproject.toml's import-linter contracts). Run it
from the repository root.
"""
from benchmarks.tuning.rules import RULES, NoThreshold, labelled_file, rederive

__all__ = ["RULES", "NoThreshold", "labelled_file", "rederive"]
