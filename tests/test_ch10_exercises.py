"""Chapter 10's checkers pass the notebook's solutions, fail stubs and planted wrong answers."""
import numpy as np
import pytest
import pandas as pd
import torch
from scipy import stats

from course_lib.course.checks import ch10, reset_attempts
from course_lib.evaluation import paired
from course_lib.learned import evaluation
from notebook_code import NOTEBOOKS, definition, passes, stub

NOTEBOOK = NOTEBOOKS / "10_learned_metric.ipynb"


# ---- 10.1: where cos(h, r) is in COMET's features ------------------------------------------------

def from_h_and_r(x, d):  # planted: the cosine of the h and r blocks (blanked by the check)
    c = torch.nn.functional.cosine_similarity(x[:, :d], x[:, d:2 * d])
    return c, c


def unsquared(x, d):  # planted: 1 − Σ|h − r| / 2
    return x[:, 2 * d:3 * d].sum(-1), 1 - x[:, 3 * d:4 * d].sum(-1) / 2


def wrong_block(x, d):  # planted: sums the |h − r| block for the first
    return x[:, 3 * d:4 * d].sum(-1), 1 - (x[:, 3 * d:4 * d] ** 2).sum(-1) / 2


def summed_over_batch(x, d):  # planted: sums along the batch
    return x[:, 2 * d:3 * d].sum(0), 1 - (x[:, 3 * d:4 * d] ** 2).sum(0) / 2


def one_tensor(x, d):  # planted: only the h ⊙ r answer
    return x[:, 2 * d:3 * d].sum(-1)


def test_10_1(capsys):
    assert passes(ch10.check_10_1, definition(NOTEBOOK, "cos_two_ways", torch=torch), capsys)
    for wrong in (stub, from_h_and_r, unsquared, wrong_block, summed_over_batch, one_tensor):
        assert not passes(ch10.check_10_1, wrong, capsys), wrong.__name__


def test_10_1_hints_name_the_mistake(capsys):
    named = {from_h_and_r: "NaN: it reads the h or r block", unsquared: "a length adds squares",
             summed_over_batch: "should have shape", one_tensor: "return two tensors", stub: "replace"}
    for wrong, text in named.items():
        ch10.check_10_1(wrong)
        out = capsys.readouterr().out
        assert "❌" in out and text in out, (wrong.__name__, out)


def test_10_1_first_hint_gives_the_idea_not_the_formula(capsys):
    """The first hint names the idea (the length of h − r and the angle: the law of cosines), never the formula;
    hint=2 gives it."""
    reset_attempts("10.1")  # the earlier tests' failures, remembered in this process
    for wrong in (stub, unsquared, wrong_block):
        ch10.check_10_1(wrong)
        out = capsys.readouterr().out
        assert "law of cosines" in out and "Code:" not in out, out
        for formula in ("2 − 2", "2 - 2", "(h − r)·(h − r)", "** 2", "1 − Σ", "/ 2", "sums to h · r"):
            assert formula not in out, (wrong.__name__, formula, out)
    ch10.check_10_1(unsquared, hint=2)
    assert "|h - r|² = 2 - 2 cos(h, r)" in capsys.readouterr().out


# ---- 10.2: the leave-one-pair-out split -----------------------------------------------------------

def random_split(lps, test_pair):  # planted: a random 5/6 split of segments (the leak)
    n = len(lps)
    order = np.random.default_rng(0).permutation(n)
    return order[: n * 5 // 6], order[n * 5 // 6:]


def train_on_everything(lps, test_pair):  # planted: trains on all rows
    lps = np.asarray(lps)
    return np.arange(len(lps)), np.flatnonzero(lps == test_pair)


def boolean_masks(lps, test_pair):  # planted: masks instead of positions
    lps = np.asarray(lps)
    return lps != test_pair, lps == test_pair


def swapped(lps, test_pair):  # planted: train and test exchanged
    lps = np.asarray(lps)
    return np.flatnonzero(lps == test_pair), np.flatnonzero(lps != test_pair)


def library_split(lps, test_pair):  # planted: uses the library's splits
    return next((train, test) for p, train, test in evaluation.pair_splits(lps) if p == test_pair)


def test_10_2(capsys):
    assert passes(ch10.check_10_2, definition(NOTEBOOK, "pair_split", np=np), capsys)
    for wrong in (stub, random_split, train_on_everything, boolean_masks, swapped, library_split):
        assert not passes(ch10.check_10_2, wrong, capsys), wrong.__name__


# ---- 10.3: in-sample inflation, pair by pair ------------------------------------------------------

def _r(x, y):
    return stats.pearsonr(x, y).statistic


def reversed_sign(a, b, human, lps):  # planted: r(held out) − r(in-sample)
    lps = np.asarray(lps)
    return {lp: _r(b[lps == lp], human[lps == lp]) - _r(a[lps == lp], human[lps == lp]) for lp in set(lps)}


def pooled_once(a, b, human, lps):  # planted: one r over all segments, copied to every pair
    d = _r(a, human) - _r(b, human)
    return {lp: d for lp in set(lps)}


def spearman_instead(a, b, human, lps):  # planted: Spearman, not Pearson
    lps = np.asarray(lps)
    rho = lambda x, y: stats.spearmanr(x, y).statistic  # noqa: E731
    return {lp: rho(a[lps == lp], human[lps == lp]) - rho(b[lps == lp], human[lps == lp]) for lp in set(lps)}


def ratio_instead(a, b, human, lps):  # planted: r(in-sample) / r(held out)
    lps = np.asarray(lps)
    return {lp: _r(a[lps == lp], human[lps == lp]) / _r(b[lps == lp], human[lps == lp]) for lp in set(lps)}


def as_list(a, b, human, lps):  # planted: the right numbers, not keyed by pair
    return list(ch10._per_pair(a, b, human, np.asarray(lps)).values())


def library_version(a, b, human, lps):  # planted: the library's paired differences
    table = paired.pearson_differences(pd.DataFrame({"a": a, "b": b, "human_z": human, "lp": lps}), "a", "b",
                                       n_resamples=20)
    return table.delta.drop("average").to_dict()


def test_10_3(capsys):
    solution = definition(NOTEBOOK, "inflation_by_pair", np=np, stats=stats)
    assert passes(ch10.check_10_3, solution, capsys)
    for wrong in (reversed_sign, pooled_once, spearman_instead, ratio_instead, as_list, library_version, stub):
        assert not passes(ch10.check_10_3, wrong, capsys), wrong.__name__


def test_10_3_hints_name_the_mistake(capsys):
    hints = {reversed_sign: "sign is reversed", pooled_once: "pooled", spearman_instead: "Spearman",
             ratio_instead: "ratios", as_list: "return a dict", library_version: "pearson_differences",
             stub: "replace"}
    for wrong, named in hints.items():
        ch10.check_10_3(wrong)
        out = capsys.readouterr().out
        assert "❌" in out and named in out, (wrong.__name__, out)


def test_10_3_grading_mode_draws_other_cases(monkeypatch):
    learning = ch10._inflation_cases()
    monkeypatch.setenv("COURSE_GRADING", "1")
    monkeypatch.setenv("COURSE_GRADING_SEED", "7")
    hidden = ch10._inflation_cases()
    assert all(len(a[0]) != len(b[0]) or not np.allclose(a[0], b[0]) for a, b in zip(learning, hidden))
    assert ch10.check_10_3(definition(NOTEBOOK, "inflation_by_pair", np=np, stats=stats))
    with pytest.raises(AssertionError):  # grading mode: a failing check raises
        ch10.check_10_3(reversed_sign)


def test_10_2_hints_show_plain_values_not_numpy_reprs(capsys):
    """A hint quotes the labels and rows as a student wrote them, not np.str_('a') or np.int64(0)."""
    from course_lib.course.checks import reset_attempts

    reset_attempts("10.2")
    for wrong in (swapped, train_on_everything):
        assert ch10.check_10_2(wrong) is False
        out = capsys.readouterr().out
        assert "np.str_" not in out and "np.int64" not in out and "lps = ['a'" in out, out
    reset_attempts("10.2")
