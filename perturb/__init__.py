"""Query-variation generators (RoDR, IJCAI 2022, Sec. 2.1), registered lazily by name.

Third-party generators register through the entry-point group ``drbench.generators``; the
entry point names a zero-argument callable (usually the class) returning a
:class:`perturb.base.Generator`.
"""
from bench.core.registry import Registry

GENERATORS: Registry = Registry("generator", "drbench.generators")

# The eight sets of the RoDR paper, in the paper's order.
PAPER_ORDER = (
    "MISSPELL",
    "EXTRAPUNC",
    "BACKTRANS",
    "SWAPSYN-GLOVE",
    "SWAPSYN-WNET",
    "TRANSTENSE",
    "NOSTOPWORD",
    "SWAPWORDS",
)

GENERATORS.register("MISSPELL", "perturb.generators.misspell:Misspell")
GENERATORS.register("EXTRAPUNC", "perturb.generators.punctuation:ExtraPunc")
GENERATORS.register("BACKTRANS", "perturb.generators.backtrans.generator:BackTranslate")
GENERATORS.register("SWAPSYN-GLOVE", "perturb.generators.swapsyn.glove:SwapSynGlove")
GENERATORS.register("SWAPSYN-WNET", "perturb.generators.swapsyn.wordnet:SwapSynWordNet")
GENERATORS.register("TRANSTENSE", "perturb.generators.tense:TransTense")
GENERATORS.register("NOSTOPWORD", "perturb.generators.stopwords:NoStopword")
GENERATORS.register("SWAPWORDS", "perturb.generators.swapwords.generator:SwapWords")


# The paper protocol (--protocol rodr): the same eight set names, run as RoDR's TextFlint /
# TextAttack operations define them, without the validity constraints (perturb/rodr/paper*.py).
PAPER_GENERATORS: Registry = Registry("rodr-protocol generator")
PAPER_GENERATORS.register("MISSPELL", "perturb.rodr.edits:PaperMisspell")
PAPER_GENERATORS.register("EXTRAPUNC", "perturb.rodr.edits:PaperExtraPunc")
PAPER_GENERATORS.register("BACKTRANS", "perturb.rodr.paper:PaperBackTranslate")
PAPER_GENERATORS.register("SWAPSYN-GLOVE", "perturb.rodr.paper_swap:PaperSwapSynGlove")
PAPER_GENERATORS.register("SWAPSYN-WNET", "perturb.rodr.paper_swap:PaperSwapSynWordNet")
PAPER_GENERATORS.register("TRANSTENSE", "perturb.rodr.paper:PaperTransTense")
PAPER_GENERATORS.register("NOSTOPWORD", "perturb.rodr.edits:PaperNoStopword")
PAPER_GENERATORS.register("SWAPWORDS", "perturb.rodr.edits:PaperSwapWords")

#: protocol -> the registry of its generators (``validated`` is the default everywhere)
PROTOCOLS = {"validated": GENERATORS, "rodr": PAPER_GENERATORS}
DEFAULT_PROTOCOL = "validated"
PROTOCOL_DESCRIPTIONS = {
    "validated": "the validated operations: no edit that would change the information need",
    "rodr": "the paper's unconstrained operations",
}


def describe_protocol(protocol: str) -> str:
    """The line that names a run's protocol: ``protocol: rodr (the paper's unconstrained operations)``."""
    what = PROTOCOL_DESCRIPTIONS.get(protocol, "sets read from files, as their configs record them")
    return f"protocol: {protocol} ({what})"


def registry_of(protocol: str) -> Registry:
    """The generator registry of ``protocol`` ("validated" or "rodr"); ValueError for another."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}; choose from {', '.join(PROTOCOLS)}")
    return PROTOCOLS[protocol]


def make(name: str, protocol: str = DEFAULT_PROTOCOL, **kwargs):
    """Instantiate the generator registered under ``name`` in ``protocol``'s registry."""
    return registry_of(protocol).get(name)(**kwargs)

