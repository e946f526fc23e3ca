"""Chapter 05's checkers: they pass the notebook's solutions, fail stubs and planted mistakes."""
import math
from collections import Counter, defaultdict
from functools import partial

import pytest
import torch

from course_lib.course.checks import ch05
from notebook_code import NOTEBOOKS, definition, passes, stub

NOTEBOOK = NOTEBOOKS / "05_idf.ipynb"


solution = partial(definition, NOTEBOOK, math=math, Counter=Counter, defaultdict=defaultdict, torch=torch)


# ---- 5.1: bert-score's idf -------------------------------------------------------------------

def idf_no_smoothing(token_ids):  # the paper's formula: log(M / df), unseen -> log(M + 1)
    m, df = len(token_ids), Counter()
    for ids in token_ids:
        df.update(set(ids))
    weights = defaultdict(lambda: math.log(m + 1))
    weights.update({w: math.log(m / c) for w, c in df.items()})
    return weights


def idf_counts_occurrences(token_ids):  # counts every occurrence, not the texts
    m, df = len(token_ids), Counter()
    for ids in token_ids:
        df.update(ids)
    weights = defaultdict(lambda: math.log(m + 1))
    weights.update({w: math.log((m + 1) / (c + 1)) for w, c in df.items()})
    return weights


def idf_plain_dict(token_ids):  # right weights, but no weight for unseen tokens
    m, df = len(token_ids), Counter()
    for ids in token_ids:
        df.update(set(ids))
    return {w: math.log((m + 1) / (c + 1)) for w, c in df.items()}


def idf_unseen_zero(token_ids):
    weights = defaultdict(float)
    weights.update(idf_plain_dict(token_ids))
    return weights


def test_5_1_solution_passes(capsys):
    assert passes(ch05.check_idf, solution("my_idf"), capsys)


@pytest.mark.parametrize("wrong", [stub, idf_no_smoothing, idf_counts_occurrences, idf_plain_dict,
                                   idf_unseen_zero])
def test_5_1_wrong_answers_fail(wrong, capsys):
    assert not passes(ch05.check_idf, wrong, capsys)


# ---- 5.2: idf-weighted P, R, F ---------------------------------------------------------------

def prf_axes_swapped(sim, cand_weights, ref_weights):  # max over the wrong axis
    P = (sim.max(dim=0).values * ref_weights).sum() / ref_weights.sum()
    R = (sim.max(dim=1).values * cand_weights).sum() / cand_weights.sum()
    return P.item(), R.item(), (2 * P * R / (P + R)).item()


def prf_unweighted(sim, cand_weights, ref_weights):  # ignores idf
    P, R = sim.max(dim=1).values.mean(), sim.max(dim=0).values.mean()
    return P.item(), R.item(), (2 * P * R / (P + R)).item()


def prf_wrong_weights(sim, cand_weights, ref_weights):  # weights the candidate side with the reference's
    P = (sim.max(dim=1).values * cand_weights).sum() / cand_weights.sum()
    R = (sim.max(dim=0).values * ref_weights).sum() / cand_weights.sum()
    return P.item(), R.item(), (2 * P * R / (P + R)).item()


def prf_arithmetic_f(sim, cand_weights, ref_weights):
    P = (sim.max(dim=1).values * cand_weights).sum() / cand_weights.sum()
    R = (sim.max(dim=0).values * ref_weights).sum() / ref_weights.sum()
    return P.item(), R.item(), ((P + R) / 2).item()


def test_5_2_solution_passes(capsys):
    assert passes(ch05.check_weighted_prf, solution("weighted_prf"), capsys)


@pytest.mark.parametrize("wrong", [stub, prf_axes_swapped, prf_unweighted, prf_wrong_weights, prf_arithmetic_f])
def test_5_2_wrong_answers_fail(wrong, capsys):
    assert not passes(ch05.check_weighted_prf, wrong, capsys)


# ---- 5.3 and 5.4: questions ------------------------------------------------------------------

def test_5_3(capsys):
    assert passes(ch05.check_single_reference_weight, math.log(2 / 2), capsys)
    for wrong in (None, math.log(2), 1.0, "0", float("nan")):
        assert not passes(ch05.check_single_reference_weight, wrong, capsys)


def test_5_4(capsys):
    m = 2564  # the distinct WMT16 references (the checker counts them itself)
    assert passes(ch05.check_unseen_and_rarest, (math.log(m + 1), math.log((m + 1) / 2)), capsys)
    for wrong in (None, 7.85, (math.log((m + 1) / 2), math.log(m + 1)), (math.inf, math.log(m)),
                  (math.log(3361), math.log(3361 / 2))):  # swapped; paper's formula; all 3,360 rows
        assert not passes(ch05.check_unseen_and_rarest, wrong, capsys)
