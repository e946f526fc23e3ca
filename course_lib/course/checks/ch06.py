"""Checkers for chapter 06 (baseline rescaling).

Expected values come from course_lib.bertscore.baseline, bert-score's shipped baseline files, scipy and
the Rob Halford data in course_lib/resources/rag_halford/ -- never from a typed-in score. The find-it
exercises (6.3, 6.4) run on data the chapter never prints: the published P and R of the Halford
answers, and a fresh sample of STS-B pairs (`pairs_6_4`).
"""
from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

import torch

from . import close, forbid, grading, hidden_rng, run

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


def _is_number(x) -> bool:
    try:
        _number(x)
        return True
    except TypeError:
        return False


# ------------------------------------------------------------------ 6.1: b, its SE, an interval

def _score_samples():
    """Score-like samples never shown in the chapter: random, a few values, n = 2, real spread."""
    g = torch.Generator().manual_seed(6)
    return [torch.rand(50, generator=g) * 0.4 + 0.2, torch.tensor([0.31, 0.35, 0.42, 0.29, 0.38]),
            torch.tensor([0.5, 0.7]), torch.randn(400, generator=g) * 0.07 + 0.36]


LEVELS_6_1 = (0.95, 0.90, 0.99, 0.5)


def check_6_1(student_fn, hint: int = 1) -> bool:
    """Exercise 6.1: `student_fn(scores, level)` -> (b, se, low, high): the mean, its standard error and
    the normal-approximation interval at confidence `level`."""
    from scipy.stats import norm

    student_fn = forbid(student_fn, "course_lib.engine.baseline.compute_baseline")

    def test():
        for k, x in enumerate(_score_samples()):
            for level in LEVELS_6_1:
                got = student_fn(x.clone(), level)
                assert isinstance(got, tuple) and len(got) == 4, "return a tuple (b, se, low, high)"
                b, se, low, high = (_number(v) for v in got)
                want_b = x.mean().item()
                want_se = (x.std() / math.sqrt(len(x))).item()  # torch's std: sample std (n - 1)
                z = norm.ppf(0.5 + level / 2)
                assert close(b, want_b), f"sample {k}: b should be {want_b:.5f}, yours {b:.5f}"
                assert close(se, want_se), (f"sample {k} (n = {len(x)}): the standard error should be "
                                            f"{want_se:.5f}, yours {se:.5f}")
                assert close(high - b, b - low, 1e-6), f"level {level}: the interval should be centred on b"
                assert close((high - b) / want_se, z, 1e-4), (
                    f"level {level}: your interval is b ± {(high - b) / want_se:.3f} standard errors; the "
                    f"normal distribution keeps {level:.0%} of its mass within ± {z:.3f}")

    return run("6.1", test, "b is the mean; its standard error is the *sample* standard deviation (n - 1, "
               "torch's default) over the square root of n; a level-L interval is b ± z SE, where z leaves "
               "(1 - L) / 2 of a normal distribution in each tail (1.96 for L = 0.95).",
               code="se = (scores.std() / math.sqrt(len(scores))).item(); z = norm.ppf(0.5 + level / 2); "
                    "b = scores.mean().item(); return b, se, b - z * se, b + z * se", level=hint)


# ------------------------------------------------------------------ 6.2: undo a rescaling

def check_6_2(student_fn, hint: int = 1) -> bool:
    """Exercise 6.2: `student_fn(x_rescaled, b)` must undo course_lib.bertscore.baseline.rescale."""
    from course_lib.bertscore.baseline import default_baseline_path, read_baseline, rescale
    from course_lib.model import EMBEDDED_MODEL

    def test():
        ours = read_baseline(default_baseline_path(EMBEDDED_MODEL))
        theirs = read_baseline(_bert_score_baseline("roberta-large"))
        raw = torch.tensor([0.95, 0.83, 0.41, 0.36, 0.2])
        for b in (float(ours[4, 2]), float(theirs[17, 2]), 0.5, 0.0):
            for x in raw:
                got = student_fn(rescale(x, b).item(), b)
                assert close(got, x, 1e-5), f"b = {b:.3f}: rescaled {rescale(x, b).item():.4f} came from " \
                                            f"raw {x.item():.4f}, yours gives {_number_or_nan(got):.4f}"

    return run("6.2", test, "the rescaling x' = (x - b) / (1 - b) is linear: solve it for x.",
               code="return x_rescaled * (1 - b) + b", level=hint)


def _number_or_nan(x) -> float:
    try:
        return _number(x)
    except TypeError:
        return float("nan")


def _bert_score_baseline(model: str, lang: str = "en") -> Path:
    import bert_score

    return Path(bert_score.__file__).parent / "rescale_baseline" / lang / f"{model}.tsv"


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
                    "answer_6_3 = (unrescale(pub[\"P\"], b[0].item()), unrescale(pub[\"R\"], b[1].item()))",
               level=hint)


# ------------------------------------------------------------------ 6.4: rankings and signs

SEED_6_4 = 64


def pairs_6_4(n: int = 40) -> tuple[list[str], list[str]]:
    """n pairs the chapter never prints: half random unrelated pairs from the baseline's pool (a seed of
    their own), half STS-B pairs (candidates, references). In grading mode, hidden pairs drawn with the
    grading seed (see _hidden_seed_6_4)."""
    cands, refs = _pairs_6_4(n, _hidden_seed_6_4(n) if grading() else SEED_6_4)
    return list(cands), list(refs)  # copies: the cached lists stay as drawn


@lru_cache(maxsize=None)
def _pairs_6_4(n: int, seed: int) -> tuple[list[str], list[str]]:
    from course_lib.engine.baseline import random_pairs
    from course_lib.evaluation import datasets

    cands, refs = random_pairs(datasets.baseline_corpus(), n - n // 2, seed=seed)
    sts = datasets.stsb().sample(n // 2, random_state=seed)
    return cands + sts["sentence1"].tolist(), refs + sts["sentence2"].tolist()


@lru_cache(maxsize=None)
def _negatives(n: int, seed: int) -> int:
    """How many of _pairs_6_4(n, seed) rescale below 0 (raw F below b_F at the default layer)."""
    import course_lib
    from course_lib.bertscore.baseline import default_baseline_path, read_baseline

    b = float(read_baseline(default_baseline_path(course_lib.EMBEDDED_MODEL))[course_lib.DEFAULT_LAYER, 2])
    return int((course_lib.score(*_pairs_6_4(n, seed))[2] < b).sum())


@lru_cache(maxsize=None)
def _hidden_seed_6_4(n: int) -> int:
    """The grading seed's draw for 6.4, drawn again while its count of negatives equals the published
    one (the Spearman correlation is 1 and the empty candidate's value is b's alone on any data, so the
    count is the part of the answer that the data decides)."""
    rng = hidden_rng("6.4")
    while True:
        seed = rng.randrange(2 ** 31)
        if _negatives(n, seed) != _negatives(n, SEED_6_4):
            return seed


@lru_cache(maxsize=None)
def _expected_6_4() -> dict:
    """What exercise 6.4 asks, computed with course_lib (layer 4, the course's baseline file)."""
    from scipy.stats import spearmanr

    import course_lib
    from course_lib.bertscore.baseline import default_baseline_path, read_baseline, rescale

    b = float(read_baseline(default_baseline_path(course_lib.EMBEDDED_MODEL))[course_lib.DEFAULT_LAYER, 2])
    _, _, F = course_lib.score(*pairs_6_4())
    rescaled = rescale(F, b)
    return {"spearman": float(spearmanr(F.numpy(), rescaled.numpy()).statistic),
            "negative": int((rescaled < 0).sum()), "empty": float(rescale(torch.tensor(0.0), b)),
            "b": b}


def check_6_4(answer, hint: int = 1) -> bool:
    """Exercise 6.4: a dict with the Spearman correlation of raw and rescaled F on `pairs_6_4()`, how
    many of them rescale below 0, and the rescaled F of an empty candidate (raw 0)."""
    def test():
        keys = ("spearman", "negative", "empty")
        assert isinstance(answer, dict) and all(k in answer for k in keys), f"answer_6_4 needs the keys {keys}"
        assert all(_is_number(answer[k]) for k in keys), "every value of answer_6_4 is a number"
        want = _expected_6_4()
        assert close(_number(answer["spearman"]), want["spearman"], 1e-6), (
            "spearman: what does a map x -> (x - b) / (1 - b) with 1 - b > 0 do to the order of the scores?")
        n = _number(answer["negative"])
        assert n == want["negative"], (f"negative: you count {n:g}; a rescaled score is negative exactly when the "
                                       "raw score is below b (score pairs_6_4 at layer 4, rescale, count)")
        empty = _number(answer["empty"])
        assert not close(empty, 0.0, 1e-3), "empty: a raw score of 0 is not a rescaled score of 0"
        assert close(empty, want["empty"], 1e-4), (
            f"empty: an empty candidate has raw F = 0; rescale 0 with the layer-4 F baseline (yours {empty:.4f})")

    return run("6.4", test, "rescaling subtracts the same b from every score and divides by the same positive "
               "1 - b: the order is kept, and a score goes below 0 exactly when it was below b.",
               code="P, R, F = course_lib.score(*ch06.pairs_6_4()); x = B.rescale(F, b_F); answer_6_4 = "
                    "{\"spearman\": spearmanr(F, x).statistic, \"negative\": int((x < 0).sum()), "
                    "\"empty\": B.rescale(0.0, b_F)}", level=hint)
