"""The built-in suites: variations, fewshot, domain. Each module defines ``SUITE``, an object of the
Suite protocol (:mod:`bench.results.suite`, where the registry ``SUITES`` lives and the
built-ins are registered lazily)."""
