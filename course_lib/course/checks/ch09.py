"""Checkers for chapter 09, BERTScore in practice.

Every expected answer is computed here, from course_lib (scores, tokens) or from scipy
(bootstrap intervals), on several cases, never typed in.
"""
from __future__ import annotations

import numpy as np

from course_lib.caching import cached
from course_lib.evaluation import datasets

from . import ForbiddenCall, close, forbid, run
from .ch09_data import (FLAG_HINTS, QA_DIR, answers_9_4, edits_9_5, _flag_hint, _paired_cases,  # noqa: F401 (ch09.*)
                        _reference_ci)



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


@cached()
def _best_f(case: int) -> tuple:
    """course_lib's F of MULTI_REF_CASES[case], best over each candidate's references."""
    import course_lib

    cands, refs_lists = MULTI_REF_CASES[case]
    return tuple(course_lib.score(cands, refs_lists)[2].tolist())


def _one_reference_each(cands, refs, *args, **kwargs) -> bool:
    """A call of course_lib.score on plain (candidate, reference) pairs: every reference a string."""
    return all(isinstance(r, str) for r in refs)


def check_9_1(fn, hint: int = 1) -> bool:
    """Exercise 9.1: fn(cands, refs_lists) -> one F per candidate, its best over its references.

    course_lib.score is allowed on (candidate, reference) pairs, not on lists of references (that
    would be the answer itself)."""
    calls = []  # the allowed course_lib.score calls of one case

    def allowed(*args, **kwargs) -> bool:
        return _one_reference_each(*args, **kwargs) and not calls.append(1)

    guarded = forbid(fn, "course_lib.engine.scorer.score", "course_lib.engine.scorer.best_over_references",
                     allow=allowed)

    def answer(*args):
        try:
            return guarded(*args)
        except ForbiddenCall as err:
            raise ForbiddenCall(
                "your function gives course_lib.score a list of references per candidate, so the library takes "
                "the best over them: that step is what this exercise asks you to write yourself. course_lib.score "
                "on plain pairs (one reference string per candidate) is allowed.") from err

    def test():
        for case, (cands, refs_lists) in enumerate(MULTI_REF_CASES):
            calls.clear()
            got = _floats(answer(list(cands), [list(r) for r in refs_lists]))
            expected = _best_f(case)
            assert len(got) == len(cands), f"expected one F per candidate ({len(cands)}), got {len(got)}"
            for g, e, refs in zip(got, expected, refs_lists):
                assert close(g, e, 1e-5), (f"with {len(refs)} reference(s) the best F is {e:.4f}, "
                                           f"your function gave {g:.4f}")
            assert len(calls) <= 1, (
                f"right scores, but {len(calls)} course_lib.score calls for {len(cands)} candidates: flatten every "
                "(candidate, reference) pair into two lists and score them in one call (one model pass over all "
                "texts, batched), then cut the F's back into each candidate's slice")

    return run("9.1", test, "pair each candidate with each of its own references, score those (candidate, "
                            "reference) pairs -- one reference string each -- in one course_lib.score call, then "
                            "keep, for each candidate, the largest F among its own references (not the mean, not "
                            "only the first one).",
               code="flat_c = [c for c, refs in zip(cands, refs_lists) for _ in refs]; flat_r = [r for refs in "
                    "refs_lists for r in refs]; F = course_lib.score(flat_c, flat_r)[2]; then "
                    "F[start:start + len(refs)].max().item() for each candidate's slice", level=hint)


# ---------------------------------------------------------------- 9.2 paired bootstrap

def check_9_2(fn, hint: int = 1) -> bool:
    """Exercise 9.2: fn(f_a, f_b, seed) -> (low, high), a 95% paired bootstrap interval of mean(f_a - f_b).

    Any correct bootstrap (percentile or BCa, any seed) lands near the reference interval; an unpaired
    bootstrap is several times too wide; a t-interval (or any mean +- k * SE) is symmetric about the mean,
    where a bootstrap of the skewed case is lopsided."""

    def test():
        for name, f_a, f_b, skewed in _paired_cases():
            out = fn(f_a.copy(), f_b.copy(), 0)
            assert len(out) == 2, "return two numbers: (low, high)"
            low, high = (float(v) for v in out)
            ref_low, ref_high = _reference_ci(f_a, f_b)
            width = ref_high - ref_low
            tol = 0.35 if skewed else 0.2  # BCa moves a skewed interval further from the percentile one
            assert low < high, f"low ({low:.4f}) should be below high ({high:.4f})"
            mean, centre = float(np.mean(f_a - f_b)), (low + high) / 2
            if not low <= mean <= high and any(low <= float(np.mean(f)) <= high for f in (f_a, f_b)):
                raise AssertionError(f"case {name!r}: your interval [{low:.4f}, {high:.4f}] holds one system's mean "
                                     f"score, not the mean difference {mean:.4f}: the question is by how much a "
                                     "beats b on the same questions")
            if (high - low) > 1.8 * width and abs(centre - mean) < (high - low) / 2:
                raise AssertionError(f"case {name!r}: your interval is {(high - low) / width:.1f} times as wide as "
                                     "the paired one: did you resample the two systems' scores separately? Draw "
                                     "questions, each with both of its scores: a hard question lowers both, and "
                                     "the difference cancels it")
            assert abs(low - ref_low) <= tol * width and abs(high - ref_high) <= tol * width, (
                f"case {name!r}: the interval should be about [{ref_low:.4f}, {ref_high:.4f}], "
                f"yours is [{low:.4f}, {high:.4f}]")
            if skewed:
                assert high - mean > 1.2 * (mean - low), (
                    f"case {name!r}: your interval [{low:.4f}, {high:.4f}] is (nearly) symmetric about the mean "
                    f"difference {mean:.4f}; a bootstrap of these differences is not (a few big wins stretch "
                    f"the upper tail) -- did you use a t-interval or mean +- 1.96 SE instead of resampling?")

    return run("9.2", test, "bootstrap the per-question differences f_a - f_b (resample questions, keep "
                            "each question's two scores together), and read the interval from the resampled "
                            "means -- not from a formula.",
               code="res = scipy.stats.bootstrap((f_a - f_b,), np.mean, confidence_level=0.95, "
                    "rng=np.random.default_rng(seed)); return res.confidence_interval.low, "
                    "res.confidence_interval.high", level=hint)


# ---------------------------------------------------------------- 9.3 what truncation drops

def _truncation_cases(tokenizer):
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
    return (["The cat sat on the mat.", "", "cat " * 126, "cat " * 127, "cat " * 254, "cat " * 255, "cat " * 510,
             "cat " * 511, "cat " * 700, longest] + sneaky)


LIMITS_9_3 = (512, 256, 128)  # the model's positions, sentence-transformers' max_seq_length, a small window


def check_9_3(fn, tokenizer=None, hint: int = 1) -> bool:
    """Exercise 9.3: fn(text, tokenizer, limit) -> share of the text's word pieces that truncation to
    `limit` positions drops."""
    from course_lib.engine import long_text
    from course_lib.model import load

    tokenizer = tokenizer or load()[0]
    fn = forbid(fn, "course_lib.engine.long_text")

    def test():
        for limit in LIMITS_9_3:
            for text in _truncation_cases(tokenizer):
                n = len(long_text.word_pieces(tokenizer, text))
                expected = long_text.lost_fraction(n, limit)
                got = float(fn(text, tokenizer, limit))
                assert close(got, expected, 1e-9), (
                    f"limit {limit}: a text of {len(text.split())} words and {n} word pieces loses "
                    f"{expected:.4f} of its word pieces, your function says {got:.4f}")

    return run("9.3", test, "count word pieces (not words), and remember that [CLS] and [SEP] take 2 of "
                            "the `limit` positions.",
               code="n = len(tokenizer.tokenize(text)); return max(0, n - (limit - 2)) / n if n else 0.0",
               level=hint)


# ---------------------------------------------------------------- 9.4 lower R, keep P

@cached(4)
def _scores(cands: tuple, refs: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Raw P and R of course_lib.score(cands, refs) (default model and layer)."""
    import course_lib

    P, R, _ = course_lib.score(list(cands), list(refs))
    return P.numpy(), R.numpy()


def _words(text: str) -> list[str]:
    return text.split()


def check_9_4(student_fn, hint: int = 1) -> bool:
    """Exercise 9.4: `student_fn(answer, expected, filler)` -> (candidate, reference): a pair built from the
    texts whose mean raw R (over ch09.answers_9_4(), hidden fillers in grading mode) falls by at least 0.10 from
    R(answer, expected), while mean raw P moves by at most a quarter of that fall."""
    def test():
        answers, expected, fillers = answers_9_4()
        pairs = [student_fn(a, e, f) for a, e, f in zip(answers, expected, fillers)]
        assert all(isinstance(p, (tuple, list)) and len(p) == 2 for p in pairs), (
            "return a pair of texts: (candidate, reference)")
        assert all(isinstance(t, str) for p in pairs for t in p), "the candidate and the reference are strings"
        cands, refs = (tuple(t.strip() for t in texts) for texts in zip(*pairs))
        assert all(cands) and all(refs), ("an empty candidate or reference scores 0 by convention: P falls with R. "
                                          "Keep text on both sides")
        P0, R0 = _scores(tuple(answers), tuple(expected))
        P1, R1 = _scores(cands, refs)
        r_fall, p_move = float((R0 - R1).mean()), float((P1 - P0).mean())
        seen = f"mean raw R fell by {r_fall:.3f}, mean raw P moved by {p_move:+.3f}"
        if r_fall >= 0.10 and abs(p_move) <= r_fall / 4:
            return
        same_ref = refs == tuple(expected)
        if cands == tuple(answers) and same_ref:
            raise AssertionError(f"{seen}: your pairs are the original ones; edit one of the two texts")
        if cands == tuple(expected) and refs == tuple(answers):
            raise AssertionError(f"{seen}: you swapped candidate and reference, which swaps P and R: R now is the "
                                 "old P, and P the old R. Keep the answer as the candidate")
        if cands == tuple(fillers) or refs == tuple(fillers):
            raise AssertionError(f"{seen}: you replaced a text by the filler, so the answer's tokens lose their "
                                 "matches and P falls with R. Keep the answer and what it matches; *add* what only "
                                 "one side misses")
        if same_ref and all(a in c and f in c for c, a, f in zip(cands, answers, fillers)):
            raise AssertionError(f"{seen}: you padded the answer, the verbose system's shape (section 1): extra tokens "
                                 "in the *candidate* have nothing to match, and P pays. R averages over the other "
                                 "text's tokens")
        if same_ref and all(set(_words(c)) <= set(_words(a)) for c, a in zip(cands, answers)):
            raise AssertionError(f"{seen}: you cut the answer. R falls, but P moves too: the words you keep lose "
                                 "part of their context. R averages over the *reference's* tokens: what could the "
                                 "reference hold that nothing in the answer matches?")
        raise AssertionError(f"{seen}; R must fall by at least 0.10 while P moves by at most a quarter of that")

    return run("9.4", test, "recall averages over the reference's tokens, each one's best match in the candidate; "
                            "precision averages over the candidate's tokens. Give one side tokens that find nothing "
                            "on the other, and only R should notice.",
               code='return answer, expected + " " + filler  # the reference gains tokens the answer cannot match',
               level=hint)


# ---------------------------------------------------------------- 9.5 a guard for what BERTScore misses

def _flags(student_fn, edits) -> list[bool]:
    flags = []
    for original, edited in zip(edits["original"], edits["edited"]):
        flag = student_fn(original, edited)
        if isinstance(flag, str):
            raise AssertionError(f"your guard returned the string {flag!r}: return True or False (the string "
                                 "\"False\" counts as true)")
        assert isinstance(flag, (bool, np.bool_)) or flag in (0, 1), (
            f"your guard returned {flag!r}: return True (flag the edit) or False")
        flags.append(bool(flag))
    return flags


def check_9_5(student_fn, hint: int = 1) -> bool:
    """Exercise 9.5: `student_fn(original, edited)` -> True when the edit changes the meaning. On ch09.edits_9_5()
    (a hidden sample in grading mode) it must flag at least 10 of the 12 edits of each kind (numbers, names,
    negation) and at most 10% of the true paraphrases."""
    def test():
        edits = edits_9_5().copy()
        edits["flag"] = _flags(student_fn, edits)
        n_edits = int((edits["kind"] != "paraphrase").sum())
        assert edits["flag"].any(), f"your guard flags nothing, none of the {n_edits} edits"
        rate = edits.groupby("kind")["flag"].agg(["sum", "size"])
        for kind in ("numbers", "names", "negation"):
            hit, n = rate.loc[kind]
            assert hit >= n - 2, (f"your guard flags {hit} of the {n} {kind} edits: "
                                  f"{_flag_hint(student_fn, edits, kind)}")
        hit, n = rate.loc["paraphrase"]
        if hit > 0.1 * n:
            o, e = edits.loc[(edits["kind"] == "paraphrase") & edits["flag"], ["original", "edited"]].iloc[0]
            raise AssertionError(f"your guard flags {hit} of the {n} true paraphrases{' (all)' if hit == n else ''}, "
                                 f"e.g. {o!r} | {e!r}: {FLAG_HINTS['paraphrase']}")

    return run("9.5", test, "BERTScore keeps its score because every token still finds a match somewhere: a swap "
                            "changes only *where* numbers and names stand, a negation adds one word. Check exactly "
                            "those: the order of the numbers and names, and the count of negations.",
               code="negations = lambda t: len(re.findall(r\"\\bnot\\b|n't\", t)); slot = r\"\\d+|\\b[A-Z]\\w*\"; "
                    "return negations(original) != negations(edited) or (re.sub(slot, '_', original) == "
                    "re.sub(slot, '_', edited) and re.findall(slot, original) != re.findall(slot, edited))",
               level=hint)
