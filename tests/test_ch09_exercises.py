"""Chapter 09's checkers pass the notebook's solutions, fail stubs and planted wrong answers;
course_lib.engine.long_text agrees with course_lib.score where both apply."""

import numpy as np
import pytest
import torch
from scipy import stats

import course_lib
from course_lib.engine import long_text
from course_lib.course.checks import ch09
from course_lib.model import load
from notebook_code import NOTEBOOKS, run_cells, stub

NOTEBOOK = NOTEBOOKS / "09_bertscore_in_practice.ipynb"


def solution(name: str):
    """The function `name` as defined in the solution notebook (the whole cell is executed)."""
    return run_cells(NOTEBOOK, f"def {name}(", course_lib=course_lib, np=np, stats=stats, load=load)[name]


# ---------------------------------------------------------------- 9.1

def mean_over_references(cands, refs_lists):  # planted: mean instead of max
    out = []
    for c, refs in zip(cands, refs_lists):
        out.append(course_lib.score([c] * len(refs), refs)[2].mean().item())
    return out


def first_reference_only(cands, refs_lists):  # planted: ignores the other references
    return course_lib.score(cands, [refs[0] for refs in refs_lists])[2].tolist()


def test_9_1_best_reference():
    assert ch09.check_best_reference_f(solution("best_reference_f"))
    assert not ch09.check_best_reference_f(stub)
    assert not ch09.check_best_reference_f(mean_over_references)
    assert not ch09.check_best_reference_f(first_reference_only)


# ---------------------------------------------------------------- 9.2

def unpaired_ci(f_a, f_b, seed=0):  # planted: bootstraps the two systems separately
    res = stats.bootstrap((np.asarray(f_a), np.asarray(f_b)), lambda a, b: np.mean(a) - np.mean(b),
                          n_resamples=2000, rng=np.random.default_rng(seed))
    return res.confidence_interval.low, res.confidence_interval.high


def ci_of_one_system(f_a, f_b, seed=0):  # planted: the interval of system a's mean
    res = stats.bootstrap((np.asarray(f_a),), np.mean, n_resamples=2000, rng=np.random.default_rng(seed))
    return res.confidence_interval.low, res.confidence_interval.high


def test_9_2_paired_bootstrap():
    assert ch09.check_paired_difference_ci(solution("paired_difference_ci"))
    assert not ch09.check_paired_difference_ci(stub)
    assert not ch09.check_paired_difference_ci(unpaired_ci)
    assert not ch09.check_paired_difference_ci(ci_of_one_system)


def test_9_2_any_correct_bootstrap_passes():
    def bca_other_seed(f_a, f_b, seed=0):
        diff = np.asarray(f_a) - np.asarray(f_b)
        res = stats.bootstrap((diff,), np.mean, n_resamples=3000, method="BCa", rng=np.random.default_rng(99))
        return res.confidence_interval.low, res.confidence_interval.high

    assert ch09.check_paired_difference_ci(bca_other_seed)


# ---------------------------------------------------------------- 9.3

def words_not_pieces(text, tokenizer):  # planted: counts words
    n = len(text.split())
    return max(0, n - (tokenizer.model_max_length - 2)) / n


def forgets_special_tokens(text, tokenizer):  # planted: 512 word pieces fit
    n = len(tokenizer.tokenize(text))
    return max(0, n - tokenizer.model_max_length) / n


def test_9_3_truncated_fraction():
    tokenizer, _ = load()
    assert ch09.check_truncated_fraction(solution("truncated_fraction"), tokenizer)
    assert not ch09.check_truncated_fraction(stub, tokenizer)
    assert not ch09.check_truncated_fraction(words_not_pieces, tokenizer)
    assert not ch09.check_truncated_fraction(forgets_special_tokens, tokenizer)


# ---------------------------------------------------------------- 9.4, 9.5

def test_9_4_and_9_5_questions():
    assert ch09.check_answer_9_4("recall") and ch09.check_answer_9_4(" Recall ")
    assert not ch09.check_answer_9_4("precision")
    assert not ch09.check_answer_9_4(None)
    assert ch09.check_answer_9_5("numbers")
    assert not ch09.check_answer_9_5("negation")
    assert not ch09.check_answer_9_5("names")
    assert not ch09.check_answer_9_5(None)


# ---------------------------------------------------------------- long_text

def test_windows_cover_every_position_once_as_owner():
    for n, size, overlap in [(10, 4, 1), (1000, 510, 64), (511, 510, 64), (5, 510, 64), (300, 64, 16)]:
        spans = long_text.windows(n, size, overlap)
        assert spans[0][0] == 0 and spans[-1][1] == n
        assert all(b - a <= size for a, b in spans)
        assert all(b1 - a2 >= overlap for (_, b1), (a2, _) in zip(spans, spans[1:]))  # consecutive windows overlap
        owners = long_text.owners(n, spans)
        assert [spans[w][0] + k for w, k in owners] == list(range(n))
    with pytest.raises(ValueError):
        long_text.windows(10, 4, 4)


def test_lost_fraction():
    assert long_text.lost_fraction(510, 512) == 0
    assert long_text.lost_fraction(511, 512) == pytest.approx(1 / 511)
    assert long_text.lost_fraction(0, 512) == 0


def test_chunked_score_equals_score_for_texts_that_fit():
    cands = ["The cat sat on the mat.", "It is freezing today.", "Jupiter."]
    refs = ["A cat rested on a mat.", "The weather is cold today.", "Jupiter is the largest planet."]
    for rescale in (False, True):
        expected = torch.stack(course_lib.score(cands, refs, rescale_with_baseline=rescale))
        got = torch.stack(long_text.chunked_score(cands, refs, rescale_with_baseline=rescale))
        assert torch.allclose(expected, got, atol=1e-5)


def test_embed_long_reads_the_whole_text():
    tokenizer, _ = load()
    text = "the committee met again . " * 130  # about 780 word pieces
    n = len(long_text.word_pieces(tokenizer, text))
    assert n > 510
    e = long_text.embed_long(text)
    assert len(e.ids) == n + 2 and e.embeddings.shape[0] == n + 2 and len(e.spans) == 2
    assert torch.allclose(e.embeddings.norm(dim=-1), torch.ones(n + 2), atol=1e-5)
    # a window that holds the whole text gives the same vectors as one forward pass
    short = "A cat rested on a mat."
    one = long_text.embed_long(short)
    batch = course_lib.bertscore.embeddings.embed([short])
    ref = batch.embeddings[0] / batch.embeddings[0].norm(dim=-1, keepdim=True)
    assert torch.allclose(one.embeddings, ref, atol=1e-5)
