"""Chapter 06's checkers: they pass the notebook's solutions, fail stubs and planted mistakes."""
import math
from functools import partial
from pathlib import Path

import bert_score
import pandas as pd
import pytest
import torch

from course_lib.course.checks import ch06
from notebook_code import NOTEBOOKS, definition, passes, stub

NOTEBOOK = NOTEBOOKS / "06_baseline_rescaling.ipynb"
ROBERTA = Path(bert_score.__file__).parent / "rescale_baseline" / "en" / "roberta-large.tsv"


solution = partial(definition, NOTEBOOK, math=math, torch=torch)


# ---- 6.1: b and its standard error ------------------------------------------------------------

def se_population_std(scores):  # divides by n instead of n - 1
    return scores.mean().item(), (scores.std(unbiased=False) / math.sqrt(len(scores))).item()


def se_is_std(scores):  # forgets the sqrt(n)
    return scores.mean().item(), scores.std().item()


def se_over_n(scores):  # divides by n instead of sqrt(n)
    return scores.mean().item(), (scores.std() / len(scores)).item()


def b_is_median(scores):
    return scores.median().item(), (scores.std() / math.sqrt(len(scores))).item()


def test_6_1_solution_passes(capsys):
    assert passes(ch06.check_baseline_and_se, solution("baseline_and_se"), capsys)


@pytest.mark.parametrize("wrong", [stub, se_population_std, se_is_std, se_over_n, b_is_median])
def test_6_1_wrong_answers_fail(wrong, capsys):
    assert not passes(ch06.check_baseline_and_se, wrong, capsys)


# ---- 6.2: undo the rescaling -----------------------------------------------------------------

@pytest.mark.parametrize("wrong", [
    stub,
    lambda x, b: x * (1 - b),          # forgets + b
    lambda x, b: (x - b) / (1 - b),    # rescales again
    lambda x, b: x + b,                # forgets the factor
    lambda x, b: x * (1 - b) - b,      # wrong sign
])
def test_6_2(wrong, capsys):
    assert passes(ch06.check_unrescale, solution("unrescale"), capsys)
    assert not passes(ch06.check_unrescale, wrong, capsys)


# ---- 6.3: the raw roberta-large F behind a published rescaled F ------------------------------

def test_6_3(capsys):
    table = pd.read_csv(ROBERTA)
    published = 0.189  # candidate 3 in the post's table (course_lib/resources/rag_halford/halford.json)
    b17, b24 = table.loc[17, "F"], table.loc[24, "F"]
    assert passes(ch06.check_published_raw, b17 + (1 - b17) * published, capsys)
    ours = 0.3619375527  # the course's layer-4 F baseline: the wrong model's b
    for wrong in (None, published, b24 + (1 - b24) * published, ours + (1 - ours) * published,
                  table.loc[0, "F"] + (1 - table.loc[0, "F"]) * published, published * (1 - b17)):
        assert not passes(ch06.check_published_raw, wrong, capsys)


# ---- 6.4: Spearman of raw vs rescaled --------------------------------------------------------

def test_6_4(capsys):
    assert passes(ch06.check_spearman, 1.0, capsys)
    for wrong in (None, 0.0, -1.0, 0.99, "1"):
        assert not passes(ch06.check_spearman, wrong, capsys)
