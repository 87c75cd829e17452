"""Where the generators' thresholds and fitted weights come from, kept apart from the product.

A threshold is written once, in its generator's :class:`perturb.spec.Spec`; its
:class:`perturb.spec.Tuning` names the labelled set it was chosen on (a file of
``perturb/data/validity/``) and the rule that chose it. This package holds those rules
(:mod:`perturb.tuning.rules`, :func:`rederive`), SWAPWORDS's kind table (:mod:`perturb.tuning.kinds`)
and the command line ``python -m perturb.tuning`` (``thresholds``, ``curve``, ``kinds``). The synonym
swaps' chooser is fitted outside the package (``benchmarks/lexsub/fit.py``).

The top layer of :mod:`perturb`: it reads the generators and :mod:`perturb.checks`; nothing of the
product imports it.
"""
from perturb.tuning.rules import RULES, NoThreshold, labelled_file, rederive

__all__ = ["RULES", "NoThreshold", "labelled_file", "rederive"]
