"""Checkers for chapter 08 (agreement with human judgments). Expected values come from
course_lib.evaluation (correlation: pandas / scipy underneath; layer_choice), computed on several cases each time:
small tables built so that the usual shortcuts give a different answer, and fresh data the chapter never scores.
8.1 judges a frame the student builds (its task drawn with the grading seed in grading mode; ch08_cases)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from course_lib.caching import cached
from course_lib.evaluation import correlation

from . import close, forbid, grading, hidden_rng, run
from .ch08_cases import _judge_8_1, _judge_8_2, _layer_tables_8_2, task_8_1  # noqa: F401 (ch08.task_8_1)
from .ch08_data import _f_abs_drop_8_4, _f_drop, _tolerance_8_4, order_test_data, sentences  # noqa: F401 (ch08.*)


def check_8_1(df_8_1, hint: int = 1) -> bool:
    """df_8_1: a DataFrame (columns lp, metric, human) built so that the metric's Pearson r is below
    task_8_1()["within_below"] inside each of its two language pairs and above task_8_1()["pooled_above"]
    over both pooled (at least task_8_1()["rows"] rows per pair, metric scores in [0, 1])."""
    def test():
        assert df_8_1 is not None, "set df_8_1 to your DataFrame (columns lp, metric, human)"
        _judge_8_1(df_8_1, task_8_1())
    return run("8.1", test, "a pooled correlation sees two things at once: the order of the translations inside "
                            "each pair, and the differences between the pairs.",
               code="t = ch08.task_8_1(); (a, b), n = t['pairs'], t['rows']; x = np.linspace(0.5, 0.6, n); df_8_1 = "
                    "pd.DataFrame({'lp': [a] * n + [b] * n, 'metric': np.r_[x, x + 0.3], 'human': np.r_[-10 * x, "
                    "-10 * x + 5]})", level=hint)


def check_8_2(leave_one_pair_out, hint: int = 1) -> bool:
    """leave_one_pair_out(table [pairs, layers]) -> DataFrame [pairs, (layer, r)]: for each pair, the layer
    with the highest mean r over the *other* pairs (a tie: the lower layer) and the pair's own r there."""
    leave_one_pair_out = forbid(leave_one_pair_out, "course_lib.evaluation.layer_choice")

    def test():
        for case, table in _layer_tables_8_2():
            _judge_8_2(leave_one_pair_out(table.copy()), table, case)
    return run("8.2", test, "for each pair (row), average the other rows per layer, take the best layer (a tie: "
                            "the lower one) and report this row's own r there: the choice never sees the row it is "
                            "judged on.",
               code="rows = {}; for pair in table.index: means = table.drop(index=pair).mean(); layer = min(k for k "
                    "in means.index if means[k] == means.max()); rows[pair] = {'layer': layer, 'r': table.loc[pair, "
                    "layer]}; then return pd.DataFrame.from_dict(rows, orient='index')", level=hint)


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
            where = f"case {name!r} ({len(scores)} scores, {int(labels.sum())} positives)"
            if not close(want, 0.5, 1e-9) and close(got, 1 - want, 1e-9):
                raise AssertionError(f"{where}: you return 1 − AUC, the share of pairs in which the negative scores "
                                     "higher; the positives are the rows with label 1")
            pos, neg = scores[labels == 1][:, None], scores[labels == 0][None, :]
            ties = float((pos == neg).mean())
            for counted, wrong in (("0", float((pos > neg).mean())), ("1", float((pos >= neg).mean()))):
                if ties > 0 and close(got, wrong, 1e-9):
                    raise AssertionError(f"{where}: you count a tied pair as {counted}; a tie is a coin toss: it "
                                         "counts one half")
            assert close(got, want, 1e-9), (
                f"case {name!r} ({len(scores)} scores, {int(labels.sum())} positives): you return "
                f"{float(got):.4f}, expected {want:.4f}")
    return run("8.3", test, "AUC is the share of (positive, negative) pairs in which the positive scores "
                            "higher; ties count one half.",
               code="pos, neg = scores[labels == 1], scores[labels == 0]; return mannwhitneyu(pos, neg)"
                    ".statistic / (len(pos) * len(neg))", level=hint)


# ---------------------------------------------------------------- 8.4: does order matter? (fresh data)

@cached(1)
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
            assert not extra, (f"{name!r}: {', '.join(sorted(extra))} change(s) under this transformation of these "
                               "x; compute it before and after")
            assert not missing, (f"{name!r}: {len(missing)} correlation(s) you left out stay(s) the same as well: "
                                 "which ones see only the order of the values, and does this transformation keep it?")
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


def _cluster_mean_interval(values, clusters, n_resamples: int = 20000, seed: int = 8, *, per_cluster: bool = False,
                           once: bool = False, level: float = 0.95) -> tuple[float, float]:
    """8.6's reference: the `level` interval of the mean under a cluster bootstrap. Slips the check names:
    per_cluster, the mean of the drawn clusters' means (each row weighs 1 / its cluster's size); once, a cluster
    drawn twice counted once; level 0.90, other percentiles."""
    w = correlation.cluster_weights(clusters, n_resamples, seed)  # [n_resamples, n]
    if per_cluster:
        _, of_row, sizes = np.unique(np.asarray(clusters), return_inverse=True, return_counts=True)
        w = w / sizes[of_row]
    if once:
        w = (w > 0).astype(float)
    tail = (1 - level) / 2
    low, high = np.quantile((w @ np.asarray(values, dtype=float)) / w.sum(axis=1), [tail, 1 - tail])
    return float(low), float(high)


SLIPS_8_6 = {  # the slip's interval (as _cluster_mean_interval's options) -> what the student did
    "per_cluster": "yours is the mean of the drawn clusters' means, each cluster counting once: the statistic is the "
                   "mean of all drawn rows, so a big cluster weighs by its rows",
    "once": "a cluster drawn twice must bring its rows twice: a resample draws clusters with replacement, and a "
            "repeat counts as often as it is drawn",
    "level": "yours is a 90% interval (the 5th and 95th percentiles); a 95% interval reads the 2.5th and 97.5th",
    "rows": "yours is the ordinary bootstrap: you draw single rows, so rows of one cluster are no longer drawn "
            "together",
}


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
            if abs(low - want[0]) < 0.07 * width and abs(high - want[1]) < 0.07 * width:
                continue
            slips = {"per_cluster": slip, "once": _cluster_mean_interval(values, clusters, once=True),
                     "level": _cluster_mean_interval(values, clusters, level=0.90),
                     "rows": _cluster_mean_interval(values, np.arange(len(values)))}
            off = {k: abs(low - v[0]) + abs(high - v[1]) for k, v in slips.items()
                   if abs(v[0] - want[0]) + abs(v[1] - want[1]) > 0.1 * width}  # a slip that changes this case
            nearest = min(off, key=off.get) if off else None
            raise AssertionError(f"case {name!r}: you return ({low:.3f}, {high:.3f}), expected about ({want[0]:.3f}, "
                                 f"{want[1]:.3f})" + (f" -- {SLIPS_8_6[nearest]}" if nearest and off[nearest] <
                                                       0.1 * width else ""))
        # measured: 2.05 ± 0.05 over seeds 0-14 with 5,000 resamples (2.07 exactly); by system 0.21, by row 1
        expected = _expected_ratio_8_6()
        if ratio is not None and abs(float(ratio) - expected) >= 0.2 and abs(float(ratio) * expected - 1) < 0.1:
            raise AssertionError(f"ratio_8_6 = {float(ratio):.2f} is the width without clusters over the width with "
                                 "them: turn it over (width with clusters / width without)")
        assert ratio is not None and abs(float(ratio) - expected) < 0.2, (
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
