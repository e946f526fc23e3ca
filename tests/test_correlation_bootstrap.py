"""course_lib.evaluation.correlation's resampling helpers against plain scipy on explicitly repeated rows."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from course_lib.evaluation import correlation


def _repeat(weights_row):
    return np.repeat(np.arange(len(weights_row)), weights_row.astype(int))


def test_cluster_weights_keep_clusters_together_and_draw_as_many_clusters():
    clusters = np.array(["a", "a", "b", "c", "c", "c"])
    w = correlation.cluster_weights(clusters, 200, seed=1)
    assert w.shape == (200, 6)
    assert (w[:, 0] == w[:, 1]).all() and (w[:, 3] == w[:, 4]).all() and (w[:, 4] == w[:, 5]).all()
    draws = w[:, [0, 2, 3]].sum(axis=1)  # one weight per cluster
    assert (draws == 3).all()
    assert not (w == w[0]).all()  # resamples differ


def test_weighted_statistics_equal_scipy_on_repeated_rows():
    rng = np.random.default_rng(0)
    x = rng.normal(size=120)
    y = x + rng.normal(size=120)
    scores = np.round(rng.normal(size=120), 1)  # ties
    labels = rng.integers(0, 2, size=120)
    w = correlation.cluster_weights(np.arange(120) // 3, 5, seed=2)
    r = correlation.weighted_pearson(x, y, w)
    auc = correlation.weighted_roc_auc(scores, labels, w)
    for b in range(5):
        idx = _repeat(w[b])
        assert r[b] == pytest.approx(stats.pearsonr(x[idx], y[idx]).statistic, abs=1e-12)
        assert auc[b] == pytest.approx(correlation.roc_auc(scores[idx], labels[idx]), abs=1e-12)


def test_kendall_tau_rows_equals_scipy_tau_b_with_ties():
    rng = np.random.default_rng(3)
    x = np.round(rng.normal(size=(6, 16)), 1)
    y = x + rng.normal(size=(6, 16))
    y[0, :4] = 1.0
    got = correlation.kendall_tau_rows(x, y)
    for b in range(6):
        assert got[b] == pytest.approx(stats.kendalltau(x[b], y[b]).statistic, abs=1e-12)


def test_bootstrap_auc_difference_sign_and_interval():
    rng = np.random.default_rng(4)
    labels = rng.integers(0, 2, size=400)
    good, bad = labels + rng.normal(size=400), rng.normal(size=400)
    d = correlation.bootstrap_auc_difference(good, bad, labels, n_resamples=500, seed=0)
    assert d.delta == pytest.approx(correlation.roc_auc(good, labels) - correlation.roc_auc(bad, labels))
    assert d.low < d.delta < d.high and d.significant and d.low > 0
    swapped = correlation.bootstrap_auc_difference(bad, good, labels, n_resamples=500, seed=0)
    assert swapped.high < 0


def test_clustered_bootstrap_is_wider_when_clusters_are_duplicates():
    rng = np.random.default_rng(5)
    h = rng.normal(size=60)
    a, b = h + rng.normal(size=60), h + 1.5 * rng.normal(size=60)
    rep = np.tile(np.arange(60), 5)  # every segment five times: 60 independent units, not 300
    iid = correlation.bootstrap_difference(h[rep], a[rep], b[rep], n_resamples=1000, seed=0)
    clustered = correlation.bootstrap_difference(h[rep], a[rep], b[rep], n_resamples=1000, seed=0, clusters=rep)
    assert clustered.delta == pytest.approx(iid.delta)
    assert clustered.high - clustered.low > 1.5 * (iid.high - iid.low)
    with pytest.raises(ValueError):
        correlation.bootstrap_difference(h, a, b, method="kendall", clusters=np.arange(60))


def test_system_level_bootstrap_matches_system_level_on_identity_weights():
    rng = np.random.default_rng(6)
    df = pd.DataFrame({"doc_id": np.repeat(np.arange(10), 5), "system": np.tile(list("abcde"), 10)})
    df["m"] = rng.normal(size=50) + np.tile(np.arange(5), 10) * 0.3
    df["h"] = df["m"] + rng.normal(size=50)
    boot = correlation.system_level_bootstrap(df, ["m"], ["h"], n_resamples=300, seed=0)
    assert boot.shape == (300, 1, 1)
    point = correlation.system_level(df, ["m"], ["h"]).loc["m", "h"]
    assert boot.min() <= point <= boot.max() and boot.std() > 0


def test_mean_ci_covers_the_mean():
    x = np.random.default_rng(7).normal(loc=2.0, size=50)
    low, high = correlation.mean_ci(x, seed=0)
    assert low < x.mean() < high
