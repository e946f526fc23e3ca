"""Chapter 10's checkers pass the notebook's solutions, fail stubs and planted wrong answers."""
import numpy as np
import torch

from course_lib.course.checks import ch10
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


# ---- 10.3: where a leak inflates most -------------------------------------------------------------

def test_10_3(capsys):
    inflation = ch10._leak_inflation()
    assert len(inflation) == 6 and all(v > 0 for v in inflation.values())  # a leak always helps here
    best = max(inflation, key=inflation.get)
    assert passes(ch10.check_10_3, best, capsys)
    assert passes(ch10.check_10_3, f" {best.upper()} ", capsys)
    for wrong in (None, "german", min(inflation, key=inflation.get), 3):
        assert not passes(ch10.check_10_3, wrong, capsys), wrong
