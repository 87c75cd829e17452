"""`bench doctor`: list every generator's resources, where each was found, and the exact install
line for anything missing. Exit 0 when everything is found, else 1."""
from __future__ import annotations

import argparse

from perturb.checks import doctor as resources  # looked up at call time (tests substitute doctor_rows)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the table as JSON lines instead")


def run(args) -> int:
    rows = resources.doctor_rows()
    if getattr(args, "json", False):
        import json

        for gen, res in rows:
            print(json.dumps({"generator": gen, "resource": res.name, "found": res.found, "where": res.where,
                              "install": res.install, "note": res.note}, ensure_ascii=False))
    else:
        print(resources.format_doctor(rows), end="")
    return 0 if all(res.found for _, res in rows) else 1
