"""Checkers for chapter 10 (a metric learned from human judgments).

Expected values come from course_lib.learned (the feature vector, the splits, the shipped recipe)
on cases the chapter does not print.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch

from . import forbid, run


def check_10_1(student_features, hint: int = 1) -> bool:
    """Exercise 10.1: `student_features(h, r, s=None)` -> COMET's feature vector."""
    from course_lib.learned.features import comet_features

    student_features = forbid(student_features, "course_lib.learned.features.comet_features")

    def test():
        g = torch.Generator().manual_seed(10)
        for n, d in ((1, 3), (4, 5), (7, 384)):
            h, r, s = (torch.randn(n, d, generator=g) for _ in range(3))
            for with_source in (False, True):
                expected = comet_features(h, r, s if with_source else None)
                got = student_features(h.clone(), r.clone(), s.clone()) if with_source else student_features(h.clone(), r.clone())
                case = f"{n} pairs of {d}-d vectors, {'with' if with_source else 'without'} the source"
                assert isinstance(got, torch.Tensor), f"return a tensor, got {type(got).__name__}"
                assert tuple(got.shape) == tuple(expected.shape), (
                    f"{case}: the shape should be {tuple(expected.shape)}, yours {tuple(got.shape)}")
                blocks = ["h", "r", "h ⊙ r", "|h − r|", "h ⊙ s", "|h − s|"]
                for k, name in enumerate(blocks[:expected.shape[1] // d]):
                    part = slice(k * d, (k + 1) * d)
                    assert torch.allclose(got[:, part].float(), expected[:, part], atol=1e-6), (
                        f"{case}: block {k + 1} should be {name}")

    return run("10.1", test, "COMET's feature vector puts side by side h, r, their element-wise product and "
                             "the absolute value of their difference (and, with a source, h ⊙ s and |h − s|), "
                             "in that order, along the last dimension.",
               code="parts = [h, r, h * r, (h - r).abs()]; if s is not None: parts += [h * s, (h - s).abs()]; "
                    "return torch.cat(parts, dim=-1)", level=hint)


def check_10_2(student_split, hint: int = 1) -> bool:
    """Exercise 10.2: `student_split(lps, test_pair)` -> (train positions, test positions)."""
    student_split = forbid(student_split, "course_lib.learned.evaluation")

    def test():
        rng = np.random.default_rng(10)
        cases = [np.array(["a", "b", "a", "c", "b", "a"]),
                 rng.choice(["xx-en", "yy-en", "zz-en", "ww-en"], size=57),
                 np.repeat(["cs-en", "de-en"], 3)[::-1]]
        for lps in cases:
            for pair in sorted(set(lps)):
                train, test = student_split(list(lps) if len(lps) == 57 else lps.copy(), pair)
                train, test = np.asarray(train).ravel(), np.asarray(test).ravel()
                assert np.issubdtype(train.dtype, np.integer) and np.issubdtype(test.dtype, np.integer), (
                    "return integer positions (row numbers), not labels or booleans")
                where = f"lps = {list(lps)[:8]}{' ...' if len(lps) > 8 else ''}, test pair {pair!r}"
                leaked = sorted(set(train) & set(np.flatnonzero(lps == pair)))
                assert not leaked, f"{where}: training contains rows {leaked[:5]} of the test pair: a leak"
                assert sorted(test) == list(np.flatnonzero(lps == pair)), (
                    f"{where}: the test rows must be every row of the test pair, and only those")
                assert sorted(train) == list(np.flatnonzero(lps != pair)), (
                    f"{where}: training must use every row of the other pairs (each once)")

    return run("10.2", test, "leave one pair out: the test set is every segment of the held-out pair, the "
                             "training set every segment of the other pairs; no row of the test pair may be in "
                             "training.",
               code="lps = np.asarray(lps); return np.flatnonzero(lps != test_pair), np.flatnonzero(lps == test_pair)",
               level=hint)


@lru_cache(maxsize=1)
def _leak_inflation() -> dict[str, float]:
    """Pearson r per language pair of a head trained on all six pairs (the test pair leaked into
    training: the shipped `with_source` head, which tests/test_learned.py retrains and compares) minus
    that of the leave-one-pair-out heads of the same recipe (`learned.metric.held_out`, cached on
    disk: the chapter has computed it by the time it asks)."""
    from scipy import stats

    from course_lib.evaluation.datasets import wmt16
    from course_lib.learned.metric import held_out, load_head, wmt16_data
    from course_lib.learned.regressor import predict

    wmt, head = wmt16(), load_head("with_source")
    x, _ = wmt16_data(head.recipe.layer, head.recipe.use_source, df=wmt)
    clean, leaked = held_out(head.recipe)["held out"].numpy(), predict(head.model, x).numpy()
    out = {}
    for pair in sorted(set(wmt.lp)):
        rows = (wmt.lp == pair).to_numpy()
        out[pair] = (stats.pearsonr(leaked[rows], wmt.human_z[rows]).statistic
                     - stats.pearsonr(clean[rows], wmt.human_z[rows]).statistic)
    return out


def check_10_3(answer, hint: int = 1) -> bool:
    """Exercise 10.3: the language pair whose Pearson r inflates most when the head is scored on
    segments it trained on (in-sample scoring: overfitting shown as a result)."""
    pairs = ("cs-en", "de-en", "fi-en", "ro-en", "ru-en", "tr-en")

    def test():
        assert isinstance(answer, str), 'set answer_10_3 to a language pair, e.g. "cs-en"'
        got = answer.strip().lower()
        assert got in pairs, f"answer one of {', '.join(pairs)}"
        inflation = _leak_inflation()
        assert got == max(inflation, key=inflation.get), (
            "for each pair, compare r on that pair of the leave-one-pair-out head with r of a head trained "
            "on all six pairs; the answer is the pair with the largest difference")

    return run("10.3", test, "in-sample inflation is measured as r(head that trained on the pair) − r(head "
                             "that did not), pair by pair, with the same recipe for both.",
               code="leaked = predict(leaked_head.model, X_src); per pair: pearsonr(leaked[rows], "
                    "human[rows]) − pearsonr(wmt['learned'][rows], human[rows]); take the argmax", level=hint)
