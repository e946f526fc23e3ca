"""Chapter 01's exercise checkers: pass on the notebook's solutions, fail on stubs and planted bugs."""
import math
from collections import Counter
from functools import partial

import pytest

from course_lib.course.checks import ch01
from notebook_code import NOTEBOOKS, assert_separates, passes, run_cells

NOTEBOOK = NOTEBOOKS / "01_lexical_metrics.ipynb"


solution = partial(run_cells, NOTEBOOK)


# ------------------------------------------------------------------ planted wrong answers

def unclipped_precision(cand_tokens, ref_tokens):
    return sum(word in ref_tokens for word in cand_tokens) / len(cand_tokens)


def precision_over_reference_length(cand_tokens, ref_tokens):
    cand, ref = Counter(cand_tokens), Counter(ref_tokens)
    return sum(min(n, ref[w]) for w, n in cand.items()) / len(ref_tokens)


def no_brevity_penalty(c, r):
    return 1.0


def bp_inverted(c, r):  # r/c turned into c/r
    return 1.0 if c >= r else math.exp(1 - c / r)


def bp_penalises_long_candidates(c, r):
    return math.exp(1 - max(r, c) / min(r, c))


def rouge_l_swapped(lcs, cand_len, ref_len):  # precision and recall the wrong way round
    p, r = lcs / ref_len, lcs / cand_len
    return p, r, 2 * p * r / (p + r) if p + r else 0.0


def rouge_l_arithmetic_f(lcs, cand_len, ref_len):
    p, r = lcs / cand_len, lcs / ref_len
    return p, r, (p + r) / 2


def perplexity_arithmetic_mean(probs):
    return 1 / (sum(probs) / len(probs))


def perplexity_without_minus(probs):
    return math.exp(sum(math.log(p) for p in probs) / len(probs))


CASES = [
    ("def clipped_unigram_precision", "clipped_unigram_precision", ch01.check_1_1,
     [unclipped_precision, precision_over_reference_length]),
    ("def bp(", "bp", ch01.check_1_2, [no_brevity_penalty, bp_inverted, bp_penalises_long_candidates]),
    ("def rouge_l_from_lcs", "rouge_l_from_lcs", ch01.check_1_3, [rouge_l_swapped, rouge_l_arithmetic_f]),
    ("def my_perplexity", "my_perplexity", ch01.check_1_4, [perplexity_arithmetic_mean, perplexity_without_minus]),
]


@pytest.mark.parametrize("marker, name, check, wrong", CASES, ids=[c[1] for c in CASES])
def test_code_exercise(marker, name, check, wrong, capsys):
    assert_separates(check, solution(marker)[name], wrong, capsys)


def test_question_1_5(capsys):
    answer = solution("answer_1_5 =")["answer_1_5"]
    assert passes(ch01.check_1_5, answer, capsys)
    assert passes(ch01.check_1_5, " b ", capsys)  # case and spaces do not matter
    wrong = "A" if ch01.rouge1_preference() == "B" else "B"
    for bad in (None, wrong, "C", 1):
        assert not passes(ch01.check_1_5, bad, capsys), bad


def test_checkers_compute_their_expectations():
    # the expected ROUGE preference is computed, and it is the one the chapter discusses
    assert ch01.rouge1_preference() == "B"
