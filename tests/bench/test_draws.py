"""bench.evaluation.draws: the several-draws figures of one set."""
import numpy as np
import pytest

from bench.evaluation.draws import components, draw_summary, per_draw_drops
from bench.evaluation.skew import DROP_RATE, skew_t_ci


def test_summary_against_hand_computation():
    rng = np.random.default_rng(0)
    o = rng.random(40)
    v = np.clip(o[:, None] - rng.random((40, 4)) * 0.3, 0, 1)
    s = draw_summary(o, v)
    drops = (o.mean() - v.mean(axis=0)) / o.mean()
    assert s["drop_rates"] == pytest.approx(list(drops))
    assert s["drop_rate_mean"] == pytest.approx(drops.mean())
    assert s["drop_rate_sd"] == pytest.approx(np.std(drops, ddof=1))
    assert s["drop_rate_ci"] == pytest.approx(list(skew_t_ci(np.c_[o, v.mean(axis=1)], DROP_RATE)))
    assert s["worst_drop_rate_ci"] == pytest.approx(list(skew_t_ci(np.c_[o, v.min(axis=1)], DROP_RATE)))
    assert s["n_changed"] == 40 and s["interval_note"] is None
    assert s["worst_metric"] == pytest.approx(v.min(axis=1).mean())
    assert s["worst_drop_rate"] == pytest.approx(1 - v.min(axis=1).mean() / o.mean())
    assert s["metric_per_draw"] == pytest.approx(list(v.mean(axis=0)))


def test_components_extremes():
    o = np.linspace(0.1, 1.0, 30)
    same = np.repeat((o * 0.8)[:, None], 5, axis=1)  # every draw alike: no draw variance
    c = components(o, same)
    assert c["within"] == pytest.approx(0.0, abs=1e-30) and c["draw_share_1"] == pytest.approx(0.0, abs=1e-12)
    rng = np.random.default_rng(1)
    noisy = np.full((30, 5), 0.5) + rng.normal(0, 0.1, (30, 5))  # queries alike, draws differ
    c = components(np.full(30, 0.6), noisy)
    assert c["draw_share_1"] > 0.8 and c["draw_share_G"] <= c["draw_share_1"]
    mixed = o[:, None] * 0.7 + rng.normal(0, 0.1, (30, 5))  # both sources: G draws shrink the draw's share
    c = components(o, mixed)
    g1, gg = c["draw_share_1"], c["draw_share_G"]
    assert 0 < gg < g1 < 1 and gg == pytest.approx((g1 / 5) / (g1 / 5 + 1 - g1))
    assert np.isnan(components(o, same[:, :1])["within"])  # one draw: undefined


def test_degenerate_inputs():
    s = draw_summary(np.zeros(5), np.zeros((5, 3)))
    assert s["drop_rates"] == [None, None, None] and s["drop_rate_mean"] is None and s["drop_rate_sd"] is None
    assert np.all(np.isnan(per_draw_drops(np.zeros(3), np.ones((3, 2)))))
    with pytest.raises(ValueError):
        draw_summary(np.ones(4), np.ones((3, 2)))
