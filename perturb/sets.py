"""``perturb.sets`` is :mod:`perturb.io.sets` (moved there with the sub-packages; the name stays
for plugins and scripts): importing it gives the very same module object."""
import sys

from perturb.io import sets as _sets

sys.modules[__name__] = _sets
