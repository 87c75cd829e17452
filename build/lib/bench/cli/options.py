"""Declared options (:class:`bench.core.options.Option`) turned into argparse arguments: the only
place outside the command modules where argparse is used."""
from __future__ import annotations

from typing import Iterable, Set

from bench.core.options import Option


def add_options(group, options: Iterable[Option], taken: Set[str] = None) -> None:
    """Add each option to an argparse parser or group; options whose dest is in ``taken`` (already
    added by another group) are skipped, and the dests added are recorded in ``taken``."""
    for opt in options:
        if taken is not None:
            if opt.dest in taken:
                continue
            taken.add(opt.dest)
        group.add_argument(*opt.flags, **opt.settings)
