"""``python -m perturb.tuning``: see :mod:`perturb.tuning.commands`."""
import sys

from perturb.tuning.commands import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
