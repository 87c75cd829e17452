"""The paper protocol (``--protocol rodr``): RoDR's eight operations as TextFlint / TextAttack
define them, without the validity constraints (``paper``, ``paper_swap``).

Registered in :data:`perturb.PAPER_GENERATORS`; reuses resource readers and MISSPELL's tables, so
it sits above :mod:`perturb.generators`."""
