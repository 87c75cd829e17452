"""``perturb.importers`` is :mod:`perturb.io.importers` (moved there with the sub-packages; the
name stays for plugins and scripts): importing it gives the very same module object."""
import sys

from perturb.io import importers as _importers

sys.modules[__name__] = _importers
