"""Checkers for chapter 06 (baseline rescaling).

Expected values come from course_lib.bertscore.baseline, bert-score's shipped baseline files, scipy and
the Rob Halford data in course_lib/resources/rag_halford/ -- never from a typed-in score. 6.1 and 6.2 run the
student's function on pilots and published scores the chapter never prints (ch06_cases; drawn with the grading
seed in grading mode); 6.3 asks about the published P and R of the Halford answers (another candidate and
threshold in grading mode); 6.4 is a design task, checked on the student's own scores.
"""
from __future__ import annotations

import math

import torch

from . import close, grading, hidden_rng, run
from .ch06_cases import (BASELINE_HINTS, PAIRS_HINTS, _z, _baseline_slips, _bert_score_baseline,  # noqa: F401
                        _pairs_slips, _pilot_cases, _published_cases)

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

    return run("6.1", test, "the half-width of a level-L interval is z SE = z s / √n (z = norm.ppf(0.5 + L / 2), "
               "s the sample standard deviation of single scores): solve z s / √n <= h for n.",
               code="s = pilot.std().item(); z = norm.ppf(0.5 + level / 2); "
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


# ------------------------------------------------------------------ 6.3: the raw P and R behind the post

PRF = {"P": 0, "R": 1, "F": 2}
CANDIDATE_6_3, THRESHOLD_6_3 = 2, 0.85  # the candidate whose raw P and R 6.3 asks for; the colleague's rule


def _hidden_6_3() -> tuple[int, float]:
    """In grading mode 6.3 asks about another candidate and another threshold, drawn with the grading
    seed (no release holds them): the published answers, typed in, fail; the code that computed them passes."""
    rng = hidden_rng("6.3")
    return rng.choice([1, 3]), rng.choice([0.88, 0.90, 0.92])


if grading():
    CANDIDATE_6_3, THRESHOLD_6_3 = _hidden_6_3()


def _published_raw(candidate: int, kind: str = "F") -> float:
    """Raw P, R or F that bert-score's roberta-large (layer 17) gave a Halford candidate before rescaling:
    the published rescaled value un-rescaled with the baseline of the same column."""
    from course_lib.bertscore.baseline import layer_baseline

    data = halford()
    rescaled = next(c for c in data["candidates"] if c["id"] == candidate)["published"][kind]
    b = float(layer_baseline(_bert_score_baseline("roberta-large"), 17)[PRF[kind]])
    return b + (1 - b) * rescaled


def check_6_3(answer, accepted=None, hint: int = 1) -> bool:
    """Exercise 6.3: `answer` = (raw P, raw R) of candidate CANDIDATE_6_3 (2, the jazz trumpeter, as
    published) under roberta-large, layer 17; `accepted` = the ids of the candidates whose raw P reaches
    THRESHOLD_6_3."""
    def test():
        k = CANDIDATE_6_3
        assert isinstance(answer, (tuple, list)) and len(answer) == 2, \
            f"set answer_6_3 to a pair (raw P, raw R) of candidate {k}"
        p, r = (_number(v) for v in answer)
        published = next(c for c in halford()["candidates"] if c["id"] == k)["published"]
        for kind, got in (("P", p), ("R", r)):
            want = _published_raw(k, kind)
            if close(got, published[kind], 1e-6):
                raise AssertionError(f"your {kind} is the published (rescaled) value: undo the rescaling")
            # the published values have 3 decimals: their rounding moves the raw value by up to 0.0005 (1 - b)
            assert close(got, want, 2e-4), (f"your raw {kind} is {got:.4f}: use roberta-large's layer-17 "
                                            f"baseline of column {kind}")
        assert accepted is not None, "also set accepted_6_3 (a list of candidate ids)"
        want_ids = sorted(c["id"] for c in halford()["candidates"] if _published_raw(c["id"], "P") >= THRESHOLD_6_3)
        try:
            ids = sorted(int(i) for i in accepted)
        except (TypeError, ValueError):
            raise AssertionError("accepted_6_3 is a list of candidate ids, e.g. [1, 3]") from None
        assert ids == want_ids, (f"accepted_6_3: un-rescale every candidate's published P and compare it with "
                                 f"{THRESHOLD_6_3}; yours {ids}")

    return run("6.3", test, "the blog used roberta-large at layer 17: undo the rescaling of each published "
               "value with that model's baseline of the same column (P with b_P, R with b_R), not the course's.",
               code="b = B.layer_baseline(BERT_SCORE_BASELINES / \"roberta-large.tsv\", 17)  # [b_P, b_R, b_F]; "
                    "pub = next(c for c in halford[\"candidates\"] if c[\"id\"] == ch06.CANDIDATE_6_3)"
                    "[\"published\"]; "
                    "answer_6_3 = (b[0].item() + (1 - b[0].item()) * pub[\"P\"], "
                    "b[1].item() + (1 - b[1].item()) * pub[\"R\"])",
               level=hint)


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

    return run("6.4", test, "rescaling F keeps every order (one increasing map for all). Rescaling P and R first "
               "stretches each one's distance from b by 1 / (1 - b): what does that do to a candidate whose P and R "
               "are far apart, and how does a harmonic mean treat such a candidate?",
               code="answer_6_4 = ((0.95, 0.50), (0.60, 0.60))  # A lopsided, B balanced: the harmonic mean punishes "
                    "the stretched imbalance", level=hint)
