"""ROUGE (Lin, 2004), written from scratch to match Google's ``rouge-score`` package.

ROUGE counts what the candidate and the reference have in common and reports
it three ways:

    precision = overlap / size(candidate)
    recall    = overlap / size(reference)
    F1        = 2 * P * R / (P + R)                (0 when P + R = 0)

ROUGE-N : overlap = clipped n-gram matches, size = number of n-grams
ROUGE-L : overlap = length of the longest common subsequence, size = tokens
ROUGE-S : overlap = clipped skip-bigram matches, size = number of skip-bigrams

``rouge_n`` and ``rouge_l`` equal ``rouge_scorer.RougeScorer([...],
use_stemmer=False).score(reference, candidate)`` (note its argument order:
target first). ``rouge_s`` is for teaching only: rouge-score has no ROUGE-S,
so it is not checked against a reference implementation.
"""

import re
from collections import Counter, namedtuple

from course_lib.lexical.bleu import ngrams, require_text

Score = namedtuple("Score", ["precision", "recall", "fmeasure"])

_NON_ALPHANUMERIC_RE = re.compile(r"[^a-z0-9]+")


def tokenize(text: str) -> list[str]:
    """Tokens as rouge-score makes them (without stemming).

    Lowercase, turn every run of characters outside [a-z0-9] into a space,
    split on spaces. Punctuation disappears, and so do all non-ASCII letters:

    >>> tokenize("Café costs $20.00!")
    ['caf', 'costs', '20', '00']
    """
    return _NON_ALPHANUMERIC_RE.sub(" ", require_text(text, "text").lower()).split()


def f_measure(precision: float, recall: float) -> float:
    """Harmonic mean F1 = 2PR / (P + R), and 0 when P = R = 0."""
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def _overlap_score(candidate_counts: Counter, reference_counts: Counter) -> Score:
    """P, R, F from two multisets (n-grams or skip-bigrams), with clipped overlap.

        overlap = sum_g min(count_cand(g), count_ref(g))
        P = overlap / max(|cand|, 1),   R = overlap / max(|ref|, 1)

    The max(., 1) makes an empty side score 0 instead of dividing by zero.
    """
    overlap = sum((candidate_counts & reference_counts).values())  # & keeps the min count
    precision = overlap / max(sum(candidate_counts.values()), 1)
    recall = overlap / max(sum(reference_counts.values()), 1)
    return Score(precision, recall, f_measure(precision, recall))


def rouge_n(candidate: str, reference: str, n: int) -> Score:
    """ROUGE-N: clipped n-gram overlap (rouge-score's "rouge1", "rouge2", ...)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    cand, ref = _pair(candidate, reference)
    return _overlap_score(ngrams(cand, n), ngrams(ref, n))


def _pair(candidate, reference) -> tuple[list[str], list[str]]:
    """Both texts tokenized, after checking that each is a string (a clear TypeError otherwise)."""
    return tokenize(require_text(candidate, "candidate")), tokenize(require_text(reference, "reference"))


def lcs_length(a: list, b: list) -> int:
    """Length of the longest common subsequence of ``a`` and ``b``.

    A subsequence keeps the order but may skip items: "the cat sat" and
    "the black cat sat" share "the cat sat" (length 3).
    Dynamic programming over a (len(a)+1) x (len(b)+1) table, where
    L[i][j] = LCS length of the prefixes a[:i] and b[:j]:

        L[i][j] = 0                              if i = 0 or j = 0
                = L[i-1][j-1] + 1                if a[i-1] == b[j-1]
                = max(L[i-1][j], L[i][j-1])      otherwise

    Time and memory O(len(a) * len(b)).
    """
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                table[i][j] = table[i - 1][j - 1] + 1
            else:
                table[i][j] = max(table[i - 1][j], table[i][j - 1])
    return table[-1][-1]


def rouge_l(candidate: str, reference: str) -> Score:
    """ROUGE-L: P = LCS / len(candidate), R = LCS / len(reference), F1 of the two.

    Sentence-level ROUGE-L (rouge-score's "rougeL", not "rougeLsum").
    Scores 0 if either side has no tokens.
    """
    cand, ref = _pair(candidate, reference)
    if not cand or not ref:
        return Score(0.0, 0.0, 0.0)
    lcs = lcs_length(cand, ref)
    precision, recall = lcs / len(cand), lcs / len(ref)
    return Score(precision, recall, f_measure(precision, recall))


def skip_bigrams(tokens: list[str]) -> Counter:
    """All ordered pairs (tokens[i], tokens[j]) with i < j, any gap in between.

    A sequence of L tokens has L * (L - 1) / 2 skip-bigrams.
    """
    return Counter((tokens[i], tokens[j])
                   for i in range(len(tokens))
                   for j in range(i + 1, len(tokens)))


def rouge_s(candidate: str, reference: str) -> Score:
    """ROUGE-S (skip-bigram co-occurrence, unlimited gap), for teaching.

        P = matches / C(len(cand), 2),   R = matches / C(len(ref), 2)

    with clipped skip-bigram matches. Same tokenizer and zero handling as
    ROUGE-N. Not checked against a reference implementation (rouge-score has none).
    """
    cand, ref = _pair(candidate, reference)
    return _overlap_score(skip_bigrams(cand), skip_bigrams(ref))
