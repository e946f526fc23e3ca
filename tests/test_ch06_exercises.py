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
from course_lib.course.checks import ch06
from notebook_code import NOTEBOOKS, definition, passes, run_cells, stub

NOTEBOOK = NOTEBOOKS / "06_baseline_rescaling.ipynb"
ROBERTA = Path(bert_score.__file__).parent / "rescale_baseline" / "en" / "roberta-large.tsv"


solution = partial(definition, NOTEBOOK, math=math, torch=torch, norm=norm)


# ---- 6.1: b, its standard error and an interval at any level ---------------------------------

def _interval(b, se, z):
    return b, se, b - z * se, b + z * se


def se_population_std(scores, level=0.95):  # divides by n instead of n - 1
    se = (scores.std(unbiased=False) / math.sqrt(len(scores))).item()
    return _interval(scores.mean().item(), se, norm.ppf(0.5 + level / 2))


def se_is_std(scores, level=0.95):  # forgets the sqrt(n)
    return _interval(scores.mean().item(), scores.std().item(), norm.ppf(0.5 + level / 2))


def se_over_n(scores, level=0.95):  # divides by n instead of sqrt(n)
    return _interval(scores.mean().item(), (scores.std() / len(scores)).item(), norm.ppf(0.5 + level / 2))


def b_is_median(scores, level=0.95):
    se = (scores.std() / math.sqrt(len(scores))).item()
    return _interval(scores.median().item(), se, norm.ppf(0.5 + level / 2))


def z_always_196(scores, level=0.95):  # copies 1.96 whatever the level
    return _interval(scores.mean().item(), (scores.std() / math.sqrt(len(scores))).item(), 1.96)


def z_one_sided(scores, level=0.95):  # norm.ppf(level): all of 1 - level in one tail
    return _interval(scores.mean().item(), (scores.std() / math.sqrt(len(scores))).item(), norm.ppf(level))


def interval_of_scores(scores, level=0.95):  # the spread of single scores, not of their mean
    b, se = scores.mean().item(), (scores.std() / math.sqrt(len(scores))).item()
    z = norm.ppf(0.5 + level / 2)
    return b, se, b - z * scores.std().item(), b + z * scores.std().item()


def calls_the_library(scores, level=0.95):
    from course_lib.engine.baseline import compute_baseline
    compute_baseline(["a b", "c d"], n_pairs=2)
    return se_population_std(scores, level)


def test_6_1_solution_passes(capsys):
    assert passes(ch06.check_6_1, solution("baseline_interval"), capsys)


@pytest.mark.parametrize("wrong", [stub, se_population_std, se_is_std, se_over_n, b_is_median, z_always_196,
                                   z_one_sided, interval_of_scores, calls_the_library])
def test_6_1_wrong_answers_fail(wrong, capsys):
    assert not passes(ch06.check_6_1, wrong, capsys)


# ---- 6.2: undo the rescaling -----------------------------------------------------------------

@pytest.mark.parametrize("wrong", [
    stub,
    lambda x, b: x * (1 - b),          # forgets + b
    lambda x, b: (x - b) / (1 - b),    # rescales again
    lambda x, b: x + b,                # forgets the factor
    lambda x, b: x * (1 - b) - b,      # wrong sign
    lambda x, b: "0.5",                # not a number
])
def test_6_2(wrong, capsys):
    assert passes(ch06.check_6_2, solution("unrescale"), capsys)
    assert not passes(ch06.check_6_2, wrong, capsys)


# ---- 6.3: the raw roberta-large P and R behind the published ones -----------------------------

def test_6_3_solution_passes(capsys):
    ns = run_cells(NOTEBOOK, "answer_6_3 = None", B=B, ch06=ch06, halford=course_lib.resources.halford(),
                   BERT_SCORE_BASELINES=ROBERTA.parent, unrescale=solution("unrescale"))
    assert passes(ch06.check_6_3, ns["answer_6_3"], ns["accepted_6_3"], capsys)


def test_6_3_accepts_tensors_and_numpy_numbers(capsys):
    b = B.layer_baseline(ROBERTA, 17)  # [b_P, b_R, b_F], 0-d tensors after indexing
    p, r = b[0] + (1 - b[0]) * 0.377, b[1] + (1 - b[1]) * 0.434
    assert passes(ch06.check_6_3, (p, r), [1, 2, 3], capsys)                          # 0-d tensors
    assert passes(ch06.check_6_3, (np.float32(p), np.float64(r)), (3, 2, 1), capsys)  # numpy scalars


def test_6_3_wrong_answers_fail(capsys):
    table = pd.read_csv(ROBERTA)
    pub_p, pub_r = 0.377, 0.434  # candidate 2 in the post's table (course_lib/resources/rag_halford/halford.json)
    right = [table.loc[17, k] + (1 - table.loc[17, k]) * v for k, v in (("P", pub_p), ("R", pub_r))]
    ours = B.layer_baseline(B.default_baseline_path(course_lib.EMBEDDED_MODEL), 4)
    b_f = table.loc[17, "F"]
    for wrong in (None, 0.9, (pub_p, pub_r),                                           # published as is
                  (right[1], right[0]),                                                # P and R swapped
                  (b_f + (1 - b_f) * 0.406,) * 2,                                      # the F of candidate 2
                  [table.loc[24, k] + (1 - table.loc[24, k]) * v for k, v in (("P", pub_p), ("R", pub_r))],
                  [ours[k].item() + (1 - ours[k].item()) * v for k, v in ((0, pub_p), (1, pub_r))],  # course's b
                  [table.loc[17, "P"] + (1 - table.loc[17, "P"]) * 0.200,              # candidate 3
                   table.loc[17, "R"] + (1 - table.loc[17, "R"]) * 0.176],
                  ("0.9", "0.9"), torch.tensor(right)):                                # strings; one tensor [2]
        assert not passes(ch06.check_6_3, wrong, [1, 2, 3], capsys)
    for wrong_ids in (None, [1], [1, 2], "all", [2, 3]):
        assert not passes(ch06.check_6_3, right, wrong_ids, capsys)


# ---- 6.4: rankings and signs under rescaling, on fresh pairs ---------------------------------

def test_6_4(capsys):
    ns = run_cells(NOTEBOOK, "answer_6_4 = {", course_lib=course_lib, ch06=ch06, B=B,
                   b_F=B.layer_baseline(B.default_baseline_path(course_lib.EMBEDDED_MODEL), 4)[2].item(),
                   spearmanr=__import__("scipy.stats", fromlist=["spearmanr"]).spearmanr)
    right = ns["answer_6_4"]
    assert passes(ch06.check_6_4, right, capsys)
    want = ch06._expected_6_4()
    assert 0 < want["negative"] < len(ch06.pairs_6_4()[0])  # the count is neither none nor all
    assert passes(ch06.check_6_4, {k: torch.tensor(float(v)) for k, v in right.items()}, capsys)
    assert passes(ch06.check_6_4, {k: np.float32(v) for k, v in right.items()}, capsys)
    b = want["b"]
    for wrong in (None, 1, {"spearman": 1}, dict.fromkeys(right),
                  {**right, "spearman": 0.99}, {**right, "spearman": "1"},
                  {**right, "negative": 0}, {**right, "negative": 20},                  # none; a guess of half
                  {**right, "negative": len(ch06.pairs_6_4()[0]) - want["negative"]},    # counted the positives
                  {**right, "empty": 0.0}, {**right, "empty": -1.0}, {**right, "empty": -b},
                  {**right, "empty": -0.4498 / (1 - 0.4498)}):                           # layer 5's b
        assert not passes(ch06.check_6_4, wrong, capsys)
