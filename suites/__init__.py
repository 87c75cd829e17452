"""Suite definitions, registered lazily by name (entry-point group ``drbench.suites``)."""
from bench.core.registry import Registry

SUITES: Registry = Registry("suite", "drbench.suites")
SUITES.register("variations", "suites.variations:run")
SUITES.register("fewshot", "suites.fewshot:run")
SUITES.register("domain", "suites.domain:run")
