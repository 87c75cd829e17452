"""The command line: the only place argparse lives."""
from bench.cli.main import main

__all__ = ["main"]
