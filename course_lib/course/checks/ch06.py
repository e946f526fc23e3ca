"""Checkers for chapter 06 (baseline rescaling).

Expected values come from course_lib.bertscore.baseline, bert-score's shipped baseline files, scipy and
the Rob Halford data in course_lib/resources/rag_halford/ -- never from a typed-in score.
"""
from __future__ import annotations

import math
from pathlib import Path

import torch

from . import close, forbid, run

from course_lib.resources import halford


def _score_samples():
    """Score-like samples: random, a few values, one with n = 2, and real spread."""
    g = torch.Generator().manual_seed(6)
    return [torch.rand(50, generator=g) * 0.4 + 0.2, torch.tensor([0.31, 0.35, 0.42, 0.29, 0.38]),
            torch.tensor([0.5, 0.7]), torch.randn(400, generator=g) * 0.07 + 0.36]


def check_baseline_and_se(student_fn, hint: int = 1) -> bool:
    """Exercise 6.1: `student_fn(scores)` -> (b, standard error of b), as compute_baseline does."""
    student_fn = forbid(student_fn, "course_lib.engine.baseline")

    def test():
        for k, x in enumerate(_score_samples()):
            b, se = student_fn(x.clone())
            expected_b = x.mean()
            expected_se = x.std() / math.sqrt(len(x))  # torch's std: sample std (n - 1)
            assert close(b, expected_b), f"sample {k}: b should be {expected_b:.5f}, yours {float(b):.5f}"
            assert close(se, expected_se), (
                f"sample {k} (n = {len(x)}): standard error should be {expected_se:.5f}, yours {float(se):.5f}")

    return run("6.1", test, "b is the mean; its standard error is the *sample* standard deviation "
               "(n - 1, torch's default) over the square root of n.",
               code="return scores.mean().item(), (scores.std() / math.sqrt(len(scores))).item()", level=hint)


def check_unrescale(student_fn, hint: int = 1) -> bool:
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
                                            f"raw {x.item():.4f}, yours gives {float(got):.4f}"

    return run("6.2", test, "the rescaling x' = (x - b) / (1 - b) is linear: solve it for x.",
               code="return x_rescaled * (1 - b) + b", level=hint)


def _bert_score_baseline(model: str, lang: str = "en") -> Path:
    import bert_score

    return Path(bert_score.__file__).parent / "rescale_baseline" / lang / f"{model}.tsv"


def published_raw_f(candidate: int) -> float:
    """Raw F that bert-score's roberta-large (layer 17) gave a Halford candidate before rescaling."""
    from course_lib.bertscore.baseline import layer_baseline

    data = halford()
    rescaled = next(c for c in data["candidates"] if c["id"] == candidate)["published"]["F"]
    b = float(layer_baseline(_bert_score_baseline("roberta-large"), 17)[2])
    return b + (1 - b) * rescaled


def check_published_raw(answer, hint: int = 1) -> bool:
    """Exercise 6.3: the raw roberta-large F behind the blog's rescaled F = 0.189 (candidate 3)."""

    def test():
        assert isinstance(answer, (int, float)) and not isinstance(answer, bool), "answer with a number"
        # the published F has 3 decimals: its rounding moves the raw F by up to 0.0005 * (1 - b)
        assert close(answer, published_raw_f(3), 2e-4), "use roberta-large's layer-17 F baseline"

    return run("6.3", test, "the blog used roberta-large at layer 17: undo the rescaling of 0.189 with that "
               "model's F baseline, not the course's.",
               code="b = pd.read_csv(<bert_score>/rescale_baseline/en/roberta-large.tsv).loc[17, \"F\"]; "
                    "answer_6_3 = unrescale(0.189, b)", level=hint)


def check_spearman(answer, hint: int = 1) -> bool:
    """Exercise 6.4: Spearman correlation between raw and rescaled scores."""
    from scipy.stats import spearmanr

    from course_lib.bertscore.baseline import rescale

    def test():
        assert isinstance(answer, (int, float)) and not isinstance(answer, bool), "answer with a number"
        g = torch.Generator().manual_seed(0)
        raw = torch.rand(200, generator=g)
        for b in (0.36, 0.83, -0.2):
            expected = spearmanr(raw.numpy(), rescale(raw, b).numpy()).statistic
            assert close(answer, expected), "what does a map x -> (x - b) / (1 - b) with 1 - b > 0 do to the order?"

    return run("6.4", test, "rescaling subtracts the same b from every score and divides by the same "
               "positive 1 - b: what does that do to the ranks?",
               code="an increasing map keeps every rank, and Spearman compares ranks only.", level=hint)
