"""Chapter 10's checkers pass the notebook's solutions, fail stubs and planted wrong answers."""
import numpy as np
import pytest
import pandas as pd
import torch
from scipy import stats

from course_lib.course.checks import ch10, ch10_cases, reset_attempts
from course_lib.evaluation import paired
from course_lib.learned import evaluation
from notebook_code import NOTEBOOKS, definition, passes, stub

NOTEBOOK = NOTEBOOKS / "10_learned_metric.ipynb"


# ---- 10.1: where cos(h, r) is in COMET's features ------------------------------------------------

def from_h_and_r(x, d):  # planted: the cosine of the h and r blocks (blanked by the check)
    c = torch.nn.functional.cosine_similarity(x[:, :d], x[:, d:2 * d])
    return c, c


def unsquared(x, d):  # planted: 1 − Σ|h − r| / 2
    return x[:, 2 * d:3 * d].sum(-1), 1 - x[:, 3 * d:4 * d].sum(-1) / 2


def wrong_block(x, d):  # planted: sums the |h − r| block for the first
    return x[:, 3 * d:4 * d].sum(-1), 1 - (x[:, 3 * d:4 * d] ** 2).sum(-1) / 2


def summed_over_batch(x, d):  # planted: sums along the batch
    return x[:, 2 * d:3 * d].sum(0), 1 - (x[:, 3 * d:4 * d] ** 2).sum(0) / 2


def one_tensor(x, d):  # planted: only the h ⊙ r answer
    return x[:, 2 * d:3 * d].sum(-1)


def test_10_1(capsys):
    assert passes(ch10.check_10_1, definition(NOTEBOOK, "cos_two_ways", torch=torch), capsys)
    for wrong in (stub, from_h_and_r, unsquared, wrong_block, summed_over_batch, one_tensor):
        assert not passes(ch10.check_10_1, wrong, capsys), wrong.__name__


def test_10_1_hints_name_the_mistake(capsys):
    named = {from_h_and_r: "NaN: it reads the h or r block", unsquared: "a length adds squares",
             summed_over_batch: "should have shape", one_tensor: "return two tensors", stub: "replace"}
    for wrong, text in named.items():
        ch10.check_10_1(wrong)
        out = capsys.readouterr().out
        assert "❌" in out and text in out, (wrong.__name__, out)


def test_10_1_first_hint_gives_the_idea_not_the_formula(capsys):
    """The first hint names the idea (the length of h − r and the angle: the law of cosines), never the formula;
    hint=2 gives it."""
    reset_attempts("10.1")  # the earlier tests' failures, remembered in this process
    for wrong in (stub, unsquared, wrong_block):
        ch10.check_10_1(wrong)
        out = capsys.readouterr().out
        assert "law of cosines" in out and "Code:" not in out, out
        for formula in ("2 − 2", "2 - 2", "(h − r)·(h − r)", "** 2", "1 − Σ", "/ 2", "sums to h · r"):
            assert formula not in out, (wrong.__name__, formula, out)
    ch10.check_10_1(unsquared, hint=2)
    assert "|h - r|² = 2 - 2 cos(h, r)" in capsys.readouterr().out


# ---- 10.2: the leave-one-pair-out split, with no test reference in training ----------------------

def _split_arrays(lps, refs, test_pair):
    lps, refs = np.asarray(lps), np.asarray(refs)
    return lps, refs, np.flatnonzero(lps == test_pair)


def set_not_array(lps, refs, test_pair):  # planted (a): np.isin with a set matches nothing: shared references kept
    lps, refs, test = _split_arrays(lps, refs, test_pair)
    return np.flatnonzero((lps != test_pair) & ~np.isin(refs, set(refs[test]))), test


def old_one_line(lps, refs, test_pair):  # planted (d): the old exercise, references ignored
    lps = np.asarray(lps)
    return np.flatnonzero(lps != test_pair), np.flatnonzero(lps == test_pair)


def shared_out_of_test(lps, refs, test_pair):  # planted (b): the shared rows leave the test set, not training
    lps, refs, test = _split_arrays(lps, refs, test_pair)
    elsewhere = np.isin(refs, refs[lps != test_pair])
    return np.flatnonzero(lps != test_pair), np.flatnonzero((lps == test_pair) & ~elsewhere)


def whole_pairs_out(lps, refs, test_pair):  # planted (c): every training pair sharing one reference dropped
    lps, refs, test = _split_arrays(lps, refs, test_pair)
    sharing = np.unique(lps[(lps != test_pair) & np.isin(refs, refs[test])])
    return np.flatnonzero((lps != test_pair) & ~np.isin(lps, sharing)), test


def boolean_masks(lps, refs, test_pair):  # planted (e): masks instead of positions
    lps, refs, test = _split_arrays(lps, refs, test_pair)
    return (lps != test_pair) & ~np.isin(refs, refs[test]), lps == test_pair


def pair_labels(lps, refs, test_pair):  # planted (e): the rows' labels instead of their positions
    lps, refs, test = _split_arrays(lps, refs, test_pair)
    return lps[(lps != test_pair) & ~np.isin(refs, refs[test])], lps[test]


def swapped(lps, refs, test_pair):  # planted (f): (test, train)
    lps, refs, test = _split_arrays(lps, refs, test_pair)
    return test, np.flatnonzero((lps != test_pair) & ~np.isin(refs, refs[test]))


def every_shared_out(lps, refs, test_pair):  # planted (g): every reference of two pairs removed (§5's `shared`)
    lps, refs, test = _split_arrays(lps, refs, test_pair)
    shared = np.array([len(set(lps[refs == r])) > 1 for r in refs])
    return np.flatnonzero((lps != test_pair) & ~shared), test


def lists_compared_whole(lps, refs, test_pair):  # planted: no np.asarray, so a list input compares as one value
    test = np.flatnonzero(lps == test_pair)
    return np.flatnonzero((lps != test_pair) & ~np.isin(refs, refs[test])), test


def library_split(lps, refs, test_pair):  # planted: uses the library's splits
    return next((train, test) for p, train, test in evaluation.pair_splits(lps, refs) if p == test_pair)


SPLIT_HINTS = {set_not_array: ch10_cases.LEAK_10_2, old_one_line: ch10_cases.LEAK_10_2,
               shared_out_of_test: "the test set lost rows [0]", whole_pairs_out: "too much removed: training lost rows [4, 7] of ['b']",
               boolean_masks: "True/False masks", pair_labels: "not positions", swapped: "the other way round",
               every_shared_out: "shared only between training pairs", lists_compared_whole: "Python lists here",
               library_split: "pair_splits, which this exercise asks you to write", stub: "replace"}


def crash_on_lists(lps, refs, test_pair):  # planted: works on arrays, raises on Python lists
    test = np.flatnonzero(lps == test_pair)
    return np.flatnonzero((lps != test_pair) & ~np.isin(refs, refs[test])), test


def test_10_2_names_a_crash_on_lists(capsys):
    reset_attempts("10.2")
    ch10.check_10_2(crash_on_lists)
    out = capsys.readouterr().out
    assert "❌" in out and "Python lists here, and your split fails on them" in out, out


def references_unread(lps, test_pair):  # planted: the old exercise's signature, the references never read
    return old_one_line(lps, None, test_pair)


def test_10_2(capsys):
    assert passes(ch10.check_10_2, definition(NOTEBOOK, "pair_split", np=np), capsys)
    for wrong in (*SPLIT_HINTS, references_unread):
        assert not passes(ch10.check_10_2, wrong, capsys), wrong.__name__


def test_10_2_hints_name_the_mistake(capsys):
    for wrong, named in SPLIT_HINTS.items():
        reset_attempts("10.2")  # the first hint: the idea and the mistake, no code
        ch10.check_10_2(wrong)
        out = capsys.readouterr().out
        assert "❌" in out and named in out and "Code:" not in out, (wrong.__name__, out)
        assert "np.isin" not in out and "flatnonzero" not in out, (wrong.__name__, out)
    reset_attempts("10.2")
    ch10.check_10_2(old_one_line, hint=2)
    assert "np.isin(refs, refs[test])" in capsys.readouterr().out
    reset_attempts("10.2")


def test_10_2_prompt_states_the_guarantees_not_the_recipe():
    """The prompt says what the split must guarantee, in words; the library's version shows after the check."""
    import nbformat

    cells = [c.source for c in nbformat.read(NOTEBOOK, as_version=4).cells]
    prompt = next(k for k, c in enumerate(cells) if "### Exercise 10.2" in c)
    text = cells[prompt][cells[prompt].index("### Exercise 10.2"):]
    assert "no test reference" in text and "every other segment" in text
    for code in ("isin", "flatnonzero", "np.", "==", "!=", "pair_splits"):
        assert code not in text, code
    check = next(k for k, c in enumerate(cells) if "ch10.check_10_2(" in c)
    shown = next(k for k, c in enumerate(cells) if "show_source(evaluation.pair_splits)" in c)
    assert prompt < check < shown and not any("pair_splits" in c for c in cells[:check])


def test_10_2_cases_hold_each_trap():
    """The built tables hold a reference shared with the test pair, one shared by two training pairs only, a pair
    that shares nothing, and the pairs interleaved; the random one comes as Python lists."""
    cases = ch10_cases._split_cases()
    assert [how for *_, how in cases] == ["arrays", "arrays", "Python lists"]
    assert isinstance(cases[2][0], list) and isinstance(cases[2][1], list)
    traps = set()
    for lps, refs, _ in cases:
        lps, refs = np.asarray(lps), np.asarray(refs)
        assert any(np.ptp(np.flatnonzero(lps == p)) >= (lps == p).sum() for p in set(lps))   # interleaved
        for pair in set(lps):
            test_refs = set(refs[lps == pair])
            pairs_of = {r: set(lps[refs == r]) for r in set(refs)}
            traps.add("leak" if any(r in test_refs for r in refs[lps != pair]) else "no leak")
            if any(len(p) > 1 and pair not in p for p in pairs_of.values()):
                traps.add("shared by training pairs only")
    assert traps == {"leak", "no leak", "shared by training pairs only"}


def test_10_2_grading_mode_draws_another_table(monkeypatch):
    learning = ch10_cases._split_cases()
    monkeypatch.setenv("COURSE_GRADING", "1")
    monkeypatch.setenv("COURSE_GRADING_SEED", "7")
    hidden = ch10_cases._split_cases()
    assert learning[2][:2] != hidden[2][:2]
    assert ch10.check_10_2(definition(NOTEBOOK, "pair_split", np=np))
    with pytest.raises(AssertionError, match="the leak of §3") as err:  # grading mode: a failing check raises
        ch10.check_10_2(old_one_line)
    assert "Code:" not in str(err.value)


# ---- 10.3: in-sample inflation, pair by pair ------------------------------------------------------

def _r(x, y):
    return stats.pearsonr(x, y).statistic


def reversed_sign(a, b, human, lps):  # planted: r(held out) − r(in-sample)
    lps = np.asarray(lps)
    return {lp: _r(b[lps == lp], human[lps == lp]) - _r(a[lps == lp], human[lps == lp]) for lp in set(lps)}


def pooled_once(a, b, human, lps):  # planted: one r over all segments, copied to every pair
    d = _r(a, human) - _r(b, human)
    return {lp: d for lp in set(lps)}


def spearman_instead(a, b, human, lps):  # planted: Spearman, not Pearson
    lps = np.asarray(lps)
    rho = lambda x, y: stats.spearmanr(x, y).statistic  # noqa: E731
    return {lp: rho(a[lps == lp], human[lps == lp]) - rho(b[lps == lp], human[lps == lp]) for lp in set(lps)}


def ratio_instead(a, b, human, lps):  # planted: r(in-sample) / r(held out)
    lps = np.asarray(lps)
    return {lp: _r(a[lps == lp], human[lps == lp]) / _r(b[lps == lp], human[lps == lp]) for lp in set(lps)}


def kendall_instead(a, b, human, lps):  # planted: Kendall's tau, not Pearson
    lps = np.asarray(lps)
    tau = lambda x, y: stats.kendalltau(x, y).statistic  # noqa: E731
    return {lp: tau(a[lps == lp], human[lps == lp]) - tau(b[lps == lp], human[lps == lp]) for lp in set(lps)}


def between_scores(a, b, human, lps):  # planted: r between the in-sample and held-out scores, humans left out
    lps = np.asarray(lps)
    return {lp: _r(a[lps == lp], b[lps == lp]) for lp in set(lps)}


def one_minus_between(a, b, human, lps):  # planted: 1 − r(in-sample, held out): "how far apart they are"
    return {lp: 1 - r for lp, r in between_scores(a, b, human, lps).items()}


def as_list(a, b, human, lps):  # planted: the right numbers, not keyed by pair
    return list(ch10._per_pair(a, b, human, np.asarray(lps)).values())


def library_version(a, b, human, lps):  # planted: the library's paired differences
    table = paired.pearson_differences(pd.DataFrame({"a": a, "b": b, "human_z": human, "lp": lps}), "a", "b",
                                       n_resamples=20)
    return table.delta.drop("average").to_dict()


def abs_difference(a, b, human, lps):  # planted: the size of the difference, its sign dropped
    return {lp: abs(v) for lp, v in ch10._per_pair(a, b, human, np.asarray(lps)).items()}


def in_sample_only(a, b, human, lps):  # planted: r(in-sample), the held-out r forgotten
    lps = np.asarray(lps)
    return {lp: _r(a[lps == lp], human[lps == lp]) for lp in set(lps)}


def r_squared(a, b, human, lps):  # planted: differences of r²
    lps = np.asarray(lps)
    return {lp: _r(a[lps == lp], human[lps == lp]) ** 2 - _r(b[lps == lp], human[lps == lp]) ** 2 for lp in set(lps)}


def test_10_3_cases_hold_a_pair_that_looks_worse_in_sample():
    assert all(min(ch10._per_pair(a, b, h, lps).values()) < 0 for a, b, h, lps in ch10._inflation_cases())


def test_10_3(capsys):
    solution = definition(NOTEBOOK, "inflation_by_pair", np=np, stats=stats)
    assert passes(ch10.check_10_3, solution, capsys)
    for wrong in (reversed_sign, pooled_once, spearman_instead, kendall_instead, ratio_instead, between_scores,
                  one_minus_between, as_list, library_version, stub, abs_difference, in_sample_only, r_squared):
        assert not passes(ch10.check_10_3, wrong, capsys), wrong.__name__


def test_10_3_hints_name_the_mistake(capsys):
    hints = {reversed_sign: "sign is reversed", pooled_once: "pooled", spearman_instead: "Spearman",
             kendall_instead: "Kendall", ratio_instead: "ratios", as_list: "return a dict",
             between_scores: "r between the in-sample and the held-out scores",
             one_minus_between: "r between the in-sample and the held-out scores",
             library_version: "pearson_differences", stub: "replace", abs_difference: "keep the sign",
             in_sample_only: "these are r(in-sample) alone", r_squared: "differences of r²"}
    for wrong, named in hints.items():
        ch10.check_10_3(wrong)
        out = capsys.readouterr().out
        assert "❌" in out and named in out, (wrong.__name__, out)


def test_10_3_prompt_and_first_hint_ask_the_question_not_the_formula(capsys):
    """The prompt sends the student to §3's table for how agreement is measured; it names no correlation. The first
    hint gives the idea; the code (Pearson r against the humans, per pair) only on request."""
    import nbformat

    nb = nbformat.read(NOTEBOOK, as_version=4)
    prompt = next(c.source for c in nb.cells if "### Exercise 10.3" in c.source)
    prompt = prompt[prompt.index("### Exercise 10.3"):]
    assert "§3" in prompt
    for formula in ("Pearson", "Spearman", "minus", "pearsonr", " r with", "r(in-sample"):
        assert formula not in prompt, formula
    reset_attempts("10.3")
    ch10.check_10_3(ratio_instead)
    out = capsys.readouterr().out
    assert "§3's table" in out and "Code:" not in out and "pearsonr" not in out, out
    ch10.check_10_3(ratio_instead, hint=2)
    assert "stats.pearsonr(in_sample[lps == lp], human[lps == lp])" in capsys.readouterr().out
    reset_attempts("10.3")


def test_10_3_grading_mode_draws_other_cases(monkeypatch):
    learning = ch10._inflation_cases()
    monkeypatch.setenv("COURSE_GRADING", "1")
    monkeypatch.setenv("COURSE_GRADING_SEED", "7")
    hidden = ch10._inflation_cases()
    assert all(len(a[0]) != len(b[0]) or not np.allclose(a[0], b[0]) for a, b in zip(learning, hidden))
    assert ch10.check_10_3(definition(NOTEBOOK, "inflation_by_pair", np=np, stats=stats))
    with pytest.raises(AssertionError):  # grading mode: a failing check raises
        ch10.check_10_3(reversed_sign)


def test_10_2_hints_show_plain_values_not_numpy_reprs(capsys):
    """A hint quotes the labels and rows as a student wrote them, not np.str_('a') or np.int64(0)."""
    reset_attempts("10.2")
    for wrong in (swapped, old_one_line, whole_pairs_out, every_shared_out, shared_out_of_test, lists_compared_whole):
        assert ch10.check_10_2(wrong) is False
        out = capsys.readouterr().out
        assert "np.str_" not in out and "np.int64" not in out and "lps = ['" in out, out
    reset_attempts("10.2")
