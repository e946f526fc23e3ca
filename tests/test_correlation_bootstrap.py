"""course_lib.evaluation.correlation's resampling helpers against plain scipy on explicitly repeated rows."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from course_lib.evaluation import bootstrap_loops, correlation


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


# ---------------------------------------------------------------- the taught loops equal the vectorised functions

def test_cluster_resamples_draw_what_cluster_weights_weigh():
    clusters = np.array(["b", "a", "a", "c", "b", "c", "c"])
    w = correlation.cluster_weights(clusters, 50, seed=3)
    resamples = bootstrap_loops.cluster_resamples(clusters, 50, seed=3)
    for weights, rows in zip(w, resamples):
        assert (np.bincount(rows, minlength=len(clusters)) == weights).all()


def test_bootstrap_difference_loop_equals_vectorised():
    rng = np.random.default_rng(8)
    h = rng.normal(size=90)
    a, b = h + rng.normal(size=90), h + 2 * rng.normal(size=90)
    src = rng.integers(0, 40, size=90)
    fast = correlation.bootstrap_difference(h, a, b, n_resamples=200, seed=4, clusters=src)
    slow = bootstrap_loops.bootstrap_difference_loop(h, a, b, clusters=src, n_resamples=200, seed=4)
    assert (slow.delta, slow.low, slow.high) == pytest.approx((fast.delta, fast.low, fast.high), abs=1e-12)


def test_bootstrap_auc_difference_loop_equals_vectorised():
    rng = np.random.default_rng(9)
    labels = rng.integers(0, 2, size=150)
    a, b = np.round(labels + rng.normal(size=150), 1), np.round(rng.normal(size=150), 1)  # ties
    for clusters in (None, np.arange(150) // 2):
        fast = correlation.bootstrap_auc_difference(a, b, labels, clusters=clusters, n_resamples=200, seed=5)
        slow = bootstrap_loops.bootstrap_auc_difference_loop(a, b, labels, clusters=clusters, n_resamples=200, seed=5)
        assert (slow.delta, slow.low, slow.high) == pytest.approx((fast.delta, fast.low, fast.high), abs=1e-12)


def test_roc_auc_by_counting_equals_roc_auc():
    rng = np.random.default_rng(10)
    labels = rng.integers(0, 2, size=80)
    scores = np.round(rng.normal(size=80) + labels, 1)
    assert bootstrap_loops.roc_auc_by_counting(scores, labels) == pytest.approx(correlation.roc_auc(scores, labels),
                                                                            abs=1e-12)
    assert bootstrap_loops.roc_auc_by_counting([0.2, 0.9, 0.5, 0.5], [0, 1, 1, 0]) == pytest.approx(0.875)


@pytest.fixture(scope="module")
def summeval_like():
    rng = np.random.default_rng(11)
    df = pd.DataFrame({"doc_id": np.repeat([7, 3, 9, 1, 5, 2], 5), "system": np.tile(list("abcde"), 6)})
    df["m"] = rng.normal(size=30) + np.tile(np.arange(5), 6) * 0.3
    df["n"] = rng.normal(size=30)
    df["h"] = np.round(df["m"] + rng.normal(size=30))  # ties
    df.loc[df.doc_id == 9, "h"] = 2.0  # constant ratings in one document: NaN, left out
    return df


def test_system_level_bootstrap_loop_equals_vectorised(summeval_like):
    fast = correlation.system_level_bootstrap(summeval_like, ["m", "n"], ["h"], n_resamples=40, seed=6)
    slow = bootstrap_loops.system_level_bootstrap_loop(summeval_like, ["m", "n"], ["h"], n_resamples=40, seed=6)
    assert slow.shape == fast.shape == (40, 2, 1)
    np.testing.assert_allclose(slow, fast, atol=1e-12)


def test_summary_level_bootstrap_loop_equals_vectorised(summeval_like):
    fast = correlation.summary_level_bootstrap(summeval_like, ["m", "n"], ["h"], n_resamples=40, seed=7)
    slow = bootstrap_loops.summary_level_bootstrap_loop(summeval_like, ["m", "n"], ["h"], n_resamples=40, seed=7)
    assert fast.shape == (40, 2, 1)
    np.testing.assert_allclose(slow, fast, atol=1e-12)
    point = correlation.summary_level(summeval_like, ["m", "n"], ["h"])
    assert fast.min(axis=0)[0, 0] <= point.loc["m", "h"] <= fast.max(axis=0)[0, 0]


def test_difference_p_is_read_from_the_same_resamples_as_the_interval():
    from course_lib.evaluation.correlation import bootstrap_p

    rng = np.random.default_rng(7)
    h = rng.normal(size=90)
    a, b = h + 0.5 * rng.normal(size=90), h + 2.0 * rng.normal(size=90)
    clusters = np.arange(90) // 3
    d = correlation.bootstrap_difference(h, a, b, n_resamples=400, seed=3, clusters=clusters)
    w = correlation.cluster_weights(clusters, 400, seed=3)
    diffs = correlation.weighted_pearson(a, h, w) - correlation.weighted_pearson(b, h, w)
    assert d.p == bootstrap_p(diffs) and d.low > 0 and d.p < 0.05
    labels = (h > 0).astype(int)
    auc = correlation.bootstrap_auc_difference(a, b, labels, clusters=clusters, n_resamples=400, seed=3)
    auc_diffs = correlation.weighted_roc_auc(a, labels, w) - correlation.weighted_roc_auc(b, labels, w)
    assert auc.p == bootstrap_p(auc_diffs)
    for method in ("spearman", "kendall"):  # scipy's resamples: the verdicts of p and interval agree
        s = correlation.bootstrap_difference(h, a, b, method=method, n_resamples=400, seed=3)
        assert s.low > 0 and s.p < 0.05
        same = correlation.bootstrap_difference(h, a, a, method=method, n_resamples=400, seed=3)
        assert same.p == 1.0
    noise = correlation.bootstrap_difference(h, a, a + 0.3 * rng.normal(size=90), n_resamples=400, seed=3)
    assert (noise.low < 0 < noise.high) == (noise.p >= 0.05)
