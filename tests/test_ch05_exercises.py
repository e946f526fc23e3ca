"""Chapter 05's exercises, which are data (course_lib.course.checks.exercise): the notebook's solutions pass, an
untouched stub is "not attempted", each planted slip is named by its outputs, independent wrong answers fail
(named where a slip fits), three different slips never show the solution and the same slip three times does, and
the hidden data is other data."""
import math
import random
from collections import Counter, defaultdict
from functools import partial

import numpy as np
import pandas as pd
import pytest
import torch

from course_lib.bertscore import idf as idf_lib
from course_lib.bertscore.embeddings import encode
from course_lib.course.checks import ch05, reset_attempts
from course_lib.evaluation import datasets
from course_lib.model import load
from notebook_code import NOTEBOOKS, definition, passes, run_cells, stub

NOTEBOOK = NOTEBOOKS / "05_idf.ipynb"
solution_cell = partial(run_cells, NOTEBOOK, solution=True)

pytestmark = pytest.mark.usefixtures("no_attempts_yet")


def _names():
    return dict(math=math, Counter=Counter, defaultdict=defaultdict, torch=torch, np=np, pd=pd, idf_lib=idf_lib,
                encode=encode, ch05=ch05, tokenizer=load()[0], wmt=datasets.wmt16(), datasets=datasets)


def _solutions():
    ns = solution_cell("def candidate_weights", "answer_5_4 = None", **_names())
    fn = partial(definition, NOTEBOOK, **_names())
    return {"5.1": (fn("my_idf"),), "5.2": (ns["candidate_weights"], ns["heaviest_5_2"]),
            "5.3": (fn("weightless"),), "5.4": (ns["answer_5_4"], ns["unseen_5_4"])}


CHECKS = {"5.1": ch05.check_5_1, "5.2": ch05.check_5_2, "5.3": ch05.check_5_3, "5.4": ch05.check_5_4}


def test_the_solutions_pass(capsys):
    for ex, answers in _solutions().items():
        assert passes(CHECKS[ex], *answers, capsys=capsys), ex


@pytest.mark.parametrize("ex", sorted(CHECKS))
def test_an_untouched_stub_is_not_attempted_and_gets_nothing_else(ex, capsys):
    blank = (None,) if ex == "5.4" else (stub,)
    assert CHECKS[ex](*blank) is False
    out = capsys.readouterr().out
    assert "not attempted yet" in out
    assert "idea" not in out and "A solution" not in out and ch05.EXERCISES[ex].idea[:30] not in out, out
    assert "log" not in out and "df" not in out, out  # nor the algorithm


def _slip_cases():
    for ex, exercise in ch05.EXERCISES.items():
        for k, part in enumerate(exercise.answers):
            for slip in getattr(part, "slips", []):
                yield ex, k, slip


def _as_answer(ex, slip):
    """A slip's function as the student writes it (the weights as a defaultdict; the tokenizer last)."""
    if ex == "5.1":
        def answer(corpus):
            seen, unseen = slip.answer(corpus)
            weights = defaultdict(lambda: unseen)
            weights.update(seen)
            return weights
        return answer
    return lambda *args: slip.answer(*args[:-1])


@pytest.mark.parametrize("ex, k, slip", list(_slip_cases()), ids=lambda x: getattr(x, "name", str(x)))
def test_each_planted_slip_is_named_by_its_outputs(ex, k, slip, capsys):
    right = list(_solutions()[ex])
    part = ch05.EXERCISES[ex].answers[k]
    right[k] = _as_answer(ex, slip) if callable(right[k]) else slip.answer(ch05.PUBLISHED[part.data])
    assert CHECKS[ex](*right) is False
    out = capsys.readouterr().out
    assert slip.hint in out and "The idea:" in out and "A solution" not in out, out


# ---- independent wrong answers (not the slips' own functions)

def idf_distinct_texts(token_ids):  # the hole this check closes: M = the number of DISTINCT texts
    texts = {tuple(ids) for ids in token_ids}
    m, df = len(texts), Counter(w for ids in token_ids for w in set(ids))
    weights = defaultdict(lambda: math.log(m + 1))
    weights.update({w: math.log((m + 1) / (c + 1)) for w, c in df.items()})
    return weights


def idf_deduplicated(token_ids):  # a repeated text dropped first
    texts = list(dict.fromkeys(map(tuple, token_ids)))
    m, df = len(texts), Counter(w for ids in texts for w in set(ids))
    weights = defaultdict(lambda: math.log(m + 1))
    weights.update({w: math.log((m + 1) / (c + 1)) for w, c in df.items()})
    return weights


def idf_plain_dict(token_ids):  # right weights, but no weight for unseen tokens
    m, df = len(token_ids), Counter(w for ids in token_ids for w in set(ids))
    return {w: math.log((m + 1) / (c + 1)) for w, c in df.items()}


def idf_unseen_zero(token_ids):
    weights = defaultdict(float)
    weights.update(idf_plain_dict(token_ids))
    return weights


def idf_counts_occurrences(token_ids):
    m, df = len(token_ids), Counter(w for ids in token_ids for w in ids)
    weights = defaultdict(lambda: math.log(m + 1))
    weights.update({w: math.log((m + 1) / (c + 1)) for w, c in df.items()})
    return weights


def test_5_1_independent_answers(capsys):
    for wrong in (idf_distinct_texts, idf_deduplicated):
        assert ch05.check_5_1(wrong) is False
        assert ch05.DISTINCT in capsys.readouterr().out
    assert ch05.check_5_1(idf_counts_occurrences) is False
    assert "counts every occurrence" in capsys.readouterr().out
    assert ch05.check_5_1(idf_plain_dict) is False
    assert "unseen tokens too" in capsys.readouterr().out
    assert ch05.check_5_1(idf_unseen_zero) is False
    assert "an unseen token should weigh" in capsys.readouterr().out


def test_5_2_independent_answers(capsys):
    cw, heaviest = _solutions()["5.2"]
    by_cands = lambda cands, refs, tok: [[idf_lib.idf_weights(cands, tok)[i] for i in encode(tok, c)] for c in cands]
    assert ch05.check_5_2(by_cands, heaviest) is False
    assert "from the candidates" in capsys.readouterr().out
    assert ch05.check_5_2(cw, ["log", "bird", "dog", "a"][:3]) is False
    assert "a list of 4 tokens" in capsys.readouterr().out
    assert ch05.check_5_2(cw, ["[CLS]"] * 4) is False
    assert "is not the heaviest" in capsys.readouterr().out
    assert ch05.check_5_2(cw) is False
    assert "now set heaviest_5_2" in capsys.readouterr().out


def test_5_3_independent_answers(capsys):
    def by_text(refs, tokenizer):  # the repeated references: FEW_REFS' weightless ones happen to be its repeats
        return [k for k, r in enumerate(refs) if refs.count(r) > 1]

    def as_mask(refs, tokenizer):
        return [k in ch05.EXERCISES["5.3"].answers[0].reference(refs) for k in range(len(refs))]

    assert ch05.check_5_3(by_text) is False
    assert "passed more than once" in capsys.readouterr().out
    assert ch05.check_5_3(as_mask) is False
    assert "a mask" in capsys.readouterr().out
    assert ch05.check_5_3(lambda refs, tokenizer: np.array(_solutions()["5.3"][0](refs, tokenizer))) is True
    capsys.readouterr()


def test_5_4_independent_answers(capsys):
    (unseen, once), tokens = _solutions()["5.4"]
    assert ch05.check_5_4((once, unseen), tokens) is False
    assert "wrong order" in capsys.readouterr().out
    assert ch05.check_5_4((round(unseen, 2), round(once, 2)), tokens) is False
    assert "unrounded" in capsys.readouterr().out
    assert ch05.check_5_4((math.log(525), math.log(525 / 2)), tokens) is False  # 524 distinct cs-en references
    assert ch05.DISTINCT in capsys.readouterr().out
    assert ch05.check_5_4((unseen, 0.0), tokens) is False
    assert "the token seen once: yours" in capsys.readouterr().out
    assert ch05.check_5_4((unseen, once), tokens + ["."]) is False
    assert "occur in some reference" in capsys.readouterr().out
    assert ch05.check_5_4((unseen, once), tokens[:-1]) is False
    assert "unseen tokens" in capsys.readouterr().out


def test_three_different_slips_never_show_the_solution_and_one_slip_three_times_does(capsys):
    slips = [_as_answer("5.1", s) for s in ch05.EXERCISES["5.1"].answers[0].slips]
    for slip in slips[:3]:
        assert ch05.check_5_1(slip) is False
        assert "A solution" not in capsys.readouterr().out
    reset_attempts("5.1")
    for attempt in range(3):
        ch05.check_5_1(slips[1])
        out = capsys.readouterr().out
        assert ("A solution" in out) == (attempt == 2), (attempt, out)
    assert "defaultdict" in out.split("A solution", 1)[1]  # the notebook's solution cell


def test_hidden_data_is_other_data():
    hidden = ch05.hidden_data(random.Random(7))
    for name, published in ch05.PUBLISHED.items():
        assert hidden[name] != published, name
    cands, refs = hidden["IDF_TEST_SET"]
    assert len(cands) == len(refs) == 4 and refs[0] == refs[3]  # a reference passed twice, as published
    test = hidden["TEST_5_4"]
    assert test["lp"] != "cs-en" and test["segments"] < 560 and test["candidate"] != ch05.PUBLISHED["TEST_5_4"]
    assert ch05._weightless(hidden["FEW_REFS"][1])  # some reference weighs nothing there too
    assert hidden != ch05.hidden_data(random.Random(8))


def test_the_cases_have_repeated_texts_and_the_right_answers_agree_with_the_scorer():
    import warnings

    import course_lib

    cases = ch05.EXERCISES["5.1"].answers[0].cases(random.Random(0))
    assert sum(len({tuple(t) for t in c}) < len(c) for c, in cases) >= 3
    for (refs,) in ch05.EXERCISES["5.3"].answers[0].cases(random.Random(1)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            R = course_lib.score(refs, refs, idf=True)[1]
        assert ch05._weightless(refs) == [k for k, r in enumerate(R.tolist()) if math.isnan(r)], refs
