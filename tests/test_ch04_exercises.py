"""Chapter 04's checkers: they pass the notebook's solutions, fail stubs and planted mistakes."""
from functools import partial

import pytest
import torch

import course_lib
from course_lib.course.checks import ch04
from course_lib.teaching.plots import pair_view
from notebook_code import NOTEBOOKS, passes, run_cells, stub

NOTEBOOK = NOTEBOOKS / "04_greedy_matching.ipynb"


solution_cell = partial(run_cells, NOTEBOOK, solution=True, torch=torch)


# ---- 4.1: greedy precision and recall -------------------------------------------------------

def max_over_wrong_axis(sim):  # P from the column maxima, R from the row maxima
    return float(sim.max(dim=0).values.mean()), float(sim.max(dim=1).values.mean())


def mean_instead_of_max(sim):
    return float(sim.mean(dim=1).mean()), float(sim.mean(dim=0).mean())


def one_number_twice(sim):  # the mean of all row maxima used for both
    p = float(sim.max(dim=1).values.mean())
    return p, p


def test_4_1_solution_passes(capsys):
    fn = solution_cell("def greedy_precision_recall")["greedy_precision_recall"]
    assert passes(ch04.check_4_1, fn, capsys)


@pytest.mark.parametrize("wrong", [stub, max_over_wrong_axis, mean_instead_of_max, one_number_twice])
def test_4_1_wrong_answers_fail(wrong, capsys):
    assert not passes(ch04.check_4_1, wrong, capsys)


# ---- 4.2: weighted P, R, F ------------------------------------------------------------------

def _pr(sim, cw, rw):
    return (sim.max(dim=1).values * cw).sum() / cw.sum(), (sim.max(dim=0).values * rw).sum() / rw.sum()


def f_as_arithmetic_mean(sim, cw, rw):
    P, R = _pr(sim, cw, rw)
    return float(P), float(R), float((P + R) / 2)


def weights_not_normalised(sim, cw, rw):  # divides by the number of tokens, not by Σ w
    P = (sim.max(dim=1).values * cw).sum() / len(cw)
    R = (sim.max(dim=0).values * rw).sum() / len(rw)
    return float(P), float(R), float(2 * P * R / (P + R))


def weights_ignored(sim, cw, rw):
    P, R = sim.max(dim=1).values.mean(), sim.max(dim=0).values.mean()
    return float(P), float(R), float(2 * P * R / (P + R))


def weights_swapped(sim, cw, rw):  # P and R exchanged: each maximum taken over the wrong axis
    P = (sim.max(dim=0).values * rw).sum() / rw.sum()
    R = (sim.max(dim=1).values * cw).sum() / cw.sum()
    return float(P), float(R), float(2 * P * R / (P + R))


def test_4_2_solution_passes(capsys):
    fn = solution_cell("def weighted_bertscore")["weighted_bertscore"]
    assert passes(ch04.check_4_2, fn, capsys)


@pytest.mark.parametrize("wrong", [stub, f_as_arithmetic_mean, weights_not_normalised, weights_ignored,
                                   weights_swapped])
def test_4_2_wrong_answers_fail(wrong, capsys):
    assert not passes(ch04.check_4_2, wrong, capsys)


# ---- 4.3: swapping keeps F ------------------------------------------------------------------

def test_4_3_solution_passes(capsys):
    ns = solution_cell("answer_4_3", ch04=ch04, course_lib=course_lib)
    assert passes(ch04.check_4_3, ns["answer_4_3"], capsys)
    assert passes(ch04.check_4_3, "f", capsys)  # case does not matter


@pytest.mark.parametrize("wrong", [None, "P", "R", "PRF", 0.739])
def test_4_3_wrong_answers_fail(wrong, capsys):
    assert not passes(ch04.check_4_3, wrong, capsys)


# ---- 4.4: red shoes, measured ---------------------------------------------------------------

def test_4_4_solution_passes(capsys):
    ns = solution_cell("answer_4_4", ch04=ch04, course_lib=course_lib)
    assert passes(ch04.check_4_4, ns["answer_4_4"], capsys)


def test_4_4_the_articles_claim_fails(capsys):
    scores = ch04.red_shoes_scores()
    loser = ch04.RED_SHOES_CANDIDATES[int(scores[1] > scores[0]) ^ 1]
    for wrong in (None, loser, "blue socks", 1):
        assert not passes(ch04.check_4_4, wrong, capsys)


# ---- 4.5: a token that matches a special token ----------------------------------------------

def test_4_5_solution_passes(capsys):
    ns = solution_cell("answer_4_5", ch04=ch04, pair_view=pair_view)
    assert passes(ch04.check_4_5, ns["answer_4_5"], capsys)


@pytest.mark.parametrize("wrong", [None, "cars", "[SEP]", ["consumers", "."]])
def test_4_5_wrong_answers_fail(wrong, capsys):
    assert not passes(ch04.check_4_5, wrong, capsys)
