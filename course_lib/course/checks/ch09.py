"""Checkers for chapter 09, BERTScore in practice.

Every expected answer is computed here, from course_lib (scores, tokens) or from scipy
(bootstrap intervals), on several cases, never typed in.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from . import close, forbid, run

QA_DIR = "practice"


def _floats(values) -> np.ndarray:
    """A list / tuple / numpy array / torch tensor of numbers -> 1-d float array."""
    if hasattr(values, "detach"):
        values = values.detach().cpu().numpy()
    return np.asarray([float(v) for v in np.asarray(values).reshape(-1)], dtype=float)


# ---------------------------------------------------------------- 9.1 several references

MULTI_REF_CASES = [
    (["The cat sat on the mat.", "It is freezing today."],
     [["The dog barked at the mailman.", "A cat rested on a mat."],
      ["The weather is cold today.", "It is cold.", "Stocks fell sharply on Monday."]]),
    (["Jupiter.", "The Amazon is the longest river in South America."],
     [["Jupiter is the largest planet in the Solar System.", "Jupiter."],
      ["The Amazon is the longest river in South America."]]),
    (["The bank was full of customers."],
     [["The financial institution was crowded with clients.", "Customers filled the bank.",
       "The riverside was empty."]]),
]


@lru_cache(maxsize=None)
def _best_f(case: int) -> tuple:
    """course_lib's F of MULTI_REF_CASES[case], best over each candidate's references."""
    import course_lib

    cands, refs_lists = MULTI_REF_CASES[case]
    return tuple(course_lib.score(cands, refs_lists)[2].tolist())


def _one_reference_each(cands, refs, *args, **kwargs) -> bool:
    """A call of course_lib.score on plain (candidate, reference) pairs: every reference a string."""
    return all(isinstance(r, str) for r in refs)


def check_best_reference_f(fn, hint: int = 1) -> bool:
    """Exercise 9.1: fn(cands, refs_lists) -> one F per candidate, its best over its references.

    course_lib.score is allowed on (candidate, reference) pairs, not on lists of references (that
    would be the answer itself)."""
    fn = forbid(fn, "course_lib.engine.scorer.score", "course_lib.engine.scorer.best_over_references",
                allow=_one_reference_each)

    def test():
        for case, (cands, refs_lists) in enumerate(MULTI_REF_CASES):
            got = _floats(fn(list(cands), [list(r) for r in refs_lists]))
            expected = _best_f(case)
            assert len(got) == len(cands), f"expected one F per candidate ({len(cands)}), got {len(got)}"
            for g, e, refs in zip(got, expected, refs_lists):
                assert close(g, e, 1e-5), (f"with {len(refs)} reference(s) the best F is {e:.4f}, "
                                           f"your function gave {g:.4f}")

    return run("9.1", test, "score every (candidate, reference) pair with course_lib.score, then keep, "
                            "for each candidate, the largest F among its own references (not the mean, "
                            "not only the first one).",
               code="flat_c = [c for c, refs in zip(cands, refs_lists) for _ in refs]; flat_r = [r for refs in "
                    "refs_lists for r in refs]; F = course_lib.score(flat_c, flat_r)[2]; then "
                    "F[start:start + len(refs)].max().item() for each candidate's slice", level=hint)


# ---------------------------------------------------------------- 9.2 paired bootstrap

def _paired_cases():
    rng = np.random.default_rng(2024)
    cases = []
    for n, shift, spread in ((24, 0.05, 0.02), (40, -0.03, 0.03), (60, 0.0, 0.05)):
        base = rng.normal(0.5, 0.25, n)  # the questions differ a lot in difficulty...
        cases.append((base + rng.normal(shift, spread, n), base))  # ...the systems little
    return cases


def reference_ci(f_a, f_b, seed: int = 12345, n_resamples: int = 5000):
    """95% percentile bootstrap interval of mean(f_a - f_b), resampling the paired items."""
    from scipy.stats import bootstrap

    diff = _floats(f_a) - _floats(f_b)
    res = bootstrap((diff,), np.mean, n_resamples=n_resamples, confidence_level=0.95,
                    method="percentile", rng=np.random.default_rng(seed))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def check_paired_difference_ci(fn, hint: int = 1) -> bool:
    """Exercise 9.2: fn(f_a, f_b, seed) -> (low, high), a 95% interval of mean(f_a - f_b).

    Any correct bootstrap (percentile or BCa, any seed) lands within a fifth of the interval's
    width of the reference; an unpaired bootstrap is several times too wide."""

    def test():
        for f_a, f_b in _paired_cases():
            out = fn(f_a.copy(), f_b.copy(), 0)
            assert len(out) == 2, "return two numbers: (low, high)"
            low, high = (float(v) for v in out)
            ref_low, ref_high = reference_ci(f_a, f_b)
            width = ref_high - ref_low
            assert low < high, f"low ({low:.4f}) should be below high ({high:.4f})"
            assert abs(low - ref_low) <= 0.2 * width and abs(high - ref_high) <= 0.2 * width, (
                f"for {len(f_a)} paired scores the interval should be about [{ref_low:.4f}, {ref_high:.4f}], "
                f"yours is [{low:.4f}, {high:.4f}]")

    return run("9.2", test, "bootstrap the per-question differences f_a - f_b (resample questions, keep "
                            "each question's two scores together).",
               code="res = scipy.stats.bootstrap((f_a - f_b,), np.mean, confidence_level=0.95, "
                    "rng=np.random.default_rng(seed)); return res.confidence_interval.low, "
                    "res.confidence_interval.high", level=hint)


# ---------------------------------------------------------------- 9.3 what truncation drops

def _truncation_cases(tokenizer):
    from course_lib.evaluation import datasets

    docs, _ = datasets.summeval()
    words = docs["src"].str.split().str.len()
    # documents with fewer than 500 words but more than 510 word pieces: words are not tokens
    sneaky = []
    for text in docs["src"][words < 500].sort_values(key=lambda t: -t.str.len()):
        if len(tokenizer.tokenize(text)) > 530:
            sneaky.append(text)
        if len(sneaky) == 2:
            break
    longest = docs["src"][words.idxmax()]
    return ["The cat sat on the mat.", "cat " * 510, "cat " * 511, "cat " * 700, longest] + sneaky


def check_truncated_fraction(fn, tokenizer=None, hint: int = 1) -> bool:
    """Exercise 9.3: fn(text, tokenizer) -> share of the text's word pieces that truncation drops."""
    from course_lib.engine import long_text
    from course_lib.model import load

    tokenizer = tokenizer or load()[0]
    fn = forbid(fn, "course_lib.engine.long_text")

    def test():
        limit = long_text.model_limit(tokenizer)
        for text in _truncation_cases(tokenizer):
            n = len(long_text.word_pieces(tokenizer, text))
            expected = long_text.lost_fraction(n, limit)
            got = float(fn(text, tokenizer))
            assert close(got, expected, 1e-9), (
                f"a text of {len(text.split())} words and {n} word pieces loses {expected:.4f} "
                f"of its word pieces, your function says {got:.4f}")

    return run("9.3", test, "count word pieces (not words), and remember that [CLS] and [SEP] take 2 of "
                            "the model's positions.",
               code="n = len(tokenizer.tokenize(text)); return max(0, n - (tokenizer.model_max_length - 2)) / n",
               level=hint)


# ---------------------------------------------------------------- 9.4 / 9.5 questions

def _qa_frame():
    import pandas as pd

    from course_lib.teaching.notebook import DATA

    questions = pd.read_csv(DATA / QA_DIR / "qa_questions.csv")
    answers = pd.read_csv(DATA / QA_DIR / "qa_answers.csv")
    return answers.merge(questions, on="qid")


@lru_cache(maxsize=1)
def expected_9_4() -> str:
    """Which of P and R is higher, on average, for the verbose system's answers."""
    import course_lib

    qa = _qa_frame()
    verbose = qa[qa["system"] == "verbose"]
    P, R, _ = course_lib.score(verbose["answer"].tolist(), verbose["expected"].tolist())
    return "recall" if R.mean() > P.mean() else "precision"


def check_answer_9_4(answer, hint: int = 1) -> bool:
    """Exercise 9.4: "precision" or "recall"."""

    def test():
        assert isinstance(answer, str), 'set answer_9_4 to a string: "precision" or "recall"'
        got = answer.strip().lower()
        assert got in ("precision", "recall"), 'answer "precision" or "recall"'
        assert got == expected_9_4(), ("compare the verbose system's mean P and mean R: which side's "
                                       "tokens all find a close match?")

    return run("9.4", test, "each reference token looks for its best match in the answer (recall); "
                            "each answer token looks for its best match in the reference (precision).",
               code="compare the verbose system's mean P and mean R in the table of section 1.", level=hint)


@lru_cache(maxsize=1)
def expected_9_5() -> str:
    """The kind of meaning-changing edit with the highest mean F (the one BERTScore notices least)."""
    import pandas as pd

    import course_lib
    from course_lib.teaching.notebook import DATA

    edits = pd.read_csv(DATA / QA_DIR / "meaning_edits.csv")
    _, _, F = course_lib.score(edits["edited"].tolist(), edits["original"].tolist())
    return str(edits.assign(F=F.numpy()).groupby("kind")["F"].mean().idxmax())


def check_answer_9_5(answer, hint: int = 1) -> bool:
    """Exercise 9.5: "negation", "numbers" or "names"."""

    def test():
        assert isinstance(answer, str), 'set answer_9_5 to a string: "negation", "numbers" or "names"'
        got = answer.strip().lower()
        assert got in ("negation", "numbers", "names"), 'answer "negation", "numbers" or "names"'
        assert got == expected_9_5(), "look again at the mean F of each kind of edit in the table above"

    return run("9.5", test, "the edit that BERTScore notices least is the one whose edited sentences keep "
                            "the highest F against their originals.",
               code="edits.groupby(\"kind\")[\"F\"].mean().idxmax()", level=hint)
