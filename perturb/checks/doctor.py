"""`bench doctor`: every generator's resources, where each was found, how to install the rest."""
from __future__ import annotations

from typing import List, Tuple

from perturb.base import Resource
from perturb import GENERATORS


def doctor_rows() -> List[Tuple[str, Resource]]:
    """(generator name, Resource) for every registered generator; a generator that cannot even be
    constructed appears with one not-found Resource carrying the error."""
    rows: List[Tuple[str, Resource]] = []
    for name in GENERATORS.names():
        try:
            gen = GENERATORS.get(name)()
            resources = gen.resources()
            label = gen.label
        except Exception as exc:  # noqa: BLE001 - report, never crash the doctor
            rows.append((name, Resource("generator", False, note=f"{type(exc).__name__}: {exc}",
                                        install="see the error")))
            continue
        if not resources:
            rows.append((label, Resource("(no external resource)", True, where="built in")))
        for res in resources:
            rows.append((label, res))
    return rows


def format_doctor(rows: List[Tuple[str, Resource]] = None) -> str:
    rows = doctor_rows() if rows is None else rows
    table = [("generator", "resource", "status", "where / install")]
    for gen, res in rows:
        status = "ok" if res.found else "MISSING"
        where = res.where if res.found else f"install: {res.install}"
        if res.note:
            where += f"  ({res.note})"
        table.append((gen, res.name, status, where))
    widths = [max(len(r[i]) for r in table) for i in range(3)]
    lines = ["  ".join(r[i].ljust(widths[i]) for i in range(3)) + "  " + r[3] for r in table]
    missing = [r for r in rows if not r[1].found]
    lines.extend(_backtrans_alternatives())
    lines.append("")
    lines.append("all resources found" if not missing else f"{len(missing)} resource(s) missing")
    return "\n".join(lines) + "\n"


def _backtrans_alternatives() -> List[str]:
    """Informational lines on the back-translation backends not in use (they do not fail doctor)."""
    try:
        from perturb.generators.backtrans.generator import BackTranslate
        from perturb.resources.translators import ApertiumTranslator, MarianTranslator

        active = BackTranslate().translator
        out = []
        for alt in (MarianTranslator(), ApertiumTranslator()):
            if (alt.backend, alt.pivot) == (active.backend, active.pivot):
                continue
            missing = [r for r in alt.resources() if not r.found]
            state = "available" if not missing else "not available: " + "; ".join(
                f"{r.name} (install: {r.install})" for r in missing)
            out.append(f"note: BACKTRANS[{alt.pivot},{alt.backend}] (alternative backend) {state}")
        return out
    except Exception as exc:  # noqa: BLE001
        return [f"note: back-translation backends could not be inspected: {exc}"]
