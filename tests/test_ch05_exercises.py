"""Chapter 05's checkers: they pass the notebook's solutions, fail stubs and planted mistakes."""
import math
from collections import Counter, defaultdict
from functools import partial

import pytest
import torch

from course_lib.bertscore import idf as idf_lib
from course_lib.bertscore.embeddings import encode
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


# ---- 5.2: the weights of a test set's candidates ---------------------------------------------

def _weights(token_ids, m, log=math.log, smooth=True, occurrences=False, unseen=None):
    df = Counter()
    for ids in token_ids:
        df.update(ids if occurrences else set(ids))
    default = log(m + 1) if unseen is None else unseen
    weights = defaultdict(lambda: default)
    weights.update({w: log((m + 1) / (c + 1)) if smooth else log(m / c) for w, c in df.items()})
    return weights


def _per_candidate(weights_from, cands, refs, tokenizer, **kw):
    corpus = weights_from(cands, refs)
    w = _weights([encode(tokenizer, t) for t in corpus], len(corpus), **kw)
    return [[w[i] for i in encode(tokenizer, c)] for c in cands]


def weights_from_candidates(cands, refs, tokenizer):  # idf from the wrong side of the test set
    return _per_candidate(lambda c, r: c, cands, refs, tokenizer)


def weights_from_both(cands, refs, tokenizer):  # candidates and references pooled
    return _per_candidate(lambda c, r: c + r, cands, refs, tokenizer)


def weights_paper_formula(cands, refs, tokenizer):  # log(M / df), no +1 smoothing
    return _per_candidate(lambda c, r: r, cands, refs, tokenizer, smooth=False)


def weights_log10(cands, refs, tokenizer):  # another base of the logarithm
    return _per_candidate(lambda c, r: r, cands, refs, tokenizer, log=math.log10)


def weights_count_occurrences(cands, refs, tokenizer):  # df counts tokens, not references
    return _per_candidate(lambda c, r: r, cands, refs, tokenizer, occurrences=True)


def weights_unseen_zero(cands, refs, tokenizer):  # a token in no reference weighs 0
    return _per_candidate(lambda c, r: r, cands, refs, tokenizer, unseen=0.0)


def weights_unique_references(cands, refs, tokenizer):  # M = distinct references only
    return _per_candidate(lambda c, r: sorted(set(r)), cands, refs, tokenizer)


def test_5_2_solution_passes(capsys):
    assert passes(ch05.check_5_2, solution("candidate_weights", idf_lib=idf_lib, encode=encode), capsys)


@pytest.mark.parametrize("wrong", [stub, weights_from_candidates, weights_from_both, weights_paper_formula,
                                   weights_log10, weights_count_occurrences, weights_unseen_zero,
                                   weights_unique_references])
def test_5_2_wrong_answers_fail(wrong, capsys):
    assert not passes(ch05.check_5_2, wrong, capsys)


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
