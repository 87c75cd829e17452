"""Suite ``fewshot``: the FewDR protocol (protocol and outputs: :mod:`suites.fewshot.suite`).

Modules, in import order (each imports only those above it):

- ``sampler``: class-wise few-shot sampling, the plan (:class:`FewShotPlan`);
- ``basic``: FewDR's basic learning (the zero-shot model), a content-keyed checkpoint;
- ``config``: :class:`FewShotConfig` and the suite's command-line options;
- ``metrics``: R@k hits, macro averages, winning ratio, boosting gradient, the headline tests;
- ``result``: the per-query table and the summary of the result file;
- ``output``: the console table and the plots;
- ``progress``: the plan line and the overall training progress;
- ``suite``: the run itself and :data:`SUITE` (registered as ``suites.fewshot:SUITE``).
"""
from suites.fewshot.config import FEWSHOT_OPTIONS, FewShotConfig, config_from
from suites.fewshot.sampler import FewShotPlan, build_plan
from suites.fewshot.suite import SUITE, FewShotSuite, render, run

__all__ = ["FEWSHOT_OPTIONS", "FewShotConfig", "FewShotPlan", "FewShotSuite", "SUITE", "build_plan", "config_from",
           "render", "run"]
