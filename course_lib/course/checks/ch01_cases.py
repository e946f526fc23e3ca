"""Chapter 01's cases and comparisons for the function exercises 1.1-1.4 (`checks.ch01` holds the exercises):
the cases each check draws when it runs (fixed ones that separate the slips first, then random ones), the
references, the comparisons that say what is wrong, and the small functions the slips are made of. None calls
what the exercises forbid: the slips are run as students' answers in the tests."""
from __future__ import annotations

import math

from course_lib.lexical.bleu import brevity_penalty, closest_reference_length, modified_precision
from course_lib.lexical.rouge import lcs_length

from .exercise import Mismatch


def _close(got, want, tol=1e-9) -> bool:
    return math.isclose(float(got), float(want), rel_tol=tol, abs_tol=tol)


def _number(got, case: str):
    """`got` as a float, or Mismatch naming what it is instead."""
    if isinstance(got, str):
        raise Mismatch(f"{case}: you return text ({got!r}): return a number")
    if isinstance(got, (tuple, list)):
        raise Mismatch(f"{case}: you return {type(got).__name__} {got!r}; return one number")
    try:
        value = float(got)
    except (TypeError, ValueError):
        raise Mismatch(f"{case}: you return {type(got).__name__} {got!r}: return a number") from None
    if math.isnan(value):
        raise Mismatch(f"{case}: you return NaN")
    return value


# ------------------------------------------------------------------ 1.1 clipped n-gram precision

# (candidate, [references]): none of them is printed in the chapter; the last, for n = 3, is shorter than n
MULTI_REF = [
    ("a a a a a b b b c d", ["a b b", "a a a b c"]),  # every way of clipping gives another number here
    ("the the the the cat cat on the mat", ["the cat is on the mat", "there is a cat on the mat the cat"]),
    ("a cat sat on a mat on a mat", ["a cat sat on the mat", "the cat was on a mat on a rug"]),
    ("it is raining hard today and it is cold", ["today it is raining hard", "it is cold and it is wet today"]),
    ("b a b a b a c", ["a a b c c", "b b a c"]),
    ("consumers prefer imported cars", ["people like foreign cars"]),
    ("cats purr", ["cats purr loudly", "the cats purr"]),
]


def _clipped_cases(rng):
    """Each fixed pair for n = 1, 2, 3, then random token lists over a small vocabulary (repeats are likely)."""
    cases = [(cand.split(), [r.split() for r in refs], n) for n in (1, 2, 3) for cand, refs in MULTI_REF]
    vocab = "a b c the cat mat".split()
    for _ in range(12):
        cand = [rng.choice(vocab) for _ in range(rng.randint(1, 10))]
        refs = [[rng.choice(vocab) for _ in range(rng.randint(1, 10))] for _ in range(rng.randint(1, 3))]
        cases.append((cand, refs, rng.randint(1, 3)))
    return cases


def _clipped(cand_tokens, refs_tokens, n):
    """The clipped precision; 0.0 for a candidate shorter than n (it has no n-grams)."""
    matches, total = modified_precision(cand_tokens, refs_tokens, n)
    return matches / total if total else 0.0


def _grams(tokens, n):
    """A Counter of the n-gram tuples (not course_lib's `ngrams`: the slips are run as students' answers, where
    it is forbidden)."""
    from collections import Counter

    return Counter(zip(*(tokens[k:] for k in range(n))))


def _clipped_at(limit):
    """A clipped precision whose clip `limit(gram, ref_counts)` is some other number than the largest count."""
    def answer(cand_tokens, refs_tokens, n):
        cand, refs = _grams(cand_tokens, n), [_grams(r, n) for r in refs_tokens]
        total = sum(cand.values())
        return sum(min(k, limit(g, refs)) for g, k in cand.items()) / total if total else 0.0
    return answer


def _unclipped(cand_tokens, refs_tokens, n):
    cand, refs = _grams(cand_tokens, n), [_grams(r, n) for r in refs_tokens]
    total = sum(cand.values())
    return sum(k for g, k in cand.items() if any(r[g] for r in refs)) / total if total else 0.0


def _distinct(cand_tokens, refs_tokens, n):
    cand, refs = _grams(cand_tokens, n), [_grams(r, n) for r in refs_tokens]
    return sum(1 for g in cand if any(r[g] for r in refs)) / len(cand) if cand else 0.0


def _no_guard(cand_tokens, refs_tokens, n):
    cand, refs = _grams(cand_tokens, n), [_grams(r, n) for r in refs_tokens]
    return sum(min(k, max(r[g] for r in refs)) for g, k in cand.items()) / sum(cand.values())  # 0 n-grams: 1/0


def _same_precision(got, want, args):
    cand, refs, n = args
    case = f"n={n}, {' '.join(cand)!r} against {[' '.join(r) for r in refs]}"
    if isinstance(got, (tuple, list)):
        raise Mismatch(f"{case}: you return {type(got).__name__} {got!r}; return one number, the precision (the "
                       "clipped matches divided by the candidate's n-grams)")
    value = _number(got, case)
    if not _close(value, want):
        raise Mismatch(f"{case}: you return {value:.4f}, expected {want:.4f}")


# ------------------------------------------------------------------ 1.2 the brevity penalty, several references

# (c, reference lengths): a tie first lies between two references of which neither is the shortest or the longest
BP_CASES = [(10, [8, 12, 30]), (7, [10, 4]), (5, [3, 7, 9]), (9, [7, 12]), (8, [6, 10, 2]), (7, [9, 11, 20]),
            (12, [11, 13, 40]), (4, [12, 30, 9]), (1, [2]), (20, [21, 19]), (9, [5, 10]), (11, [3, 12]),
            (6, [2, 7, 30])]


def _bp_cases(rng):
    cases = [(c, list(lengths)) for c, lengths in BP_CASES]
    for _ in range(10):
        cases.append((rng.randint(1, 25), [rng.randint(1, 30) for _ in range(rng.randint(1, 4))]))
    return cases


def _bp(c, ref_lengths):
    return brevity_penalty(c, closest_reference_length(c, ref_lengths))


def _closest(c, lengths):
    return min(lengths, key=lambda r: (abs(c - r), r))


def _bp_swapped(c, r) -> float:
    return 1.0 if c >= r else math.exp(1 - c / r)


def _same_bp(got, want, args):
    c, lengths = args
    case = f"multi_ref_bp(c={c}, ref_lengths={lengths})"
    value = _number(got, case)
    if not _close(value, want):
        raise Mismatch(f"{case} = {value:.4f}, expected {want:.4f}")


# ------------------------------------------------------------------ 1.3 which words ROUGE-L counts

# token lists never printed in the chapter; the first defeats a greedy first-match walk, the second a common
# substring (the longest common subsequence skips tokens there), then repeats and no common token at all
LCS_CASES = [("x a b c".split(), "a b c x".split()),
             ("the old man quickly sold his small red car".split(), "the man sold his car".split()),
             ("the police arrested the thief".split(), "the thief arrested the police".split()),
             ("a b a b a b c".split(), "a a b c c".split()),
             ("cats purr".split(), "dogs bark loudly".split())]


def _lcs_cases(rng):
    cases = [(list(c), list(r)) for c, r in LCS_CASES]
    vocab = "a b c d e".split()
    for _ in range(8):
        cases.append(([rng.choice(vocab) for _ in range(rng.randint(1, 9))],
                      [rng.choice(vocab) for _ in range(rng.randint(1, 9))]))
    return cases


def _table(cand, ref):
    table = [[0] * (len(ref) + 1) for _ in range(len(cand) + 1)]
    for i in range(1, len(cand) + 1):
        for j in range(1, len(ref) + 1):
            table[i][j] = (table[i - 1][j - 1] + 1 if cand[i - 1] == ref[j - 1]
                           else max(table[i - 1][j], table[i][j - 1]))
    return table


def _lcs_backwards(cand, ref):
    """One longest common subsequence, last token first (as a walk back from the table's last cell finds it)."""
    L, found, i, j = _table(cand, ref), [], len(cand), len(ref)
    while i and j:
        if cand[i - 1] == ref[j - 1]:
            found.append(cand[i - 1])
            i, j = i - 1, j - 1
        elif L[i - 1][j] >= L[i][j - 1]:
            i -= 1
        else:
            j -= 1
    return found


def _lcs(cand, ref):
    return _lcs_backwards(cand, ref)[::-1]


def _greedy(cand, ref):
    """The first match met: each candidate token taken at its first occurrence after the last one taken."""
    found, start = [], 0
    for token in cand:
        if token in ref[start:]:
            start = ref.index(token, start) + 1
            found.append(token)
    return found


def _substring(cand, ref):
    best = []
    for i in range(len(cand)):
        for j in range(len(ref)):
            k = 0
            while i + k < len(cand) and j + k < len(ref) and cand[i + k] == ref[j + k]:
                k += 1
            best = cand[i:i + k] if k > len(best) else best
    return best


def _is_subsequence(seq, of) -> bool:
    it = iter(of)
    return all(any(token == other for other in it) for token in seq)


def _is_run(seq, of) -> bool:
    """`seq` occurs in `of` as neighbouring tokens."""
    return any(list(of[k:k + len(seq)]) == list(seq) for k in range(len(of) - len(seq) + 1))


def _same_lcs(got, want, args):
    """Any longest common subsequence passes; `want` is one (a slip's output when a slip is tried)."""
    cand, ref = args
    case = f"for {cand} and {ref}"
    if isinstance(got, str):
        raise Mismatch(f"{case} you return text ({got!r}): return the list of tokens")
    if not isinstance(got, (list, tuple)):
        raise Mismatch(f"{case} you return {type(got).__name__} {got!r}: return the tokens themselves, a list (the "
                       "length is lcs_length's job)")
    got = list(got)
    if got == list(want):
        return
    n = lcs_length(cand, ref)
    if len(got) == n > 1 and _is_subsequence(got[::-1], cand) and _is_subsequence(got[::-1], ref) \
            and not _is_subsequence(got, cand):
        raise Mismatch(f"{case} you return {got}: the right tokens, last first. A walk back from the table's last "
                       "cell collects them in reverse: turn the list round")
    if not _is_subsequence(got, cand):
        raise Mismatch(f"{case} you return {got}, which is not a subsequence of the candidate: its tokens in the "
                       "candidate's order, each used once")
    if not _is_subsequence(got, ref):
        raise Mismatch(f"{case} you return {got}, which is not in the reference's order: a common subsequence keeps "
                       "the order of both texts")
    if 1 < len(got) < n and _is_run(got, cand) and _is_run(got, ref):
        raise Mismatch(f"{case} you return {got}, neighbouring tokens in both (a common substring); a subsequence "
                       f"may skip tokens, and the longest here has {n}")
    if len(got) != n:
        raise Mismatch(f"{case} you return {got}, a common subsequence of {len(got)} tokens, but the longest has "
                       f"{n}: taking the first match you meet can block a longer chain")


# ------------------------------------------------------------------ 1.4 perplexity per word, over a corpus

def _corpus_cases(rng):
    """(texts, n_words) cases: texts are lists of token probabilities; a text has at least as many tokens as
    words (a tokenizer cuts words into pieces), and the texts differ in length."""
    texts = [[0.99, 0.85, 0.89, 0.99, 0.99, 0.99, 0.99, 0.99], [0.99, 0.65, 0.13, 0.05, 0.21, 0.99, 0.99, 0.99]]
    cases = [(texts, [6, 5]), ([[0.5], [0.25] * 9], [1, 4]), ([[0.9] * 3, [0.1] * 2, [0.6] * 10], [2, 2, 7]),
             ([[1.0, 1.0], [0.2]], [1, 1])]
    for _ in range(3):
        lengths = [rng.randint(1, 18) for _ in range(rng.randint(2, 4))]
        cases.append(([[round(rng.uniform(0.01, 1.0), 3) for _ in range(k)] for k in lengths],
                      [rng.randint(1, k) for k in lengths]))
    return cases


def _word_perplexity(texts, n_words):
    return math.exp(-sum(math.log(p) for text in texts for p in text) / sum(n_words))


def _logs(texts):
    return [[math.log(p) for p in text] for text in texts]


def _same_perplexity(got, want, args):
    texts, n_words = args
    case = f"for {len(texts)} texts of {[len(t) for t in texts]} tokens and {list(n_words)} words"
    value = _number(got, case)
    if not _close(value, want):
        raise Mismatch(f"{case} you return {value:.4f}, expected {want:.4f}")


