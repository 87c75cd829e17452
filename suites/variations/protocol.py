"""The protocol of a variations run (``--protocol validated|rodr``): the value result.json records
and the console block that names it; under ``rodr`` (the paper's unconstrained operations) the
block adds the validity proxy rates of :mod:`perturb.checks.audit` for each set, so a user sees what the
unconstrained sets do to the queries (synonym / antonym shares of the substitutions, stop-word and
number targets, non-words, pivot-language words, ...)."""
from __future__ import annotations

from typing import Sequence

from perturb import DEFAULT_PROTOCOL, describe_protocol
from perturb.io.sets import VariationSet, protocol_of


def run_protocol(variation_sets: Sequence[VariationSet], protocol: str, frozen: bool) -> str:
    """What result.json's ``protocol`` says: the option's value for generated sets; for frozen sets
    the protocols their configs record (:func:`perturb.io.sets.protocol_of`), joined with "+" when mixed."""
    if not frozen:
        return protocol
    found = sorted({protocol_of(vs) for vs in variation_sets})
    return "+".join(found) if found else DEFAULT_PROTOCOL


def protocol_report(result: dict, sets: Sequence[VariationSet]) -> str:
    """``protocol: ...`` and, for a run with rodr sets, the proxy-rate table of the applied pairs."""
    protocol = str(result.get("protocol", DEFAULT_PROTOCOL))
    lines = [describe_protocol(protocol)]
    if "rodr" in protocol.split("+") and sets:
        from perturb.checks.audit import audit_table, format_audit

        original = sets[0]
        originals = dict(zip(original.qids, original.texts))
        rows = audit_table([vs for vs in sets[1:] if vs.status == "ok"], originals)
        if rows:
            lines.append("validity proxies of the applied pairs (perturb.checks.audit; % of applied pairs, syn%/ant% of the "
                         "word substitutions): the rodr sets are not constrained to keep the information need")
            lines.append(format_audit(rows).rstrip("\n"))
    return "\n".join(lines) + "\n"
