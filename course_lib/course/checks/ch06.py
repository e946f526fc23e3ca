"""Checkers for chapter 06 (baseline rescaling).

Expected values come from course_lib.bertscore.baseline, bert-score's shipped baseline files, scipy and
the Rob Halford data in course_lib/resources/rag_halford/ -- never from a typed-in score. 6.1 and 6.2 run the
student's function on pilots and published scores the chapter never prints (ch06_cases; drawn with the grading
seed in grading mode); 6.3 runs it on rescaled P and R under baselines whose columns differ (other ones, and
another threshold for the Halford rule, in grading mode); 6.4 is a design task, checked on the student's own scores.
"""
from __future__ import annotations

import math

import torch

from . import close, grading, hidden_rng, run
from .ch06_cases import (BASELINE_HINTS, F_HINTS, PAIRS_HINTS, _z, _baseline_slips,  # noqa: F401
                        _bert_score_baseline, _f_cases, _f_from, _f_slips, _pairs_slips, _pilot_cases,
                        _published_cases)

from course_lib.resources import halford


def _number(x) -> float:
    """A plain float from a Python number, a numpy scalar or a one-element tensor; TypeError otherwise."""
    if isinstance(x, (bool, str, bytes)) or x is None:
        raise TypeError(f"{x!r} is not a number")
    if isinstance(x, torch.Tensor):
        if x.numel() != 1:
            raise TypeError(f"a tensor of {x.numel()} numbers where one number is asked")
        return float(x.item())
    try:
        return float(x)  # int, float, numpy scalars (np.float32, np.float64, ...)
    except (TypeError, ValueError):
        raise TypeError(f"{type(x).__name__} is not a number") from None


# ------------------------------------------------------------------ 6.1: how many pairs for a half-width

def _whole(x) -> int:
    """A whole number from an int, an integer-valued float or a one-element tensor; ValueError for another
    number, AssertionError (a hint) for no number at all."""
    try:
        value = _number(x)
    except TypeError as err:
        raise AssertionError(f"{err}: return the number of pairs (an int)") from None
    if math.isnan(value):
        raise AssertionError("your n is NaN, not a number of pairs")
    if value != int(value):
        raise ValueError(value)
    return int(value)


def check_6_1(student_fn, hint: int = 1) -> bool:
    """Exercise 6.1: `student_fn(pilot, half_width, level)` -> the smallest number of random pairs n whose
    normal-approximation interval at `level` has a half-width z s / sqrt(n) of at most `half_width` (s: the
    pilot's sample standard deviation), on pilots the chapter never prints (hidden ones in grading mode)."""
    def test():
        for pilot, h, level in _pilot_cases():
            case = f"a pilot of {len(pilot)} scores (s = {pilot.std().item():.4f}), half-width {h:.4f}, level {level}"
            got = student_fn(pilot.clone(), h, level)
            if isinstance(got, str):
                raise AssertionError(f"{case}: you returned the string {got!r}; return the number of pairs (an int)")
            z, s = _z(level), pilot.std().item()
            try:
                n = _whole(got)
            except AssertionError as err:
                raise AssertionError(f"{case}: {err}") from None
            except ValueError:
                raise AssertionError(f"{case}: {_number(got):.2f} pairs? {PAIRS_HINTS['not rounded up']}") from None
            if n >= 1 and z * s / math.sqrt(n) <= h * (1 + 1e-9) and (n == 1 or z * s / math.sqrt(n - 1) > h):
                continue
            slips = _pairs_slips(pilot, h, level)
            named = next((k for k, v in slips.items() if v == n and k != "not rounded up"), None)
            assert named is None, f"{case}: your n = {n:,}: {PAIRS_HINTS[named]}"
            raise AssertionError(f"{case}: your n = {n:,} gives a half-width of "
                                 f"{z * s / math.sqrt(max(n, 1)):.5f}; the smallest n that reaches {h:.5f} differs")

    return run("6.1", test, "planning runs section 2's interval backwards: the pilot tells how much single scores "
               "spread, and the interval narrows as more pairs are averaged. How does its half-width depend on n?",
               code="# the smallest n with z s / √n <= h, z = norm.ppf(0.5 + L / 2), s = the pilot's sample std: "
                    "s = pilot.std().item(); z = norm.ppf(0.5 + level / 2); "
                    "return math.ceil((z * s / half_width) ** 2)",
               level=hint)


# ------------------------------------------------------------------ 6.2: b from published (raw, rescaled) pairs

def check_6_2(student_fn, hint: int = 1) -> bool:
    """Exercise 6.2: `student_fn(raw, rescaled)` -> the baseline b behind published pairs of raw and rescaled
    scores, printed with 3 decimals (the first pair an identical candidate, 1 and 1); within 0.0015 of b."""
    def test():
        for raw, rescaled, b, what in _published_cases():
            case = f"{len(raw)} published pairs ({what}, b unknown to you)"
            got = student_fn(raw.clone(), rescaled.clone())
            if isinstance(got, torch.Tensor) and got.numel() > 1:
                raise AssertionError(f"{case}: you returned {got.numel()} numbers; return one b for all pairs")
            if isinstance(got, str):
                raise AssertionError(f"{case}: you returned the string {got!r}; return b as a number")
            try:
                value = _number(got)
            except TypeError as err:
                raise AssertionError(f"{case}: {err}; return b as a number") from None
            if math.isnan(value):
                raise AssertionError(f"{case}: {BASELINE_HINTS['nan']}")
            if close(value, b, 0.0015):
                continue
            slips = _baseline_slips(raw, rescaled)
            named = next((k for k, v in slips.items() if close(value, v, 1e-6)), None)
            assert named is None, f"{case}: your b = {value:.4f}: {BASELINE_HINTS[named]}"
            raise AssertionError(f"{case}: your b = {value:.4f} does not give back the published rescaled scores "
                                 f"(it is off by {abs(value - b):.4f})")

    return run("6.2", test, "solve x' = (x - b) / (1 - b) for b: every pair (x, x') with x' < 1 gives "
               "x - x' = b (1 - x'); the printed scores are rounded, so combine the pairs rather than trusting one.",
               code="d, w = raw - rescaled, 1 - rescaled; return float((d * w).sum() / (w * w).sum())  "
                    "# least squares of x - x' = b (1 - x')", level=hint)


# ------------------------------------------------------------------ 6.3: the rescaled F a table left out

PRF = {"P": 0, "R": 1, "F": 2}
THRESHOLD_6_3 = 0.85  # the colleague's rule: accept an answer whose raw roberta-large P reaches it


def _hidden_6_3() -> float:
    """In grading mode the colleague's rule takes another threshold, drawn with the grading seed (no release
    holds it): the published answer, typed in, fails; the code that computed it passes."""
    return hidden_rng("6.3 threshold").choice([0.88, 0.90, 0.92])


if grading():
    THRESHOLD_6_3 = _hidden_6_3()


def _published_raw(candidate: int, kind: str = "F") -> float:
    """Raw P, R or F that bert-score's roberta-large (layer 17) gave a Halford candidate before rescaling:
    the published rescaled value un-rescaled with the baseline of the same column."""
    from course_lib.bertscore.baseline import layer_baseline

    data = halford()
    rescaled = next(c for c in data["candidates"] if c["id"] == candidate)["published"][kind]
    b = float(layer_baseline(_bert_score_baseline("roberta-large"), 17)[PRF[kind]])
    return b + (1 - b) * rescaled


def check_6_3(student_fn, accepted=None, hint: int = 1) -> bool:
    """Exercise 6.3: `student_fn(p_hat, r_hat, b)` -> the rescaled F [k] that bert-score prints for rescaled P and
    R [k] under baselines b = (b_P, b_R, b_F), on tables the chapter never prints (within 1e-4; hidden ones in
    grading mode); `accepted` = the ids of the Halford candidates whose raw roberta-large P reaches THRESHOLD_6_3."""
    def test():
        for p_hat, r_hat, b, what in _f_cases():
            case = f"{len(p_hat)} rows ({what}: b_P, b_R, b_F = {', '.join(f'{v:.3f}' for v in b.tolist())})"
            got = student_fn(p_hat.clone(), r_hat.clone(), b.clone())
            if isinstance(got, str):
                raise AssertionError(f"{case}: you returned a string; return the rescaled F of every row")
            try:
                got = torch.as_tensor(got, dtype=torch.float64).reshape(-1)
            except (TypeError, ValueError, RuntimeError):
                raise AssertionError(f"{case}: return the rescaled F of every row (a tensor of "
                                     f"{len(p_hat)} numbers), not {type(got).__name__}") from None
            assert got.numel() == len(p_hat), f"{case}: you returned {got.numel()} number(s); one F per row is asked"
            want = _f_cases_answer(p_hat, r_hat, b)
            if torch.allclose(got, want, atol=1e-4, rtol=0):
                continue
            named = next((k for k, v in _f_slips(p_hat, r_hat, b).items() if torch.allclose(got, v, atol=1e-6)), None)
            assert named is None, f"{case}: {F_HINTS[named]}"
            raise AssertionError(f"{case}: your F is off by up to {(got - want).abs().max().item():.4f}"
                                 if not got.isnan().any() else f"{case}: your F has NaN")
        assert accepted is not None, "also set accepted_6_3 (a list of candidate ids)"
        want_ids = sorted(c["id"] for c in halford()["candidates"] if _published_raw(c["id"], "P") >= THRESHOLD_6_3)
        try:
            ids = sorted(int(i) for i in accepted)
        except (TypeError, ValueError):
            raise AssertionError("accepted_6_3 is a list of candidate ids, e.g. [1, 3]") from None
        assert ids == want_ids, (f"accepted_6_3: the rule is about raw P; undo the rescaling of every candidate's "
                                 f"published P and compare it with {THRESHOLD_6_3}; yours {ids}")

    return run("6.3", test, "bert-score computes F from the raw P and R, then rescales P, R and F, each with "
               "its own column's baseline: which raw scores lie behind the printed ones?",
               code="p, r = b[0] + (1 - b[0]) * p_hat, b[1] + (1 - b[1]) * r_hat; f = 2 * p * r / (p + r); "
                    "return (f - b[2]) / (1 - b[2])",
               level=hint)


def _f_cases_answer(p_hat: torch.Tensor, r_hat: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The rescaled F behind rescaled P and R: un-rescale each with its own baseline, F = 2PR / (P + R), rescale."""
    return _f_from(p_hat, r_hat, *(float(v) for v in b))


# ------------------------------------------------------------------ 6.4: a ranking that flips

def _course_b() -> tuple[float, float, float]:
    """The course's baselines (b_P, b_R, b_F) at the default layer."""
    import course_lib
    from course_lib.bertscore.baseline import default_baseline_path, read_baseline

    table = read_baseline(default_baseline_path(course_lib.EMBEDDED_MODEL))
    return tuple(float(v) for v in table[course_lib.DEFAULT_LAYER])


def _harmonic(p: float, r: float) -> float:
    return 2 * p * r / (p + r)


def check_6_4(answer, hint: int = 1) -> bool:
    """Exercise 6.4: `answer` = ((P_A, R_A), (P_B, R_B)), raw P and R of two candidates such that A has the
    higher raw F (so the higher rescaled F, bert-score's way) while B has the higher harmonic mean of the
    rescaled P and R, each by at least 0.01; the course's layer-4 baselines."""
    def test():
        assert isinstance(answer, (tuple, list)) and len(answer) == 2 and all(
            isinstance(c, (tuple, list)) and len(c) == 2 for c in answer), (
            "set answer_6_4 to two pairs of raw scores: ((P_A, R_A), (P_B, R_B))")
        if any(isinstance(v, str) for c in answer for v in c):
            raise AssertionError("your scores are strings; give numbers")
        try:
            (pa, ra), (pb, rb) = ((_number(p), _number(r)) for p, r in answer)
        except TypeError as err:
            raise AssertionError(f"{err}: give four numbers, ((P_A, R_A), (P_B, R_B))") from None
        assert all(0 < v <= 1 for v in (pa, ra, pb, rb)), (
            "raw P and R of real text lie between 0 and 1 (and are not NaN): give raw scores, not rescaled ones")
        b_p, b_r, b_f = _course_b()
        low = [name for name, v, b in (("P_A", pa, b_p), ("R_A", ra, b_r), ("P_B", pb, b_p), ("R_B", rb, b_r))
               if v <= b]
        assert not low, (f"{' and '.join(low)} would rescale below 0 (b_P and b_R are about {b_p:.3f}); a harmonic "
                         "mean of a negative number means nothing: keep every raw score above b")
        f_a, f_b = _harmonic(pa, ra), _harmonic(pb, rb)
        h_a = _harmonic((pa - b_p) / (1 - b_p), (ra - b_r) / (1 - b_r))
        h_b = _harmonic((pb - b_p) / (1 - b_p), (rb - b_r) / (1 - b_r))
        seen = f"raw F: A {f_a:.3f}, B {f_b:.3f}; harmonic mean of rescaled P and R: A {h_a:.3f}, B {h_b:.3f}"
        if f_a < f_b and h_a > h_b:
            raise AssertionError(f"{seen}: a flip, but in the wrong order: A is the candidate raw F prefers")
        assert f_a >= f_b + 0.01, f"{seen}: A must beat B in raw F by at least 0.01"
        assert h_b >= h_a + 0.01, (f"{seen}: no flip (by at least 0.01) yet: B must win on the harmonic mean of the "
                                   "rescaled P and R")

    return run("6.4", test, "rescaling F applies one increasing map to every candidate's F, so it keeps every "
               "order. The other recipe rescales P and R before it combines them: is its result still a function of "
               "raw F alone? Try candidates with the same raw F and see what changes.",
               code="answer_6_4 = ((0.95, 0.50), (0.60, 0.60))  # A lopsided, B balanced: rescaling stretches A's "
                    "imbalance (each distance from b times 1 / (1 - b)) and the harmonic mean punishes it",
               level=hint)
