"""Chapter 01's exercises, which are data (course_lib.course.checks.exercise): the notebook's solutions pass, an
untouched stub is "not attempted", each planted slip is named by its outputs, wrong answers written here (not the
slips' own functions) are named, three different slips never show the solution and the same slip three times
does, the solution shown is the notebook's own and runs, and 1.5 and 1.7 are graded on other data."""
import itertools
import math
import random
import re
from collections import Counter
from functools import partial

import nbformat
import pytest
from scipy.stats import kendalltau

from course_lib.course.checks import ch01, reset_attempts
from course_lib.course.checks.exercise import Function, collect, draw_cases, judge
from course_lib.course.checks.solutions import solution_text
from course_lib.lexical import rouge
from course_lib.lexical.bleu import bleu_details, sentence_bleu, tokenize_13a
from course_lib.lexical.rouge import lcs_length, rouge_n
from notebook_code import NOTEBOOKS, code_cell, definition, passes, run_cells, stub

NOTEBOOK = NOTEBOOKS / "01_lexical_metrics.ipynb"
solution_cell = partial(run_cells, NOTEBOOK, solution=True)
CHECKS = {"1.1": ch01.check_1_1, "1.2": ch01.check_1_2, "1.3": ch01.check_1_3, "1.4": ch01.check_1_4,
          "1.5": ch01.check_1_5, "1.7": ch01.check_1_7}
FUNCTIONS = ("1.1", "1.2", "1.3", "1.4")


pytestmark = pytest.mark.usefixtures("no_attempts_yet")


def _names():
    return dict(ch01=ch01, math=math, Counter=Counter, lcs_length=lcs_length, bleu_details=bleu_details,
                rouge_n=rouge_n, rouge=rouge, tokenize_13a=tokenize_13a, combinations=itertools.combinations,
                kendalltau=kendalltau)


def _solutions():
    ns = solution_cell("def clipped_precision", "def multi_ref_bp(", "def lcs_words", "def word_perplexity",
                       "rouge_pick_1_5 =", "ratings_1_7 =", **_names())
    return {"1.1": (ns["clipped_precision"],), "1.2": (ns["multi_ref_bp"],), "1.3": (ns["lcs_words"],),
            "1.4": (ns["word_perplexity"],), "1.5": (ns["rouge_pick_1_5"], ns["bleu_pick_1_5"], ns["word_1_5"]),
            "1.7": (ns["ratings_1_7"], ns["gap_1_7"], ns["kind_1_7"])}


def test_the_solutions_pass(capsys):
    for ex, answers in _solutions().items():
        assert passes(CHECKS[ex], *answers, capsys=capsys), ex


@pytest.mark.parametrize("ex", sorted(CHECKS))
def test_an_untouched_stub_is_not_attempted_and_gets_nothing_else(ex, capsys):
    blank = (stub,) if ex in FUNCTIONS else (None,)
    assert CHECKS[ex](*blank) is False
    out = capsys.readouterr().out
    assert "not attempted yet" in out
    assert "idea" not in out and "A solution" not in out and ch01.EXERCISES[ex].idea[:30] not in out, out


def _slip_cases():
    for ex in FUNCTIONS:
        for slip in ch01.EXERCISES[ex].answers[0].slips:
            yield ex, slip


@pytest.mark.parametrize("ex, slip", list(_slip_cases()), ids=lambda x: getattr(x, "name", str(x)))
def test_each_planted_slip_is_named_by_its_outputs(ex, slip, capsys):
    """The student's answer *is* the slip: the check must name it by matching outputs, and say the idea; no
    solution on a first try."""
    assert CHECKS[ex](slip.answer) is False
    out = capsys.readouterr().out
    assert slip.hint in out and "The idea:" in out and "A solution" not in out, out


@pytest.mark.parametrize("ex, slip", list(_slip_cases()), ids=lambda x: getattr(x, "name", str(x)))
def test_slips_are_named_on_other_cases_too(ex, slip):
    """Cases are drawn when the check runs: on other draws (grading's) each slip is still the one named."""
    part = ch01.EXERCISES[ex].answers[0]
    for seed in range(3):
        cases = draw_cases(ch01.EXERCISES[ex], random.Random(seed), ch01._data())
        verdict = judge(ch01.EXERCISES[ex], collect(ch01.EXERCISES[ex], (slip.answer,), cases), cases)
        assert verdict.mistake == slip.name, (seed, verdict)
    assert isinstance(part, Function)


# ---- wrong answers written here, independently of the planted slips: each is named --------------------------

def _grams(tokens, n):
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def clipped_by_max(cand_tokens, refs_tokens, n, divide_by_zero=False):
    best = Counter()
    for r in refs_tokens:
        for g, k in _grams(r, n).items():
            best[g] = max(best[g], k)
    cand = _grams(cand_tokens, n)
    if not cand and not divide_by_zero:
        return 0.0
    return sum(min(k, best[g]) for g, k in cand.items()) / sum(cand.values())


def unclipped_precision(cand_tokens, refs_tokens, n):
    grams = [tuple(cand_tokens[i:i + n]) for i in range(len(cand_tokens) - n + 1)]
    ref_grams = {tuple(r[i:i + n]) for r in refs_tokens for i in range(len(r) - n + 1)}
    return sum(g in ref_grams for g in grams) / len(grams) if grams else 0.0


def clipped_by_the_sum_over_references(cand_tokens, refs_tokens, n):
    total = Counter()
    for r in refs_tokens:
        total.update(_grams(r, n))
    cand = _grams(cand_tokens, n)
    return sum(min(k, total[g]) for g, k in cand.items()) / sum(cand.values()) if cand else 0.0


def precision_as_a_pair(cand_tokens, refs_tokens, n):  # returns (matches, total), as modified_precision does
    cand = _grams(cand_tokens, n)
    return clipped_by_max(cand_tokens, refs_tokens, n) * sum(cand.values()), sum(cand.values())


WRONG_1_1 = {
    "you did not clip": unclipped_precision,
    "summed over the references": clipped_by_the_sum_over_references,
    "ignores n": lambda c, rs, n: clipped_by_max(c, rs, 1),
    "the first reference only": lambda c, rs, n: clipped_by_max(c, rs[:1], n),
    "fewer than n tokens, so no n-grams": partial(clipped_by_max, divide_by_zero=True),
    "return one number, the precision": precision_as_a_pair,
    "asks you to write yourself": lambda c, rs, n: __import__("course_lib").lexical.bleu.modified_precision(c, rs, n)[0]
    / max(1, len(c) - n + 1),
}


def _bp(c, r):
    return 1.0 if c >= r else math.exp(1 - r / c)


def bp_swapped(c, ref_lengths):
    r = min(ref_lengths, key=lambda length: (abs(c - length), length))
    return 1.0 if c >= r else math.exp(1 - c / r)


def bp_no_guard(c, ref_lengths):
    return math.exp(1 - min(ref_lengths, key=lambda length: (abs(c - length), length)) / c)


def bp_uses_the_library(c, ref_lengths):
    from course_lib.lexical.bleu import brevity_penalty, closest_reference_length

    return brevity_penalty(c, closest_reference_length(c, ref_lengths))


WRONG_1_2 = {
    "you took the shortest reference": lambda c, ls: _bp(c, min(ls)),
    "you took the longest reference": lambda c, ls: _bp(c, max(ls)),
    "you averaged the reference lengths": lambda c, ls: _bp(c, sum(ls) / len(ls)),
    "on a tie you took the longer": lambda c, ls: _bp(c, sorted(ls, key=lambda r: (abs(c - r), -r))[0]),
    "r and c are swapped": bp_swapped,
    "the penalty applies to long candidates too": bp_no_guard,
    "asks you to write yourself": bp_uses_the_library,
    "expected": lambda c, ls: _bp(c, min(ls, key=lambda r: abs(c - r))) * 0.99,
}


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


def lcs_not_reversed(cand_tokens, ref_tokens):  # the walk back collects the tokens last first
    return _solutions()["1.3"][0](cand_tokens, ref_tokens)[::-1]


def lcs_by_rouge_score(cand_tokens, ref_tokens):
    from rouge_score import rouge_scorer

    return [ref_tokens[k] for k in rouge_scorer.lcs_ind(ref_tokens, cand_tokens)]


def lcs_from_the_front(cand_tokens, ref_tokens):
    """A forward walk that, at a mismatch, drops the candidate's token unless the reference's is unmatched later:
    a common subsequence, often too short."""
    out, i, j = [], 0, 0
    while i < len(cand_tokens) and j < len(ref_tokens):
        if cand_tokens[i] == ref_tokens[j]:
            out.append(cand_tokens[i])
            i, j = i + 1, j + 1
        elif ref_tokens[j] in cand_tokens[i:]:
            i += 1
        else:
            j += 1
    return out


WRONG_1_3 = {
    "reference's order": lcs_in_candidate_order,
    "first match": lcs_first_match,
    "a subsequence may skip tokens": lcs_common_substring,
    "return the tokens themselves": lambda c, r: lcs_length(c, r),
    "you return text": lambda c, r: " ".join(lcs_common_substring(c, r)),
    "the right tokens, last first": lcs_not_reversed,
    "asks you to write yourself": lcs_by_rouge_score,
    "not a subsequence of the candidate": lambda c, r: sorted(set(c) & set(r)) * 2,
    "the longest": lcs_from_the_front,  # too short: named as a substring or as a chain the first match blocked
}


def _logs(texts):
    return [math.log(p) for t in texts for p in t]


def perplexity_uses_the_library(texts, n_words):
    from course_lib.lexical.perplexity import perplexity

    flat = [p for t in texts for p in t]
    return perplexity(flat) ** (len(flat) / sum(n_words))


WRONG_1_4 = {
    "you divided by the number of tokens": lambda texts, w: math.exp(-sum(_logs(texts)) / len(_logs(texts))),
    "you averaged the texts' perplexities": lambda texts, w: sum(
        math.exp(-sum(math.log(p) for p in t) / k) for t, k in zip(texts, w)) / len(texts),
    "you averaged per-text values": lambda texts, w: math.exp(sum(
        -sum(math.log(p) for p in t) / k for t, k in zip(texts, w)) / len(texts)),
    "you left out the minus sign": lambda texts, w: math.exp(sum(_logs(texts)) / sum(w)),
    "you return text": lambda texts, w: f"{math.exp(-sum(_logs(texts)) / sum(w)):.4f}",
    "asks you to write yourself": perplexity_uses_the_library,
    "expected": lambda texts, w: 1 / (sum(p for t in texts for p in t) / sum(map(len, texts))),  # mean probability
    "NaN": lambda texts, w: float("nan"),
}

WRONG = {"1.1": WRONG_1_1, "1.2": WRONG_1_2, "1.3": WRONG_1_3, "1.4": WRONG_1_4}


@pytest.mark.parametrize("ex, named", [(ex, named) for ex in WRONG for named in WRONG[ex]],
                         ids=lambda x: str(x)[:40])
def test_independent_wrong_answers_are_named(ex, named, capsys):
    assert CHECKS[ex](WRONG[ex][named]) is False
    out = capsys.readouterr().out
    assert named in out and "A solution" not in out and "Traceback" not in out, out


def test_1_3_rouge_score_is_whole_again_after_the_check():
    from rouge_score import rouge_scorer

    ch01.check_1_3(lcs_by_rouge_score)
    assert rouge_scorer.lcs_ind(["a", "b"], ["b"]) == [1]


def test_a_right_answer_written_otherwise_passes(capsys):
    """Another longest common subsequence, a recursive table, per-word perplexity from the mean log: all pass."""
    def lcs_recursive(cand, ref):
        from functools import lru_cache

        @lru_cache(None)
        def best(i, j):
            if i == len(cand) or j == len(ref):
                return ()
            if cand[i] == ref[j]:
                return (cand[i],) + best(i + 1, j + 1)
            a, b = best(i + 1, j), best(i, j + 1)
            return b if len(b) > len(a) else a  # ties go the other way than the solution's walk
        return list(best(0, 0))

    assert passes(ch01.check_1_3, lcs_recursive, capsys)
    assert passes(ch01.check_1_4, lambda texts, w: math.exp(-sum(_logs(texts)) / sum(w)), capsys)
    assert passes(ch01.check_1_1, clipped_by_max, capsys)


# ---- the solution: after one slip three times, never after three different slips ---------------------------

@pytest.mark.parametrize("ex", ["1.1", "1.2"])
def test_three_different_slips_never_show_the_solution_and_one_slip_three_times_does(ex, capsys):
    """Old 1.1 showed the code after three different slips that shared a hint text: slips have names now."""
    slips = ch01.EXERCISES[ex].answers[0].slips
    for slip in slips[1:4]:
        assert CHECKS[ex](slip.answer) is False
        assert "A solution" not in capsys.readouterr().out
    reset_attempts(ex)
    for attempt in range(3):
        CHECKS[ex](slips[1].answer)
        out = capsys.readouterr().out
        assert ("A solution" in out) == (attempt == 2), (attempt, out)
    assert solution_text(ch01.EXERCISES[ex]) in out  # the notebook's solution cell, read from the solution notebook


def test_hint_2_shows_the_solution_at_once(capsys):
    ch01.check_1_3(lcs_in_candidate_order, hint=2)
    out = capsys.readouterr().out
    assert "A solution" in out and "walk back from the last cell" in out, out


_HEADS = {"1.1": "def clipped_precision(cand_tokens, refs_tokens, n):\n",
          "1.2": "def multi_ref_bp(c, ref_lengths):\n", "1.3": "def lcs_words(cand_tokens, ref_tokens):\n",
          "1.4": "def word_perplexity(texts, n_words):\n"}


def test_the_solution_shown_is_the_notebooks_and_runs(capsys):
    for ex, check in CHECKS.items():
        text = solution_text(ch01.EXERCISES[ex])
        assert "raise NotImplementedError" not in text and text.strip(), ex
        names = _names()
        exec(_HEADS.get(ex, "") + text, names)
        answers = {"1.5": lambda: (names["rouge_pick_1_5"], names["bleu_pick_1_5"], names["word_1_5"]),
                   "1.7": lambda: (names["ratings_1_7"], names["gap_1_7"], names["kind_1_7"])}.get(
            ex, lambda: (names[_HEADS[ex][4:].split("(")[0]],))()
        capsys.readouterr()
        assert passes(check, *answers, capsys=capsys), ex


def _solution_lines():
    for ex in CHECKS:
        for line in solution_text(ch01.EXERCISES[ex]).splitlines():
            line = line.split("#")[0].strip()
            if len(line) >= 30:
                yield ex, line


def test_no_solution_text_in_the_checker():
    import inspect

    source = inspect.getsource(ch01)
    assert "code=" not in source
    shared = [(ex, line) for ex, line in _solution_lines() if line in source]
    assert not shared, shared


def test_no_solution_in_the_student_copy():
    student = nbformat.read(NOTEBOOKS / "student" / NOTEBOOK.name, as_version=4)
    text = "\n".join(c.source for c in student.cells)
    for ex, line in _solution_lines():
        assert line not in text, (ex, line)


# ---- 1.5 and 1.7: values and designs, graded on other data --------------------------------------------------

def test_hidden_data_is_other_data():
    hidden = ch01.hidden_data(random.Random(7))
    assert set(hidden) == set(ch01.PUBLISHED)
    assert hidden["HOLIDAY_1_5"][0] != ch01.PUBLISHED["HOLIDAY_1_5"][0]
    assert ch01._rouge_only_matches(hidden["HOLIDAY_1_5"]).isdisjoint(ch01._rouge_only_matches(ch01.PUBLISHED["HOLIDAY_1_5"]))
    assert ch01._tied_pairs(hidden["SYSTEMS_METRIC"]) != ch01._tied_pairs(ch01.PUBLISHED["SYSTEMS_METRIC"])
    assert len(ch01._tied_pairs(hidden["SYSTEMS_METRIC"])) == 1
    assert hidden == ch01.hidden_data(random.Random(7)) != ch01.hidden_data(random.Random(8))


def _graded(ex_id, answers, data):
    """The verdict grading gives `answers` on `data` (the cases drawn as DrawCases draws them)."""
    ex = ch01.EXERCISES[ex_id]
    cases = draw_cases(ex, random.Random(1), data)
    return judge(ex, collect(ex, answers, cases), cases)


def _computed_1_5(holiday):
    reference, cands = holiday[0], {"A": holiday[1], "B": holiday[2]}
    r1 = {k: rouge_n(c, reference, 1).fmeasure for k, c in cands.items()}
    bleu = {k: sentence_bleu(c, reference) for k, c in cands.items()}
    words = sorted(w for c in cands.values() for w in set(rouge.tokenize(c)) & set(rouge.tokenize(reference))
                   if w not in tokenize_13a(c))
    return max(r1, key=r1.get), max(bleu, key=bleu.get), words[0]


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_on_hidden_data_computed_answers_pass_and_copied_ones_fail(seed):
    hidden = ch01.hidden_data(random.Random(seed))
    assert _graded("1.5", _computed_1_5(hidden["HOLIDAY_1_5"]), hidden).ok
    assert not _graded("1.5", ("B", "A", "students"), hidden).ok  # the published answers
    # 1.7: the notebook's solution cell, run on the hidden metric scores, passes; the published answers do not
    published = _solutions()["1.7"]
    names = dict(_names(), ch01=type("Hidden", (), {"SYSTEMS_METRIC": hidden["SYSTEMS_METRIC"],
                                                    "colleague_tau_b": staticmethod(ch01.colleague_tau_b)}))
    exec(code_cell(NOTEBOOK, "ratings_1_7 =", solution=True), names)
    assert _graded("1.7", (names["ratings_1_7"], names["gap_1_7"], names["kind_1_7"]), hidden).ok
    assert not _graded("1.7", published, hidden).ok


def test_question_1_5(capsys):
    assert passes(ch01.check_1_5, " b ", "a", " students ", capsys=capsys)  # spaces and the picks' case do not matter
    for bad, named in [(("B", "A", "Students"), "a candidate's spelling"),
                       (("A", "A", "students"), "ROUGE-1 F1 prefers the other candidate"),
                       (("B", "B", "students"), "sentence BLEU prefers the other candidate"),
                       (("B", "A", "enjoy"), "not a word that ROUGE-1 matches and BLEU misses"),
                       (("B", "A", "holidays"), "not a word that ROUGE-1 matches"),
                       (("B", "A", None), "now set word_1_5"), (("C", "A", "students"), "with \"A\" or \"B\""),
                       (("B", "A", 3), "as text")]:
        assert ch01.check_1_5(*bad) is False, bad
        out = capsys.readouterr().out
        assert named in out and "A solution" not in out, (bad, out)


def test_checkers_compute_their_expectations():
    # the expected picks are computed; they disagree, and only case separates the two metrics' matches
    assert ch01._preferences(ch01.PUBLISHED["HOLIDAY_1_5"]) == {"ROUGE-1": "B", "BLEU": "A"}
    assert ch01._rouge_only_matches(ch01.PUBLISHED["HOLIDAY_1_5"]) == {"students"}
    assert ch01.HOLIDAY_REFERENCE == "students enjoy long summer holidays" and list(ch01.HOLIDAY_CANDIDATES) == ["A", "B"]
    # the pair of 1.5 and the systems of 1.7 are never printed in the chapter (fresh data)
    for cell in nbformat.read(NOTEBOOK, as_version=4).cells:
        if "### Exercise 1.5" in cell.source:
            break
        assert "students enjoy" not in cell.source.lower()


def test_the_prompts_say_what_is_graded_on_other_data():
    cells = [c.source for c in nbformat.read(NOTEBOOK, as_version=4).cells]
    prompt_1_5 = next(c for c in cells if "### Exercise 1.5" in c)
    prompt_1_7 = next(c for c in cells if "### Exercise 1.7" in c)
    assert "`ch01.HOLIDAY_CANDIDATES`, a dict `{label: text}`" in prompt_1_5
    for prompt in (prompt_1_5, prompt_1_7):
        flat = " ".join(prompt.split())
        assert "**Compute it with code**" in flat and re.search(r"a graded copy runs your cell on (an)?other", flat)
    assert "rounded to 4 decimals or more" in prompt_1_7


def test_question_1_7_solution_passes(capsys):
    ratings, gap, kind = _solutions()["1.7"]
    assert passes(ch01.check_1_7, ratings, gap, " Tied_in_Both ", capsys=capsys)  # spelling does not matter
    assert passes(ch01.check_1_7, ratings, round(gap, 4), kind, capsys=capsys)
    assert ch01._tied_pairs(ch01.SYSTEMS_METRIC) == [(1, 3)]  # one tie in the published metric scores


@pytest.mark.parametrize("answer, named", [
    (([5, 4, 3, 2, 1, 1], None, None), "the colleague's tau-b is right"),       # ties in y only (and x only)
    (([3, 2, 4, 1, 5, 1], None, None), "the colleague's tau-b is right"),       # ties in x only / y only
    (([1, 3, 5, 3, 2, 4], None, None), "now set gap_1_7"),                        # exposes it: on to the gap
    (([1, 1, 1, 1, 2, 2], None, None), "C = D"),                                  # tied on both sides, C = D
    (([3] * 6, None, None), "all equal"),
    ((["5", 3, 5, 3, 5, 1], None, None), "not a number"),
    (([5, 3, 5, 3, 5], None, None), "one per system"),
    (([5, 3, 5, 3, 5, float("nan")], None, None), "NaN"),
    (([5, 3, 5, 3, 5, None], None, None), "must hold numbers"),
    (([1, 3, 6, 3, 2, 4], None, None), "off the scale: people rate from 1 to 5"),
    (([0, 3, 5, 3, 2, 4], None, None), "off the scale: people rate from 1 to 5"),
], ids=lambda x: str(x)[:40])
def test_question_1_7_hints_name_the_mistake(answer, named, capsys):
    assert ch01.check_1_7(*answer) is False
    out = capsys.readouterr().out
    assert named in out and "A solution" not in out, out


def test_question_1_7_gap_and_kind(capsys):
    ratings, gap, kind = _solutions()["1.7"]
    assert gap < 0  # the colleague's denominators are too large: its tau-b is smaller in size
    for bad, named in [((ratings, -gap, kind), "wrong sign"), ((ratings, gap + 0.01, kind), "is not the colleague's"),
                       ((ratings, round(gap, 4) + 0.0002, kind), "is not the colleague's"),
                       ((ratings, round(gap, 2), kind), "rounded too coarsely"),
                       ((ratings, str(gap), kind), "not a number"), ((ratings, gap, None), "now set kind_1_7"),
                       ((ratings, gap, "tied in x"), "pairs 'tied in x' are counted as the definition"),
                       ((ratings, gap, "discordant"), "pairs 'discordant' are counted"),
                       ((ratings, gap, "ties"), "answer kind_1_7 with")]:
        assert ch01.check_1_7(*bad) is False, bad
        out = capsys.readouterr().out
        assert named in out, (bad, out)


# ---- the chapter's own code ---------------------------------------------------------------------------------

def test_1_4_nothing_above_the_exercise_gives_the_answer():
    """The stub's docstring and the chapter above 1.4 never divide by the words (the redesign of issue 31)."""
    for cell in nbformat.read(NOTEBOOK, as_version=4).cells:
        if "### Exercise 1.4" in cell.source:
            break
        assert "n_words" not in cell.source and "per word" not in cell.source.lower()
    before = code_cell(NOTEBOOK, "def word_perplexity").split("### BEGIN SOLUTION")[0]
    assert "sum(n_words)" not in before and "log" not in before.split("def word_perplexity")[1]


def test_1_1_checks_a_candidate_shorter_than_n():
    assert any(len(c.split()) < 3 for c, _ in ch01.MULTI_REF)
    assert ch01._clipped(["cats", "purr"], [["cats", "purr", "loudly"]], 3) == 0.0


def test_the_colleague_tau_b_has_exactly_the_planted_bug():
    """colleague_tau_b equals scipy without pairs tied on both sides, and differs with one (C != D)."""
    import numpy as np

    rng = np.random.default_rng(3)
    for _ in range(50):
        x, y = rng.permutation(8).tolist(), rng.integers(1, 6, 8).tolist()  # ties in y only
        assert abs(ch01.colleague_tau_b(x, y) - kendalltau(x, y).statistic) < 1e-12
    x, y = [1, 1, 2], [1, 1, 2]
    assert abs(ch01.colleague_tau_b(x, y) - kendalltau(x, y).statistic) > 0.3


def test_the_chapter_kendall_tau_b_equals_scipy():
    """The readable tau-b of chapter 01 §6 (a loop over pairs) = scipy's, on data with many ties."""
    import numpy as np

    pair_kind = definition(NOTEBOOK, "pair_kind", marker="def kendall_tau_b")
    tau_b = definition(NOTEBOOK, "kendall_tau_b", math=math, combinations=itertools.combinations,
                       pair_kind=pair_kind)
    rng = np.random.default_rng(7)
    for size in (5, 12, 60):
        x, y = rng.integers(0, 4, size), rng.normal(size=size).round(1)
        assert abs(tau_b(x, y) - kendalltau(x, y).statistic) < 1e-12
    assert tau_b([1, 2, 3], [3, 2, 1]) == -1.0 and abs(tau_b([1, 2, 2], [1, 3, 3]) - 1.0) < 1e-12
    # a planted mistake must show: tau-a is not tau-b on tied data
    x, y = [1, 2, 2, 3], [1, 1, 2, 3]
    assert abs(tau_b(x, y) - kendalltau(x, y).statistic) < 1e-12 and tau_b(x, y) != (4 - 0) / 6
