"""The built-in suites: variations, fewshot, domain, one sub-package each. Each package exposes
``SUITE``, an object of the Suite protocol (:mod:`bench.results.suite`, where the registry
``SUITES`` lives and the built-ins are registered lazily as ``suites.<name>:SUITE``), from its
``suite`` module."""
