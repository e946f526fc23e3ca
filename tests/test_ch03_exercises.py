"""Chapter 03's checkers: they pass the notebook's solutions, fail stubs and planted mistakes."""
from functools import partial

import pytest
import torch

from course_lib.teaching import naive
from course_lib.course.checks import ch03
from course_lib.bertscore.embeddings import tokens
from course_lib.model import DEFAULT_LAYER, load
from notebook_code import NOTEBOOKS, passes, run_cells, stub

NOTEBOOK = NOTEBOOKS / "03_similarity_matrix.ipynb"


solution_cell = partial(run_cells, NOTEBOOK, solution=True, torch=torch)


# ---- 3.1: count the rows ---------------------------------------------------------------------

def test_3_1_solution_passes(capsys):
    tokenizer, _ = load()
    ns = solution_cell("answer_3_1", tokens=tokens, tokenizer=tokenizer, ch03=ch03)
    assert passes(ch03.check_3_1, ns["answer_3_1"], capsys)


def test_3_1_wrong_answers_fail(capsys):
    tokenizer, _ = load()
    with_special = [len(tokens(tokenizer, s)) for s in ch03.COUNT_SENTENCES]  # [CLS]/[SEP] counted
    words = [len(s.split()) for s in ch03.COUNT_SENTENCES]  # words, not WordPiece tokens
    for wrong in (None, with_special, words, with_special[:1]):
        assert not passes(ch03.check_3_1, wrong, capsys)


# ---- 3.2: the batched cosine matrix ---------------------------------------------------------

def no_normalisation(cand, ref):
    return cand @ ref.transpose(1, 2)


def normalised_over_tokens(cand, ref):  # normalises over the sequence axis instead of the vector
    return (cand / cand.norm(dim=1, keepdim=True)) @ (ref / ref.norm(dim=1, keepdim=True)).transpose(1, 2)


def reference_by_candidate(cand, ref):  # [batch, ref_len, cand_len]: rows and columns swapped
    c = cand / cand.norm(dim=-1, keepdim=True)
    r = ref / ref.norm(dim=-1, keepdim=True)
    return r @ c.transpose(1, 2)


def test_3_2_solution_passes(capsys):
    fn = solution_cell("def batched_cosine_matrix")["batched_cosine_matrix"]
    assert passes(ch03.check_3_2, fn, capsys)


@pytest.mark.parametrize("wrong", [stub, no_normalisation, normalised_over_tokens, reference_by_candidate])
def test_3_2_wrong_answers_fail(wrong, capsys):
    assert not passes(ch03.check_3_2, wrong, capsys)


# ---- 3.3: mask the padding ------------------------------------------------------------------

def _cos(cand, ref):
    return (cand / cand.norm(dim=-1, keepdim=True)) @ (ref / ref.norm(dim=-1, keepdim=True)).transpose(1, 2)


def padding_not_masked(cand, ref, cand_mask, ref_mask):
    return _cos(cand, ref)


def only_reference_masked(cand, ref, cand_mask, ref_mask):
    return _cos(cand, ref).masked_fill(~ref_mask[:, None, :], float("-inf"))


def padding_set_to_zero(cand, ref, cand_mask, ref_mask):  # 0 can still win a max over negative cosines
    return _cos(cand, ref).masked_fill(~(cand_mask[:, :, None] & ref_mask[:, None, :]), 0.0)


def test_3_3_solution_passes(capsys):
    ns = solution_cell("def batched_cosine_matrix")
    fn = solution_cell("def masked_matrix", batched_cosine_matrix=ns["batched_cosine_matrix"])["masked_matrix"]
    assert passes(ch03.check_3_3, fn, capsys)


@pytest.mark.parametrize("wrong", [stub, padding_not_masked, only_reference_masked, padding_set_to_zero])
def test_3_3_wrong_answers_fail(wrong, capsys):
    assert not passes(ch03.check_3_3, wrong, capsys)


# ---- 3.4: the naive score depends on its batch ----------------------------------------------

def test_3_4_solution_passes(capsys):
    ns = solution_cell("answer_3_4", naive=naive, DEFAULT_LAYER=DEFAULT_LAYER, ch03=ch03)
    assert passes(ch03.check_3_4, ns["answer_3_4"], capsys)


def test_3_4_wrong_answers_fail(capsys):
    alone, batched = ch03.naive_alone_and_batched()
    assert abs(batched - alone) > 0.005  # the example shows a clear effect
    wrong_direction = "down" if batched > alone else "up"
    for wrong in (None, wrong_direction, "same", 0.97):
        assert not passes(ch03.check_3_4, wrong, capsys)
