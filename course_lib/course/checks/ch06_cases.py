"""Chapter 06's cases for the exercises 6.1, 6.2 and 6.3: pilot samples, published (raw, rescaled) scores and
rescaled (P, R) tables under planted baselines, none printed in the chapter (drawn with the grading seed in grading
mode), and what each common slip returns, by the mistake's name, for the hint that names it. `checks.ch06` imports these."""
from __future__ import annotations

import math
from pathlib import Path

import torch

from . import grading, hidden_rng


def _seed(exercise: str, learning: int) -> int:
    return hidden_rng(exercise).getrandbits(31) if grading() else learning


# ------------------------------------------------------------------ 6.1: pairs for a wanted half-width

def _pilot_cases() -> list[tuple[torch.Tensor, float, float]]:
    """(pilot scores [m], half-width h, level) cases: pilots of 12 to 400 score-like values of random pairs,
    several levels; in grading mode other pilots and widths, drawn with the grading seed."""
    g = torch.Generator().manual_seed(_seed("6.1", 61))
    cases = []
    for m, spread, h, level in ((40, 0.08, 0.002, 0.95), (12, 0.05, 0.01, 0.90), (400, 0.07, 0.001, 0.99),
                                (25, 0.10, 0.02, 0.5), (60, 0.06, 0.004, 0.95), (30, 0.09, 0.003, 0.80)):
        pilot = (0.36 + spread * torch.randn(m, generator=g)).clamp(0.05, 0.95)
        cases.append((pilot, h * (1 + 0.2 * torch.rand(1, generator=g).item()), level))
    return cases


def _z(level: float) -> float:
    from scipy.stats import norm

    return float(norm.ppf(0.5 + level / 2))


def _pairs_slips(pilot: torch.Tensor, h: float, level: float) -> dict[str, float]:
    """What the common slips of 6.1 return on one case, by the mistake's name."""
    from scipy.stats import norm

    s, m, z = pilot.std().item(), len(pilot), _z(level)
    exact = (z * s / h) ** 2
    return {"1.96": math.ceil((1.96 * s / h) ** 2), "one tail": math.ceil((norm.ppf(level) * s / h) ** 2),
            "no square": math.ceil(z * s / h), "pilot SE": math.ceil((z * s / math.sqrt(m) / h) ** 2),
            "population std": math.ceil((z * pilot.std(unbiased=False).item() / h) ** 2),
            "no z": math.ceil((s / h) ** 2), "whole width": math.ceil((2 * z * s / h) ** 2),
            "not rounded up": exact, "rounded down": math.floor(exact), "rounded to the nearest": round(exact)}


PAIRS_HINTS = {
    "1.96": "you used 1.96 at every level: that is the 95% factor; at level L, z = norm.ppf(0.5 + L / 2)",
    "one tail": "your z puts all of 1 - L in one tail (norm.ppf(L)); a two-sided interval leaves (1 - L) / 2 in each",
    "no square": "the half-width shrinks with the square root of n: n = (z s / h)², squared",
    "pilot SE": "you used the pilot's standard error s / √m; the n you plan is for single scores' spread s: "
                "the pilot's own size m does not enter",
    "population std": "s is the sample standard deviation (divided by m - 1, torch's default), not the "
                      "population one (divided by m)",
    "no z": "you made the standard error equal to h; the interval's half-width is z times the standard error",
    "whole width": "you made the whole width 2 z SE equal to h; h is the half-width (the interval is b ± h)",
    "not rounded up": "a number of pairs is a whole number: the smallest n with z s / √n <= h (round up)",
    "rounded down": "with your n the half-width is still above h: take the smallest n with z s / √n <= h (round up, "
                    "not down and not to the nearest)",
    "rounded to the nearest": "with your n the half-width is still above h: take the smallest n with z s / √n <= h "
                              "(round up, not to the nearest)",
}


# ------------------------------------------------------------------ 6.2: recover b from published pairs

def _bert_score_baseline(model: str, lang: str = "en") -> Path:
    import bert_score

    return Path(bert_score.__file__).parent / "rescale_baseline" / lang / f"{model}.tsv"


def _published_cases() -> list[tuple[torch.Tensor, torch.Tensor, float, str]]:
    """(raw [k], rescaled [k], b, what) cases: scores as a paper prints them (3 decimals), the first pair an
    identical candidate (raw = rescaled = 1), one pair close to 1 (the last table one above 0.99 too); b from bert-score's files and the course's,
    in grading mode from files, layers and columns drawn with the grading seed."""
    from course_lib.bertscore.baseline import default_baseline_path, read_baseline
    from course_lib.model import EMBEDDED_MODEL

    rng = hidden_rng("6.2")
    files = {m: read_baseline(_bert_score_baseline(m)) for m in ("roberta-large", "bert-base-uncased",
                                                                "distilbert-base-uncased")}
    files["the course's file"] = read_baseline(default_baseline_path(EMBEDDED_MODEL))
    if grading():
        picks = [(m, rng.randrange(1, len(files[m])), rng.randrange(3)) for m in rng.sample(sorted(files), 4)]
    else:
        picks = [("roberta-large", 17, 2), ("bert-base-uncased", 9, 0), ("the course's file", 4, 2),
                 ("distilbert-base-uncased", 2, 0)]
    g = torch.Generator().manual_seed(_seed("6.2", 62))
    cases = []
    for k, (model, layer, col) in enumerate(picks):
        b = float(files[model][layer, col])
        near = [_near_one(b)] if k == 3 else []  # the last table has a raw score above 0.99
        raw = torch.cat([torch.tensor([1.0, 1 - 0.08 * (1 - b)] + near),
                         b + (1 - b) * (torch.rand(6, generator=g) * 1.1 - 0.3)]).clamp(max=1.0)
        raw = torch.round(raw * 1000) / 1000
        rescaled = torch.round((raw - b) / (1 - b) * 1000) / 1000
        cases.append((raw.double(), rescaled.double(), b, f"{model}, layer {layer}, column {'PRF'[col]}"))
    return cases


def _near_one(b: float) -> float:
    """A printed raw score above 0.99 whose printed rescaled score is off by the most rounding, relative to 1 - x'
    (a pair a plain mean of per-pair b trusts as much as any other)."""
    def error(x: float) -> float:
        y = round((x - b) / (1 - b), 3)
        return abs((x - y) / (1 - y) - b) if y < 1 else 0.0
    return max((0.991 + 0.001 * k for k in range(9)), key=error)


def _baseline_slips(raw: torch.Tensor, rescaled: torch.Tensor) -> dict[str, float]:
    """What the common slips of 6.2 return on one case, by the mistake's name."""
    x, y = raw.double(), rescaled.double()
    near_one = int(torch.argmax(torch.where(y < 1, y, torch.tensor(-9.0, dtype=y.dtype))))
    return {"difference": float((x - y).mean()), "swapped": float(((y - x) * (1 - x)).sum() / ((1 - x) ** 2).sum()),
            "mean of raw": float(x.mean()), "near one": float((x[near_one] - y[near_one]) / (1 - y[near_one])),
            "mean of rows": float(((x - y) / (1 - y))[y < 1].mean())}


BASELINE_HINTS = {
    "difference": "raw - rescaled is not b: x = b + (1 - b) x', so x - x' = b (1 - x'); divide by 1 - x'",
    "swapped": "wrong order: the function takes (raw, rescaled), raw first",
    "mean of raw": "b is the mean score of random pairs, not of these published pairs",
    "near one": "you took one pair whose rescaled score is close to 1: 1 - x' is small there, and dividing by it "
                "blows up the rounding of the printed 3 decimals. Use every pair (those far from 1 weigh most)",
    "mean of rows": "you averaged one b per pair: a pair whose rescaled score is close to 1 leaves a tiny 1 - x', "
                    "and dividing by it blows up the rounding of the printed 3 decimals. A plain mean lets that one "
                    "pair pull b away; weigh the pairs instead (those far from 1 are the reliable ones)",
    "nan": "your b is NaN: the identical pair (raw = rescaled = 1) gives 0 / 0, since every b sends 1 to 1; it says "
           "nothing about b",
}


# ------------------------------------------------------------------ 6.3: the rescaled F from rescaled P and R

def _f_cases() -> list[tuple[torch.Tensor, torch.Tensor, torch.Tensor, str]]:
    """(p_hat [k], r_hat [k], b [3] = (b_P, b_R, b_F), what) cases: rescaled P and R as a table prints them (3
    decimals), under baselines whose columns differ clearly -- random (short answer, long passage) pairs give
    b_P above b_R, or the other way round -- then roberta-large's layer 17; in grading mode other baselines and
    scores, drawn with the grading seed."""
    from course_lib.bertscore.baseline import layer_baseline

    rng, g = hidden_rng("6.3"), torch.Generator().manual_seed(_seed("6.3", 63))
    if grading():
        planted = []
        for _ in range(2):
            b_p, gap = rng.uniform(0.25, 0.6), rng.choice([-1, 1]) * rng.uniform(0.08, 0.2)
            planted.append((b_p, b_p + gap, min(b_p, b_p + gap) + rng.uniform(0.02, 0.05)))
    else:
        planted = [(0.52, 0.38, 0.43), (0.31, 0.47, 0.37)]
    bases = [(torch.tensor(b, dtype=torch.float64), "a RAG team's baseline (answers vs passages)") for b in planted]
    bases.append((layer_baseline(_bert_score_baseline("roberta-large"), 17).double(), "roberta-large, layer 17"))
    cases = []
    for b, what in bases:
        p_hat, r_hat = (torch.round((torch.rand(5, generator=g, dtype=torch.float64) * 1.1 - 0.2) * 1000) / 1000
                        for _ in range(2))
        cases.append((p_hat, r_hat, b, what))
    return cases


def _f_from(p_hat, r_hat, b_p, b_r, b_f, mean=lambda p, r: 2 * p * r / (p + r)):
    p, r = b_p + (1 - b_p) * p_hat, b_r + (1 - b_r) * r_hat
    return (mean(p, r) - b_f) / (1 - b_f)


def _f_slips(p_hat: torch.Tensor, r_hat: torch.Tensor, b: torch.Tensor) -> dict[str, torch.Tensor]:
    """What the common slips of 6.3 return on one case, by the mistake's name."""
    b_p, b_r, b_f = (float(v) for v in b)
    p, r = b_p + (1 - b_p) * p_hat, b_r + (1 - b_r) * r_hat
    return {"b_F for all": _f_from(p_hat, r_hat, b_f, b_f, b_f),
            "harmonic of rescaled": 2 * p_hat * r_hat / (p_hat + r_hat),
            "raw F": 2 * p * r / (p + r),
            "swapped baselines": _f_from(p_hat, r_hat, b_r, b_p, b_f),
            "arithmetic mean": _f_from(p_hat, r_hat, b_p, b_r, b_f, mean=lambda p, r: (p + r) / 2),
            "mean of b_P and b_R": _f_from(p_hat, r_hat, b_p, b_r, (b_p + b_r) / 2),
            "rescaled again": (2 * p_hat * r_hat / (p_hat + r_hat) - b_f) / (1 - b_f)}


F_HINTS = {
    "b_F for all": "you undid the rescaling of P and R with b_F: each column has its own baseline (P with b_P, R "
                   "with b_R), and here they differ",
    "harmonic of rescaled": "the harmonic mean of the rescaled P and R is not bert-score's rescaled F (section 4): "
                            "F is computed from the raw P and R, and rescaled afterwards",
    "raw F": "that is the raw F; the table's F would be rescaled too, with b_F",
    "swapped baselines": "wrong order: b is (b_P, b_R, b_F); you used b_R for P and b_P for R",
    "arithmetic mean": "BERTScore's F is the harmonic mean 2PR / (P + R) of P and R, not their average",
    "mean of b_P and b_R": "F has a baseline of its own, b_F (the mean F of random pairs), not the mean of b_P and b_R",
    "rescaled again": "p_hat and r_hat are already rescaled: the F of two rescaled numbers is not the raw F, so "
                      "rescaling it once more does not give the table's F",
}
