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

GENERATORS.register("MISSPELL", "perturb.misspell:Misspell")
GENERATORS.register("EXTRAPUNC", "perturb.punctuation:ExtraPunc")
GENERATORS.register("BACKTRANS", "perturb.backtrans:BackTranslate")
GENERATORS.register("SWAPSYN-GLOVE", "perturb.glove:SwapSynGlove")
GENERATORS.register("SWAPSYN-WNET", "perturb.wordnet:SwapSynWordNet")
GENERATORS.register("TRANSTENSE", "perturb.tense:TransTense")
GENERATORS.register("NOSTOPWORD", "perturb.stopwords:NoStopword")
GENERATORS.register("SWAPWORDS", "perturb.swapwords:SwapWords")


def make(name: str, **kwargs):
    """Instantiate the generator registered under ``name``."""
    return GENERATORS.get(name)(**kwargs)
