"""Several verdicts at once: paired cluster-bootstrap differences per group, their average, and
Holm's correction.

Chapter 08's paired cluster bootstrap answers one question: is r(a, human) − r(b, human) on this
language pair above 0? A table draws one verdict per pair; at 95 % each, six true "no difference"
pairs still give at least one false verdict about one time in four (1 − 0.95⁶ ≈ 0.26). Holm
(1979) keeps the chance of *any* false verdict in the table at 5 %, whatever the dependence between
them: sort the m p-values p₍₁₎ ≤ … ≤ p₍ₘ₎, multiply p₍ₖ₎ by (m − k + 1), keep the sequence from
decreasing, cap at 1; a verdict stands where its adjusted p is below 0.05.

The p-value of a bootstrap difference is read from the same resamples as its interval:
p = 2 · min(share of resampled differences ≤ 0, share ≥ 0), counted as (k + 1)/(B + 1) so that it
is never 0 (`correlation.bootstrap_p`, used by every paired interval of the course).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from course_lib.evaluation.bootstrap_loops import percentile_interval as _interval
from course_lib.evaluation.correlation import bootstrap_p, cluster_weights, weighted_pearson


def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjusted p-values [m] (same order as given; see the module's docstring)."""
    p = np.asarray(pvalues, dtype=float)
    order = np.argsort(p, kind="stable")
    m = len(p)
    adjusted = np.maximum.accumulate(p[order] * (m - np.arange(m)))
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out


def pearson_differences(df: pd.DataFrame, a: str, b: str, human: str = "human_z", by: str = "lp",
                        clusters: str = "src", n_resamples: int = 1000, confidence: float = 0.95,
                        seed: int = 0) -> pd.DataFrame:
    """r(a, human) − r(b, human) per group of `by`, each with its paired cluster-bootstrap interval
    (rows of one `clusters` value resampled together, as `correlation.bootstrap_difference`) and
    p-value, Holm-adjusted over the groups; and a last row "average": the mean of the groups'
    differences, its interval from the mean of their resamples (each group resampled on its own).

    -> DataFrame indexed by group (+ "average"): delta, low, high, p, p_holm (NaN for the average).
    """
    rows, resampled = {}, []
    for k, (group, g) in enumerate(df.groupby(by)):
        w = cluster_weights(g[clusters].to_numpy(), n_resamples, seed + k)
        diffs = weighted_pearson(g[a], g[human], w) - weighted_pearson(g[b], g[human], w)
        delta = stats.pearsonr(g[a], g[human]).statistic - stats.pearsonr(g[b], g[human]).statistic
        rows[group] = {"delta": float(delta), **dict(zip(("low", "high"), _interval(diffs, confidence))),
                       "p": bootstrap_p(diffs)}
        resampled.append(diffs)
    table = pd.DataFrame.from_dict(rows, orient="index")
    table["p_holm"] = holm(table.p)
    mean = np.mean(resampled, axis=0)
    low, high = _interval(mean, confidence)
    table.loc["average"] = {"delta": table.delta.mean(), "low": low, "high": high, "p": bootstrap_p(mean),
                            "p_holm": np.nan}
    return table
