"""Checkers for chapter 08 (agreement with human judgments). Expected values come from
course_lib.evaluation.correlation (pandas / scipy underneath), computed on several cases each time: real WMT16
rows and small tables built so that the usual shortcuts give a different answer."""
from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from course_lib.evaluation import correlation, datasets

from . import close, forbid, grading, hidden_rng, run
from .ch08_data import _f_abs_drop_8_4, _f_drop, _tolerance_8_4, order_test_data, sentences  # noqa: F401 (ch08.*)


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
    pearson_by_pair = forbid(pearson_by_pair, "course_lib.evaluation.correlation.correlations")

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


def _auc_cases() -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(name, scores, labels) cases for 8.3; the name says what the case tests."""
    rng = np.random.default_rng(83)
    labels = rng.integers(0, 2, size=300)
    noisy = rng.normal(size=300) + labels
    ties = np.round(noisy)  # many ties: each counts 1/2
    perfect = np.arange(10.0)
    return [("300 noisy scores", noisy, labels),
            ("the same scores rounded to integers (many ties, each tie counts 1/2)", ties, labels),
            ("the scores negated (positives score lower: AUC below 0.5)", -noisy, labels),
            ("10 scores that separate perfectly (AUC 1)", perfect, (perfect >= 4).astype(int)),
            ("10 scores that separate perfectly the wrong way (AUC 0)", perfect, (perfect < 4).astype(int)),
            ("4 scores, three of them tied", np.array([1.0, 1.0, 1.0, 2.0]), np.array([0, 1, 1, 0]))]


def _auc_library_functions() -> tuple[str, ...]:
    names = ("course_lib.evaluation.correlation.roc_auc", "course_lib.evaluation.bootstrap_loops.roc_auc_by_counting",
             "course_lib.evaluation.correlation.weighted_roc_auc")
    try:
        import sklearn.metrics  # noqa: F401  (where installed, its roc_auc_score is the answer itself)
        return names + ("sklearn.metrics.roc_auc_score",)
    except ImportError:
        return names


def check_8_3(auc, hint: int = 1) -> bool:
    """auc(scores, labels) -> ROC AUC for labels 1 (positive) vs 0."""
    auc = forbid(auc, *_auc_library_functions())

    def test():
        for name, scores, labels in _auc_cases():
            want = correlation.roc_auc(scores, labels)
            got = auc(scores.copy(), labels.copy())
            assert close(got, want, 1e-9), (
                f"case {name!r} ({len(scores)} scores, {int(labels.sum())} positives): you return "
                f"{float(got):.4f}, expected {want:.4f}")
    return run("8.3", test, "AUC is the share of (positive, negative) pairs in which the positive scores "
                            "higher; ties count one half.",
               code="pos, neg = scores[labels == 1], scores[labels == 0]; return mannwhitneyu(pos, neg)"
                    ".statistic / (len(pos) * len(neg))", level=hint)


# ---------------------------------------------------------------- 8.4: does order matter? (fresh data)

@functools.lru_cache(maxsize=1)
def _expected_8_4() -> tuple[str, float, float]:
    """(the metric with the larger mean relative drop, BERTScore F's mean relative drop, ROUGE-L's), when
    each summary of `order_test_data` has its sentences in reverse order. Relative drop: (before - after) /
    before, per summary, then the mean."""
    from course_lib.lexical.rouge import rouge_l

    summaries, refs = order_test_data()
    reversed_ = [" ".join(sentences(s)[::-1]) for s in summaries]
    f_drop = _f_drop(summaries, refs)
    r_before = np.array([rouge_l(s, r).fmeasure for s, r in zip(summaries, refs)])
    r_after = np.array([rouge_l(s, r).fmeasure for s, r in zip(reversed_, refs)])
    rouge_drop = float(((r_before - r_after) / r_before).mean())
    return ("ROUGE-L" if rouge_drop > f_drop else "BERTScore F"), f_drop, rouge_drop


METRICS_8_4 = ("BERTScore F", "ROUGE-L")


def check_8_4(answer, f_drop=None, hint: int = 1) -> bool:
    """answer: the metric ("BERTScore F" or "ROUGE-L") whose score drops more, relative to its value, when
    the sentences of the fresh summaries are reversed; f_drop: BERTScore F's mean relative drop."""
    def test():
        assert answer is not None, "set answer_8_4 to " + " or ".join(map(repr, METRICS_8_4))
        got = str(answer).strip()
        assert got in METRICS_8_4, f"{answer!r} is not one of the two metrics: use {METRICS_8_4}"
        key, want_f, want_rouge = _expected_8_4()
        assert f_drop is not None, "set f_drop_8_4 to BERTScore F's mean relative drop (a number)"
        value = float(f_drop)
        assert abs(value) < 1, (f"f_drop_8_4 = {value:.3f}: a relative drop is (before - after) / before, "
                                "a share, not a percentage")
        assert abs(value - _f_abs_drop_8_4()) >= abs(value - want_f), (
            f"f_drop_8_4 = {value:.4f} is the absolute drop, mean(before - after); the question asks for the drop "
            "relative to each summary's score: (before - after) / before for each summary, then the mean")
        assert abs(value - want_f) < _tolerance_8_4(want_f), (
            f"f_drop_8_4 = {value:.4f} is not BERTScore F's mean relative drop on order_test_data(): score the "
            "original and the reversed summaries against the same references, (before - after) / before per "
            "summary, then the mean")
        assert got == key, (f"your f_drop_8_4 is right; now compute the same drop for ROUGE-L (rouge_l(s, r)"
                            ".fmeasure) and compare the two")
    return run("8.4", test, "greedy matching pairs each token with its best match wherever it stands; a longest "
                            "common subsequence needs the tokens in the reference's order. Reverse the sentences, "
                            "score before and after, and compare the relative drops.",
               code="rev = [' '.join(ch08.sentences(s)[::-1]) for s in summaries]; before = course_lib.score("
                    "summaries, refs)[2]; after = course_lib.score(rev, refs)[2]; f_drop_8_4 = float(((before - "
                    "after) / before).mean()); the same with rouge_l(s, r).fmeasure", level=hint)


# ---------------------------------------------------------------- 8.5: what each correlation sees (fresh data)

CORRELATIONS_8_5 = ("pearson", "spearman", "kendall")
TRANSFORMS_8_5 = {
    "rescale": lambda x: (x - 0.36) / (1 - 0.36),  # baseline rescaling: a straight line with positive slope
    "exp": np.exp,                                 # increasing, but curved
    "square": np.square,                           # curved, and not increasing where x < 0
}


def data_8_5() -> tuple[np.ndarray, np.ndarray]:
    """Fresh data for 8.5: 60 segments' metric scores x (some below 0, as rescaled scores can be) and
    human scores y. In grading mode, hidden data drawn with the grading seed (every x above 0)."""
    if grading():  # hidden data: every x above 0, so squaring keeps their order (the published x has some below)
        rng = np.random.default_rng(hidden_rng("8.5").randrange(2 ** 32))
        x = rng.uniform(0.05, 0.9, 60)
        return x, 2 * x + rng.normal(0.0, 0.3, 60)
    rng = np.random.default_rng(85)
    x = rng.uniform(-0.6, 0.9, 60)
    return x, 2 * x + rng.normal(0.0, 0.3, 60)


def _expected_8_5() -> dict[str, set[str]]:
    """For each transformation: the correlations with y that do not change when x is transformed."""
    from scipy import stats

    fns = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}
    x, y = data_8_5()
    return {name: {c for c, fn in fns.items() if abs(fn(f(x), y).statistic - fn(x, y).statistic) < 1e-9}
            for name, f in TRANSFORMS_8_5.items()}


def check_8_5(answer, hint: int = 1) -> bool:
    """answer: {"rescale": {...}, "exp": {...}, "square": {...}}, each the set of correlations
    ("pearson", "spearman", "kendall") that stay the same under that transformation of x."""
    def test():
        assert isinstance(answer, dict), 'set same_8_5 to a dict: {"rescale": {...}, "exp": {...}, "square": {...}}'
        assert set(answer) == set(TRANSFORMS_8_5), f"the dict's keys should be {sorted(TRANSFORMS_8_5)}"
        want = _expected_8_5()
        for name in TRANSFORMS_8_5:
            got = answer[name]
            got = {got} if isinstance(got, str) else set(got or ())
            got = {str(c).strip().lower() for c in got}
            assert got <= set(CORRELATIONS_8_5), f"{name!r}: use names from {CORRELATIONS_8_5}"
            missing, extra = want[name] - got, got - want[name]
            assert not missing and not extra, (
                f"{name!r}: " + "; ".join(
                    [f"{', '.join(sorted(missing))} also stay(s) the same" for _ in [0] if missing]
                    + [f"{', '.join(sorted(extra))} change(s)" for _ in [0] if extra]))
    return run("8.5", test, "Pearson's r asks how well the points lie on a straight line; Spearman and Kendall "
                            "look only at the order of the values. Which transformations keep the points on a line, "
                            "which keep the order — for these x, some of which are below 0?",
               code="x, y = ch08.data_8_5(); for each transformation f compare stats.pearsonr(f(x), y).statistic "
                    "with stats.pearsonr(x, y).statistic (and spearmanr, kendalltau)", level=hint)


# ---------------------------------------------------------------- 8.6: a cluster bootstrap (fresh data)

def data_8_6() -> pd.DataFrame:
    """Fresh data for 8.6: 150 segments, 30 source sentences (`src`) translated by 5 systems (`system`), rows
    shuffled; the human score (`human`) depends mostly on the source sentence, little on the system. In grading
    mode, hidden data drawn with the grading seed (source effects 3-5 times smaller)."""
    rng, sd_src = np.random.default_rng(86), 0.8
    if grading():  # hidden data: sources differ less, so the ratio is about 1.2-1.6, not the published 2.07
        seeded = hidden_rng("8.6")
        rng, sd_src = np.random.default_rng(seeded.randrange(2 ** 32)), seeded.uniform(0.15, 0.3)
    src, system = np.repeat(np.arange(30), 5), np.tile(np.arange(5), 30)
    human = rng.normal(0.0, sd_src, 30)[src] + rng.normal(0.0, 0.05, 5)[system] + rng.normal(0.0, 0.4, 150)
    return pd.DataFrame({"src": [f"s{s:02d}" for s in src], "system": [f"sys-{'ABCDE'[k]}" for k in system],
                         "human": human.round(3)}).sample(frac=1, random_state=86).reset_index(drop=True)


def _cluster_mean_interval(values, clusters, n_resamples: int = 20000, seed: int = 8, *,
                           per_cluster: bool = False) -> tuple[float, float]:
    """8.6's reference: the 95% interval of the mean under a cluster bootstrap (per_cluster: of the mean of the
    drawn clusters' means, a slip the check names: each row weighs 1 / its cluster's size)."""
    w = correlation.cluster_weights(clusters, n_resamples, seed)  # [n_resamples, n]
    if per_cluster:
        _, of_row, sizes = np.unique(np.asarray(clusters), return_inverse=True, return_counts=True)
        w = w / sizes[of_row]
    low, high = np.quantile((w @ np.asarray(values, dtype=float)) / w.sum(axis=1), [0.025, 0.975])
    return float(low), float(high)


def _cluster_cases() -> list[tuple[str, np.ndarray, np.ndarray]]:  # (what each tests, values, clusters)
    df, rng = data_8_6(), np.random.default_rng(860)
    sizes = np.array([1, 2, 12, 3, 1, 9, 2, 4, 1, 7, 2, 5])  # unequal clusters; large ones score higher, so
    of_row = np.repeat(np.arange(12), sizes)               # a mean of cluster means is another statistic
    values = rng.normal(0.0, 1.0, 12)[of_row] + 0.3 * rng.normal(size=sizes.sum()) + 0.15 * sizes[of_row]
    shuffle = rng.permutation(len(values))
    return [("data_8_6(): 150 rows, clustered by `src` (shuffled)", df["human"].to_numpy(), df["src"].to_numpy()),
            ("12 clusters of unequal size (1 to 12 rows), numbered 100, 93, 86, ..., rows shuffled",
             values[shuffle], (100 - 7 * of_row)[shuffle]),
            ("40 rows, each its own cluster (then it is the ordinary bootstrap)", rng.normal(size=40), np.arange(40))]


def _expected_ratio_8_6() -> float:
    df = data_8_6()  # its mean human score: width of the interval by sources over that by rows (ordinary bootstrap)
    (low_c, high_c), (low_o, high_o) = (_cluster_mean_interval(df["human"], c) for c in (df["src"], np.arange(150)))
    return (high_c - low_c) / (high_o - low_o)


def check_8_6(cluster_interval, ratio=None, hint: int = 1) -> bool:
    """cluster_interval(values, clusters, n_resamples=5000, seed=0) -> (low, high), the 95% percentile interval
    of the mean of `values` under a cluster bootstrap; ratio: _expected_ratio_8_6(), computed by the student."""
    cluster_interval = forbid(cluster_interval, "course_lib.evaluation.bootstrap_loops.cluster_resamples",
                              "course_lib.evaluation.correlation.cluster_weights", f"{__name__}._cluster_mean_interval")

    def test():
        for name, values, clusters in _cluster_cases():
            want = _cluster_mean_interval(values, clusters)
            slip = _cluster_mean_interval(values, clusters, per_cluster=True)
            got = cluster_interval(values.copy(), clusters.copy(), 5000, 0)
            low, high, width = float(got[0]), float(got[1]), want[1] - want[0]  # (low, high)
            # measured (5,000 resamples, seeds 0-29): the solution's ends within 4% of the width, a 90% one 8-14% off
            assert abs(low - want[0]) < 0.07 * width and abs(high - want[1]) < 0.07 * width, (
                f"case {name!r}: you return ({low:.3f}, {high:.3f}), expected about ({want[0]:.3f}, {want[1]:.3f})"
                + (" -- yours is the mean of the drawn clusters' means, each cluster counting once: the statistic "
                   "is the mean of all drawn rows, so a big cluster weighs by its rows" if abs(low - slip[0]) + abs(
                       high - slip[1]) < abs(low - want[0]) + abs(high - want[1]) else " -- yours is narrower: are "
                   "you drawing single rows, or more clusters than there are?" if high - low < 0.9 * width else ""))
        # measured: 2.05 ± 0.05 over seeds 0-14 with 5,000 resamples (2.07 exactly); by system 0.21, by row 1
        assert ratio is not None and abs(float(ratio) - _expected_ratio_8_6()) < 0.2, (
            f"ratio_8_6 = {ratio}: your function is right; now on data_8_6() cluster by the column whose "
            "rows share their difficulty, and compare with every row as its own cluster (width over width)")
    return run("8.6", test, "a cluster bootstrap draws whole clusters -- as many as there are, with replacement -- "
                            "and keeps every row of each drawn cluster (twice if drawn twice); the statistic is the "
                            "mean of the drawn rows; the interval is the 2.5th and 97.5th percentiles of the means.",
               code="names = np.unique(clusters); rows_of = [np.flatnonzero(clusters == c) for c in names]; rng = np."
                    "random.default_rng(seed); means = [values[np.concatenate([rows_of[k] for k in rng.integers(0, "
                    "len(names), len(names))])].mean() for _ in range(n_resamples)]; return tuple(np.quantile(means, "
                    "[0.025, 0.975])); ratio: width with clusters=df['src'] over width with clusters=np.arange(150)",
               level=hint)
