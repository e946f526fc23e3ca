"""Does a metric agree with people? Correlations, paired bootstrap intervals, ROC AUC.

Thin wrappers over pandas and scipy (no correlation formula is re-implemented here):

- segment level (WMT16 DA): for each language pair, the correlation over its segments between a
  metric and the human z-score; the paper reports Pearson's r, averaged over the pairs;
- a paired bootstrap for "metric A agrees better than metric B": resample the segments with
  replacement (the same rows for both metrics), recompute r_A - r_B, read the percentile interval;
- ROC AUC for labelled pairs (PAWS): AUC = U / (n1 n0), with U the Mann-Whitney statistic of the
  positives' scores against the negatives' scores;
- summarisation (SummEval): summary level (per document, across the systems' summaries, then the
  mean over documents) and system level (per-system means, then across the systems).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

METHODS = ("pearson", "spearman", "kendall")


def _check_method(method: str) -> None:
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")


def correlations(df: pd.DataFrame, metrics: list[str], human: str, by: str | None = None,
                 method: str = "pearson") -> pd.DataFrame:
    """Correlation of each metric column with the `human` column.

    by=None: one row, "all" (every row pooled). by="lp": one row per group, computed on that
    group's rows only. Returns a DataFrame [groups, metrics].
    """
    _check_method(method)
    if by is None:
        return df[metrics].corrwith(df[human], method=method).to_frame("all").T
    return df.groupby(by)[metrics].corrwith(df[human], method=method)


@dataclass
class Difference:
    """r(a, human) - r(b, human) on all rows, its bootstrap confidence interval [low, high], and the
    two-sided bootstrap p-value of "no difference" read from the same resamples
    (`bootstrap_p`; NaN where not computed), for Holm's correction over several verdicts."""

    delta: float
    low: float
    high: float
    p: float = float("nan")

    @property
    def significant(self) -> bool:
        """True when the interval excludes 0 (a's advantage, or b's, is not resampling noise)."""
        return self.low > 0 or self.high < 0


def _correlation_along_last_axis(method: str):
    if method == "pearson":
        return lambda x, y: stats.pearsonr(x, y, axis=-1).statistic
    if method == "spearman":  # Spearman = Pearson of the ranks
        return lambda x, y: stats.pearsonr(stats.rankdata(x, axis=-1), stats.rankdata(y, axis=-1),
                                           axis=-1).statistic
    return lambda x, y: stats.kendalltau(x, y, axis=-1).statistic


def cluster_weights(clusters, n_resamples: int, seed: int = 0) -> np.ndarray:
    """Row weights of a cluster bootstrap, [n_resamples, n].

    clusters: n labels (e.g. the source sentence of each segment). Each resample draws as many
    clusters as there are, with replacement; a row counts as often as its cluster was drawn, so
    rows that share a cluster stay together. With one cluster per row this is the ordinary
    bootstrap. A weighted statistic on these weights equals the statistic on the repeated rows.
    """
    _, cluster_of_row = np.unique(np.asarray(clusters), return_inverse=True)
    k = int(cluster_of_row.max()) + 1
    draws = np.random.default_rng(seed).integers(0, k, size=(n_resamples, k))
    offsets = (np.arange(n_resamples) * k)[:, None]
    counts = np.bincount((draws + offsets).ravel(), minlength=n_resamples * k).reshape(n_resamples, k)
    return counts[:, cluster_of_row].astype(float)


def weighted_pearson(x, y, w) -> np.ndarray:
    """Pearson's r of x and y [n] under row weights w [B, n] -> [B]:
    r = Σ w (x - x̄_w)(y - ȳ_w) / sqrt(Σ w (x - x̄_w)² · Σ w (y - ȳ_w)²)."""
    x, y, w = np.asarray(x, dtype=float), np.asarray(y, dtype=float), np.asarray(w, dtype=float)
    total = w.sum(axis=-1, keepdims=True)
    dx = x - (w * x).sum(axis=-1, keepdims=True) / total
    dy = y - (w * y).sum(axis=-1, keepdims=True) / total
    return (w * dx * dy).sum(axis=-1) / np.sqrt((w * dx * dx).sum(axis=-1) * (w * dy * dy).sum(axis=-1))


def weighted_roc_auc(scores, labels, w) -> np.ndarray:
    """ROC AUC of scores [n] for binary labels [n] under row weights w [B, n] -> [B].

    AUC = Σ_{i pos, j neg} w_i w_j ([s_i > s_j] + ½[s_i = s_j]) / (Σ_pos w · Σ_neg w); with all
    weights 1 it equals `roc_auc`. Computed per distinct score value (sorted), so ties count ½.
    """
    scores, labels = np.asarray(scores, dtype=float), np.asarray(labels)
    w = np.atleast_2d(np.asarray(w, dtype=float))
    order = np.argsort(scores, kind="stable")
    s = scores[order]
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])  # first row of each distinct value
    pos = np.add.reduceat((w * (labels == 1))[:, order], starts, axis=1)  # [B, distinct values]
    neg = np.add.reduceat((w * (labels == 0))[:, order], starts, axis=1)
    below = np.cumsum(neg, axis=1) - neg  # weight of negatives strictly below each value
    return (pos * (below + 0.5 * neg)).sum(axis=1) / (pos.sum(axis=1) * neg.sum(axis=1))


def _interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    alpha = (1 - confidence) / 2
    low, high = np.quantile(values, [alpha, 1 - alpha])
    return float(low), float(high)


def bootstrap_p(diffs) -> float:
    """Two-sided p-value of "the difference is 0" from B resampled differences [B]."""
    diffs = np.asarray(diffs, dtype=float)
    below, above = (diffs <= 0).sum(), (diffs >= 0).sum()
    return float(min(1.0, 2 * (min(below, above) + 1) / (len(diffs) + 1)))


def bootstrap_difference(human, a, b, method: str = "pearson", n_resamples: int = 1000,
                         confidence: float = 0.95, seed: int = 0, clusters=None) -> Difference:
    """Paired bootstrap of r(a, human) - r(b, human) over rows (segments).

    human, a, b: 1-D arrays of the same length n (one value per segment). Each resample draws n
    row indices with replacement and uses them for all three arrays (paired), so both metrics are
    judged on the same segments. Interval: the percentile interval of the resampled differences
    (scipy.stats.bootstrap, method="percentile"), reproducible with `seed`.

    clusters (Pearson only): one label per row, e.g. the source sentence; rows of a cluster are
    resampled together (`cluster_weights`), because segments that share a source are not
    independent.
    """
    _check_method(method)
    human, a, b = (np.asarray(x, dtype=float) for x in (human, a, b))
    if not len(human) == len(a) == len(b):
        raise ValueError(f"human, a and b must have the same length: {len(human)}, {len(a)}, {len(b)}")
    if clusters is not None:
        if method != "pearson":
            raise ValueError("a cluster bootstrap is implemented for method='pearson' only")
        if len(clusters) != len(human):
            raise ValueError(f"clusters must have one label per row: {len(clusters)} != {len(human)}")
        w = cluster_weights(clusters, n_resamples, seed)
        diffs = weighted_pearson(a, human, w) - weighted_pearson(b, human, w)
        delta = stats.pearsonr(a, human).statistic - stats.pearsonr(b, human).statistic
        return Difference(float(delta), *_interval(diffs, confidence), bootstrap_p(diffs))
    corr = _correlation_along_last_axis(method)

    def statistic(h, x, y, axis=-1):
        return corr(x, h) - corr(y, h)

    result = stats.bootstrap((human, a, b), statistic, paired=True, vectorized=True,
                             n_resamples=n_resamples, confidence_level=confidence,
                             method="percentile", rng=np.random.default_rng(seed))
    low, high = result.confidence_interval
    return Difference(float(statistic(human, a, b)), float(low), float(high),
                      bootstrap_p(result.bootstrap_distribution))


def roc_auc(scores, labels) -> float:
    """Area under the ROC curve of `scores` for binary `labels` (1 = positive).

    AUC = P(score of a random positive > score of a random negative) + 0.5 P(tie)
        = U / (n1 · n0), U = Mann-Whitney U of the positives' scores against the negatives'.
    0.5 = no better than chance; 1 = every positive scores above every negative.
    """
    scores, labels = np.asarray(scores, dtype=float), np.asarray(labels)
    positives, negatives = scores[labels == 1], scores[labels == 0]
    if len(positives) == 0 or len(negatives) == 0:
        raise ValueError("roc_auc needs at least one positive and one negative label")
    u = stats.mannwhitneyu(positives, negatives).statistic
    return float(u / (len(positives) * len(negatives)))


def bootstrap_auc_difference(a, b, labels, clusters=None, n_resamples: int = 1000,
                             confidence: float = 0.95, seed: int = 0) -> Difference:
    """Paired bootstrap of AUC(a) - AUC(b): two metrics' scores a, b [n] of the same labelled
    pairs. Rows are resampled together (one label per row in `clusters`, e.g. the first sentence
    of each pair; default: every row its own cluster). Percentile interval, reproducible with seed."""
    a, b, labels = np.asarray(a, dtype=float), np.asarray(b, dtype=float), np.asarray(labels)
    if not len(a) == len(b) == len(labels):
        raise ValueError(f"a, b and labels must have the same length: {len(a)}, {len(b)}, {len(labels)}")
    clusters = np.arange(len(a)) if clusters is None else np.asarray(clusters)
    w = cluster_weights(clusters, n_resamples, seed)
    diffs = weighted_roc_auc(a, labels, w) - weighted_roc_auc(b, labels, w)
    return Difference(roc_auc(a, labels) - roc_auc(b, labels), *_interval(diffs, confidence), bootstrap_p(diffs))


def mean_ci(x, confidence: float = 0.95, n_resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """Bootstrap confidence interval (low, high) of the mean of x [n], resampling its items
    (scipy.stats.bootstrap, BCa), reproducible with `seed`."""
    res = stats.bootstrap((np.asarray(x, dtype=float),), np.mean, n_resamples=n_resamples,
                          confidence_level=confidence, rng=np.random.default_rng(seed))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def summary_level(df: pd.DataFrame, metrics: list[str], humans: list[str], doc: str = "doc_id",
                  method: str = "kendall") -> pd.DataFrame:
    """Summary-level correlation [metrics, humans].

    For each document: the correlation between a metric and a human score across that document's
    summaries (one per system); then the mean over documents. Documents where the human score
    (or the metric) is constant have no correlation (NaN) and are left out of the mean.
    """
    _check_method(method)
    with warnings.catch_warnings():  # constant ratings within a document: NaN, expected here
        warnings.simplefilter("ignore", stats.ConstantInputWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        per_doc = {h: df.groupby(doc)[metrics].corrwith(df[h], method=method).mean() for h in humans}
    return pd.DataFrame(per_doc)


def system_level(df: pd.DataFrame, metrics: list[str], humans: list[str], system: str = "system",
                 method: str = "kendall") -> pd.DataFrame:
    """System-level correlation [metrics, humans]: the mean of every column per system (over its
    summaries), then the correlation across the systems (16 points for SummEval)."""
    _check_method(method)
    means = df.groupby(system)[metrics + humans].mean()
    return pd.DataFrame({h: means[metrics].corrwith(means[h], method=method) for h in humans})


def kendall_tau_rows(x, y) -> np.ndarray:
    """Kendall's tau-b between the rows of x and y [B, k] -> [B] (k small: all k(k-1)/2 pairs)."""
    x, y = np.atleast_2d(np.asarray(x, dtype=float)), np.atleast_2d(np.asarray(y, dtype=float))
    i, j = np.triu_indices(x.shape[-1], k=1)
    sx, sy = np.sign(x[:, i] - x[:, j]), np.sign(y[:, i] - y[:, j])
    return (sx * sy).sum(axis=1) / np.sqrt((sx * sx).sum(axis=1) * (sy * sy).sum(axis=1))


def system_level_bootstrap(df: pd.DataFrame, metrics: list[str], humans: list[str], doc: str = "doc_id",
                           system: str = "system", n_resamples: int = 1000, seed: int = 0) -> np.ndarray:
    """System-level Kendall tau with the documents resampled: [n_resamples, metrics, humans].

    Each resample draws the documents with replacement (`cluster_weights` over `doc`), recomputes
    every system's mean over the drawn documents, and correlates the systems' means (tau-b) as
    `system_level` does. Every document must have one row per system.
    """
    docs = df[doc].unique()
    table = df.set_index([doc, system])[metrics + humans]
    cube = np.stack([table[c].unstack(system).loc[docs].to_numpy(dtype=float) for c in metrics + humans])
    if np.isnan(cube).any():
        raise ValueError("system_level_bootstrap needs one row per (document, system)")
    w = cluster_weights(np.arange(len(docs)), n_resamples, seed)       # [B, docs]
    means = np.einsum("bd,cds->cbs", w, cube) / w.sum(axis=1)[None, :, None]  # [columns, B, systems]
    m = len(metrics)
    return np.stack([np.stack([kendall_tau_rows(means[i], means[m + h]) for h in range(len(humans))], axis=-1)
                     for i in range(m)], axis=1)


def summary_level_bootstrap(df: pd.DataFrame, metrics: list[str], humans: list[str], doc: str = "doc_id",
                            method: str = "kendall", n_resamples: int = 1000, seed: int = 0) -> np.ndarray:
    """Summary-level correlation with the documents resampled: [n_resamples, metrics, humans].

    The per-document correlations are computed once ([documents, metrics, humans], documents in
    sorted order); each resample draws the documents with replacement (`cluster_weights`) and takes
    the mean of the drawn documents' values, leaving out NaN (constant ratings) as `summary_level` does.
    """
    _check_method(method)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.ConstantInputWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        per_doc = np.stack([df.groupby(doc)[metrics].corrwith(df[h], method=method).to_numpy(dtype=float)
                            for h in humans], axis=-1)  # [documents, metrics, humans]
    w = cluster_weights(np.arange(len(per_doc)), n_resamples, seed)  # [B, documents]
    ok = ~np.isnan(per_doc)
    return (np.einsum("bd,dmh->bmh", w, np.nan_to_num(per_doc))
            / np.einsum("bd,dmh->bmh", w, ok.astype(float)))
