"""Checkers for chapter 01 (lexical metrics). Expected values come from course_lib's BLEU, ROUGE and
perplexity (which equal sacrebleu and rouge-score), computed on several cases each time."""
from __future__ import annotations

import random

from course_lib.lexical.bleu import brevity_penalty, modified_precision
from course_lib.lexical.perplexity import perplexity
from course_lib.lexical.rouge import lcs_length, rouge_l, rouge_n, tokenize

from . import close, forbid, run

# (candidate, reference) pairs, tokenized by whitespace in 1.1 and by ROUGE's tokenizer in 1.3
PAIRS = [
    ("the the the the the the the", "the cat is on the mat"),
    ("the the the cat on the mat", "the cat is sitting on the mat near the door"),
    ("the cat sat on the mat", "the cat is on the mat"),
    ("a b a b a b c", "a a b c c"),
    ("consumers prefer imported cars", "people like foreign cars"),
    ("the mat sat on the cat", "the cat sat on the mat"),
]


def _clipped(cand_tokens, ref_tokens):
    matches, total = modified_precision(cand_tokens, [ref_tokens], 1)
    return matches / total


def check_1_1(clipped_unigram_precision, hint: int = 1) -> bool:
    """clipped_unigram_precision(cand_tokens, ref_tokens) -> float in [0, 1]."""
    clipped_unigram_precision = forbid(clipped_unigram_precision, "course_lib.lexical.bleu")

    def test():
        for cand, ref in PAIRS:
            c, r = cand.split(), ref.split()
            got, want = clipped_unigram_precision(c, r), _clipped(c, r)
            assert close(got, want), f"for {cand!r} vs {ref!r} you return {float(got):.4f}, expected {want:.4f}"
    return run("1.1", test, "count each candidate word at most as often as it occurs in the reference, "
                            "then divide by the number of candidate words.",
               code="cand, ref = Counter(cand_tokens), Counter(ref_tokens); "
                    "return sum(min(n, ref[w]) for w, n in cand.items()) / len(cand_tokens)", level=hint)


def check_1_2(bp, hint: int = 1) -> bool:
    """bp(c, r) -> brevity penalty for candidate length c and reference length r (c >= 1)."""
    cases = [(10, 8), (8, 8), (8, 10), (7, 10), (3, 12), (1, 2), (20, 21)]
    bp = forbid(bp, "course_lib.lexical.bleu")

    def test():
        for c, r in cases:
            got, want = bp(c, r), brevity_penalty(c, r)
            assert close(got, want), f"bp(c={c}, r={r}) = {float(got):.4f}, expected {want:.4f}"
    return run("1.2", test, "BP = 1 when the candidate is at least as long as the reference (c >= r); "
                            "a shorter candidate is penalised, the more the shorter it is.",
               code="return 1.0 if c >= r else math.exp(1 - r / c)", level=hint)


def check_1_3(rouge_l_from_lcs, hint: int = 1) -> bool:
    """rouge_l_from_lcs(lcs, cand_len, ref_len) -> (precision, recall, f1)."""
    rouge_l_from_lcs = forbid(rouge_l_from_lcs, "course_lib.lexical.rouge.rouge_l")

    def test():
        for cand, ref in PAIRS + [("the cat", "the cat sat on the mat")]:
            c, r = tokenize(cand), tokenize(ref)
            got = tuple(float(x) for x in rouge_l_from_lcs(lcs_length(c, r), len(c), len(r)))
            want = tuple(rouge_l(cand, ref))
            assert len(got) == 3, "return three numbers: (precision, recall, f1)"
            names = ("precision", "recall", "f1")
            for name, g, w in zip(names, got, want):
                assert close(g, w), (f"{name} for LCS={lcs_length(c, r)}, {len(c)} candidate and {len(r)} "
                                     f"reference tokens is {g:.4f}, expected {w:.4f}")
    return run("1.3", test, "precision divides the LCS length by the candidate's length, recall by the "
                            "reference's; F1 is their harmonic mean.",
               code="p, r = lcs / cand_len, lcs / ref_len; return p, r, (2 * p * r / (p + r) if p + r else 0.0)",
               level=hint)


def check_1_4(my_perplexity, hint: int = 1) -> bool:
    """my_perplexity(token_probs) -> float."""
    rng = random.Random(1)
    cases = [[0.99, 0.85, 0.89, 0.99, 0.99, 0.99, 0.99, 0.99],
             [0.99, 0.65, 0.13, 0.05, 0.21, 0.99, 0.99, 0.99],
             [0.25] * 5, [1.0, 1.0, 1.0], [0.5],
             [round(rng.uniform(0.01, 1.0), 3) for _ in range(12)]]
    my_perplexity = forbid(my_perplexity, "course_lib.lexical.perplexity")

    def test():
        for probs in cases:
            got, want = my_perplexity(list(probs)), perplexity(probs)
            assert close(got, want, 1e-9), f"for {probs} you return {float(got):.4f}, expected {want:.4f}"
    return run("1.4", test, "perplexity is the inverse of the geometric mean of the probabilities "
                            "(not of their arithmetic mean).",
               code="return math.exp(-sum(math.log(p) for p in probs) / len(probs))", level=hint)


CARS_REFERENCE = "people like foreign cars"
CARS_CANDIDATES = {"A": "Consumers prefer imported cars.", "B": "People like visiting places abroad."}


def rouge1_preference() -> str:
    """The label ("A" or "B") of the candidate with the higher ROUGE-1 F1 against CARS_REFERENCE."""
    f = {k: rouge_n(c, CARS_REFERENCE, 1).fmeasure for k, c in CARS_CANDIDATES.items()}
    return max(f, key=f.get)


def check_1_5(answer, hint: int = 1) -> bool:
    """answer: "A" or "B", the candidate ROUGE-1 F1 prefers."""
    def test():
        assert answer is not None, "set answer_1_5 to \"A\" or \"B\""
        assert str(answer).strip().upper() in CARS_CANDIDATES, "answer with \"A\" or \"B\""
        assert str(answer).strip().upper() == rouge1_preference(), "that is the other one"
    return run("1.5", test, "ROUGE lowercases and drops punctuation, then counts shared words.",
               code="compare rouge_n(c, ch01.CARS_REFERENCE, 1).fmeasure for both candidates (the ROUGE-1 "
                    "column of the failure table).", level=hint)

