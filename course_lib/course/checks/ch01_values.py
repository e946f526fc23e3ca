"""Chapter 01's judges for the value exercises 1.5 and 1.7 (`checks.ch01` holds the exercises and the data): which
candidate each metric prefers and the word only ROUGE-1 matches (1.5); the colleague's tau-b with its planted bug,
and what is wrong with ratings and a gap (1.7). Every judge takes the data as an argument: the published data in
learning mode, other data in grading."""
from __future__ import annotations

import math

import numpy as np

from course_lib.lexical.bleu import sentence_bleu, tokenize_13a
from course_lib.lexical.rouge import rouge_n, tokenize

from .ch01_cases import _close
from .exercise import Mismatch

GAP_TOLERANCE = 5.01e-5  # gap_1_7 may be rounded to 4 decimals (the prompt says so)


def _candidates(holiday) -> dict[str, str]:
    return {"A": holiday[1], "B": holiday[2]}


# ------------------------------------------------------------------ 1.5 which candidate each metric prefers

def _preferences(holiday, ties: bool = False) -> dict[str, str]:
    """The label ("A" or "B") each metric prefers: ROUGE-1 F1 and sentence BLEU ({} with ties=True where one
    metric scores the two alike)."""
    reference, cands = holiday[0], _candidates(holiday)
    r1 = {k: rouge_n(c, reference, 1).fmeasure for k, c in cands.items()}
    bleu = {k: sentence_bleu(c, reference) for k, c in cands.items()}
    if ties and (math.isclose(r1["A"], r1["B"]) or math.isclose(bleu["A"], bleu["B"])):
        return {}
    return {"ROUGE-1": max(r1, key=r1.get), "BLEU": max(bleu, key=bleu.get)}


def _rouge_only_matches(holiday) -> set[str]:
    """Reference words that ROUGE-1 matches in some candidate but BLEU's 13a tokens do not."""
    reference = holiday[0]
    ref13 = set(tokenize_13a(reference))
    words = set()
    for cand in _candidates(holiday).values():
        rouge_shared = set(tokenize(cand)) & set(tokenize(reference))
        words |= {w for w in rouge_shared if w not in set(tokenize_13a(cand)) or w not in ref13}
    return words


def _pick(metric, name):
    def compare(got, want, holiday):
        said = str(got).strip().upper()
        if said not in ("A", "B"):
            raise Mismatch(f"answer {name} with \"A\" or \"B\"")
        if said != want:
            raise Mismatch(f"{metric} prefers the other candidate")
    return compare


def _word(holiday) -> str:
    return sorted(w for w in _rouge_only_matches(holiday) if w in tokenize_13a(holiday[0]))[0]


def _same_word(got, want, holiday):
    if not isinstance(got, str):
        raise Mismatch(f"set word_1_5 to a word, as text, not {type(got).__name__} {got!r}")
    if got.strip().lower() not in _rouge_only_matches(holiday):
        raise Mismatch("word_1_5 is not a word that ROUGE-1 matches and BLEU misses: compare the two tokenizations "
                       "of each text")
    if got.strip() not in tokenize_13a(holiday[0]):
        raise Mismatch(f"{got.strip()!r} is a candidate's spelling: give the word as the reference writes it. That "
                       "the two spellings differ is the point: which metric lowercases, which compares them as "
                       "written?")


# ------------------------------------------------------------------ 1.7 find the bug in a colleague's tau-b

def _pair_counts(x, y) -> tuple[int, int, int, int, int]:
    """Over all pairs i < j: (concordant, discordant, tied in x only, tied in y only, tied in both)."""
    c = d = tx = ty = txy = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                txy += 1
            elif dx == 0:
                tx += 1
            elif dy == 0:
                ty += 1
            elif (dx > 0) == (dy > 0):
                c += 1
            else:
                d += 1
    return c, d, tx, ty, txy


def _tied_pairs(x) -> list[tuple[int, int]]:
    """The pairs (i, j), i < j, with x[i] == x[j]."""
    return [(i, j) for i in range(len(x)) for j in range(i + 1, len(x)) if x[i] == x[j]]


def colleague_tau_b(x, y):
    """A colleague's fast Kendall tau-b (numpy, no loop over pairs). It has one bug, planted for exercise 1.7."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    i, j = np.triu_indices(len(x), k=1)  # every pair i < j once
    dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
    c, d = np.sum(dx * dy > 0), np.sum(dx * dy < 0)
    n0 = len(i)
    n_x = np.sum((dx == 0) & (dy != 0))  # pairs tied in x
    n_y = np.sum((dy == 0) & (dx != 0))  # pairs tied in y
    return (c - d) / np.sqrt((n0 - n_x) * (n0 - n_y))


def _taus(metric, ratings) -> tuple[float, float]:
    """(the right tau-b, the colleague's) of `ratings` against `metric`."""
    from scipy.stats import kendalltau

    y = [float(r) for r in ratings]
    return float(kendalltau(metric, y).statistic), float(colleague_tau_b(metric, y))


def _judge_ratings(ratings, metric):
    n = len(metric)
    if not isinstance(ratings, (list, tuple)) or len(ratings) != n:
        raise Mismatch(f"ratings_1_7 must be a list of {n} numbers, one per system, in the systems' order")
    texts = [r for r in ratings if isinstance(r, str)]
    if texts:
        raise Mismatch(f"you gave text ({texts[0]!r}), not a number: give ratings such as 3, not '3'")
    try:
        values = [float(r) for r in ratings]
    except (TypeError, ValueError):
        raise Mismatch(f"ratings_1_7 must hold numbers, not {[type(r).__name__ for r in ratings]}") from None
    if any(math.isnan(v) for v in values):
        raise Mismatch("a rating is NaN: people gave every system a number")
    outside = [r for r, v in zip(ratings, values) if not 1 <= v <= 5]
    if outside:
        raise Mismatch(f"a rating of {outside[0]!r} is off the scale: people rate from 1 to 5")
    right, theirs = _taus(metric, values)
    if math.isnan(right):
        raise Mismatch("your ratings are all equal: people ordered no pair, so tau-b is not defined (0 / 0). Rate "
                       "the systems differently")
    if _close(right, theirs):
        c, d, _, _, both = _pair_counts(metric, values)
        if both and c == d:
            raise Mismatch(f"your ratings tie {both} pair(s) on both sides, but C = D = {c}: the numerator C - D is "
                           "0, so every denominator gives 0. Make C differ from D")
        raise Mismatch(f"on your ratings the colleague's tau-b is right ({theirs:.4f} = scipy's). Sort the 15 pairs "
                       "into section 6's kinds and compare the colleague's n_x and n_y with the definition's: the "
                       "kind it counts wrong must occur in your ratings")


def _judge_gap(gap, metric, ratings):
    if isinstance(gap, str):
        raise Mismatch(f"you gave text ({gap!r}), not a number: set gap_1_7 to a number")
    try:
        gap = float(gap)
    except (TypeError, ValueError):
        raise Mismatch(f"set gap_1_7 to a number, not {type(gap).__name__}") from None
    right, theirs = _taus(metric, ratings)
    if math.isclose(gap, right - theirs, abs_tol=GAP_TOLERANCE, rel_tol=0):
        raise Mismatch("gap_1_7 has the wrong sign: the colleague's tau-b minus the right one")
    if math.isclose(gap, theirs - right, abs_tol=GAP_TOLERANCE, rel_tol=0):
        return
    if math.isclose(gap, theirs - right, abs_tol=0.005, rel_tol=0) and math.isclose(gap, round(gap, 3), abs_tol=1e-12):
        raise Mismatch(f"gap_1_7 = {gap} is the gap rounded too coarsely: give it to 4 decimals or more")
    raise Mismatch("gap_1_7 is not the colleague's tau-b minus the right (scipy's) tau-b, both on ch01.SYSTEMS_METRIC "
                   "and your ratings")


