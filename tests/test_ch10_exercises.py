"""Chapter 10's checkers pass the notebook's solutions, fail stubs and planted wrong answers."""
import numpy as np
import pytest
import pandas as pd
import torch
from scipy import stats

from course_lib.course.checks import ch10
from course_lib.evaluation import paired
from course_lib.learned import evaluation
from course_lib.learned.features import comet_features
from notebook_code import NOTEBOOKS, definition, passes, stub

NOTEBOOK = NOTEBOOKS / "10_learned_metric.ipynb"


# ---- 10.1: COMET's features --------------------------------------------------------------------

def signed_difference(h, r, s=None):  # planted: h − r instead of |h − r|
    parts = [h, r, h * r, h - r] + ([h * s, (h - s).abs()] if s is not None else [])
    return torch.cat(parts, dim=-1)


def blocks_swapped(h, r, s=None):  # planted: the comparison blocks in another order
    parts = [h, r, (h - r).abs(), h * r] + ([h * s, (h - s).abs()] if s is not None else [])
    return torch.cat(parts, dim=-1)


def source_ignored(h, r, s=None):  # planted: never adds the source blocks
    return torch.cat([h, r, h * r, (h - r).abs()], dim=-1)


def source_against_reference(h, r, s=None):  # planted: compares the source with r instead of h
    parts = [h, r, h * r, (h - r).abs()] + ([r * s, (r - s).abs()] if s is not None else [])
    return torch.cat(parts, dim=-1)


def stacked_on_dim0(h, r, s=None):  # planted: concatenates along the batch
    return torch.cat([h, r, h * r, (h - r).abs()], dim=0)


def library_features(h, r, s=None):  # planted: hands in the library's function
    return comet_features(h, r, s)


def test_10_1(capsys):
    assert passes(ch10.check_10_1, definition(NOTEBOOK, "my_features", torch=torch), capsys)
    for wrong in (stub, signed_difference, blocks_swapped, source_ignored, source_against_reference,
                  stacked_on_dim0, library_features):
        assert not passes(ch10.check_10_1, wrong, capsys), wrong.__name__


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
