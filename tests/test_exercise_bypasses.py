"""An exercise cannot be passed by handing in course_lib's own answer.

Each case is a "solution" that calls the course_lib function the exercise asks the student to
write. Without the guard (`forbid` replaced by the identity) the check passes it -- that is the
hole -- and with the guard it fails with a hint that says why.
"""
import pytest
import torch

import course_lib
from course_lib.course import checks
from course_lib.course.checks import ch01, ch02, ch03, ch04, ch05, ch08, ch09, ch10
from course_lib.course.checks import exercise as exercise_runner
from course_lib.bertscore import matching, similarity
from course_lib.bertscore.idf import idf_from_ids
from course_lib.engine import long_text
from course_lib.evaluation import correlation, layer_choice
from course_lib.learned import evaluation as learned_evaluation
from course_lib.lexical import bleu
from course_lib.lexical.perplexity import perplexity


def _clipped_by_library(cand_tokens, refs_tokens, n):
    matches, total = bleu.modified_precision(cand_tokens, refs_tokens, n)
    return matches / total if total else 0.0  # a candidate shorter than n: no n-grams


def _multi_ref_bp_by_library(c, ref_lengths):
    return bleu.brevity_penalty(c, bleu.closest_reference_length(c, ref_lengths))


def _word_perplexity_by_library(texts, n_words):
    flat = [p for text in texts for p in text]
    return perplexity(flat) ** (len(flat) / sum(n_words))


def _cosines_by_library(a, b):
    return similarity.cosine_matrix(a, b)


def _left_masked_by_library(cand, ref, cand_lengths, ref_lengths):
    def left(lengths, total):
        return torch.arange(total)[None, :] >= (total - torch.tensor(lengths))[:, None]
    return similarity.masked_cosine_matrix(cand, ref, left(cand_lengths, cand.shape[1]),
                                           left(ref_lengths, ref.shape[1]))


def _greedy_by_library(sim):
    for_cand, for_ref = matching.best_matches(sim)
    real_c, real_r = torch.isfinite(for_cand), torch.isfinite(for_ref)
    return (matching.weighted_mean(for_cand.masked_fill(~real_c, 0.0), real_c.float()).item(),
            matching.weighted_mean(for_ref.masked_fill(~real_r, 0.0), real_r.float()).item())


def _weighted_by_library(sim, cand_weights, ref_weights, beta):
    for_cand, for_ref = matching.best_matches(sim)
    P, R = matching.weighted_mean(for_cand, cand_weights), matching.weighted_mean(for_ref, ref_weights)
    return P.item(), R.item(), ((1 + beta ** 2) * P * R / (beta ** 2 * P + R)).item()


def _best_f_by_library(cands, refs_lists):
    return course_lib.score(cands, refs_lists)[2].tolist()


def _weightless_by_course_lib(refs, tokenizer):
    _, R, _ = course_lib.score(list(refs), list(refs), idf=True)
    return [k for k, r in enumerate(R.tolist()) if r != r]  # NaN recall


def _weightless_by_bert_score(refs, tokenizer):
    import bert_score
    from course_lib.model import embedded_model_path

    _, R, _ = bert_score.score(list(refs), list(refs), model_type=str(embedded_model_path()),
                               num_layers=course_lib.DEFAULT_LAYER, idf=True, nthreads=0)
    return [k for k, r in enumerate(R.tolist()) if r != r]


def _truncated_by_library(text, tokenizer, limit):
    n = len(long_text.word_pieces(tokenizer, text))
    return long_text.lost_fraction(n, limit)


def _leak_free_split_by_library(lps, refs, test_pair):
    return next((train, test) for p, train, test in learned_evaluation.pair_splits(lps, refs) if p == test_pair)


def _notebook_function(source: str, name: str):
    """A function defined as in a notebook: its module-level imports live in its globals."""
    namespace = {}
    exec(compile(source, "<notebook>", "exec"), namespace)
    return namespace[name]


PERPLEXITY_IN_NOTEBOOK = ("from course_lib.lexical.perplexity import perplexity\n\n"
                          "def word_perplexity(texts, n_words):\n    flat = [p for t in texts for p in t]\n"
                          "    return perplexity(flat) ** (len(flat) / sum(n_words))\n")

BYPASSES = [
    ("1.1", ch01, ch01.check_1_1, _clipped_by_library),
    ("1.2", ch01, ch01.check_1_2, _multi_ref_bp_by_library),
    ("1.4", ch01, ch01.check_1_4, _word_perplexity_by_library),
    ("1.4", ch01, ch01.check_1_4, _notebook_function(PERPLEXITY_IN_NOTEBOOK, "word_perplexity")),
    ("2.1", ch02, ch02.check_2_1, _cosines_by_library),
    # 2.2 (masked max pooling) and 2.3 (a word of several WordPiece tokens) forbid nothing: no course_lib
    # function solves them (mean_pool and word_cosine_by_layer fail their checks as wrong answers)
    # 3.2 (cosines from dot products and lengths) forbids nothing: no course_lib function takes dot products
    ("3.3", ch03, ch03.check_3_3, _left_masked_by_library),
    ("4.1", ch04, ch04.check_4_1, _greedy_by_library),
    ("4.2", ch04, ch04.check_4_2, _weighted_by_library),
    ("5.1", ch05, ch05.check_5_1, idf_from_ids),
    ("5.3", ch05, ch05.check_5_3, _weightless_by_course_lib),  # reading the NaN recalls off a scorer
    ("5.3", ch05, ch05.check_5_3, _weightless_by_bert_score),
    # 7.6 (split a frame) forbids nothing: validate_text, shown above it, judges one text; see test_ch07_exercises
    # 8.1 (build a frame on which pooling misleads) is not a function: nothing to forbid
    ("8.2", ch08, ch08.check_8_2, layer_choice.leave_one_pair_out),
    ("8.3", ch08, ch08.check_8_3, correlation.roc_auc),
    ("9.1", ch09, ch09.check_9_1, _best_f_by_library),
    ("9.3", ch09, ch09.check_9_3, _truncated_by_library),
    ("10.2", ch10, ch10.check_10_2, _leak_free_split_by_library),
]


@pytest.mark.parametrize("exercise, module, check, bypass", BYPASSES,
                         ids=[f"{c[0]}-{getattr(c[3], '__name__', 'fn')}" for c in BYPASSES])
def test_calling_course_lib_instead_fails_with_a_hint(exercise, module, check, bypass, capsys, monkeypatch):
    with monkeypatch.context() as unguarded:  # the hole: without the guard the bypass passes
        # a chapter that is data (EXERCISES) forbids through the one runner, checks.exercise
        guarded = exercise_runner if hasattr(module, "EXERCISES") else module
        unguarded.setattr(guarded, "forbid", lambda answer, *names, **kwargs: answer)
        assert check(bypass) is True, capsys.readouterr().out
    capsys.readouterr()
    assert check(bypass) is False
    out = capsys.readouterr().out
    assert out.startswith(f"❌ Exercise {exercise}") and "asks you to write yourself" in out, out
    assert "Traceback" not in out


def test_the_guard_is_lifted_after_the_check():
    assert ch03.check_3_3(_left_masked_by_library) is False
    cand, ref = torch.randn(1, 3, 4), torch.randn(1, 2, 4)
    mask_c, mask_r = torch.ones(1, 3, dtype=torch.bool), torch.ones(1, 2, dtype=torch.bool)
    assert similarity.masked_cosine_matrix(cand, ref, mask_c, mask_r).shape == (1, 3, 2)  # course_lib works again
    assert not hasattr(similarity.masked_cosine_matrix, "__wrapped__")  # the function itself, not the guard


def test_course_lib_score_on_pairs_stays_allowed(capsys):
    """9.1's solution calls course_lib.score on (candidate, reference) pairs: that is allowed."""
    def best_reference_f(cands, refs_lists):
        flat_c = [c for c, refs in zip(cands, refs_lists) for _ in refs]
        flat_r = [r for refs in refs_lists for r in refs]
        F, best, start = course_lib.score(flat_c, flat_r)[2], [], 0
        for refs in refs_lists:
            best.append(F[start:start + len(refs)].max().item())
            start += len(refs)
        return best

    assert ch09.check_9_1(best_reference_f)


def test_forbid_names_every_function_of_a_module():
    def uses_roc_auc(scores, labels):
        return correlation.roc_auc(scores, labels)

    guarded = checks.forbid(uses_roc_auc, "course_lib.evaluation.correlation")
    with pytest.raises(checks.ForbiddenCall, match="course_lib.evaluation.correlation.roc_auc"):
        guarded([1.0, 2.0], [0, 1])
    assert uses_roc_auc([1.0, 2.0], [0, 1]) == 1.0
