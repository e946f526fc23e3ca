"""Chapter 03's exercises, which are data (course_lib.course.checks.exercise): the notebook's solutions pass, an
untouched stub is "not attempted", each planted slip is named by its outputs, three different slips never show
the solution and the same slip three times does, and the solution shown is the notebook's own and runs."""
from functools import partial

import pytest
import torch

from course_lib.bertscore.embeddings import tokens
from course_lib.bertscore.similarity import cosine_matrix
from course_lib.course.checks import ch03, reset_attempts
from course_lib.course.checks.solutions import solution_text
from course_lib.model import DEFAULT_LAYER, load
from course_lib.teaching import naive
from notebook_code import NOTEBOOKS, passes, run_cells, stub

NOTEBOOK = NOTEBOOKS / "03_similarity_matrix.ipynb"
solution_cell = partial(run_cells, NOTEBOOK, solution=True, torch=torch)


pytestmark = pytest.mark.usefixtures("no_attempts_yet")


def _names():
    tokenizer, _ = load()
    return dict(torch=torch, tokens=tokens, tokenizer=tokenizer, ch03=ch03, naive=naive, DEFAULT_LAYER=DEFAULT_LAYER,
                cosine_matrix=cosine_matrix)


def _solutions():
    ns = solution_cell("answer_3_1", "def cosines_from_dots", "row_norms_3_2 = None", "def masked_matrix",
                       "up_3_4 = None", **_names())
    return {"3.1": (ns["answer_3_1"], ns["split_3_1"]), "3.2": (ns["cosines_from_dots"], ns["row_norms_3_2"]),
            "3.3": (ns["masked_matrix"],), "3.4": (ns["up_3_4"], ns["down_3_4"], ns["drops_3_4"])}


CHECKS = {"3.1": ch03.check_3_1, "3.2": ch03.check_3_2, "3.3": ch03.check_3_3, "3.4": ch03.check_3_4}


def test_the_solutions_pass(capsys):
    for ex, answers in _solutions().items():
        assert passes(CHECKS[ex], *answers, capsys=capsys), ex
    assert _solutions()["3.1"][1] == ["paralysed", "Reykjavik's", "overnight.", "-12°C!"]


@pytest.mark.parametrize("ex", sorted(CHECKS))
def test_an_untouched_stub_is_not_attempted_and_gets_nothing_else(ex, capsys):
    blank = (stub,) if ex in ("3.2", "3.3") else (None,)
    assert CHECKS[ex](*blank) is False
    out = capsys.readouterr().out
    assert "not attempted yet" in out
    assert "idea" not in out and "A solution" not in out and ch03.EXERCISES[ex].idea[:30] not in out, out


def _slip_cases():
    for ex in ("3.1", "3.2", "3.3"):
        for k, part in enumerate(ch03.EXERCISES[ex].answers):
            for slip in getattr(part, "slips", []):
                yield ex, k, slip


@pytest.mark.parametrize("ex, k, slip", list(_slip_cases()), ids=lambda x: getattr(x, "name", str(x)))
def test_each_planted_slip_is_named_by_its_outputs(ex, k, slip, capsys):
    """The student's answer below *is* the slip, written independently where it is a function: the check must
    name it by matching outputs, and say the idea; no solution on a first try."""
    right = list(_solutions()[ex])
    part = ch03.EXERCISES[ex].answers[k]
    right[k] = slip.answer if callable(right[k]) else slip.answer(ch03.PUBLISHED[part.data])
    assert CHECKS[ex](*right) is False
    out = capsys.readouterr().out
    assert slip.hint in out and "The idea:" in out and "A solution" not in out, out


# independent wrong answers (not the slips' own functions): each must fail, most named
def _left(lengths, total):
    return torch.arange(total)[None, :] >= (total - torch.tensor(lengths))[:, None]


def zero_fill(cand, ref, cl, rl):  # "4.5 filling with 0" 's cousin here: 0 can win a max over negative cosines
    keep = _left(cl, cand.shape[1])[:, :, None] & _left(rl, ref.shape[1])[:, None, :]
    return torch.where(keep, cosine_matrix(cand, ref), torch.zeros(()))


def loops(cand, ref, cl, rl):  # a right answer written with Python loops passes too
    out = cosine_matrix(cand, ref).clone()
    for b in range(cand.shape[0]):
        for i in range(cand.shape[1]):
            for j in range(ref.shape[1]):
                if i < cand.shape[1] - cl[b] or j < ref.shape[1] - rl[b]:
                    out[b, i, j] = float("-inf")
    return out


def test_independent_answers(capsys):
    assert ch03.check_3_3(zero_fill) is False
    assert "hold 0, not -inf" in capsys.readouterr().out
    assert passes(ch03.check_3_3, loops, capsys)
    norms = lambda d, cn, rn: d / torch.outer(cn[0], rn[0])[None]  # the first pair's norms for every pair
    assert ch03.check_3_2(norms, "reference") is False
    assert "the values differ from the right ones" in capsys.readouterr().out


def test_three_different_slips_never_show_the_solution_and_one_slip_three_times_does(capsys):
    slips = ch03.EXERCISES["3.3"].answers[0].slips
    for slip in slips[:3]:
        assert ch03.check_3_3(slip.answer) is False
        assert "A solution" not in capsys.readouterr().out
    reset_attempts("3.3")
    for attempt in range(3):
        ch03.check_3_3(slips[0].answer)
        out = capsys.readouterr().out
        assert ("A solution" in out) == (attempt == 2), (attempt, out)
    assert "masked_fill(~both_real" in out  # the notebook's solution cell, read from the solution notebook


def test_the_solution_shown_is_the_notebooks_and_runs(capsys):
    names = _names()
    for ex, check in CHECKS.items():
        text = solution_text(ch03.EXERCISES[ex])
        assert "raise NotImplementedError" not in text
        if ex in ("3.2", "3.3"):
            text = {"3.2": "def cosines_from_dots(dots, cand_norms, ref_norms):\n",
                    "3.3": "def masked_matrix(cand, ref, cand_lengths, ref_lengths):\n"}[ex] + text
        if ex == "3.2":  # two solution cells: the function, then the word
            body, word = text.split("\n# Row", 1)
            exec(body, names)
            exec("# Row" + word, names)
            answers = (names["cosines_from_dots"], names["row_norms_3_2"])
        else:
            exec(text, names)
            answers = {"3.1": lambda: (names["answer_3_1"], names["split_3_1"]),
                       "3.3": lambda: (names["masked_matrix"],),
                       "3.4": lambda: (names["up_3_4"], names["down_3_4"], names["drops_3_4"])}[ex]()
        capsys.readouterr()
        assert passes(check, *answers, capsys=capsys), ex


def test_hidden_data_is_other_data(monkeypatch):
    import random

    hidden = ch03.hidden_data(random.Random(7))
    assert set(hidden["COUNT_SENTENCES"]).isdisjoint(ch03.PUBLISHED["COUNT_SENTENCES"])
    assert all(len(t.split()) >= 25 for t in hidden["TARGET_3_4"])  # longer than the published pair doubled
    assert hidden != ch03.hidden_data(random.Random(8))


def test_3_4_hints_name_the_mistake(capsys):
    c, r = ch03.PUBLISHED["TARGET_3_4"]
    cc, rr = f"{c} {c}", f"{r} {r}"
    cases = {"longer than the pair on both sides": ((cc, r), (cc, r), "precision"),
             "Pad one side only": ((cc, rr), (cc, rr), "precision"),
             "no padding": ((cc, rr), ("Hi.", "Hi."), "precision"),
             "which mean do those padding positions join": ((cc, rr), (cc, r), "recall"),
             "must be a (candidate, reference) pair": ("The school building was finally repaired after the long "
                                                       "winter storms damaged it.", None, None),
             "now set down_3_4": ((cc, rr), None, None)}
    for named, answers in cases.items():
        assert ch03.check_3_4(*answers) is False
        out = capsys.readouterr().out
        assert named in out and "A solution" not in out, (named, out)


def test_no_solution_in_the_student_copy():
    text = (NOTEBOOKS / "student" / NOTEBOOK.name).read_text()
    for solution in ("masked_fill(~both_real", "row_norms_3_2 = \\\"reference\\\"", "**Why it moves.**",
                     "show_source(masked_cosine_matrix)", "up_3_4 = (f\\\"{target_c}"):
        assert solution not in text, solution


# ---- wrong answers written here, independently of the planted slips: each is named ----------------------

def _cos(cand, ref):
    return (cand / cand.norm(dim=-1, keepdim=True)) @ (ref / ref.norm(dim=-1, keepdim=True)).transpose(1, 2)


def _right(lengths, total):  # the chapter's layout: real tokens first
    return torch.arange(total)[None, :] < torch.tensor(lengths)[:, None]


def _real(cl, rl, c, r, side=_left):
    return side(cl, c.shape[1])[:, :, None] & side(rl, r.shape[1])[:, None, :]


WRONG_3_3 = {
    "nothing is masked": lambda c, r, cl, rl: _cos(c, r),
    "RIGHT padding would be": lambda c, r, cl, rl: _cos(c, r).masked_fill(~_real(cl, rl, c, r, _right), float("-inf")),
    "the reference's padding columns only": lambda c, r, cl, rl: _cos(c, r).masked_fill(
        ~_left(rl, r.shape[1])[:, None, :], float("-inf")),
    "hold 0, not -inf": lambda c, r, cl, rl: _cos(c, r).masked_fill(~_real(cl, rl, c, r), 0.0),
    "takes one real token of each text for padding": lambda c, r, cl, rl: _cos(c, r).masked_fill(
        ~_real([n - 1 for n in cl], [n - 1 for n in rl], c, r), float("-inf")),
    "only where both tokens are padding": lambda c, r, cl, rl: _cos(c, r).masked_fill(
        ~_left(cl, c.shape[1])[:, :, None] & ~_left(rl, r.shape[1])[:, None, :], float("-inf")),
    "0 * (-inf) is NaN": lambda c, r, cl, rl: _cos(c, r) * _real(cl, rl, c, r) + float("-inf") * (~_real(cl, rl, c, r)),
}


@pytest.mark.parametrize("named", sorted(WRONG_3_3))
def test_3_3_independent_wrong_answers_are_named(named, capsys):
    assert ch03.check_3_3(WRONG_3_3[named]) is False
    out = capsys.readouterr().out
    assert named in out and "A solution" not in out, out


def _cosines(d, cn, rn):
    return d / (cn[:, :, None] * rn[:, None, :])


WRONG_3_2 = {
    "candidate tokens' lengths only": lambda d, cn, rn: d / cn.unsqueeze(-1),
    "reference tokens' lengths only": lambda d, cn, rn: d / rn.unsqueeze(1),
    "on the wrong axes": lambda d, cn, rn: d / (cn.unsqueeze(1) * rn.unsqueeze(2)),
    "[batch, ref_len, cand_len]": lambda d, cn, rn: _cosines(d, cn, rn).permute(0, 2, 1),
    "squared lengths": lambda d, cn, rn: d / (cn[:, :, None] ** 2 * rn[:, None, :] ** 2),
    "square root": lambda d, cn, rn: d / torch.sqrt(cn[:, :, None] * rn[:, None, :]),
    "you multiplied": lambda d, cn, rn: d * (cn[:, :, None] * rn[:, None, :]),
    "return a torch tensor": lambda d, cn, rn: _cosines(d, cn, rn).numpy(),
    "NaN": lambda d, cn, rn: d * float("nan"),
}


@pytest.mark.parametrize("named", sorted(WRONG_3_2))
def test_3_2_independent_wrong_answers_are_named(named, capsys):
    assert ch03.check_3_2(WRONG_3_2[named], "reference") is False
    out = capsys.readouterr().out
    assert named in out and "A solution" not in out, out


@pytest.mark.parametrize("answer, named", [("candidate", "its whole row by one number"),
                                           ("both", "one of the two cannot matter"), ("neither", "section 2 printed"),
                                           ("rows", "answer row_norms_3_2 with"), (None, "now set row_norms_3_2")])
def test_3_2_row_norms_hints(answer, named, capsys):
    assert ch03.check_3_2(_cosines, answer) is False
    assert named in capsys.readouterr().out


def test_3_1_wrong_counts_are_named(capsys):
    sentences = ch03.PUBLISHED["COUNT_SENTENCES"]
    tokenizer, _ = load()
    with_special = [len(tokens(tokenizer, s)) for s in sentences]
    right = [n - 2 for n in with_special]
    for wrong, named in [(with_special, "[CLS] and [SEP]"), ([len(s.split()) for s in sentences], "you counted words"),
                         ([str(n) for n in right], "not numbers"), (right[:1], "a list of 2 integers")]:
        assert ch03.check_3_1(wrong, None) is False
        assert named in capsys.readouterr().out, wrong


def test_a_student_release_shows_no_solution(monkeypatch, capsys):
    """A student release's notebooks/ holds the student copies under the solution notebooks' names: there the
    check says who keeps the solutions, and shows none."""
    from course_lib.course.checks import solutions

    monkeypatch.setattr(solutions, "NOTEBOOKS", NOTEBOOKS / "student")
    assert solution_text(ch03.EXERCISES["3.3"]) == solutions.NO_SOLUTIONS
    ch03.check_3_3(ch03.EXERCISES["3.3"].answers[0].slips[0].answer, hint=2)
    out = capsys.readouterr().out
    assert solutions.NO_SOLUTIONS in out and "masked_fill" not in out


def test_an_answer_the_check_cannot_read_gets_a_line_not_a_traceback(capsys):
    class Unreadable:
        def __str__(self):
            raise ValueError("no text")

    assert ch03.check_3_2(_cosines, Unreadable()) is False
    out = capsys.readouterr().out
    assert "row_norms_3_2 could not be checked (ValueError: no text)" in out and "Traceback" not in out, out


def test_a_later_answer_not_yet_set_is_progress_never_a_mistake(capsys):
    for _ in range(4):
        assert ch03.check_3_2(_cosines, None) is False
        out = capsys.readouterr().out
        assert "now set row_norms_3_2: the answers before it are right" in out and "A solution" not in out, out
