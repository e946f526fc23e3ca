"""Chapter 06's checkers: they pass the notebook's solutions, fail stubs and planted mistakes."""
import math
from functools import partial
from pathlib import Path

import bert_score
import numpy as np
import pandas as pd
import pytest
import torch
from scipy.stats import norm

import course_lib
from course_lib.bertscore import baseline as B
from course_lib.course.checks import ch06, reset_attempts
from notebook_code import NOTEBOOKS, assert_names_mistake, definition, passes, run_cells, stub

NOTEBOOK = NOTEBOOKS / "06_baseline_rescaling.ipynb"
ROBERTA = Path(bert_score.__file__).parent / "rescale_baseline" / "en" / "roberta-large.tsv"


solution = partial(definition, NOTEBOOK, math=math, torch=torch, norm=norm)


# ---- 6.1: how many pairs for a wanted half-width, from a pilot --------------------------------

def _slip(name):
    def wrong(pilot, half_width, level=0.95):
        return ch06._pairs_slips(pilot, half_width, level)[name]
    wrong.__name__ = name
    return wrong


def test_6_1_solution_passes(capsys):
    assert passes(ch06.check_6_1, solution("pairs_needed"), capsys)


@pytest.mark.parametrize("name", sorted(ch06.PAIRS_HINTS))
def test_6_1_each_slip_fails_with_the_hint_that_names_it(name, capsys):
    assert not passes(ch06.check_6_1, _slip(name), capsys)
    ch06.check_6_1(_slip(name))
    out = capsys.readouterr().out
    want = {"rounded to the nearest": "rounded down"}.get(name, name)  # the nearest rounds down on a case first
    assert ch06.PAIRS_HINTS[want].split(":")[0] in out, out


@pytest.mark.parametrize("wrong, words", [
    (stub, "NotImplementedError"),
    (lambda p, h, level=0.95: str(math.ceil((norm.ppf(0.5 + level / 2) * p.std().item() / h) ** 2)), "string"),
    (lambda p, h, level=0.95: float("nan"), "your n is NaN"),
    (lambda p, h, level=0.95: None, "None is not a number: return the number of pairs"),
    (lambda p, h, level=0.95: 1000, "gives a half-width"),  # a guess
])
def test_6_1_other_mistakes_fail(wrong, words, capsys):
    assert not passes(ch06.check_6_1, wrong, capsys)
    ch06.check_6_1(wrong)
    assert words in capsys.readouterr().out


def test_6_1_accepts_numpy_and_float_whole_numbers(capsys):
    z = lambda level: norm.ppf(0.5 + level / 2)  # noqa: E731
    assert passes(ch06.check_6_1, lambda p, h, level=0.95: np.ceil((z(level) * p.std().item() / h) ** 2), capsys)


def test_6_1_cases_catch_every_slip():
    """Every slip differs from the right n on some case (the hint can only name a slip the cases separate)."""
    for name in ch06.PAIRS_HINTS:
        right = [math.ceil((norm.ppf(0.5 + lv / 2) * p.std().item() / h) ** 2) for p, h, lv in ch06._pilot_cases()]
        assert any(ch06._pairs_slips(p, h, level)[name] != n
                   for (p, h, level), n in zip(ch06._pilot_cases(), right)), name


def test_6_1_and_6_2_draw_hidden_cases_in_grading_mode(monkeypatch):
    learning = [c[0].tolist() for c in ch06._pilot_cases()], [c[2] for c in ch06._published_cases()]
    monkeypatch.setenv("COURSE_GRADING", "1")
    monkeypatch.setenv("COURSE_GRADING_SEED", "7")
    hidden = [c[0].tolist() for c in ch06._pilot_cases()], [c[2] for c in ch06._published_cases()]
    assert hidden[0] != learning[0] and hidden[1] != learning[1]
    assert ch06.check_6_1(solution("pairs_needed")) and ch06.check_6_2(solution("recover_baseline"))


# ---- 6.2: the baseline behind published (raw, rescaled) pairs -------------------------------

def test_6_2_solution_passes(capsys):
    assert passes(ch06.check_6_2, solution("recover_baseline"), capsys)


@pytest.mark.parametrize("name", ["difference", "swapped", "mean of raw", "near one", "mean of rows"])
def test_6_2_each_slip_fails_with_the_hint_that_names_it(name, capsys):
    wrong = lambda raw, rescaled: ch06._baseline_slips(raw, rescaled)[name]  # noqa: E731
    assert not passes(ch06.check_6_2, wrong, capsys)
    ch06.check_6_2(wrong)
    assert ch06.BASELINE_HINTS[name] in capsys.readouterr().out


@pytest.mark.parametrize("wrong, words", [
    (stub, "NotImplementedError"),
    (lambda x, y: float(((x - y) / (1 - y)).mean()), "0 / 0"),        # every pair, the identical one too: NaN
    (lambda x, y: (x - y) / (1 - y), "numbers; return one b"),       # one b per pair
    (lambda x, y: "0.83", "string"),
    (lambda x, y: None, "None is not a number; return b as a number"),
    (lambda x, y: 0.36, "off by"),                                    # the course's b, whatever the table
])
def test_6_2_other_mistakes_fail(wrong, words, capsys):
    assert not passes(ch06.check_6_2, wrong, capsys)
    ch06.check_6_2(wrong)
    assert words in capsys.readouterr().out


def test_6_2_other_honest_solutions_pass(capsys):
    from scipy.stats import linregress

    assert passes(ch06.check_6_2, lambda x, y: linregress(y.numpy(), x.numpy()).intercept, capsys)
    assert passes(ch06.check_6_2, lambda x, y: float(((x - y) / (1 - y))[y < 1].median()), capsys)


# ---- 6.3: the rescaled F behind rescaled P and R, each column with its own baseline ---------------

def _rescaled_f():
    return solution("rescaled_f", marker="def rescaled_f(")


def test_6_3_solution_passes(capsys):
    ns = run_cells(NOTEBOOK, "def rescaled_f(", B=B, ch06=ch06, halford=course_lib.resources.halford(),
                   BERT_SCORE_BASELINES=ROBERTA.parent, pd=pd, torch=torch, display=lambda *a: None)
    assert ns["accepted_6_3"] == [1, 2, 3]
    assert passes(ch06.check_6_3, ns["rescaled_f"], ns["accepted_6_3"], capsys)


def test_6_3_accepts_lists_numpy_and_float32(capsys):
    f = _rescaled_f()
    for wrap in (lambda t: t.tolist(), lambda t: t.numpy(), lambda t: t.float()):
        assert passes(ch06.check_6_3, lambda p, r, b, w=wrap: w(f(p, r, b)), [1, 2, 3], capsys)


@pytest.mark.parametrize("name", sorted(ch06.F_HINTS))
def test_6_3_each_slip_fails_with_the_hint_that_names_it(name, capsys):
    wrong = lambda p, r, b: ch06._f_slips(p, r, b)[name]  # noqa: E731
    assert_names_mistake(ch06.check_6_3, wrong, [1, 2, 3], named=ch06.F_HINTS[name], capsys=capsys)


def test_6_3_cases_separate_b_F_for_all_where_roberta_large_cannot():
    """Why the check plants baselines: on roberta-large's layer 17 (b_P, b_R, b_F within 3e-4) the b_F-for-all
    slip lands within 0.002 of the right F; on the planted baselines it is far off."""
    gaps = [(what, (ch06._f_slips(p, r, b)["b_F for all"] - ch06._f_cases_answer(p, r, b)).abs().max().item())
            for p, r, b, what in ch06._f_cases()]
    assert [g for what, g in gaps if what.startswith("roberta")][0] < 0.002
    assert min(g for what, g in gaps if "RAG" in what) > 0.01


@pytest.mark.parametrize("wrong, words", [
    (stub, "NotImplementedError"),
    (lambda p, r, b: "0.4", "a string"),
    (lambda p, r, b: None, "not NoneType"),
    (lambda p, r, b: float("nan") * p, "NaN"),
    (lambda p, r, b: (p + r) / 2, "off by"),                                  # a guess
    (lambda p, r, b: ch06._f_cases_answer(p, r, b)[:1], "number(s); one F per row"),
])
def test_6_3_other_mistakes_fail(wrong, words, capsys):
    assert not passes(ch06.check_6_3, wrong, [1, 2, 3], capsys)
    ch06.check_6_3(wrong, [1, 2, 3])
    assert words in capsys.readouterr().out


def test_6_3_wrong_accepted_ids_fail(capsys):
    for wrong_ids in (None, [1], [1, 2], "all", [2, 3]):
        assert not passes(ch06.check_6_3, _rescaled_f(), wrong_ids, capsys)


def test_6_3_draws_hidden_baselines_and_threshold_in_grading_mode(monkeypatch):
    learning = [c[2].tolist() for c in ch06._f_cases()]
    monkeypatch.setenv("COURSE_GRADING", "1")
    monkeypatch.setenv("COURSE_GRADING_SEED", "7")
    hidden = [c[2].tolist() for c in ch06._f_cases()]
    assert hidden[:2] != learning[:2] and ch06._hidden_6_3() != 0.85
    monkeypatch.setattr(ch06, "THRESHOLD_6_3", ch06._hidden_6_3())  # as ch06 sets it when imported to grade
    assert ch06.check_6_3(_rescaled_f(), [k for k in (1, 2, 3) if ch06._published_raw(k, "P") >= ch06.THRESHOLD_6_3])


# ---- 6.4: two candidates whose order flips under the harmonic mean of rescaled P and R --------

def test_6_4(capsys):
    ns = run_cells(NOTEBOOK, "answer_6_4 = None", B=B, b_F=0.3619375527, b_P=0.3637708127, b_R=0.3639228940)
    right = ns["answer_6_4"]
    assert passes(ch06.check_6_4, right, capsys)
    assert passes(ch06.check_6_4, [[np.float32(v) for v in c] for c in right], capsys)
    assert passes(ch06.check_6_4, tuple(tuple(torch.tensor(v) for v in c) for c in right), capsys)


@pytest.mark.parametrize("wrong, words", [
    (None, "two pairs of raw scores"),
    ((0.9, 0.8), "two pairs of raw scores"),                          # one candidate
    ((("0.95", "0.5"), ("0.6", "0.6")), "strings"),
    (((0.95, 0.5), (0.6, float("nan"))), "not NaN"),
    (((0.95, 0.5), (0.6, None)), "None is not a number: give four numbers"),
    (((0.92, 0.21), (0.45, 0.45)), "rescale below 0"),               # rescaled values given as raw
    (((0.95, 0.30), (0.60, 0.60)), "R_A would rescale below 0"),
    (((0.60, 0.60), (0.95, 0.50)), "wrong order"),                    # A and B swapped
    (((0.95, 0.50), (0.65, 0.65)), "raw F by at least 0.01"),         # a flip, but raw F nearly tied
    (((0.90, 0.80), (0.70, 0.70)), "no flip"),                        # both recipes agree
    (((0.80, 0.80), (0.70, 0.70)), "no flip"),                        # balanced both: nothing to punish
])
def test_6_4_wrong_answers_fail_with_a_hint_that_names_the_mistake(wrong, words, capsys):
    assert not passes(ch06.check_6_4, wrong, capsys)
    ch06.check_6_4(wrong)
    assert words in capsys.readouterr().out


def test_code_hints_come_on_request_and_never_in_grading_mode(capsys, monkeypatch):
    for check, wrong in ((ch06.check_6_1, _slip("no square")), (ch06.check_6_2, lambda x, y: 0.36),
                         (ch06.check_6_4, ((0.9, 0.8), (0.7, 0.7))),
                         (partial(ch06.check_6_3, accepted=[1, 2, 3]), lambda p, r, b: (p + r) / 2)):
        check(wrong, hint=2)
        assert "Code:" in capsys.readouterr().out
        monkeypatch.setenv("COURSE_GRADING", "1")
        with pytest.raises(AssertionError) as failed:
            check(wrong, hint=2)
        assert "Code:" not in str(failed.value)
        monkeypatch.delenv("COURSE_GRADING")


def test_first_hints_give_the_idea_not_the_method(capsys):
    """6.1's first hint does not state the inequality to solve, 6.4's not which candidates flip; hint=2 does."""
    for check, wrong, method in ((ch06.check_6_1, _slip("no z"), "z s / √n <= h"),
                                 (ch06.check_6_4, ((0.9, 0.8), (0.7, 0.7)), "lopsided")):
        reset_attempts()  # earlier tests repeated these mistakes: the code would show by itself
        assert not check(wrong)
        first = capsys.readouterr().out
        assert method not in first and "far apart" not in first and "Code:" not in first, first
        check(wrong, hint=2)
        assert method in capsys.readouterr().out
