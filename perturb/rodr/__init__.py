"""The paper protocol (``--protocol rodr``): RoDR's eight operations as TextFlint / TextAttack
define them, with the paper's constraints instead of the validity constraints (``edits``,
``paper``, ``paper_swap``).

Registered in :data:`perturb.PAPER_GENERATORS`; each generator's spec is the validated
generator's transformation where the two share it (MISSPELL's draws and tables, EXTRAPUNC's marks,
SWAPWORDS' random swap, BACKTRANS' round trip), so it sits above :mod:`perturb.generators`."""
