"""pair_statistics (domain suite's DDR claims) against scipy and statsmodels, edge cases included."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from bench.evaluation.stats import pair_statistics


def _table():
    rng = np.random.default_rng(4)
    n = 30
    base = rng.uniform(0, 1, n)
    sets = {"A": base, "B": np.clip(base + rng.normal(0.08, 0.1, n), 0, 1), "C": base.copy(),
            "D": np.clip(base - rng.normal(0.02, 0.2, n), 0, 1)}
    sets["D"][3] = np.nan  # a query without a value is left out of that pair only
    rows = [{"set": s, "qid": f"q{i}", "applied": 0, "M": float(v[i]), "N": float(v[i] ** 2)}
            for s, v in sets.items() for i in range(n)]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("correction", ["holm", "bh"])
def test_pairs_match_scipy_and_statsmodels(correction):
    df = _table()
    pairs = [("B", "A"), ("C", "A"), ("D", "A")]
    out = pair_statistics(df, pairs, ["M", "N"], correction=correction)
    assert [p["name"] for p in out["pairs"]] == ["B vs A", "C vs A", "D vs A"]
    for m in ("M", "N"):
        raw = []
        for sys_, ref in pairs:
            a = df[df["set"] == ref].set_index("qid")[m]
            b = df[df["set"] == sys_].set_index("qid")[m]
            ok = a.notna() & b.notna()
            c = out["comparisons"][f"{sys_} vs {ref}"][m]
            assert c["n"] == int(ok.sum())
            if sys_ == "C":  # identical sets: every difference is zero -> p = 1 (scipy gives NaN)
                assert c["p_value"] == 1.0 and c["delta"] == 0.0
            else:
                assert c["p_value"] == pytest.approx(stats.ttest_rel(b[ok], a[ok]).pvalue, rel=1e-9)
                assert c["mean_original"] == pytest.approx(a[ok].mean()) and c["mean_variation"] == pytest.approx(b[ok].mean())
            raw.append(c["p_value"])
        method = "holm" if correction == "holm" else "fdr_bh"
        adj = multipletests(raw, method=method)[1]
        got = [out["comparisons"][f"{s} vs {r}"][m]["p_corrected"] for s, r in pairs]
        assert got == pytest.approx(list(adj), rel=1e-9)
        assert out["header"]["family_size"][m] == 3
    assert out["header"]["correction"] == correction and "pairs listed" in out["header"]["family"]


def test_single_pair_is_its_own_family_and_wilcoxon_matches_scipy():
    df = _table()
    out = pair_statistics(df, [("B", "A")], ["M"], test="wilcoxon")
    a = df[df["set"] == "A"]["M"].to_numpy()
    b = df[df["set"] == "B"]["M"].to_numpy()
    c = out["comparisons"]["B vs A"]["M"]
    assert c["p_value"] == pytest.approx(stats.wilcoxon(b - a, method="exact").pvalue, rel=1e-9)
    assert c["p_corrected"] == c["p_value"]  # a family of one is not adjusted
