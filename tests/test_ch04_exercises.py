"""Chapter 04's checkers: they pass the notebook's solutions, fail stubs and planted mistakes."""
from functools import partial

import pytest
import torch

import course_lib
from course_lib.bertscore.idf import idf_weights
from course_lib.course.checks import ch04, reset_attempts
from course_lib.model import load
from course_lib.teaching.plots import pair_view
from notebook_code import NOTEBOOKS, assert_names_mistake, definition, passes, run_cells, stub

NOTEBOOK = NOTEBOOKS / "04_greedy_matching.ipynb"


solution_cell = partial(run_cells, NOTEBOOK, solution=True, torch=torch)


# ---- 4.1: greedy P and R of a padded pair ---------------------------------------------------

def unpadded_solution(sim):  # the chapter's by-hand P and R: the -inf rows and columns join the mean
    return float(sim.max(dim=1).values.mean()), float(sim.max(dim=0).values.mean())


def padding_as_zero(sim):  # -inf -> 0 before the max: 0 beats a real token's negative cosines
    s = sim.masked_fill(torch.isinf(sim), 0.0)
    real_rows, real_cols = torch.isfinite(sim).any(dim=1), torch.isfinite(sim).any(dim=0)
    return float(s.max(dim=1).values[real_rows].mean()), float(s.max(dim=0).values[real_cols].mean())


def divides_by_padded_length(sim):  # padding maxima set to 0 but still counted in the mean
    row, col = sim.max(dim=1).values, sim.max(dim=0).values
    return (float(row.masked_fill(torch.isinf(row), 0.0).mean()), float(col.masked_fill(torch.isinf(col), 0.0).mean()))


def max_over_wrong_axis(sim):  # P from the column maxima, R from the row maxima
    row, col = sim.max(dim=1).values, sim.max(dim=0).values
    return float(col[torch.isfinite(col)].mean()), float(row[torch.isfinite(row)].mean())


def mean_instead_of_max(sim):
    s = sim.masked_fill(torch.isinf(sim), float("nan"))
    return float(s.nanmean(dim=1).nanmean()), float(s.nanmean(dim=0).nanmean())


def test_4_1_solution_passes(capsys):
    fn = solution_cell("def greedy_precision_recall")["greedy_precision_recall"]
    assert passes(ch04.check_4_1, fn, capsys)


@pytest.mark.parametrize("wrong", [stub, unpadded_solution, padding_as_zero, divides_by_padded_length,
                                   max_over_wrong_axis, mean_instead_of_max])
def test_4_1_wrong_answers_fail(wrong, capsys):
    assert not passes(ch04.check_4_1, wrong, capsys)


# ---- 4.2: weighted P, R, F_beta --------------------------------------------------------------

def _pr(sim, cw, rw):
    return (sim.max(dim=1).values * cw).sum() / cw.sum(), (sim.max(dim=0).values * rw).sum() / rw.sum()


def _fb(P, R, beta):
    return (1 + beta ** 2) * P * R / (beta ** 2 * P + R)


def f1_whatever_beta(sim, cw, rw, beta):  # the chapter's F, not F_beta
    P, R = _pr(sim, cw, rw)
    return float(P), float(R), float(2 * P * R / (P + R))


def beta_not_squared(sim, cw, rw, beta):
    P, R = _pr(sim, cw, rw)
    return float(P), float(R), float((1 + beta) * P * R / (beta * P + R))


def beta_on_the_wrong_side(sim, cw, rw, beta):  # leans towards P when beta > 1
    P, R = _pr(sim, cw, rw)
    return float(P), float(R), float(_fb(R, P, beta))


def weights_not_normalised(sim, cw, rw, beta):  # divides by the number of tokens, not by Σ w
    P = (sim.max(dim=1).values * cw).sum() / len(cw)
    R = (sim.max(dim=0).values * rw).sum() / len(rw)
    return float(P), float(R), float(_fb(P, R, beta))


def weights_ignored(sim, cw, rw, beta):
    P, R = sim.max(dim=1).values.mean(), sim.max(dim=0).values.mean()
    return float(P), float(R), float(_fb(P, R, beta))


def weights_swapped(sim, cw, rw, beta):  # P and R exchanged: each maximum taken over the wrong axis
    P = (sim.max(dim=0).values * rw).sum() / rw.sum()
    R = (sim.max(dim=1).values * cw).sum() / cw.sum()
    return float(P), float(R), float(_fb(P, R, beta))


def special_tokens_not_targets(sim, cw, rw, beta):  # the special-token slip: weight 0 also removes targets
    rows = sim.masked_fill((rw <= 0)[None, :], float("-inf")).max(dim=1).values.masked_fill(cw <= 0, 0.0)
    cols = sim.masked_fill((cw <= 0)[:, None], float("-inf")).max(dim=0).values.masked_fill(rw <= 0, 0.0)
    P, R = (rows * cw).sum() / cw.sum(), (cols * rw).sum() / rw.sum()
    return float(P), float(R), float(_fb(P, R, beta))


def test_4_2_solution_passes(capsys):
    fn = solution_cell("def weighted_bertscore")["weighted_bertscore"]
    assert passes(ch04.check_4_2, fn, capsys)


@pytest.mark.parametrize("wrong", [stub, f1_whatever_beta, beta_not_squared, beta_on_the_wrong_side,
                                   weights_not_normalised, weights_ignored, weights_swapped,
                                   special_tokens_not_targets])
def test_4_2_wrong_answers_fail(wrong, capsys):
    assert not passes(ch04.check_4_2, wrong, capsys)


def colleague(sim, cw, rw, beta):  # exercise 4.2's planted code, both bugs in
    P = (sim.max(dim=1).values * cw).mean()
    R = (sim.max(dim=0).values * rw).sum() / rw.sum()
    return float(P), float(R), float((1 + beta ** 2) * P * R / (P + beta ** 2 * R))


def colleague_p_fixed(sim, cw, rw, beta):  # one bug found: F still leans towards P
    P, R = _pr(sim, cw, rw)
    return float(P), float(R), float((1 + beta ** 2) * P * R / (P + beta ** 2 * R))


def test_4_2_the_planted_code_is_the_notebooks_and_each_bug_is_named(capsys):
    planted = definition(NOTEBOOK, "colleague_weighted_bertscore", torch=torch)
    sim, cw, rw, _ = ch04._weighted_cases()[0]
    assert planted(sim, cw, rw, 2.0) == colleague(sim, cw, rw, 2.0)
    for wrong, named in [(colleague, "divides by the number of tokens"), (colleague_p_fixed, "leans towards P"),
                         (weights_not_normalised, "divides by the number of tokens"),
                         (weights_ignored, "leaves the weights out"), (weights_swapped, "P and R are swapped"),
                         (f1_whatever_beta, "plain harmonic mean"), (beta_not_squared, "square beta")]:
        assert not ch04.check_4_2(wrong)
        assert named in capsys.readouterr().out, wrong.__name__


def test_4_2_names_the_special_token_slip_and_the_side_of_beta(capsys):
    assert not ch04.check_4_2(special_tokens_not_targets)
    assert "match *targets*" in capsys.readouterr().out
    assert not ch04.check_4_2(beta_on_the_wrong_side)
    assert "lean towards R" in capsys.readouterr().out


# ---- 4.3: swapping, with idf ------------------------------------------------------------------

def _solution_4_3():
    tokenizer, _ = load()
    return solution_cell("answer_4_3", ch04=ch04, course_lib=course_lib, idf_weights=idf_weights, tokenizer=tokenizer)


def test_4_3_solution_passes(capsys):
    ns = _solution_4_3()
    assert passes(ch04.check_4_3, ns["answer_4_3"], ns["weights_4_3"], capsys=capsys)


def test_4_3_wrong_answers_fail(capsys):
    ns = _solution_4_3()
    right, weights = ns["answer_4_3"], ns["weights_4_3"]
    assert max(abs(x) for x in right) > 0.02  # the asymmetry is large enough to ask about
    a, b = [p[0] for p in ch04.SWAP_PAIRS], [p[1] for p in ch04.SWAP_PAIRS]
    without_idf = (course_lib.score(b, a)[2] - course_lib.score(a, b)[2]).tolist()  # ~0: idf forgotten
    for wrong in (None, "F", [-x for x in right], without_idf, right[:2], [round(x, 2) for x in right]):
        assert not passes(ch04.check_4_3, wrong, weights, capsys=capsys)
    tokenizer, _ = load()
    uniform = {i: 1.0 for i in range(tokenizer.vocab_size)}
    for wrong_weights in (None, True, uniform):
        assert not passes(ch04.check_4_3, right, wrong_weights, capsys=capsys)


def test_4_3_accepts_any_fixed_idf_dictionary_and_does_not_grow_it(capsys):
    """A fixed idf dictionary from two texts holds two distinct values only (log 1.5 and 0): it is valid,
    and makes F symmetric. The verdict does not depend on which keys a defaultdict has grown, and the
    check grows none."""
    ns = _solution_4_3()
    tokenizer, _ = load()
    small = idf_weights([ch04.SWAP_PAIRS[0][0], ch04.SWAP_PAIRS[1][1]], tokenizer)
    assert len(set(small.values())) == 2  # the old check demanded more than two
    keys = len(small)
    assert passes(ch04.check_4_3, ns["answer_4_3"], small, capsys=capsys)
    assert len(small) == keys  # no key added
    for i in range(1000, 3000):  # a defaultdict that some code has indexed: more keys, same weights
        small[i]
    assert passes(ch04.check_4_3, ns["answer_4_3"], small, capsys=capsys)


def test_4_3_names_a_dictionary_that_misses_tokens(capsys):
    """A plain dict of idf from the a texts only has no weight for b's other tokens: the hint says so (it said
    "your code raised KeyError", though the student's code raised nothing)."""
    ns = _solution_4_3()
    tokenizer, _ = load()
    from_a = dict(idf_weights([p[0] for p in ch04.SWAP_PAIRS], tokenizer))  # a plain dict: no default
    assert not passes(ch04.check_4_3, ns["answer_4_3"], from_a, capsys=capsys)
    reset_attempts("4.3")
    ch04.check_4_3(ns["answer_4_3"], from_a)
    out = capsys.readouterr().out
    assert "has no weight for" in out and "KeyError" not in out, out


def test_4_1_names_tensors_returned_for_floats(capsys):
    fn = solution_cell("def greedy_precision_recall")["greedy_precision_recall"]

    def tensors(sim):
        return tuple(torch.tensor(x) for x in fn(sim))

    reset_attempts("4.1")
    assert_names_mistake(ch04.check_4_1, tensors, named="as plain floats", capsys=capsys)


# ---- 4.4: a paraphrase against wrong facts ----------------------------------------------------

def test_4_4_solution_passes(capsys):
    ns = solution_cell("answer_4_4", ch04=ch04, course_lib=course_lib, pair_view=pair_view)
    assert passes(ch04.check_4_4, ns["answer_4_4"], ns["weakest_4_4"], capsys=capsys)


def test_4_4_wrong_answers_fail(capsys):
    scores = ch04._cat_scores()
    k = int(scores[1] > scores[0])
    winner, loser = ch04.CAT_CANDIDATES[k], ch04.CAT_CANDIDATES[1 - k]
    weakest = ch04._weakest_token(loser, ch04.CAT_REFERENCE)
    for wrong in (None, loser, "white dog", 1):
        assert not passes(ch04.check_4_4, wrong, weakest, capsys=capsys)
    v = pair_view(loser, ch04.CAT_REFERENCE)
    weakest_with_special = v.cand_tokens[int(v.sim.max(dim=1).values.argmin())]  # may be [CLS]/[SEP]
    weakest_of_winner = ch04._weakest_token(winner, ch04.CAT_REFERENCE)
    for wrong in (None, "naps", weakest_of_winner, weakest_with_special if weakest_with_special != weakest else "dark"):
        assert not passes(ch04.check_4_4, winner, wrong, capsys=capsys)


# ---- 4.5: reference tokens that match a special token -----------------------------------------

def _solution_4_5():
    return solution_cell("def special_credit", ch04=ch04, pair_view=pair_view)["special_credit"]


def test_4_5_solution_passes(capsys):
    assert set(ch04._tokens_matching_special(*ch04.PUNCTUATION_PAIR)) == {",", "!"}
    assert passes(ch04.check_4_5, _solution_4_5(), capsys)


def _strict_r_slip(kind):
    """special_credit with one planted mistake."""
    def fn(candidate, reference):
        v = pair_view(candidate, reference)
        n = len(v.cand_tokens)
        best = v.sim.argmax(dim=0).tolist()
        credited = [v.ref_tokens[j] for j, i in enumerate(best) if v.ref_weights[j] > 0 and i in (0, n - 1)]
        strict = v.sim[1:-1].max(dim=0).values
        r_strict = (strict * v.ref_weights).sum() / v.ref_weights.sum()
        if kind == "sign":
            return credited, float(r_strict - v.R)
        if kind == "columns":  # the reference's [CLS]/[SEP] columns dropped instead of the candidate's rows
            cols = v.sim[:, 1:-1].max(dim=0).values
            return credited, float(v.R - (cols * v.ref_weights[1:-1]).sum() / v.ref_weights[1:-1].sum())
        if kind == "unweighted":  # the strict R averaged over every column, [CLS]/[SEP] included
            return credited, float(v.R - strict.mean())
        if kind == "reference specials":  # the reference's own [CLS]/[SEP] columns listed too (weight 0)
            return [v.ref_tokens[j] for j, i in enumerate(best) if i in (0, n - 1)], float(v.R - r_strict)
        if kind == "candidate tokens":
            return [v.cand_tokens[i] for i in set(best) if i in (0, n - 1)], float(v.R - r_strict)
        if kind == "cls kept":  # the candidate's [SEP] row dropped, its [CLS] row still a target
            kept = v.sim[:-1].max(dim=0).values
            return credited, float(v.R - (kept * v.ref_weights).sum() / v.ref_weights.sum())
        if kind == "zero fill":  # the special rows set to 0 instead of -inf before the max
            filled = v.sim.clone()
            filled[0], filled[-1] = 0.0, 0.0
            return credited, float(v.R - (filled.max(dim=0).values * v.ref_weights).sum() / v.ref_weights.sum())
        if kind == "library":  # exclude_special=True, which the exercise asks to compute
            return credited, float(v.R - pair_view(candidate, reference, exclude_special=True).R)
        return ["the"], 0.0  # "partly": a guess
    return fn


@pytest.mark.parametrize("kind, named", [("sign", "wrong sign"),
                                         ("columns", "you dropped the reference's [CLS]/[SEP] columns"),
                                         ("unweighted", "averages every column with weight 1"),
                                         ("cls kept", "still lets a column pick the candidate's [CLS]"),
                                         ("zero fill", "you put 0 in the special rows"),
                                         ("reference specials", "they weigh 0 in R"),
                                         ("candidate tokens", "*reference* tokens"), ("library", "exclude_special=True computes the strict R"),
                                         ("guess", "real token of the candidate")])
def test_4_5_wrong_answers_fail_with_a_hint_naming_them(kind, named, capsys):
    assert not ch04.check_4_5(_strict_r_slip(kind))
    out = capsys.readouterr().out
    assert named in out, out
    assert not passes(ch04.check_4_5, stub, capsys)


def test_4_5_the_right_answer_passes_with_minus_inf_in_the_special_rows(capsys):
    """Filling the special rows with -inf (not 0) is right, on the bent pair too."""
    def minus_inf(candidate, reference):
        v = pair_view(candidate, reference)
        credited, _ = _solution_4_5()(candidate, reference)
        filled = v.sim.clone()
        filled[0], filled[-1] = float("-inf"), float("-inf")
        return credited, float(v.R - (filled.max(dim=0).values * v.ref_weights).sum() / v.ref_weights.sum())
    assert passes(ch04.check_4_5, minus_inf, capsys)


# ---- the code hints run as pasted --------------------------------------------------------------

def _code_hint(check, *answers, capsys):
    check(*answers, hint=2)
    return capsys.readouterr().out.split(" Code: ", 1)[1].strip()


def test_code_hints_run_when_pasted(capsys):
    tokenizer, _ = load()
    for check, header in [(ch04.check_4_1, "def greedy_precision_recall(sim):\n    "),
                          (ch04.check_4_2, "def weighted_bertscore(sim, cand_weights, ref_weights, beta):\n    ")]:
        namespace = {"torch": torch}
        exec(header + _code_hint(check, stub, capsys=capsys), namespace)
        name = header.split("(")[0][4:]
        assert passes(check, namespace[name], capsys)
    names = dict(ch04=ch04, course_lib=course_lib, idf_weights=idf_weights, tokenizer=tokenizer, pair_view=pair_view)
    exec(_code_hint(ch04.check_4_3, None, capsys=capsys), names)
    assert passes(ch04.check_4_3, names["answer_4_3"], names["weights_4_3"], capsys=capsys)
    exec("def special_credit(candidate, reference):\n    " + _code_hint(ch04.check_4_5, stub, capsys=capsys), names)
    assert passes(ch04.check_4_5, names["special_credit"], capsys)


# ---- walkthrough round two: first hints name the mistake, not the fix --------------------------

def test_4_1_names_p_and_r_swapped(capsys):
    assert ch04.check_4_1(max_over_wrong_axis) is False
    out = capsys.readouterr().out
    assert "your P and R are swapped" in out and "P (precision) averages the row maxima" in out, out


def test_4_2_first_hint_gives_neither_fix_nor_the_formula(capsys):
    for wrong in (colleague, colleague_p_fixed, f1_whatever_beta):
        assert ch04.check_4_2(wrong) is False
        out = capsys.readouterr().out
        assert "(1 + beta²)·P·R" not in out and "beta ** 2" not in out and "Code:" not in out, out
    assert ch04.check_4_2(colleague) is False
    assert "divide by the sum of the weights, not" not in capsys.readouterr().out  # the generic hint's fix is gone
    assert ch04.check_4_2(colleague, hint=2) is False
    assert "(1 + beta ** 2) * P * R / (beta ** 2 * P + R)" in capsys.readouterr().out


def test_4_3_first_hint_keeps_the_recipe_and_names_pairs_scored_alone(capsys):
    ns = _solution_4_3()
    alone = [(course_lib.score([b], [a], idf=True)[2] - course_lib.score([a], [b], idf=True)[2]).item()
             for a, b in ch04.SWAP_PAIRS]  # one pair at a time: idf from one reference, every weight log(2/2) = 0
    assert alone == [0.0, 0.0, 0.0]
    assert ch04.check_4_3(alone) is False
    out = capsys.readouterr().out
    assert "Scored one pair at a time with idf=True" in out and "ln(2/2) = 0" in out, out
    assert ch04.check_4_3(ns["answer_4_3"], None) is False
    out = capsys.readouterr().out
    assert "fixed set of texts" not in out and "compute idf once" not in out, out
    assert ch04.check_4_3(ns["answer_4_3"], None, hint=2) is False
    assert "fixed set of texts" in capsys.readouterr().out


def test_4_5_names_positions_returned_instead_of_tokens(capsys):
    solution = _solution_4_5()

    def positions(candidate, reference):
        credited, gain = solution(candidate, reference)
        v = pair_view(candidate, reference)
        return [v.ref_tokens.index(t) for t in credited], gain

    assert ch04.check_4_5(positions) is False
    out = capsys.readouterr().out
    assert "you return positions" in out and "is a real token" not in out, out


def test_4_3_fix_is_told_only_after_its_check_and_not_in_the_student_copy():
    """The fix of 4.3 (one fixed idf dictionary, both ways) is revealed in an "After exercise 4.3" cell of the
    solution notebook, after the check, and is not in the student's copy."""
    import nbformat

    cells = nbformat.read(NOTEBOOK.parent / "student" / NOTEBOOK.name, as_version=4).cells
    check = next(i for i, c in enumerate(cells) if "check_4_3(" in c.source)
    telling = [i for i, c in enumerate(cells) if "fixed_idf" in c.source or "one fixed set of texts" in " ".join(
        c.source.split())]
    assert not telling  # the student's copy does not tell it
    solution = nbformat.read(NOTEBOOK, as_version=4).cells
    check = next(i for i, c in enumerate(solution) if "check_4_3(" in c.source)
    telling = [i for i, c in enumerate(solution) if "fixed_idf" in c.source or "one fixed set of texts" in " ".join(
        c.source.split())]
    assert telling and all(i > check for i in telling)
