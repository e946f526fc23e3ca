"""Leave one language pair out: train on five WMT16 pairs, test on the sixth, six times.

The test pair's segments never reach training, so the correlation measures how the metric does on
texts (sources, systems, references) it has never seen: what a user of the metric meets.
"""
from __future__ import annotations

import numpy as np
import pandas as pd


def pair_splits(lps, refs=None) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """For each language pair p of `lps` [N]: (p, train positions [lp != p], test positions [lp == p]).

    refs [N] (each segment's reference), when given: training also loses every row whose reference
    occurs in the test pair (WMT16's English references are partly shared across pairs, so a test
    reference would otherwise reach training with another translation and its score). A reference
    shared by training pairs only stays: it never reaches the test set.
    """
    lps = np.asarray(lps)
    refs = None if refs is None else np.asarray(refs, dtype=object)
    splits = []
    for p in sorted(set(lps)):
        train, test = lps != p, lps == p
        if refs is not None:
            train &= ~np.isin(refs, refs[test])   # the test pair's references
        splits.append((p, np.flatnonzero(train), np.flatnonzero(test)))
    return splits


def leave_one_pair_out(lps, fit_predict, splits=pair_splits) -> np.ndarray:
    """Out-of-pair predictions [N]: row i is predicted by a model trained without i's pair.

    fit_predict(train positions, test positions) -> the test rows' scores. `splits` makes the
    splits (`pair_splits`); a split whose training rows include its test pair is refused.
    """
    lps = np.asarray(lps)
    out = np.full(len(lps), np.nan)
    for pair, train, test in splits(lps):
        if np.isin(train, test).any() or (lps[train] == pair).any():
            raise ValueError(f"the split for {pair} trains on segments of {pair}: that is a leak")
        out[test] = np.asarray(fit_predict(train, test), dtype=float)
    return out


def correlation_interval(human, metric, method: str = "pearson", n_resamples: int = 1000,
                         confidence: float = 0.95, seed: int = 0, clusters=None) -> tuple[float, float, float]:
    """r(metric, human) and its bootstrap percentile interval: (r, low, high).

    Segments are resampled with replacement (scipy.stats.bootstrap, paired, reproducible with
    `seed`), as `correlation.bootstrap_difference` does for a difference of two metrics; with
    `clusters` (Pearson only; one label per segment, e.g. its source), the rows of a cluster are
    drawn together (`correlation.cluster_weights`), as chapter 08 teaches.
    """
    from scipy import stats

    from course_lib.evaluation.bootstrap_loops import percentile_interval
    from course_lib.evaluation.correlation import cluster_weights, weighted_pearson

    if method not in ("pearson", "kendall"):
        raise ValueError(f"method must be 'pearson' or 'kendall', got {method!r}")
    if clusters is not None:
        if method != "pearson":
            raise ValueError("a cluster bootstrap is implemented for method='pearson' only")
        human, metric = np.asarray(human, dtype=float), np.asarray(metric, dtype=float)
        resampled = weighted_pearson(metric, human, cluster_weights(np.asarray(clusters), n_resamples, seed))
        return (float(stats.pearsonr(metric, human).statistic), *percentile_interval(resampled, confidence))

    def statistic(h, m, axis=-1):
        if method == "pearson":
            return stats.pearsonr(m, h, axis=axis).statistic
        return stats.kendalltau(m, h, axis=axis).statistic

    human, metric = np.asarray(human, dtype=float), np.asarray(metric, dtype=float)
    result = stats.bootstrap((human, metric), statistic, paired=True, vectorized=True, n_resamples=n_resamples,
                             confidence_level=confidence, method="percentile", rng=np.random.default_rng(seed))
    low, high = result.confidence_interval
    return float(statistic(human, metric)), float(low), float(high)


def per_pair(df: pd.DataFrame, metrics: list[str], human: str = "human_z", method: str = "pearson",
             n_resamples: int = 1000, seed: int = 0, clusters: str | None = None) -> pd.DataFrame:
    """`correlation_interval` of each metric per language pair -> rows (lp, metric, r, low, high).
    clusters: the column whose values are resampled together (e.g. "src"), or None."""
    rows = []
    for lp, g in df.groupby("lp"):
        for m in metrics:
            r, low, high = correlation_interval(g[human], g[m], method, n_resamples, seed=seed,
                                                clusters=None if clusters is None else g[clusters])
            rows.append({"lp": lp, "metric": m, "r": r, "low": low, "high": high})
    return pd.DataFrame(rows)
