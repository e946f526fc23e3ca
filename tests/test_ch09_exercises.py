"""Chapter 09's checkers pass the notebook's solutions, fail stubs and planted wrong answers;
course_lib.engine.long_text agrees with course_lib.score where both apply."""

import re

import numpy as np
import pandas as pd
import pytest
import torch
from scipy import stats

from course_lib.paths import DATA
import course_lib
from course_lib.engine import long_text
from course_lib.course.checks import ch09
from course_lib.model import load
from notebook_code import NOTEBOOKS, assert_names_mistake, definition, passes, run_cells, stub

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


def one_call_per_candidate(cands, refs_lists):  # planted: right values, but a score call for each candidate
    return [course_lib.score([c] * len(refs), refs)[2].max().item() for c, refs in zip(cands, refs_lists)]


def first_reference_only(cands, refs_lists):  # planted: ignores the other references
    return course_lib.score(cands, [refs[0] for refs in refs_lists])[2].tolist()


def test_9_1_best_reference():
    assert ch09.check_9_1(solution("best_reference_f"))
    assert not ch09.check_9_1(stub)
    assert not ch09.check_9_1(mean_over_references)
    assert not ch09.check_9_1(first_reference_only)


def test_9_1_asks_for_one_call(capsys):
    assert not ch09.check_9_1(one_call_per_candidate)  # it passed before: the values are right
    assert "course_lib.score calls for 2 candidates" in capsys.readouterr().out


# ---------------------------------------------------------------- 9.2

def unpaired_ci(f_a, f_b, seed=0):  # planted: bootstraps the two systems separately
    res = stats.bootstrap((np.asarray(f_a), np.asarray(f_b)), lambda a, b: np.mean(a) - np.mean(b),
                          n_resamples=2000, rng=np.random.default_rng(seed))
    return res.confidence_interval.low, res.confidence_interval.high


def ci_of_one_system(f_a, f_b, seed=0):  # planted: the interval of system a's mean
    res = stats.bootstrap((np.asarray(f_a),), np.mean, n_resamples=2000, rng=np.random.default_rng(seed))
    return res.confidence_interval.low, res.confidence_interval.high


def paired_t_interval(f_a, f_b, seed=0):  # planted: a t-interval, not a bootstrap
    diff = np.asarray(f_a) - np.asarray(f_b)
    ci = stats.ttest_1samp(diff, 0).confidence_interval(0.95)
    return ci.low, ci.high


def normal_interval(f_a, f_b, seed=0):  # planted: mean +- 1.96 standard errors
    diff = np.asarray(f_a) - np.asarray(f_b)
    se = diff.std(ddof=1) / np.sqrt(len(diff))
    return diff.mean() - 1.96 * se, diff.mean() + 1.96 * se


def test_9_2_paired_bootstrap():
    assert ch09.check_9_2(solution("paired_difference_ci"))
    assert not ch09.check_9_2(stub)
    assert not ch09.check_9_2(unpaired_ci)
    assert not ch09.check_9_2(ci_of_one_system)
    assert not ch09.check_9_2(paired_t_interval)
    assert not ch09.check_9_2(normal_interval)


@pytest.mark.parametrize("wrong, named", [(unpaired_ci, "did you resample the two systems' scores separately?"),
                                          (ci_of_one_system, "holds one system's mean score"),
                                          (normal_interval, "did you use a t-interval or mean +- 1.96 SE")])
def test_9_2_hints_name_the_mistake(wrong, named, capsys):
    from course_lib.course.checks import reset_attempts

    reset_attempts("9.2")
    assert_names_mistake(ch09.check_9_2, wrong, named=named, capsys=capsys)


def test_9_2_any_correct_bootstrap_passes():
    def bca_other_seed(f_a, f_b, seed=0):
        diff = np.asarray(f_a) - np.asarray(f_b)
        res = stats.bootstrap((diff,), np.mean, n_resamples=3000, method="BCa", rng=np.random.default_rng(99))
        return res.confidence_interval.low, res.confidence_interval.high

    assert ch09.check_9_2(bca_other_seed)

    def percentile_by_hand(f_a, f_b, seed=0):  # the loop the chapter teaches
        diff = np.asarray(f_a) - np.asarray(f_b)
        rng = np.random.default_rng(seed)
        means = [diff[rng.integers(0, len(diff), len(diff))].mean() for _ in range(4000)]
        return np.quantile(means, 0.025), np.quantile(means, 0.975)

    assert ch09.check_9_2(percentile_by_hand)


# ---------------------------------------------------------------- 9.3

def words_not_pieces(text, tokenizer, limit):  # planted: counts words
    n = len(text.split())
    return max(0, n - (limit - 2)) / n if n else 0.0


def forgets_special_tokens(text, tokenizer, limit):  # planted: `limit` word pieces fit
    n = len(tokenizer.tokenize(text))
    return max(0, n - limit) / n if n else 0.0


def ignores_limit(text, tokenizer, limit):  # planted: always the model's own limit (the chapter's 512)
    n = len(tokenizer.tokenize(text))
    return max(0, n - (tokenizer.model_max_length - 2)) / n if n else 0.0


def empty_text_crashes(text, tokenizer, limit):  # planted: divides by zero on an empty text
    n = len(tokenizer.tokenize(text))
    return max(0, n - (limit - 2)) / n


def kept_not_lost(text, tokenizer, limit):  # planted: the share kept
    n = len(tokenizer.tokenize(text))
    return min(n, limit - 2) / n if n else 0.0


def test_9_3_truncated_fraction():
    tokenizer, _ = load()
    assert ch09.check_9_3(solution("truncated_fraction"), tokenizer)
    assert not ch09.check_9_3(stub, tokenizer)
    assert not ch09.check_9_3(words_not_pieces, tokenizer)
    assert not ch09.check_9_3(forgets_special_tokens, tokenizer)
    for bad in (ignores_limit, empty_text_crashes, kept_not_lost):
        assert not ch09.check_9_3(bad, tokenizer), bad.__name__


# ---------------------------------------------------------------- 9.4, 9.5

def _solution(name):
    return definition(NOTEBOOK, name, re=re)


def test_9_4_data_and_solution(capsys):
    answers, expected, fillers = ch09.answers_9_4()
    assert len(answers) == len(expected) == len(fillers) == 24
    assert all(f != e and f in expected for f, e in zip(fillers, expected))  # another question's expected answer
    assert passes(ch09.check_9_4, _solution("recall_only"), capsys)
    assert passes(ch09.check_9_4, lambda a, e, f: [a, f + " " + e], capsys)  # the filler in front: also fine


@pytest.mark.parametrize("wrong, words", [
    (stub, "NotImplementedError"),
    (lambda a, e, f: (a, e), "the original ones"),
    (lambda a, e, f: (a + " " + f, e), "you padded the answer"),                 # the verbose shape: P pays
    (lambda a, e, f: (" ".join(a.split()[:len(a.split()) // 2]), e), "you cut the answer"),
    (lambda a, e, f: (e, a), "swapped candidate and reference"),
    (lambda a, e, f: (f, e), "replaced a text by the filler"),
    (lambda a, e, f: (a, f), "replaced a text by the filler"),
    (lambda a, e, f: ("", e), "empty candidate"),
    (lambda a, e, f: a + " " + f, "a pair of texts"),                           # one string, not a pair
    (lambda a, e, f: (a, None), "strings"),
])
def test_9_4_planted_mistakes_fail_with_a_hint_that_names_them(wrong, words, capsys):
    assert not passes(ch09.check_9_4, wrong, capsys)
    ch09.check_9_4(wrong)
    assert words in capsys.readouterr().out


def test_9_5_fresh_edits_and_paraphrases():
    edits = ch09.edits_9_5()
    # fresh data: 12 automatic edits of each kind and 36 paraphrases, none of section 7's sentences, each once
    assert edits["kind"].value_counts().to_dict() == {"paraphrase": 36, "negation": 12, "numbers": 12, "names": 12}
    section_7 = set(pd.read_csv(DATA / "practice" / "meaning_edits.csv")["original"])
    assert not section_7 & set(edits["original"]) and edits["original"].is_unique
    assert (edits["edited"] != edits["original"]).all()
    changed = edits[edits["kind"].isin(["numbers", "names"])]
    assert all(sorted(re.findall(r"\w+", e)) == sorted(re.findall(r"\w+", o))  # swaps: the same words
               for e, o in changed[["edited", "original"]].itertuples(index=False))


NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
NEGATION = re.compile(r"\b(?:not|no|never)\b|n't")


def _names(text):
    return [w.strip(",.;:'\"") for w in text.split()[1:] if w[:1].isupper()]


def as_sets(original, edited):  # section 8.2's set comparison, for numbers, names and negations alike
    return (set(NUMBER.findall(original)) != set(NUMBER.findall(edited)) or set(_names(original)) != set(_names(edited))
            or len(NEGATION.findall(original)) != len(NEGATION.findall(edited)))


def in_order(original, edited):  # the order of numbers and names, whatever the rest of the sentence does
    return (NUMBER.findall(original) != NUMBER.findall(edited) or _names(original) != _names(edited)
            or len(NEGATION.findall(original)) != len(NEGATION.findall(edited)))


def numbers_only(original, edited):  # the numbers in order: names and negations pass
    return NUMBER.findall(original) != NUMBER.findall(edited)


def words_with_punctuation(original, edited):  # a swap = the same capitalised words in another order, from split():
    names = lambda t: [w for w in t.split()[1:] if w[:1].isupper()]  # noqa: E731 - "Paris." is not "Paris"
    a, b = names(original), names(edited)
    return (NUMBER.findall(original) != NUMBER.findall(edited) and sorted(NUMBER.findall(original)) ==
            sorted(NUMBER.findall(edited)) or a != b and sorted(a) == sorted(b)
            or len(NEGATION.findall(original)) != len(NEGATION.findall(edited)))


def test_9_5_solution_passes(capsys):
    assert passes(ch09.check_9_5, _solution("flag_edit"), capsys)


@pytest.mark.parametrize("wrong, words", [
    (stub, "NotImplementedError"),
    (as_sets, "compared as a set"),
    (in_order, "true paraphrases"),
    (numbers_only, "names edits"),
    (words_with_punctuation, "punctuation stuck to a name"),
    (lambda o, e: o != e, "true paraphrases (all)"),
    (lambda o, e: False, "flags nothing"),
    (lambda o, e: "True", "the string"),
    (lambda o, e: None, "return True (flag the edit) or False"),
])
def test_9_5_planted_mistakes_fail_with_a_hint_that_names_them(wrong, words, capsys):
    assert not passes(ch09.check_9_5, wrong, capsys)
    ch09.check_9_5(wrong)
    assert words in capsys.readouterr().out


def test_9_4_and_9_5_run_on_hidden_data_in_grading_mode(monkeypatch):
    learning = ch09.answers_9_4()[2], ch09.edits_9_5()
    monkeypatch.setenv("COURSE_GRADING", "1")
    monkeypatch.setenv("COURSE_GRADING_SEED", "3")
    ch09.edits_9_5.cache_clear()
    try:
        hidden = ch09.answers_9_4()[2], ch09.edits_9_5()
        assert hidden[0] != learning[0] and set(hidden[1]["original"]) != set(learning[1]["original"])
        assert ch09.check_9_4(_solution("recall_only")) and ch09.check_9_5(_solution("flag_edit"))
    finally:
        ch09.edits_9_5.cache_clear()


def test_9_1_forbidden_call_message_is_consistent(capsys):
    def library_does_it(cands, refs_lists):
        return course_lib.score(cands, refs_lists)[2].tolist()

    assert not ch09.check_9_1(library_does_it)
    out = capsys.readouterr().out
    assert "list of references per candidate" in out and "plain pairs" in out and "write it yourself" not in out


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


def test_9_4_and_9_5_code_hints_come_on_request(capsys):
    for check, wrong in ((ch09.check_9_4, lambda a, e, f: (a + " " + f, e)), (ch09.check_9_5, as_sets)):
        check(wrong, hint=2)
        assert "Code:" in capsys.readouterr().out
