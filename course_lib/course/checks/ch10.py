"""Checkers for chapter 10 (a metric learned from human judgments).

Expected values come from course_lib.learned (the feature vector), the cases' own construction (10.2's splits:
ch10_cases) and scipy (10.3's correlations) on cases the chapter does not print (10.2's random table and 10.3's
cases drawn with the grading seed in grading mode).
"""
from __future__ import annotations

import numpy as np
import torch
from scipy import stats

from . import close, forbid, grading, hidden_rng, run
from .ch10_cases import _short, _split_cases, _split_mistake


def check_10_1(student_cos, hint: int = 1) -> bool:
    """Exercise 10.1: `student_cos(x, d)` -> (cos from the h ⊙ r block, cos from the |h − r| block), each
    [N], for COMET features x of unit vectors h, r ([N, 4d] or [N, 6d] with a source), whose h and r
    blocks the check blanks (NaN): the comparison blocks alone hold cos(h, r)."""
    from course_lib.learned.features import comet_features

    def test():
        g = torch.Generator().manual_seed(hidden_rng("10.1").getrandbits(32) if grading() else 10)
        for n, d in ((1, 3), (5, 8), (7, 384)):
            h, r, s = (torch.nn.functional.normalize(torch.randn(n, d, generator=g), dim=-1) for _ in range(3))
            cos = torch.nn.functional.cosine_similarity(h, r)
            for with_source in (False, True):
                x = comet_features(h, r, s if with_source else None)
                x[:, :2 * d] = float("nan")  # the h and r blocks: not for this exercise
                pairs = f"{n} pair{'s' if n != 1 else ''}"
                case = f"{pairs} of {d}-d unit vectors, {'with' if with_source else 'without'} the source"
                got = student_cos(x.clone(), d)
                assert isinstance(got, (tuple, list)) and len(got) == 2, (
                    "return two tensors: (cos from the h ⊙ r block, cos from the |h − r| block)")
                for k, (part, block) in enumerate(zip(got, ("h ⊙ r", "|h − r|"))):
                    part = torch.as_tensor(part, dtype=torch.float32).reshape(-1)
                    assert part.shape == (n,), (
                        f"{case}: the cos from {block} should have shape ({n},), yours {tuple(part.shape)}")
                    if torch.isnan(part).any():
                        raise AssertionError(f"{case}: the cos from {block} is NaN: it reads the h or r block, "
                                             "which the check blanks; use the comparison blocks")
                    if k == 1 and torch.allclose(part, 1 - x[:, 3 * d:4 * d].sum(-1) / 2, atol=1e-5):
                        raise AssertionError(f"{case}: the plain sum of the |h − r| block is not the length of h − r "
                                             "(a length adds squares), and only the length ties to the angle")
                    assert torch.allclose(part, cos, atol=1e-5), (
                        f"{case}: the cos from {block} should be {[round(v, 3) for v in cos[:3].tolist()]}..., "
                        f"yours {[round(v, 3) for v in part[:3].tolist()]}...")

    return run("10.1", test, "x = [h; r; h ⊙ r; |h − r|; ...], each block d wide. What does the h ⊙ r block add "
                             "up to, and what is that for two vectors of length 1? The |h − r| block holds h − r "
                             "coordinate by coordinate (signs dropped): for two vectors of length 1 at an angle θ, "
                             "how long is h − r (the law of cosines)? Solve that for cos θ.",
               code="hr, diff = x[:, 2 * d:3 * d], x[:, 3 * d:4 * d]; return hr.sum(-1), 1 - (diff ** 2).sum(-1) "
                    "/ 2  # the h ⊙ r block sums to h · r = cos(h, r) for unit vectors; |h - r|² = 2 - 2 cos(h, r)",
               level=hint)


def check_10_2(student_split, hint: int = 1) -> bool:
    """Exercise 10.2: `student_split(lps, refs, test_pair)` -> (train positions, test positions): leave the pair
    out, and let no reference of it reach training (the leak of §3), on the checker's own tables (`_split_cases`:
    shared references, interleaved pairs, a reference shared by training pairs only, lists; one drawn with the
    grading seed in grading mode)."""
    student_split = forbid(student_split, "course_lib.learned.evaluation")

    def test():
        for lps, refs, how in _split_cases():
            for pair in sorted(set(lps)):
                copy = (list if isinstance(lps, list) else np.copy)
                try:
                    got = student_split(copy(lps), copy(refs), pair)
                except (TypeError, ValueError, IndexError) as error:
                    if how != "Python lists":
                        raise
                    raise AssertionError(f"lps = {_short(lps)}, refs = {_short(refs)}, test pair {str(pair)!r}: "
                                         f"lps and refs are Python lists here, and your split fails on them (it "
                                         f"raised {type(error).__name__}): a whole list compared with one string is "
                                         "one False, not one answer per row; make arrays of them first") from None
                mistake = _split_mistake(lps, refs, pair, got, how)
                assert mistake is None, mistake

    return run("10.2", test, "leave the pair out, and close the leak of §3: no segment of the held-out pair, and "
                             "no reference it has, may reach training; every other segment trains, once; the test "
                             "set is the whole held-out pair.",
               code="lps, refs = np.asarray(lps), np.asarray(refs); test = np.flatnonzero(lps == test_pair); "
                    "leaked = np.isin(refs, refs[test]); return np.flatnonzero((lps != test_pair) & ~leaked), test",
               level=hint)


def _inflation_cases():
    """Cases for 10.3: (in_sample, held_out, human, lps) with pairs of different sizes, interleaved; in-sample
    scores follow the humans more closely, except in the last pair (a negative inflation: the sign matters); drawn
    with the grading seed in grading mode."""
    seed = hidden_rng("10.3").getrandbits(32) if grading() else 10
    rng = np.random.default_rng(seed)
    cases = []
    for names in (["aa-en", "bb-en", "cc-en"], ["de-en", "fi-en", "ro-en", "tr-en"]):
        sizes = rng.integers(12, 60, size=len(names))
        lps = rng.permutation(np.repeat(names, sizes))  # the pairs interleaved, as rows of a table
        human = rng.normal(size=len(lps))
        noise_in = rng.uniform(0.3, 1.5, size=len(names))  # per pair: how well in-sample scores follow
        noise_out = noise_in + rng.uniform(0.2, 1.5, size=len(names))
        noise_in[-1], noise_out[-1] = noise_out[-1] + 1.0, noise_in[-1]  # the last pair looks worse in-sample
        pos = np.searchsorted(names, lps)
        in_sample = human + rng.normal(size=len(lps)) * noise_in[pos]
        held_out = human + rng.normal(size=len(lps)) * noise_out[pos]
        cases.append((in_sample, held_out, human, lps))
    return cases


def _per_pair(a, b, human, lps, corr=lambda x, y: stats.pearsonr(x, y).statistic):
    return {str(lp): float(corr(a[lps == lp], human[lps == lp]) - corr(b[lps == lp], human[lps == lp]))
            for lp in sorted(set(lps))}


def check_10_3(student_inflation, hint: int = 1) -> bool:
    """Exercise 10.3: `student_inflation(in_sample, held_out, human, lps)` -> {pair: r(in-sample) −
    r(held out)}, Pearson r within each language pair (overfitting shown as a result, pair by pair)."""
    student_inflation = forbid(student_inflation, "course_lib.evaluation.paired")

    def test():
        for in_sample, held_out, human, lps in _inflation_cases():
            case = f"{len(lps)} segments of {len(set(lps))} pairs"
            got = student_inflation(in_sample.copy(), held_out.copy(), human.copy(), lps.copy())
            right = _per_pair(in_sample, held_out, human, lps)
            assert isinstance(got, dict), f"return a dict {{pair: inflation}}, got {type(got).__name__}"
            assert set(map(str, got)) == set(right), (
                f"{case}: the keys should be the language pairs {sorted(right)}, yours {sorted(map(str, got))[:6]}")
            got = {str(k): float(v) for k, v in got.items()}
            if all(close(got[k], -v, 1e-6) for k, v in right.items()):
                raise AssertionError(f"{case}: every sign is reversed: the inflation is r(in-sample) − r(held out), "
                                     "how much better the metric looks on segments it trained on")
            pooled = stats.pearsonr(in_sample, human).statistic - stats.pearsonr(held_out, human).statistic
            if all(close(v, pooled, 1e-6) for v in got.values()):
                raise AssertionError(f"{case}: every pair got the same number, the inflation of all segments pooled; "
                                     "compute each correlation on one pair's segments only")
            between = {lp: stats.pearsonr(in_sample[lps == lp], held_out[lps == lp]).statistic for lp in right}
            if any(all(close(got[k], f(v), 1e-6) for k, v in between.items()) for f in (lambda r: r, lambda r: 1 - r)):
                raise AssertionError(f"{case}: these come from r between the in-sample and the held-out scores; how "
                                     "well a metric looks is its agreement with the humans: correlate each set of "
                                     "scores with the human scores, then compare")
            for name, corr in (("Spearman", stats.spearmanr), ("Kendall", stats.kendalltau)):
                other = _per_pair(in_sample, held_out, human, lps, lambda x, y: corr(x, y).statistic)
                if all(close(got[k], v, 1e-6) for k, v in other.items()):
                    raise AssertionError(f"{case}: these are differences of {name} correlations; §3's table measures "
                                         "agreement with Pearson r")
            ratio = _per_pair(in_sample, held_out, human, lps, lambda x, y: np.log(stats.pearsonr(x, y).statistic))
            if all(close(np.log(got[k]) if got[k] > 0 else np.nan, v, 1e-6) for k, v in ratio.items()):
                raise AssertionError(f"{case}: these are ratios r(in-sample) / r(held out); the inflation is their "
                                     "difference, in points of r")
            if min(right.values()) < 0 and all(close(got[k], abs(v), 1e-6) for k, v in right.items()):
                raise AssertionError(f"{case}: you return the size of each difference; a pair whose held-out scores "
                                     "agree better has a negative inflation: keep the sign")
            alone = {k: float(stats.pearsonr(in_sample[lps == k], human[lps == k]).statistic) for k in right}
            squared = _per_pair(in_sample, held_out, human, lps, lambda x, y: stats.pearsonr(x, y).statistic ** 2)
            for other, why in ((alone, "these are r(in-sample) alone; the inflation is how much *higher* it is than "
                                       "the held-out r"), (squared, "these are differences of r²; the table reports r")):
                if all(close(got[k], v, 1e-6) for k, v in other.items()):
                    raise AssertionError(f"{case}: {why}")
            wrong = {k: round(got[k], 3) for k, v in right.items() if not close(got[k], v, 1e-6)}
            assert not wrong, (f"{case}: right would be "
                               f"{ {k: round(v, 3) for k, v in right.items() if k in wrong} }, yours {wrong}")

    return run("10.3", test, "measure agreement as §3's table does (which correlation, with what, on which "
                             "segments?), once for the in-sample scores and once for the held-out ones, on each "
                             "pair: the inflation is how much higher the first is.",
               code="lps = np.asarray(lps); return {lp: stats.pearsonr(in_sample[lps == lp], human[lps == lp])"
                    ".statistic - stats.pearsonr(held_out[lps == lp], human[lps == lp]).statistic "
                    "for lp in sorted(set(lps))}", level=hint)
