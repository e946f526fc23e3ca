"""Chapter 08: course_lib.evaluation.correlation against scipy, and the exercise checkers (pass on the notebook's
solutions, fail on stubs and on planted wrong answers)."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from course_lib.evaluation import correlation, layer_choice
from course_lib.course.checks import ch08, ch08_cases, reset_attempts
import course_lib
from course_lib.lexical.rouge import rouge_l
from notebook_code import NOTEBOOKS, assert_names_mistake, definition, passes, run_cells, stub

NOTEBOOK = NOTEBOOKS / "08_human_agreement.ipynb"


def solution(marker: str, name: str):
    """The function `name` from the cell containing `marker` (its imports and definitions only)."""
    return definition(NOTEBOOK, name, marker, imports=True, np=np, pd=pd)


# ------------------------------------------------------------------ course_lib.evaluation.correlation vs scipy

@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"g": np.repeat(["x", "y", "z"], 30), "a": rng.normal(size=90)})
    df["b"] = rng.normal(size=90)
    df["h"] = df["a"] + rng.normal(size=90) + np.repeat([0, 5, -5], 30)
    return df


@pytest.mark.parametrize("method, fn", [("pearson", stats.pearsonr), ("spearman", stats.spearmanr),
                                        ("kendall", stats.kendalltau)])
def test_correlations_per_group_equal_scipy(frame, method, fn):
    table = correlation.correlations(frame, ["a", "b"], "h", by="g", method=method)
    assert list(table.index) == ["x", "y", "z"] and list(table.columns) == ["a", "b"]
    for g, part in frame.groupby("g"):
        for m in ("a", "b"):
            assert table.loc[g, m] == pytest.approx(fn(part[m], part["h"]).statistic, abs=1e-12)
    pooled = correlation.correlations(frame, ["a"], "h", method=method)
    assert pooled.loc["all", "a"] == pytest.approx(fn(frame["a"], frame["h"]).statistic, abs=1e-12)
    with pytest.raises(ValueError):
        correlation.correlations(frame, ["a"], "h", method="cosine")


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall"])
def test_bootstrap_difference(method):
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=80), rng.normal(size=80)
    h = a + rng.normal(size=80)
    fn = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}[method]
    d = correlation.bootstrap_difference(h, a, b, method=method, n_resamples=300, seed=1)
    assert d.delta == pytest.approx(fn(a, h).statistic - fn(b, h).statistic, abs=1e-12)
    assert d.low < d.delta < d.high and d.significant  # a drives h, b is noise
    again = correlation.bootstrap_difference(h, a, b, method=method, n_resamples=300, seed=1)
    assert (again.low, again.high) == (d.low, d.high)  # reproducible
    same = correlation.bootstrap_difference(h, a, a, method=method, n_resamples=300, seed=1)
    assert same.delta == 0 and not same.significant
    with pytest.raises(ValueError):
        correlation.bootstrap_difference(h, a, b[:-1])


def _auc_by_counting(scores, labels):
    """Independent reference: every (positive, negative) pair, ties count 1/2."""
    pos = [s for s, y in zip(scores, labels) if y == 1]
    neg = [s for s, y in zip(scores, labels) if y == 0]
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def test_roc_auc_equals_pair_counting():
    for _, scores, labels in ch08._auc_cases():
        assert correlation.roc_auc(scores, labels) == pytest.approx(_auc_by_counting(scores, labels), abs=1e-12)
    assert correlation.roc_auc([1, 2, 3, 4], [0, 0, 1, 1]) == 1.0
    assert correlation.roc_auc([1, 2, 3, 4], [1, 1, 0, 0]) == 0.0
    with pytest.raises(ValueError):
        correlation.roc_auc([1, 2], [1, 1])


def test_summary_and_system_level_equal_scipy_loops():
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"doc_id": np.repeat(np.arange(6), 5), "system": np.tile(list("ABCDE"), 6),
                       "m": rng.normal(size=30)})
    df["q"] = df["m"] + rng.normal(size=30)
    df.loc[df.doc_id == 0, "q"] = 3.0  # constant ratings for one document: left out of the mean
    table = correlation.summary_level(df, ["m"], ["q"], method="kendall")
    per_doc = [stats.kendalltau(g["m"], g["q"]).statistic for d, g in df.groupby("doc_id") if d != 0]
    assert table.loc["m", "q"] == pytest.approx(np.mean(per_doc), abs=1e-12)
    means = df.groupby("system")[["m", "q"]].mean()
    system = correlation.system_level(df, ["m"], ["q"], method="spearman")
    assert system.loc["m", "q"] == pytest.approx(stats.spearmanr(means["m"], means["q"]).statistic, abs=1e-12)


# ------------------------------------------------------------------ planted wrong answers

# 8.1: frames a student builds, each with one typical mistake, and the words its hint must contain

def _frame_8_1(**change):
    """A right answer to 8.1 (falling inside each pair, the pairs' means rising together), with columns replaced."""
    task = ch08.task_8_1()
    (a, b), n = task["pairs"], task["rows"]
    x = np.linspace(0.55, 0.65, n)
    df = pd.DataFrame({"lp": [a] * n + [b] * n, "metric": np.r_[x, x + 0.25],
                       "human": np.r_[-8 * x + 4, -8 * x + 6.5] + np.random.default_rng(1).normal(0, 0.1, 2 * n)})
    return df.assign(**{k: (v(df, x) if callable(v) else v) for k, v in change.items()})


MISTAKES_8_1 = {  # name: (the frame, words of the hint that names the mistake)
    "rising inside the pairs": (_frame_8_1(human=lambda d, x: np.r_[8 * x, 8 * x + 2]), "go up together"),
    "no difference between the pairs": (_frame_8_1(metric=lambda d, x: np.r_[x, x], human=lambda d, x: np.r_[
        -8 * x, -8 * x]), "the pairs must differ, in mean metric and in mean human score together"),
    "the pairs shifted in opposite directions": (_frame_8_1(human=lambda d, x: np.r_[-8 * x + 6.5, -8 * x + 4]),
                                                 "adds a falling trend"),
    "numbers as strings": (_frame_8_1(metric=lambda d, x: d["metric"].astype(str)), "numbers written as strings"),
    "a NaN score": (_frame_8_1(human=lambda d, x: d["human"].where(d.index != 3)), "has NaN in 1 rows"),
    "two rows per pair (r is always +-1)": (_frame_8_1().groupby("lp").head(2), "with two points r is always"),
    "typed pair names": (_frame_8_1(lp=lambda d, x: d["lp"].map(dict(zip(ch08.task_8_1()["pairs"],
                                                                           ["cs-en", "ro-en"])))), "do not type them"),
    "a metric outside [0, 1]": (_frame_8_1(metric=lambda d, x: 10 * d["metric"]), "between 0 and 1"),
    "a constant metric inside a pair": (_frame_8_1(metric=lambda d, x: np.r_[[0.6] * len(x), x + 0.25]),
                                        "r is undefined"),
    "too weak inside a pair": (_frame_8_1(human=lambda d, x: np.r_[-8 * x + 4, -8 * x + 6.5] + np.random.default_rng(
        5).normal(0, 1.5, 2 * len(x))), "more clearly the reverse"),
    "a list of rows": ([tuple(r) for r in _frame_8_1().itertuples(index=False)], "build a pandas DataFrame"),
}


def test_8_1_passes_the_solution_and_a_dict_of_columns(capsys):
    ns = run_cells(NOTEBOOK, "df_8_1 = None", solution=True, ch08=ch08, np=np, pd=pd, correlation=correlation)
    assert passes(ch08.check_8_1, ns["df_8_1"], capsys=capsys)
    assert passes(ch08.check_8_1, _frame_8_1(), capsys=capsys)
    assert passes(ch08.check_8_1, _frame_8_1().to_dict("list"), capsys=capsys)
    assert not passes(ch08.check_8_1, None, capsys=capsys)
    found = ch08_cases._judge_8_1(ns["df_8_1"], ch08.task_8_1())  # the frame does what the task says, by the margins
    assert max(found[p] for p in ch08.task_8_1()["pairs"]) < ch08.task_8_1()["within_below"]
    assert found["pooled"] > ch08.task_8_1()["pooled_above"]


@pytest.mark.parametrize("name", sorted(MISTAKES_8_1))
def test_8_1_names_each_mistake(name, capsys):
    frame, words = MISTAKES_8_1[name]
    assert not passes(ch08.check_8_1, frame, capsys=capsys)
    ch08.check_8_1(frame)
    out = capsys.readouterr().out
    assert words in out and "Code:" not in out, out


def test_8_1_task_is_drawn_with_the_grading_seed(monkeypatch):
    published = ch08.task_8_1()
    monkeypatch.setenv("COURSE_GRADING", "1")
    monkeypatch.setenv("COURSE_GRADING_SEED", "7")
    hidden = ch08.task_8_1()
    assert set(hidden["pairs"]).isdisjoint(published["pairs"]) and len(set(hidden["pairs"])) == 2
    assert hidden == ch08.task_8_1()  # the same seed, the same task


# 8.2: leave-one-pair-out layer choice; planted slips and the words their hints must contain

def _loo(table, choose, own=True):
    rows = {}
    for i, pair in enumerate(table.index):
        layer = choose(table, pair)
        r = table.loc[pair, layer] if own else table.drop(index=pair)[layer].mean()
        rows[pair] = {"layer": layer, "r": r}
    return pd.DataFrame.from_dict(rows, orient="index")


def _lower_best(means):
    return min(k for k in means.index if means[k] == means.max())


def in_sample_layer(table):  # the read-off answer: the chapter's idxmax over all pairs
    return _loo(table, lambda t, p: t.mean(axis=0).idxmax())


def own_best_layer(table):
    return _loo(table, lambda t, p: t.loc[p].idxmax())


def others_mean_r(table):
    return _loo(table, lambda t, p: _lower_best(t.drop(index=p).mean(axis=0)), own=False)


def tie_by_column_order(table):
    return _loo(table, lambda t, p: t.drop(index=p).mean(axis=0).idxmax())


def layer_positions(table):
    out = _loo(table, lambda t, p: _lower_best(t.drop(index=p).mean(axis=0)))
    out["layer"] = [list(table.columns).index(k) for k in out["layer"]]
    return out


def layers_as_text(table):
    return _loo(table, lambda t, p: _lower_best(t.drop(index=p).mean(axis=0))).astype({"layer": str})


def only_the_r(table):
    return _loo(table, lambda t, p: _lower_best(t.drop(index=p).mean(axis=0)))["r"]


def worst_layer(table):
    return _loo(table, lambda t, p: t.drop(index=p).mean(axis=0).idxmin())


MISTAKES_8_2 = [(in_sample_layer, "the mean of all pairs, the held-out pair included"),
                (own_best_layer, "by that pair's own r"),
                (others_mean_r, "report the held-out pair's own r"),
                (tie_by_column_order, "on a tie between two layers' means the rule takes the lower layer"),
                (layer_positions, "you return column positions"),
                (layers_as_text, "your layers are text"),
                (only_the_r, "return a DataFrame with the columns layer and r"),
                (worst_layer, "the other pairs' mean is highest at layer")]


def test_8_2_passes_the_solution_and_the_library(capsys):
    fn = solution("def leave_one_pair_out", "leave_one_pair_out")
    assert passes(ch08.check_8_2, fn, capsys=capsys)
    assert not passes(ch08.check_8_2, stub, capsys=capsys)
    for case, table in ch08_cases._layer_tables_8_2():  # the library's version is the checker's oracle: equal to the solution
        assert fn(table).equals(layer_choice.leave_one_pair_out(table)), case


@pytest.mark.parametrize("wrong, words", MISTAKES_8_2, ids=[w.__name__ for w, _ in MISTAKES_8_2])
def test_8_2_names_each_mistake(wrong, words, capsys):
    assert not passes(ch08.check_8_2, wrong, capsys=capsys)
    ch08.check_8_2(wrong)
    out = capsys.readouterr().out
    assert words in out and "Code:" not in out, out


def test_8_2_tables_have_no_near_ties():
    """Every way of averaging a table gives the same choice: a tie is exact (multiples of 1/64 or 1/1024), any other
    gap is far above float noise."""
    for case, table in ch08_cases._layer_tables_8_2():
        for pair in table.index:
            means = table.drop(index=pair).mean(axis=0).sort_values(ascending=False)
            gap = means.iloc[0] - means.iloc[1]
            assert gap == 0 or gap > 1e-6, (case, pair, gap)


def auc_unnormalised(scores, labels):
    return stats.mannwhitneyu(scores[labels == 1], scores[labels == 0]).statistic


def auc_swapped(scores, labels):
    pos, neg = scores[labels == 1], scores[labels == 0]
    return stats.mannwhitneyu(neg, pos).statistic / (len(pos) * len(neg))


def auc_ignoring_ties(scores, labels):
    pos, neg = scores[labels == 1], scores[labels == 0]
    return (pos[:, None] > neg[None, :]).mean()


def auc_ties_count_one(scores, labels):
    pos, neg = scores[labels == 1], scores[labels == 0]
    return (pos[:, None] >= neg[None, :]).mean()


def accuracy_at_median(scores, labels):
    return ((scores > np.median(scores)) == labels).mean()


CODE_CASES = [
    ("def auc", "auc", ch08.check_8_3, [auc_unnormalised, auc_swapped, auc_ignoring_ties, auc_ties_count_one, accuracy_at_median]),
]


@pytest.mark.parametrize("marker, name, check, wrong", CODE_CASES, ids=[c[1] for c in CODE_CASES])
def test_code_exercise(marker, name, check, wrong, capsys):
    assert passes(check, solution(marker, name), capsys=capsys)
    assert not passes(check, stub, capsys=capsys)
    for bad in wrong:
        assert not passes(check, bad, capsys=capsys), bad.__name__


def test_question_8_4(capsys):
    key, f_drop, rouge_drop = ch08._expected_8_4()
    # measured on fresh data (articles 51+): reversing the sentences costs ROUGE-L far more than BERTScore F
    assert key == "ROUGE-L" and 0 < f_drop < rouge_drop / 3
    summaries, refs = ch08.order_test_data()
    assert len(summaries) == len(refs) == 40 and all(len(ch08.sentences(s)) >= 3 for s in summaries)
    assert passes(ch08.check_8_4, "ROUGE-L", f_drop, capsys=capsys)
    assert passes(ch08.check_8_4, " ROUGE-L", np.float32(f_drop), capsys=capsys)
    # the notebook's solution cell computes both answers
    ns = run_cells(NOTEBOOK, "answer_8_4, f_drop_8_4 = None, None", solution=True, ch08=ch08, np=np, course_lib=course_lib,
                   rouge_l=rouge_l)
    assert passes(ch08.check_8_4, ns["answer_8_4"], ns["f_drop_8_4"], capsys=capsys)
    # planted wrong answers: the other metric, a dimension, nothing; the drop as a percentage, ROUGE-L's drop
    # given for F, the absolute drop of rescaled F, no number
    for answer, drop in (("BERTScore F", f_drop), ("coherence", f_drop), (None, f_drop), ("ROUGE-L", 100 * f_drop),
                         ("ROUGE-L", rouge_drop), ("ROUGE-L", 3 * f_drop), ("ROUGE-L", None)):
        assert not passes(ch08.check_8_4, answer, drop, capsys=capsys), (answer, drop)
    # the absolute drop, mean(before - after), is named (it passed inside the learning tolerance before)
    absolute = ch08._f_abs_drop_8_4()
    assert abs(absolute - f_drop) < ch08._tolerance_8_4(f_drop)  # why the tolerance alone let it pass
    assert not passes(ch08.check_8_4, "ROUGE-L", absolute, capsys=capsys)
    ch08.check_8_4("ROUGE-L", absolute)
    assert "absolute drop" in capsys.readouterr().out
    # the chapter's call with hint=2 works (it raised TypeError before)
    assert not passes(ch08.check_8_4, "BERTScore F", f_drop, 2, capsys=capsys)
    ch08.check_8_4("BERTScore F", f_drop, hint=2)
    assert "Code:" in capsys.readouterr().out


def test_8_3_failure_names_the_case(capsys):
    ch08.check_8_3(auc_ignoring_ties)
    out = capsys.readouterr().out
    assert "case 'the same scores rounded to integers (many ties, each tie counts 1/2)'" in out, out


@pytest.mark.parametrize("wrong, named", [(auc_swapped, "you return 1 − AUC"),
                                          (auc_ignoring_ties, "you count a tied pair as 0"),
                                          (auc_ties_count_one, "you count a tied pair as 1")])
def test_8_3_hints_name_the_mistake(wrong, named, capsys):
    reset_attempts("8.3")
    assert_names_mistake(ch08.check_8_3, wrong, named=named, capsys=capsys)


def test_8_5_hints_name_the_mistake_without_giving_the_answer(capsys):
    want = ch08._expected_8_5()
    reset_attempts("8.5")
    assert_names_mistake(ch08.check_8_5, {**want, "exp": {"spearman"}}, named="1 correlation(s) you left out",
                         capsys=capsys)
    ch08.check_8_5({**want, "exp": {"spearman"}})
    assert "kendall also" not in capsys.readouterr().out  # the answer is not named (it was before)
    assert_names_mistake(ch08.check_8_5, {**want, "square": {"spearman", "kendall"}},
                         named="'square': kendall, spearman change(s)", capsys=capsys)


def test_question_8_5(capsys):
    want = ch08._expected_8_5()
    # measured: a positive linear map keeps all three, exp keeps the ranks only, squaring (x < 0 present) none
    assert want == {"rescale": {"pearson", "spearman", "kendall"}, "exp": {"spearman", "kendall"}, "square": set()}
    ns = run_cells(NOTEBOOK, "same_8_5 = None", solution=True, ch08=ch08, np=np, stats=stats)
    assert passes(ch08.check_8_5, ns["same_8_5"], capsys=capsys)
    assert passes(ch08.check_8_5, {"rescale": ["Pearson", "spearman", "kendall"], "exp": ("spearman", "kendall"),
                                   "square": None}, capsys=capsys)
    # planted: squaring treated as monotone (forgets x < 0), rescaling thought to change Pearson, exp thought
    # linear, all the same everywhere, not a dict, a key missing
    for wrong in ({**want, "square": {"spearman", "kendall"}}, {**want, "rescale": {"spearman", "kendall"}},
                  {**want, "exp": {"pearson", "spearman", "kendall"}},
                  {k: {"pearson", "spearman", "kendall"} for k in want}, None, {"rescale": want["rescale"]}):
        assert not passes(ch08.check_8_5, wrong, capsys=capsys), wrong


# ------------------------------------------------------------------ 8.6: a cluster bootstrap of your own

def _interval(values, clusters, n_resamples=5000, seed=0, draws=None, quantiles=(0.025, 0.975), statistic=None):
    """A cluster bootstrap of the mean with knobs to plant mistakes: `draws(n_rows, n_clusters)` clusters
    per resample, other quantiles, another statistic of the drawn clusters."""
    values, clusters = np.asarray(values, dtype=float), np.asarray(clusters)
    names = np.unique(clusters)
    rows_of = [np.flatnonzero(clusters == c) for c in names]
    rng = np.random.default_rng(seed)
    k = draws(len(values), len(names)) if draws else len(names)
    stat = statistic or (lambda drawn: values[np.concatenate([rows_of[c] for c in drawn])].mean())
    means = [stat(rng.integers(0, len(names), size=k)) for _ in range(n_resamples)]
    return tuple(np.quantile(means, quantiles))


def rows_only(values, clusters, n_resamples=5000, seed=0):  # the ordinary bootstrap: clusters ignored
    return _interval(values, np.arange(len(values)), n_resamples, seed)


def too_many_draws(values, clusters, n_resamples=5000, seed=0):  # as many clusters drawn as there are rows
    return _interval(values, clusters, n_resamples, seed, draws=lambda n, k: n)


def ninety_percent(values, clusters, n_resamples=5000, seed=0):
    return _interval(values, clusters, n_resamples, seed, quantiles=(0.05, 0.95))


def mean_of_cluster_means(values, clusters, n_resamples=5000, seed=0):  # another statistic (unequal sizes)
    values, clusters = np.asarray(values, dtype=float), np.asarray(clusters)
    means = np.array([values[clusters == c].mean() for c in np.unique(clusters)])
    return _interval(values, clusters, n_resamples, seed, statistic=lambda drawn: means[drawn].mean())


def contiguous_blocks(values, clusters, n_resamples=5000, seed=0):  # assumes sorted rows, equal-size clusters
    blocks = np.repeat(np.arange(len(np.unique(clusters))), int(np.ceil(len(values) / len(np.unique(clusters)))))
    return _interval(values, blocks[:len(values)], n_resamples, seed)


def normal_interval(values, clusters, n_resamples=5000, seed=0):  # mean ± 1.96 SE, as if rows were independent
    values = np.asarray(values, dtype=float)
    se = values.std(ddof=1) / np.sqrt(len(values))
    return values.mean() - 1.96 * se, values.mean() + 1.96 * se


def test_exercise_8_6(capsys):
    df = ch08.data_8_6()
    # fresh data: 30 sources x 5 systems, shuffled; resampling sources gives an interval about twice as wide
    assert len(df) == 150 and df["src"].nunique() == 30 and df["system"].nunique() == 5
    assert not df["src"].is_monotonic_increasing
    ratio = ch08._expected_ratio_8_6()
    assert 1.8 < ratio < 2.4
    right = solution("def cluster_interval", "cluster_interval")
    ns = run_cells(NOTEBOOK, "df_8_6 = ch08.data_8_6()", solution=True, ch08=ch08, np=np, cluster_interval=right)
    assert passes(ch08.check_8_6, right, ns["ratio_8_6"], capsys=capsys)
    assert passes(ch08.check_8_6, right, np.float32(ratio), capsys=capsys)
    assert not passes(ch08.check_8_6, stub, ratio, capsys=capsys)
    for bad in (rows_only, too_many_draws, ninety_percent, mean_of_cluster_means, contiguous_blocks, normal_interval):
        assert not passes(ch08.check_8_6, bad, ratio, capsys=capsys), bad.__name__
    # planted ratios: none, inverted, clustered by system instead of source, the ordinary bootstrap twice
    by_system = ch08._cluster_mean_interval(df["human"], df["system"])
    by_row = ch08._cluster_mean_interval(df["human"], np.arange(150))
    for wrong in (None, 1 / ratio, (by_system[1] - by_system[0]) / (by_row[1] - by_row[0]), 1.0):
        assert not passes(ch08.check_8_6, right, wrong, capsys=capsys), wrong
    # the library's function is forbidden inside the student's
    from course_lib.evaluation import bootstrap_loops

    def via_library(values, clusters, n_resamples=5000, seed=0):
        means = [np.mean(np.asarray(values)[rows]) for rows in bootstrap_loops.cluster_resamples(clusters, n_resamples, seed)]
        return tuple(np.quantile(means, [0.025, 0.975]))
    ch08.check_8_6(via_library, ratio)
    out = capsys.readouterr().out
    assert out.startswith("❌") and "cluster_resamples" in out, out
    ch08.check_8_6(mean_of_cluster_means, ratio)  # named (it was told "narrower: single rows?" before)
    out = capsys.readouterr().out
    assert "mean of the drawn clusters' means" in out and "single rows" not in out, out
    ch08.check_8_6(rows_only, ratio, hint=2)
    out = capsys.readouterr().out
    assert "Code:" in out and "case 'data_8_6()" in out and "ordinary bootstrap" in out, out


def each_cluster_once(values, clusters, n_resamples=5000, seed=0):  # a cluster drawn twice counted once (np.isin)
    values, clusters = np.asarray(values, dtype=float), np.asarray(clusters)
    names = np.unique(clusters)
    rng = np.random.default_rng(seed)
    means = [values[np.isin(clusters, names[rng.integers(0, len(names), len(names))])].mean()
             for _ in range(n_resamples)]
    return tuple(np.quantile(means, [0.025, 0.975]))


@pytest.mark.parametrize("wrong, named", [(rows_only, "yours is the ordinary bootstrap"),
                                          (ninety_percent, "yours is a 90% interval"),
                                          (mean_of_cluster_means, "the mean of the drawn clusters' means"),
                                          (each_cluster_once, "must bring its rows twice")],
                         ids=lambda x: getattr(x, "__name__", "hint"))
def test_8_6_hints_name_the_mistake(wrong, named, capsys):
    """Each slip gets its own hint (the 90% interval, the ordinary bootstrap and np.isin shared one before, so three
    different slips showed the code)."""
    reset_attempts("8.6")
    assert_names_mistake(ch08.check_8_6, wrong, ch08._expected_ratio_8_6(), named=named, capsys=capsys)


def test_8_6_names_an_inverted_ratio(capsys):
    right = solution("def cluster_interval", "cluster_interval")
    reset_attempts("8.6")
    assert_names_mistake(ch08.check_8_6, right, 1 / ch08._expected_ratio_8_6(), named="turn it over", capsys=capsys)
