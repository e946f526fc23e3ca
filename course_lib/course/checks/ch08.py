"""Checkers for chapter 08 (agreement with human judgments). Expected values come from
course_lib.evaluation.correlation (pandas / scipy underneath), computed on several cases each time: real WMT16
rows and small tables built so that the usual shortcuts give a different answer."""
from __future__ import annotations

import numpy as np
import pandas as pd

from course_lib.evaluation import correlation, datasets

from . import close, forbid, run


def _wmt_cases() -> list[tuple[pd.DataFrame, str, str, str]]:
    """(frame, metric column, human column, group column) cases for 8.1."""
    wmt = datasets.wmt16()
    wmt["length_ratio"] = wmt["mt"].str.len() / wmt["ref"].str.len()
    wmt["mt_words"] = wmt["mt"].str.split().map(len)
    rng = np.random.default_rng(8)
    # groups whose offsets make the pooled correlation differ from every per-group one
    toy = pd.DataFrame({"system": np.repeat(["a", "b", "c"], 40), "x": rng.normal(size=120)})
    toy["x"] += np.repeat([0.0, 3.0, -2.0], 40)
    toy["score"] = rng.normal(size=120) + np.repeat([0.0, -4.0, 2.0], 40) + 0.5 * toy["x"]
    return [(wmt, "length_ratio", "human_z", "lp"), (wmt, "mt_words", "human_z", "lp"),
            (toy, "x", "score", "system")]


def check_8_1(pearson_by_pair, hint: int = 1) -> bool:
    """pearson_by_pair(df, metric, human="human_z", by="lp") -> Series of Pearson's r, one per group."""
    pearson_by_pair = forbid(pearson_by_pair, "course_lib.evaluation.correlation")

    def test():
        for df, metric, human, by in _wmt_cases():
            got = pearson_by_pair(df.copy(), metric, human=human, by=by)
            want = correlation.correlations(df, [metric], human, by=by)[metric]
            assert isinstance(got, pd.Series), f"return a pandas Series, got {type(got).__name__}"
            assert sorted(map(str, got.index)) == sorted(map(str, want.index)), (
                f"the index should hold the groups of {by!r} ({', '.join(map(str, want.index))}), "
                f"got {list(got.index)[:6]}")
            for group, r in want.items():
                assert close(got[group], r, 1e-9), (
                    f"{metric!r} vs {human!r} in group {group!r}: you return {float(got[group]):.4f}, "
                    f"expected {r:.4f}")
    return run("8.1", test, "inside each group (the `by` column) correlate the metric column with the human "
                            "column (Pearson); do not pool the groups.",
               code="return df.groupby(by).apply(lambda g: g[metric].corr(g[human]), include_groups=False)",
               level=hint)


def _layer_tables() -> list[pd.DataFrame]:
    """Tables [language pairs, layers] of Pearson's r for 8.2, each with a trap."""
    rng = np.random.default_rng(82)
    pairs = ["cs-en", "de-en", "fi-en", "ro-en", "ru-en", "tr-en"]
    random_table = pd.DataFrame(rng.uniform(0.4, 0.7, size=(6, 7)), index=pairs, columns=range(7))
    # layer labels that are not positions (2, 4, 6, 8)
    labels = pd.DataFrame([[0.50, 0.61, 0.58, 0.52], [0.49, 0.60, 0.62, 0.50], [0.51, 0.63, 0.57, 0.53]],
                          index=pairs[:3], columns=[2, 4, 6, 8])
    # layer 3 wins most pairs narrowly, layer 5 has the best mean; the single largest cell is layer 1's
    traps = pd.DataFrame([[0.40, 0.90, 0.60, 0.61, 0.55, 0.59, 0.50],
                          [0.40, 0.10, 0.60, 0.61, 0.55, 0.60, 0.50],
                          [0.40, 0.10, 0.60, 0.61, 0.55, 0.60, 0.50],
                          [0.40, 0.10, 0.60, 0.30, 0.55, 0.70, 0.50]],
                         index=pairs[:4], columns=range(7))
    return [random_table, labels, traps, traps.iloc[::-1]]


def check_8_2(best_layer, hint: int = 1) -> bool:
    """best_layer(table) -> int: the layer (column label) with the highest mean over language pairs."""
    def test():
        for table in _layer_tables():
            want = int(table.mean(axis=0).idxmax())
            got = best_layer(table.copy())
            assert got is not None and int(got) == want, (
                f"for a table with layers {list(table.columns)} you return {got}, expected {want} "
                f"(its mean over the {len(table)} language pairs is {table.mean(axis=0)[want]:.3f})")
    return run("8.2", test, "average each layer's column over the language pairs and return the column "
                            "*label* of the largest mean, not its position.",
               code="return int(table.mean(axis=0).idxmax())", level=hint)


def _auc_cases() -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(83)
    labels = rng.integers(0, 2, size=300)
    noisy = rng.normal(size=300) + labels
    ties = np.round(noisy)  # many ties: each counts 1/2
    perfect = np.arange(10.0)
    return [(noisy, labels), (ties, labels), (-noisy, labels),
            (perfect, (perfect >= 4).astype(int)), (perfect, (perfect < 4).astype(int)),
            (np.array([1.0, 1.0, 1.0, 2.0]), np.array([0, 1, 1, 0]))]


def check_8_3(auc, hint: int = 1) -> bool:
    """auc(scores, labels) -> ROC AUC for labels 1 (positive) vs 0."""
    auc = forbid(auc, "course_lib.evaluation.correlation")

    def test():
        for scores, labels in _auc_cases():
            want = correlation.roc_auc(scores, labels)
            got = auc(scores.copy(), labels.copy())
            assert close(got, want, 1e-9), (
                f"for {len(scores)} scores ({int(labels.sum())} positives) you return {float(got):.4f}, "
                f"expected {want:.4f}")
    return run("8.3", test, "AUC is the share of (positive, negative) pairs in which the positive scores "
                            "higher; ties count one half.",
               code="pos, neg = scores[labels == 1], scores[labels == 0]; return mannwhitneyu(pos, neg)"
                    ".statistic / (len(pos) * len(neg))", level=hint)


#: 8.4's key: the quality on which BERTScore F trails ROUGE-1 and ROUGE-L at the summary level with a 95%
#: bootstrap interval (over documents) below 0 — measured in notebooks/08_human_agreement.ipynb, section 4, whose
#: solution cell derives its answer from that bootstrap and runs this check (so a change of data, model or code that
#: moves the result fails the notebook). Fixed here, never read from the student's own table.
ANSWER_8_4 = "coherence"
DIMENSIONS_8_4 = ("relevance", "consistency", "fluency", "coherence")


def check_8_4(answer) -> bool:
    """answer: the SummEval quality dimension on which BERTScore F trails ROUGE-1 and ROUGE-L at the summary
    level with a bootstrap interval that excludes 0 (a string)."""
    def test():
        assert answer is not None, "set answer_8_4 to one of " + ", ".join(map(repr, DIMENSIONS_8_4))
        got = str(answer).strip().lower()
        assert got in DIMENSIONS_8_4, f"{answer!r} is not a quality dimension: use one of {DIMENSIONS_8_4}"
        assert got == ANSWER_8_4, (
            f"on {got!r}, at least one of the two intervals (F - ROUGE-1, F - ROUGE-L) includes 0 or lies "
            f"above it: read the 'high' column of summary_gap, it must be below 0 for both")
    return run("8.4", test, "in section 4's table summary_gap, look for the dimension whose rows against "
                            "ROUGE-1 and ROUGE-L both have a 95% interval entirely below 0.")
