"""Variation sets and their files: generating sets through the registries and writing / reading
them as TSV (``sets``), the content-addressed variation cache (``cache``), importers of RoDR-style
and Penha et al. files (``importers``).

Runs the generators by registered name only, so it imports no generator module.
``perturb.sets`` and ``perturb.importers`` remain names of ``sets`` and ``importers``."""
