"""Chapter 01's exercise checkers: pass on the notebook's solutions, fail on stubs and planted bugs."""
import math
from collections import Counter
from functools import partial

import pytest

from course_lib.course.checks import ch01
from notebook_code import NOTEBOOKS, assert_names_mistake, assert_separates, passes, run_cells

NOTEBOOK = NOTEBOOKS / "01_lexical_metrics.ipynb"


solution = partial(run_cells, NOTEBOOK)


# ------------------------------------------------------------------ planted wrong answers

def unclipped_precision(cand_tokens, refs_tokens, n):
    grams = [tuple(cand_tokens[i:i + n]) for i in range(len(cand_tokens) - n + 1)]
    ref_grams = {tuple(r[i:i + n]) for r in refs_tokens for i in range(len(r) - n + 1)}
    return sum(g in ref_grams for g in grams) / len(grams)


def _grams(tokens, n):
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def clipped_by_the_sum_over_references(cand_tokens, refs_tokens, n):
    total = Counter()
    for r in refs_tokens:
        total.update(_grams(r, n))
    cand = _grams(cand_tokens, n)
    return sum(min(k, total[g]) for g, k in cand.items()) / sum(cand.values())


def unigrams_whatever_n(cand_tokens, refs_tokens, n):
    return clipped_by_max(cand_tokens, refs_tokens, 1)


def clipped_by_max(cand_tokens, refs_tokens, n):
    best = Counter()
    for r in refs_tokens:
        for g, k in _grams(r, n).items():
            best[g] = max(best[g], k)
    cand = _grams(cand_tokens, n)
    return sum(min(k, best[g]) for g, k in cand.items()) / sum(cand.values())


def first_reference_only(cand_tokens, refs_tokens, n):
    return clipped_by_max(cand_tokens, refs_tokens[:1], n)


def _bp(c, r):
    return 1.0 if c >= r else math.exp(1 - r / c)


def bp_shortest_reference(c, ref_lengths):
    return _bp(c, min(ref_lengths))


def bp_longest_reference(c, ref_lengths):
    return _bp(c, max(ref_lengths))


def bp_mean_reference(c, ref_lengths):
    return _bp(c, sum(ref_lengths) / len(ref_lengths))


def bp_tie_goes_to_the_longer(c, ref_lengths):
    return _bp(c, min(ref_lengths, key=lambda r: (abs(c - r), -r)))


def bp_uses_the_library(c, ref_lengths):
    from course_lib.lexical.bleu import brevity_penalty, closest_reference_length

    return brevity_penalty(c, closest_reference_length(c, ref_lengths))


def lcs_in_candidate_order(cand_tokens, ref_tokens):  # every shared token, the reference's order ignored
    return [w for w in cand_tokens if w in ref_tokens]


def lcs_first_match(cand_tokens, ref_tokens):  # greedy: the first match blocks a longer chain
    out, k = [], 0
    for w in cand_tokens:
        if w in ref_tokens[k:]:
            k = ref_tokens.index(w, k) + 1
            out.append(w)
    return out


def lcs_common_substring(cand_tokens, ref_tokens):  # the longest run of neighbouring tokens in both
    best = []
    for i in range(len(cand_tokens)):
        for j in range(i + 1, len(cand_tokens) + 1):
            run = cand_tokens[i:j]
            if len(run) > len(best) and any(ref_tokens[k:k + len(run)] == run for k in range(len(ref_tokens))):
                best = run
    return best


def lcs_as_length(cand_tokens, ref_tokens):
    from course_lib.lexical.rouge import lcs_length

    return lcs_length(cand_tokens, ref_tokens)


def lcs_as_text(cand_tokens, ref_tokens):
    return " ".join(lcs_common_substring(cand_tokens, ref_tokens))


def lcs_not_reversed(cand_tokens, ref_tokens):  # the walk back collects the tokens last first
    return solution("def lcs_words")["lcs_words"](cand_tokens, ref_tokens)[::-1]


def lcs_by_rouge_score(cand_tokens, ref_tokens):
    from rouge_score import rouge_scorer

    return [ref_tokens[k] for k in rouge_scorer.lcs_ind(ref_tokens, cand_tokens)]


def _logs(texts):
    return [math.log(p) for t in texts for p in t]


def per_token_perplexity(texts, n_words):  # divides by the tokens: the number that differs between tokenizers
    return math.exp(-sum(_logs(texts)) / len(_logs(texts)))


def mean_of_text_perplexities(texts, n_words):  # every text weighs the same
    return sum(math.exp(-sum(math.log(p) for p in t) / w) for t, w in zip(texts, n_words)) / len(texts)


def geometric_mean_of_text_perplexities(texts, n_words):
    return math.exp(sum(-sum(math.log(p) for p in t) / w for t, w in zip(texts, n_words)) / len(texts))


def perplexity_without_minus(texts, n_words):
    return math.exp(sum(_logs(texts)) / sum(n_words))


def perplexity_as_text(texts, n_words):
    return f"{math.exp(-sum(_logs(texts)) / sum(n_words)):.4f}"


def perplexity_of_the_mean_probability(texts, n_words):
    probs = [p for t in texts for p in t]
    return 1 / (sum(probs) / len(probs))


def perplexity_uses_the_library(texts, n_words):
    from course_lib.lexical.perplexity import perplexity

    flat = [p for t in texts for p in t]
    return perplexity(flat) ** (len(flat) / sum(n_words))


CASES = [
    ("def clipped_precision", "clipped_precision", ch01.check_1_1,
     [unclipped_precision, clipped_by_the_sum_over_references, unigrams_whatever_n, first_reference_only]),
    ("def multi_ref_bp(", "multi_ref_bp", ch01.check_1_2,
     [bp_shortest_reference, bp_longest_reference, bp_mean_reference, bp_tie_goes_to_the_longer, bp_uses_the_library]),
    ("def lcs_words", "lcs_words", ch01.check_1_3,
     [lcs_in_candidate_order, lcs_first_match, lcs_common_substring, lcs_as_length, lcs_as_text, lcs_not_reversed,
      lcs_by_rouge_score]),
    ("def word_perplexity", "word_perplexity", ch01.check_1_4,
     [per_token_perplexity, mean_of_text_perplexities, geometric_mean_of_text_perplexities,
      perplexity_of_the_mean_probability, perplexity_without_minus, perplexity_as_text, perplexity_uses_the_library]),
]


@pytest.mark.parametrize("marker, name, check, wrong", CASES, ids=[c[1] for c in CASES])
def test_code_exercise(marker, name, check, wrong, capsys):
    assert_separates(check, solution(marker)[name], wrong, capsys)


def bp_swapped(c, ref_lengths):
    r = min(ref_lengths, key=lambda length: (abs(c - length), length))
    return 1.0 if c >= r else math.exp(1 - c / r)


def bp_no_guard(c, ref_lengths):
    return math.exp(1 - min(ref_lengths, key=lambda length: (abs(c - length), length)) / c)


@pytest.mark.parametrize("check, wrong, named", [
    (ch01.check_1_2, bp_shortest_reference, "you took the shortest reference"),
    (ch01.check_1_2, bp_longest_reference, "you took the longest reference"),
    (ch01.check_1_2, bp_mean_reference, "you averaged the reference lengths"),
    (ch01.check_1_2, bp_tie_goes_to_the_longer, "on a tie you took the longer"),
    (ch01.check_1_2, bp_swapped, "r and c are swapped"),
    (ch01.check_1_2, bp_no_guard, "the penalty applies to long candidates too"),
    (ch01.check_1_3, lcs_in_candidate_order, "not in the reference's order"),
    (ch01.check_1_3, lcs_first_match, "taking the first match you meet can block a longer chain"),
    (ch01.check_1_3, lcs_common_substring, "a subsequence may skip tokens"),
    (ch01.check_1_3, lcs_as_length, "return the tokens themselves"),
    (ch01.check_1_3, lcs_as_text, "you return text"),
    (ch01.check_1_3, lcs_not_reversed, "the right tokens, last first"),
    (ch01.check_1_3, lcs_by_rouge_score, "calls rouge-score's LCS read-out"),
    (ch01.check_1_4, per_token_perplexity, "you divided by the number of tokens"),
    (ch01.check_1_4, mean_of_text_perplexities, "you averaged the texts' perplexities"),
    (ch01.check_1_4, geometric_mean_of_text_perplexities, "you averaged per-text values"),
    (ch01.check_1_4, perplexity_without_minus, "you left out the minus sign"),
    (ch01.check_1_4, perplexity_as_text, "you return text"),
    (ch01.check_1_4, perplexity_uses_the_library, "asks you to write yourself"),
], ids=lambda x: getattr(x, "__name__", "hint"))
def test_1_2_to_1_4_hints_name_the_mistake(check, wrong, named, capsys):
    assert_names_mistake(check, wrong, named=named, capsys=capsys)


def test_1_3_rouge_score_is_whole_again_after_the_check():
    from rouge_score import rouge_scorer

    ch01.check_1_3(lcs_by_rouge_score)
    assert rouge_scorer.lcs_ind(["a", "b"], ["b"]) == [1]


def test_1_4_nothing_above_the_exercise_gives_the_answer():
    """The stub's docstring and the chapter above 1.4 never divide by the words (the redesign of issue 31)."""
    import nbformat

    for cell in nbformat.read(NOTEBOOK, as_version=4).cells:
        if "### Exercise 1.4" in cell.source:
            break
        assert "n_words" not in cell.source and "per word" not in cell.source.lower()
    from notebook_code import code_cell

    stub_cell = code_cell(NOTEBOOK, "def word_perplexity")
    before = stub_cell.split("### BEGIN SOLUTION")[0]
    assert "sum(n_words)" not in before and "log" not in before.split("def word_perplexity")[1]


def test_question_1_5(capsys):
    from course_lib.lexical import rouge
    from course_lib.lexical.bleu import bleu_details, tokenize_13a
    from course_lib.lexical.rouge import rouge_n

    ns = solution("rouge_pick_1_5 =", ch01=ch01, bleu_details=bleu_details, rouge_n=rouge_n, rouge=rouge,
                  tokenize_13a=tokenize_13a)
    right = (ns["rouge_pick_1_5"], ns["bleu_pick_1_5"], ns["word_1_5"])
    assert passes(ch01.check_1_5, *right, capsys=capsys)
    assert passes(ch01.check_1_5, " b ", "a", " students ", capsys=capsys)  # spaces and the picks' case do not matter
    # the candidate's spelling of the word is named: its case is why BLEU misses it
    assert_names_mistake(ch01.check_1_5, "B", "A", "Students", named="a candidate's spelling", capsys=capsys)
    for bad in [(None, "A", "students"), ("A", "A", "students"),  # the planted mistakes: the picks swapped,
                ("B", "B", "students"), ("A", "B", "students"),     # one metric's pick for both, ...
                ("B", "A", "enjoy"), ("B", "A", None), ("B", "A", "holidays"), ("C", "A", "students")]:
        assert not passes(ch01.check_1_5, *bad, capsys=capsys), bad


def test_checkers_compute_their_expectations():
    # the expected picks are computed; they disagree, and only case separates the two metrics' matches
    assert ch01._preferences() == {"ROUGE-1": "B", "BLEU": "A"}
    assert ch01._rouge_only_matches() == {"students"}
    # the pair of 1.5 and the systems of 1.7 are never printed in the chapter (fresh data)
    for cell in __import__("nbformat").read(NOTEBOOK, as_version=4).cells:
        if "### Exercise 1.5" in cell.source:
            break
        assert "students enjoy" not in cell.source.lower()


def _solution_1_7():
    import itertools

    from scipy.stats import kendalltau

    ns = solution("ratings_1_7 =", ch01=ch01, combinations=itertools.combinations, kendalltau=kendalltau)
    return ns["ratings_1_7"], ns["gap_1_7"], ns["kind_1_7"]


def test_question_1_7_solution_passes(capsys):
    ratings, gap, kind = _solution_1_7()
    assert passes(ch01.check_1_7, ratings, gap, kind, capsys=capsys)
    assert passes(ch01.check_1_7, ratings, gap, " Tied_in_Both ", capsys=capsys)  # spelling does not matter
    assert ch01._tied_pairs(ch01.SYSTEMS_METRIC) == [(1, 3)]  # one tie in the published metric scores


@pytest.mark.parametrize("answer, named", [
    (([5, 4, 3, 2, 1, 1], None, None), "the colleague's tau-b is right"),       # ties in y only (and x only)
    (([3, 2, 4, 1, 5, 1], None, None), "the colleague's tau-b is right"),       # ties in x only / y only
    (([1, 3, 5, 3, 2, 4], None, None), "Now set gap_1_7"),                        # exposes it: on to the gap
    (([1, 1, 1, 1, 2, 2], None, None), "C = D"),                                  # tied on both sides, C = D
    (([3] * 6, None, None), "all equal"),
    ((["5", 3, 5, 3, 5, 1], None, None), "not a number"),
    (([5, 3, 5, 3, 5], None, None), "one per system"),
    ((None, None, None), "set ratings_1_7"),
    (([5, 3, 5, 3, 5, float("nan")], None, None), "NaN"),
    (([5, 3, 5, 3, 5, None], None, None), "must hold numbers"),
], ids=lambda x: str(x)[:40])
def test_question_1_7_hints_name_the_mistake(answer, named, capsys):
    assert_names_mistake(ch01.check_1_7, *answer, named=named, capsys=capsys)


def test_question_1_7_gap_and_kind(capsys):
    ratings, gap, kind = _solution_1_7()
    assert gap < 0  # the colleague's denominators are too large: its tau-b is smaller in size
    for bad, named in [((ratings, -gap, kind), "wrong sign"), ((ratings, gap + 0.01, kind), "is not the colleague's"),
                       ((ratings, str(gap), kind), "not a number"), ((ratings, gap, None), "Now set kind_1_7"),
                       ((ratings, gap, "tied in x"), "pairs 'tied in x' are counted as the definition"),
                       ((ratings, gap, "discordant"), "pairs 'discordant' are counted"),
                       ((ratings, gap, "ties"), "answer kind_1_7 with one of")]:
        assert ch01.check_1_7(*bad) is False, bad
        out = capsys.readouterr().out
        assert named in out, (bad, out)


def test_the_colleague_tau_b_has_exactly_the_planted_bug():
    """colleague_tau_b equals scipy without pairs tied on both sides, and differs with one (C != D)."""
    import numpy as np
    from scipy.stats import kendalltau

    rng = np.random.default_rng(3)
    for _ in range(50):
        x, y = rng.permutation(8).tolist(), rng.integers(1, 6, 8).tolist()  # ties in y only
        assert abs(ch01.colleague_tau_b(x, y) - kendalltau(x, y).statistic) < 1e-12
    x, y = [1, 1, 2], [1, 1, 2]
    assert abs(ch01.colleague_tau_b(x, y) - kendalltau(x, y).statistic) > 0.3


def test_the_chapter_kendall_tau_b_equals_scipy():
    """The readable tau-b of chapter 01 §6 (a loop over pairs) = scipy's, on data with many ties."""
    import numpy as np
    import pandas as pd
    from scipy.stats import kendalltau

    from notebook_code import definition

    pair_kind = definition(NOTEBOOK, "pair_kind", marker="def kendall_tau_b")
    tau_b = definition(NOTEBOOK, "kendall_tau_b", math=math, combinations=__import__("itertools").combinations,
                       pair_kind=pair_kind)
    rng = np.random.default_rng(7)
    for size in (5, 12, 60):
        x, y = rng.integers(0, 4, size), rng.normal(size=size).round(1)
        assert abs(tau_b(x, y) - kendalltau(x, y).statistic) < 1e-12
    assert tau_b([1, 2, 3], [3, 2, 1]) == -1.0 and abs(tau_b([1, 2, 2], [1, 3, 3]) - 1.0) < 1e-12
    # a planted mistake must show: tau-a is not tau-b on tied data
    x, y = [1, 2, 2, 3], [1, 1, 2, 3]
    assert abs(tau_b(x, y) - kendalltau(x, y).statistic) < 1e-12 and tau_b(x, y) != (4 - 0) / 6


def _code_hint(check, capsys):
    """The code-level hint a check prints (hint=2) for a wrong answer."""
    check(lambda *args: -1, hint=2)
    out = capsys.readouterr().out
    assert "Code: " in out, out
    return out.split("Code: ", 1)[1].strip()


@pytest.mark.parametrize("check, signature", [
    (ch01.check_1_1, "clipped_precision(cand_tokens, refs_tokens, n)"),
    (ch01.check_1_2, "multi_ref_bp(c, ref_lengths)"),
    (ch01.check_1_3, "lcs_words(cand_tokens, ref_tokens)"),
    (ch01.check_1_4, "word_perplexity(texts, n_words)"),
], ids=["1.1", "1.2", "1.3", "1.4"])
def test_pasted_code_hints_run_and_pass(check, signature, capsys):
    """A student who pastes the code-level hint as the function's body passes (the hint uses the
    exercise's own parameter names: 1.4's once used `probs`)."""
    code = _code_hint(check, capsys)
    from course_lib.lexical.rouge import lcs_length

    namespace = {"math": math, "Counter": Counter, "lcs_length": lcs_length}
    exec(f"def {signature}:\n    {code}\n", namespace)
    assert passes(check, namespace[signature.split("(")[0]], capsys)


# ------------------------------------------------------------------ walkthrough round two: hints that fit

def precision_as_a_pair(cand_tokens, refs_tokens, n):  # returns (matches, total), as modified_precision does
    best = Counter()
    for r in refs_tokens:
        for g, k in _grams(r, n).items():
            best[g] = max(best[g], k)
    cand = _grams(cand_tokens, n)
    return sum(min(k, best[g]) for g, k in cand.items()), sum(cand.values())


def precision_dividing_by_zero(cand_tokens, refs_tokens, n):  # right, except a candidate shorter than n
    return clipped_by_max(cand_tokens, refs_tokens, n)


@pytest.mark.parametrize("wrong, named", [
    (precision_as_a_pair, "return one number, the precision"),
    (precision_dividing_by_zero, "fewer than n tokens, so no n-grams"),
], ids=["pair", "zero-division"])
def test_1_1_hints_name_the_pair_and_the_short_candidate(wrong, named, capsys):
    assert ch01.check_1_1(wrong) is False
    out = capsys.readouterr().out
    assert named in out and "TypeError" not in out and "Code:" not in out, out


def test_1_1_checks_a_candidate_shorter_than_n():
    assert any(len(c.split()) < 3 for c, _ in ch01.MULTI_REF)
    assert ch01._clipped(["cats", "purr"], [["cats", "purr", "loudly"]], 3) == 0.0


def test_1_5_prompt_says_what_the_candidates_are():
    import nbformat

    prompt = next(c.source for c in nbformat.read(NOTEBOOK, as_version=4).cells if "### Exercise 1.5" in c.source)
    assert "`ch01.HOLIDAY_CANDIDATES`, a dict `{label: text}`" in prompt


def test_1_7_accepts_the_gap_to_4_decimals_and_names_coarser_rounding(capsys):
    import nbformat

    ratings, gap, kind = _solution_1_7()
    assert passes(ch01.check_1_7, ratings, round(gap, 4), kind, capsys=capsys)
    assert not passes(ch01.check_1_7, ratings, round(gap, 4) + 0.0002, kind, capsys=capsys)
    assert ch01.check_1_7(ratings, round(gap, 2), kind) is False
    assert "rounded too coarsely" in capsys.readouterr().out
    prompt = next(c.source for c in nbformat.read(NOTEBOOK, as_version=4).cells if "### Exercise 1.7" in c.source)
    assert "rounded to 4 decimals or more" in prompt


@pytest.mark.parametrize("ratings", [[1, 3, 6, 3, 2, 4], [0, 3, 5, 3, 2, 4]])
def test_1_7_rejects_ratings_off_the_1_to_5_scale(ratings, capsys):
    assert ch01.check_1_7(ratings) is False
    assert "off the scale: people rate from 1 to 5" in capsys.readouterr().out


def test_1_2_three_different_slips_do_not_show_the_code(capsys):
    """The code comes on the third repeat of one mistake (README), not after three different ones."""
    from course_lib.course.checks import reset_attempts

    reset_attempts("1.2")
    for wrong in (bp_shortest_reference, bp_longest_reference, bp_mean_reference):
        assert ch01.check_1_2(wrong) is False
        assert "Code:" not in capsys.readouterr().out
    for _ in range(2):
        ch01.check_1_2(bp_mean_reference)
    assert "Code:" in capsys.readouterr().out  # the same slip a third time
    reset_attempts("1.2")
