"""The bootstrap and ROC AUC as the chapters explain them: plain loops, one resample at a time.

`course_lib.evaluation.correlation` computes the same numbers vectorised (resampling weights,
einsum); tests/test_correlation_bootstrap.py checks that both give equal results (same seed, same
draws). Read these to learn the method; use `correlation` to run it fast.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import stats

from course_lib.evaluation.correlation import Difference, roc_auc, system_level


def cluster_resamples(clusters, n_resamples: int, seed: int = 0) -> list[np.ndarray]:
    """The row indices of each cluster-bootstrap resample (a list of n_resamples arrays).

    One resample: draw as many clusters as there are, with replacement, and take all the rows of
    each drawn cluster (a cluster drawn twice brings its rows twice). With one cluster per row this
    is the ordinary bootstrap. Same draws as `cluster_weights` for the same seed.
    """
    clusters = np.asarray(clusters)
    names = np.unique(clusters)  # the clusters, in sorted order
    rows_of = [np.flatnonzero(clusters == name) for name in names]
    rng = np.random.default_rng(seed)
    resamples = []
    for _ in range(n_resamples):
        drawn = rng.integers(0, len(names), size=len(names))  # cluster numbers, with replacement
        resamples.append(np.concatenate([rows_of[c] for c in drawn]))
    return resamples


def percentile_interval(values, confidence: float = 0.95) -> tuple[float, float]:
    """The percentile interval: the middle `confidence` share of the resampled values
    (for 95%: their 2.5th and 97.5th percentiles)."""
    alpha = (1 - confidence) / 2
    low, high = np.quantile(np.asarray(values, dtype=float), [alpha, 1 - alpha])
    return float(low), float(high)


def bootstrap_difference_loop(human, a, b, clusters=None, n_resamples: int = 1000, confidence: float = 0.95,
                              seed: int = 0) -> Difference:
    """`bootstrap_difference(..., method="pearson", clusters=...)` one resample at a time:
    for each resample, r(a, human) - r(b, human) on the drawn rows; then the percentile interval."""
    human, a, b = (np.asarray(x, dtype=float) for x in (human, a, b))
    clusters = np.arange(len(human)) if clusters is None else clusters
    diffs = []
    for rows in cluster_resamples(clusters, n_resamples, seed):
        diffs.append(stats.pearsonr(a[rows], human[rows]).statistic
                     - stats.pearsonr(b[rows], human[rows]).statistic)
    delta = stats.pearsonr(a, human).statistic - stats.pearsonr(b, human).statistic
    return Difference(float(delta), *percentile_interval(diffs, confidence))


def roc_auc_by_counting(scores, labels) -> float:
    """ROC AUC by its definition: over every (positive, negative) pair, count 1 when the positive
    scores higher, 1/2 for a tie, 0 otherwise; divide by the number of pairs. Equals `roc_auc`."""
    positives = [s for s, y in zip(scores, labels) if y == 1]
    negatives = [s for s, y in zip(scores, labels) if y == 0]
    wins = 0.0
    for p in positives:
        for n in negatives:
            wins += 1.0 if p > n else 0.5 if p == n else 0.0
    return wins / (len(positives) * len(negatives))


def bootstrap_auc_difference_loop(a, b, labels, clusters=None, n_resamples: int = 1000,
                                  confidence: float = 0.95, seed: int = 0) -> Difference:
    """`bootstrap_auc_difference` one resample at a time: AUC(a) - AUC(b) on the drawn rows."""
    a, b, labels = np.asarray(a, dtype=float), np.asarray(b, dtype=float), np.asarray(labels)
    clusters = np.arange(len(a)) if clusters is None else clusters
    diffs = [roc_auc(a[rows], labels[rows]) - roc_auc(b[rows], labels[rows])
             for rows in cluster_resamples(clusters, n_resamples, seed)]
    return Difference(roc_auc(a, labels) - roc_auc(b, labels), *percentile_interval(diffs, confidence))


def system_level_bootstrap_loop(df: pd.DataFrame, metrics: list[str], humans: list[str], doc: str = "doc_id",
                                system: str = "system", n_resamples: int = 1000, seed: int = 0) -> np.ndarray:
    """`system_level_bootstrap` one resample at a time: draw the documents with replacement, stack
    their rows (a document drawn twice counts twice), and compute `system_level` (Kendall) on them."""
    docs = df[doc].unique()
    rows_of = {d: df[df[doc] == d] for d in docs}
    rng = np.random.default_rng(seed)
    taus = []
    for _ in range(n_resamples):
        drawn = docs[rng.integers(0, len(docs), size=len(docs))]
        sample = pd.concat([rows_of[d] for d in drawn])
        taus.append(system_level(sample, metrics, humans, system=system, method="kendall").to_numpy())
    return np.stack(taus)


def summary_level_bootstrap_loop(df: pd.DataFrame, metrics: list[str], humans: list[str], doc: str = "doc_id",
                                 method: str = "kendall", n_resamples: int = 1000, seed: int = 0) -> np.ndarray:
    """`summary_level_bootstrap` one resample at a time: one correlation per document, then, for each
    resample, the mean over the drawn documents (NaN left out)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.ConstantInputWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        per_doc = {h: df.groupby(doc)[metrics].corrwith(df[h], method=method) for h in humans}  # [documents, metrics]
    n_docs = len(per_doc[humans[0]])
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_resamples):
        drawn = rng.integers(0, n_docs, size=n_docs)
        out.append(np.stack([per_doc[h].iloc[drawn].mean().to_numpy() for h in humans], axis=-1))
    return np.stack(out)
