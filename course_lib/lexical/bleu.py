"""BLEU (Papineni et al., 2002), written from scratch to match sacrebleu 2.x.

BLEU compares a candidate with one or more references through n-gram
overlap, n = 1..N (N = 4 by default):

    p_n  = clipped n-gram matches / candidate n-grams          (modified precision)
    BP   = 1                    if c >= r
         = exp(1 - r / c)       if 0 < c < r                   (brevity penalty)
    BLEU = 100 * BP * exp( (1/N) * sum_n log p_n )             (geometric mean)

with c the candidate length and r the reference length, both in tokens.

What the numbers here reproduce exactly (tested in tests/test_lexical.py):

* ``sentence_bleu``  == ``sacrebleu.sentence_bleu(c, refs).score``
* ``corpus_bleu``    == ``sacrebleu.corpus_bleu(cands, ref_streams).score``

That needs three sacrebleu conventions on top of the paper's formula:

1. the "13a" tokenizer (``tokenize_13a``, in ``course_lib.lexical.tokenize_13a``),
2. "exp" smoothing of zero precisions (``smoothed_precisions``),
3. at sentence level, the *effective order*: only the orders n for which the
   candidate has at least one n-gram enter the geometric mean.
"""

import math
from collections import Counter
from dataclasses import dataclass

from course_lib.lexical.tokenize_13a import tokenize_13a  # noqa: F401 (also offered here)

MAX_ORDER = 4


# ---------------------------------------------------------------------------
# 1. Counting: n-grams, clipped matches, lengths
# ---------------------------------------------------------------------------

def ngrams(tokens: list[str], n: int) -> Counter:
    """Count the n-grams of a token list.

    A list of L tokens has max(L - n + 1, 0) n-grams; each is a tuple of n tokens.

    >>> ngrams(["the", "cat", "the", "cat"], 2)
    Counter({('the', 'cat'): 2, ('cat', 'the'): 1})
    """
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def max_reference_counts(ref_tokens_list: list[list[str]], n: int) -> Counter:
    """For every n-gram, the largest number of times it occurs in any one reference.

        max_ref_count(g) = max_k count_k(g)     over references k
    """
    best = Counter()
    for ref_tokens in ref_tokens_list:
        for gram, count in ngrams(ref_tokens, n).items():
            best[gram] = max(best[gram], count)
    return best


def modified_precision(cand_tokens: list[str],
                       ref_tokens_list: list[list[str]],
                       n: int) -> tuple[int, int]:
    """Clipped n-gram matches and the number of candidate n-grams.

        matches = sum_g min( count_cand(g), max_k count_ref_k(g) )
        total   = sum_g count_cand(g)

    p_n = matches / total. Clipping is what stops "the the the the" from
    scoring a perfect unigram precision against "the cat is on the mat".
    Returns the pair ``(matches, total)``, not the ratio, because corpus BLEU
    sums the numerators and denominators over sentences before dividing.
    """
    cand_counts = ngrams(cand_tokens, n)
    ref_counts = max_reference_counts(ref_tokens_list, n)
    matches = sum(min(count, ref_counts[gram]) for gram, count in cand_counts.items())
    total = sum(cand_counts.values())
    return matches, total


def closest_reference_length(cand_len: int, ref_lens: list[int]) -> int:
    """The reference length r used by the brevity penalty.

        r = argmin_k |c - len(ref_k)|,  ties broken towards the shorter reference
    """
    return min(ref_lens, key=lambda r: (abs(cand_len - r), r))


def brevity_penalty(c: int, r: int) -> float:
    """BP = 1 if c >= r, exp(1 - r/c) if 0 < c < r, and 0 if c = 0 < r.

    (With c = r = 0 sacrebleu keeps BP = 1; BLEU is 0 anyway: nothing matches.)
    """
    if c >= r:
        return 1.0
    if c == 0:
        return 0.0
    return math.exp(1 - r / c)


@dataclass
class BleuStats:
    """Sufficient statistics of BLEU; they add up over the sentences of a corpus.

    matches[n-1], totals[n-1]: clipped matches and candidate n-grams for order n.
    """
    matches: list[int]
    totals: list[int]
    cand_len: int
    ref_len: int

    def __add__(self, other: "BleuStats") -> "BleuStats":
        return BleuStats(
            matches=[a + b for a, b in zip(self.matches, other.matches)],
            totals=[a + b for a, b in zip(self.totals, other.totals)],
            cand_len=self.cand_len + other.cand_len,
            ref_len=self.ref_len + other.ref_len,
        )


def sentence_stats(candidate: str, references: list[str], max_n: int = MAX_ORDER) -> BleuStats:
    """Tokenize one candidate and its references and count everything BLEU needs."""
    cand_tokens = tokenize_13a(candidate)
    ref_tokens_list = [tokenize_13a(ref) for ref in references]
    counts = [modified_precision(cand_tokens, ref_tokens_list, n) for n in range(1, max_n + 1)]
    return BleuStats(
        matches=[m for m, _ in counts],
        totals=[t for _, t in counts],
        cand_len=len(cand_tokens),
        ref_len=closest_reference_length(len(cand_tokens), [len(r) for r in ref_tokens_list]),
    )


# ---------------------------------------------------------------------------
# 2. From counts to a score: smoothing, effective order, geometric mean
# ---------------------------------------------------------------------------

def smoothed_precisions(matches: list[int], totals: list[int]) -> list[float]:
    """Precisions p_n in [0, 1] with sacrebleu's "exp" smoothing (NIST, mteval-v13a).

        p_n = matches_n / totals_n                 if matches_n > 0
        p_n = 1 / (2^k * totals_n)                 if matches_n = 0, where this
                                                   is the k-th order (k = 1, 2, ...)
                                                   with zero matches so far

    So the first zero precision becomes 1/(2 t), the next 1/(4 t), and so on.
    The list stops at the first order the candidate has no n-grams for
    (totals_n = 0): p_n is undefined there. Its length is the effective order.
    """
    precisions = []
    halvings = 1
    for match, total in zip(matches, totals):
        if total == 0:
            break
        if match == 0:
            halvings *= 2
            precisions.append(1 / (halvings * total))
        else:
            precisions.append(match / total)
    return precisions


@dataclass
class BleuDetails:
    """Every intermediate quantity of a BLEU computation (for worked examples).

    matches, totals: per order n = 1..max_n (clipped matches, candidate n-grams)
    precisions:      smoothed p_n in [0, 1] that entered the geometric mean
    order:           number of orders in the geometric mean (N, or fewer with
                     the effective order; 0 when nothing matches at all)
    cand_len, ref_len, bp: lengths c, r and the brevity penalty
    score:           BLEU on the 0-100 scale
    """
    matches: list[int]
    totals: list[int]
    precisions: list[float]
    order: int
    cand_len: int
    ref_len: int
    bp: float
    score: float


def bleu_from_stats(stats: BleuStats, effective_order: bool) -> BleuDetails:
    """BLEU = 100 * BP * exp( (1/N') * sum_{n <= N'} log p_n ).

    N' = max_n, or, with ``effective_order``, the number of orders for which
    the candidate has n-grams (a 3-token sentence has no 4-grams, so N' = 3).
    Without the effective order a missing order means p_n = 0 and BLEU = 0.
    If no n-gram of any order matches, BLEU is 0 (no smoothing is applied).
    """
    max_n = len(stats.matches)
    bp = brevity_penalty(stats.cand_len, stats.ref_len)
    precisions = smoothed_precisions(stats.matches, stats.totals)
    order = len(precisions) if effective_order else max_n
    if sum(stats.matches) == 0 or len(precisions) < order:
        score, precisions, order = 0.0, [0.0] * max_n, 0
    else:
        log_mean = sum(math.log(p) for p in precisions) / order
        score = 100 * bp * math.exp(log_mean)
    return BleuDetails(stats.matches, stats.totals, precisions, order,
                       stats.cand_len, stats.ref_len, bp, score)


# ---------------------------------------------------------------------------
# 3. Public entry points
# ---------------------------------------------------------------------------

def require_text(value, what: str) -> str:
    """`value` if it is a string, else a TypeError that names `what` and the type it got."""
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string, got {type(value).__name__}: {value!r:.60}")
    return value


def _as_list(references: str | list[str], what: str = "references") -> list[str]:
    """One reference string or a list/tuple of them -> a non-empty list of strings."""
    if isinstance(references, str):
        return [references]
    if not _is_sequence(references):
        raise TypeError(f"{what} must be a string or a list of strings, got {type(references).__name__}")
    references = list(references)
    if not references:
        raise ValueError(f"{what} is empty: give at least one reference")
    return [require_text(r, f"each of {what}") for r in references]


def _is_sequence(value) -> bool:
    """A list, tuple, pandas Series, numpy array...: sized and iterable, and not a string itself."""
    return not isinstance(value, (str, bytes, dict)) and hasattr(value, "__len__") and hasattr(value, "__iter__")


def _check_max_n(max_n) -> None:
    if isinstance(max_n, bool) or not isinstance(max_n, int) or max_n < 1:
        raise ValueError(f"max_n must be a positive integer, got {max_n!r}")


def bleu_details(candidate: str, references: str | list[str], max_n: int = MAX_ORDER) -> BleuDetails:
    """Sentence BLEU with all its intermediate steps (see ``BleuDetails``)."""
    require_text(candidate, "candidate")
    _check_max_n(max_n)
    stats = sentence_stats(candidate, _as_list(references), max_n)
    return bleu_from_stats(stats, effective_order=True)


def sentence_bleu(candidate: str, references: str | list[str], max_n: int = MAX_ORDER) -> float:
    """Sentence-level BLEU in [0, 100], equal to ``sacrebleu.sentence_bleu(...).score``.

    ``references`` is one reference string or a list of them. Uses 13a
    tokenization, exp smoothing and the effective order.
    """
    return bleu_details(candidate, references, max_n).score


def corpus_bleu_details(candidates: list[str],
                        references: list[list[str]] | list[str],
                        max_n: int = MAX_ORDER) -> BleuDetails:
    """Corpus BLEU with all its intermediate steps.

    The counts (matches, totals, c, r) are summed over all sentences first;
    BLEU is computed once from the sums. That is not the mean of sentence BLEUs.
    """
    for value, what in ((candidates, "candidates"), (references, "references")):
        if not _is_sequence(value):
            raise TypeError(f"{what} must be a list (one entry per sentence), got {type(value).__name__}"
                            + (": wrap a single sentence in a list" if isinstance(value, str) else ""))
    candidates, references = list(candidates), list(references)
    if len(candidates) != len(references):
        raise ValueError(f"{len(candidates)} candidates but {len(references)} reference entries")
    _check_max_n(max_n)
    stats = [sentence_stats(require_text(cand, f"candidates[{i}]"), _as_list(refs, f"references[{i}]"), max_n)
             for i, (cand, refs) in enumerate(zip(candidates, references))]
    total = sum(stats[1:], start=stats[0]) if stats else BleuStats([0] * max_n, [0] * max_n, 0, 0)
    return bleu_from_stats(total, effective_order=False)


def corpus_bleu(candidates: list[str],
                references: list[list[str]] | list[str],
                max_n: int = MAX_ORDER) -> float:
    """Corpus-level BLEU in [0, 100], equal to ``sacrebleu.corpus_bleu(...).score``.

    Layout: ``references[i]`` holds the reference(s) of ``candidates[i]``, either
    one string or a list of strings (the number may vary per candidate).

    sacrebleu takes the transposed layout, a list of reference *streams*:
    ``sacrebleu.corpus_bleu(cands, [refs_a, refs_b])`` where ``refs_a[i]`` is
    the first reference of candidate i. Convert with
    ``references = [list(r) for r in zip(*streams)]``.
    Uses 13a tokenization and exp smoothing, without the effective order.
    """
    return corpus_bleu_details(candidates, references, max_n).score
