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
    """r(a, human) - r(b, human) on all rows, and its bootstrap confidence interval [low, high]."""

    delta: float
    low: float
    high: float

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


def bootstrap_difference(human, a, b, method: str = "pearson", n_resamples: int = 1000,
                         confidence: float = 0.95, seed: int = 0) -> Difference:
    """Paired bootstrap of r(a, human) - r(b, human) over rows (segments).

    human, a, b: 1-D arrays of the same length n (one value per segment). Each resample draws n
    row indices with replacement and uses them for all three arrays (paired), so both metrics are
    judged on the same segments. Interval: the percentile interval of the resampled differences
    (scipy.stats.bootstrap, method="percentile"), reproducible with `seed`.
    """
    _check_method(method)
    human, a, b = (np.asarray(x, dtype=float) for x in (human, a, b))
    if not len(human) == len(a) == len(b):
        raise ValueError(f"human, a and b must have the same length: {len(human)}, {len(a)}, {len(b)}")
    corr = _correlation_along_last_axis(method)

    def statistic(h, x, y, axis=-1):
        return corr(x, h) - corr(y, h)

    result = stats.bootstrap((human, a, b), statistic, paired=True, vectorized=True,
                             n_resamples=n_resamples, confidence_level=confidence,
                             method="percentile", rng=np.random.default_rng(seed))
    low, high = result.confidence_interval
    return Difference(float(statistic(human, a, b)), float(low), float(high))


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
