"""Chapter 01's cases for the exercises 1.3, 1.4 and 1.7: token lists, rouge-score's read-out kept away, corpora
with what each common slip returns, and the colleague's tau-b with its planted bug. `checks.ch01` imports these."""
from __future__ import annotations

import math
import random
from contextlib import contextmanager

import numpy as np

from course_lib.lexical.bleu import brevity_penalty

from . import ForbiddenCall


# for 1.3: token lists never printed in the chapter; the first defeats a greedy first-match walk, the second a
# common substring (the longest common subsequence skips tokens there), then repeats and no common token at all
LCS_CASES = [("x a b c".split(), "a b c x".split()),
             ("the old man quickly sold his small red car".split(), "the man sold his car".split()),
             ("the police arrested the thief".split(), "the thief arrested the police".split()),
             ("a b a b a b c".split(), "a a b c c".split()),
             ("cats purr".split(), "dogs bark loudly".split())]


def _is_subsequence(seq, of) -> bool:
    it = iter(of)
    return all(any(token == other for other in it) for token in seq)


def _is_run(seq, of) -> bool:
    """`seq` occurs in `of` as neighbouring tokens."""
    return any(list(of[k:k + len(seq)]) == list(seq) for k in range(len(of) - len(seq) + 1))


@contextmanager
def _without_rouge_score_readout():
    """rouge-score's own LCS read-out (shown after exercise 1.3) raises ForbiddenCall while the check runs."""
    from rouge_score import rouge_scorer

    def forbidden(*args, **kwargs):
        raise ForbiddenCall("your function calls rouge-score's LCS read-out, which this exercise asks you to write "
                            "yourself (the check runs it without rouge_scorer.lcs_ind).")
    saved = {name: getattr(rouge_scorer, name) for name in ("lcs_ind", "_backtrack_norec")}
    try:
        for name in saved:
            setattr(rouge_scorer, name, forbidden)
        yield
    finally:
        for name, fn in saved.items():
            setattr(rouge_scorer, name, fn)


def _corpus_cases():
    """(texts, n_words) cases: texts are lists of token probabilities; a text has at least as many tokens
    as words (a tokenizer cuts words into pieces), and the texts differ in length."""
    rng = random.Random(1)
    texts = [[0.99, 0.85, 0.89, 0.99, 0.99, 0.99, 0.99, 0.99], [0.99, 0.65, 0.13, 0.05, 0.21, 0.99, 0.99, 0.99]]
    random_texts = [[round(rng.uniform(0.01, 1.0), 3) for _ in range(k)] for k in (3, 17, 6)]
    return [(texts, [6, 5]), ([[0.5], [0.25] * 9], [1, 4]), ([[0.9] * 3, [0.1] * 2, [0.6] * 10], [2, 2, 7]),
            (random_texts, [3, 11, 2]), ([[1.0, 1.0], [0.2]], [1, 1])]


def _word_perplexity_slips(texts, n_words) -> dict[str, float]:
    """What the common slips of 1.4 return, by the mistake's name (for the hint that names it)."""
    logs = [[math.log(p) for p in text] for text in texts]
    total, n_tokens = sum(map(sum, logs)), sum(map(len, logs))
    per_text = [math.exp(-sum(lg) / w) for lg, w in zip(logs, n_words)]
    return {"tokens": math.exp(-total / n_tokens),
            "mean of texts": sum(per_text) / len(per_text),
            "geometric mean of texts": math.exp(sum(-sum(lg) / w for lg, w in zip(logs, n_words)) / len(texts)),
            "no minus": math.exp(total / sum(n_words))}


WORD_PERPLEXITY_HINTS = {
    "tokens": "you divided by the number of tokens: that is the perplexity per token, the number that differs "
              "between tokenizers. Keep the same total of log-probabilities and divide by the words",
    "mean of texts": "you averaged the texts' perplexities, so a text of 1 word weighs as much as one of 100. A "
                     "corpus is one long text: one total over every token of every text, divided once",
    "geometric mean of texts": "you averaged per-text values, so a text of 1 word weighs as much as one of 100. A "
                               "corpus is one long text: one total over every token of every text, divided once",
    "no minus": "a perplexity is at least 1 (the probabilities are at most 1, so their logs are negative): "
                "you left out the minus sign",
}


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


# for 1.2: which reference length r each common slip picks, and the BP slips; the first whose values the student's
# function reproduces on every case is named
BP_SLIPS = [
    ("you took the shortest reference; BLEU takes the one closest to c",
     lambda c, lengths: brevity_penalty(c, min(lengths))),
    ("you took the longest reference; BLEU takes the one closest to c",
     lambda c, lengths: brevity_penalty(c, max(lengths))),
    ("you averaged the reference lengths; BLEU takes ONE length, the one closest to c",
     lambda c, lengths: brevity_penalty(c, sum(lengths) / len(lengths))),
    ("on a tie you took the longer reference; BLEU takes the shorter",
     lambda c, lengths: brevity_penalty(c, min(lengths, key=lambda r: (abs(c - r), -r)))),
    ("your BP goes above 1: r and c are swapped in exp(1 - r/c), or the penalty applies to long candidates too",
     lambda c, lengths: math.exp(1 - min(lengths, key=lambda r: (abs(c - r), r)) / c)),
    ("your BP goes above 1: r and c are swapped in exp(1 - r/c)",
     lambda c, lengths: _bp_swapped(c, min(lengths, key=lambda r: (abs(c - r), r)))),
]


def _bp_swapped(c, r) -> float:
    return 1.0 if c >= r else math.exp(1 - c / r)


def _bp_slip(student_fn, cases) -> str | None:
    """The named slip whose values `student_fn(c, lengths)` reproduces on every case, or None."""
    try:
        got = [float(student_fn(c, list(lengths))) for c, lengths in cases]
    except Exception:  # noqa: BLE001 - the check reports the error itself
        return None
    for name, slip in BP_SLIPS:
        if all(math.isclose(g, slip(c, lengths), abs_tol=1e-9) for g, (c, lengths) in zip(got, cases)):
            return name
    return None
