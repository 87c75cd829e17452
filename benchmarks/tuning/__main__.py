"""``python -m benchmarks.tuning``: see :mod:`benchmarks.tuning.commands`."""
import sys

from benchmarks.tuning.commands import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
