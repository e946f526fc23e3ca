"""Chapter 09's cases for exercise 9.2 (paired scores, one set skewed; the reference interval) and fresh data for
exercises 9.4 and 9.5 (in grading mode, drawn with the grading seed): answers with an off-topic true filler each,
and automatic meaning edits of WMT16 references beside true paraphrases; and the hints that name 9.5's common
slips. `checks.ch09` imports these names."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from course_lib.caching import cached
from course_lib.evaluation import datasets
from course_lib.paths import DATA

from . import grading, hidden_rng

QA_DIR = "practice"


def _qa_frame():
    questions = pd.read_csv(DATA / QA_DIR / "qa_questions.csv")
    answers = pd.read_csv(DATA / QA_DIR / "qa_answers.csv")
    return answers.merge(questions, on="qid")


def answers_9_4() -> tuple[list[str], list[str], list[str]]:
    """Fresh data for 9.4: (grounded answers, expected answers, fillers), in question order. A filler is a true
    sentence off the question's topic: the expected answer of the next question; in grading mode, of another
    question drawn with the grading seed (hidden data)."""
    qa = _qa_frame()
    grounded = qa[qa["system"] == "grounded"].sort_values("qid")
    expected = grounded["expected"].tolist()
    others = [(i + 1) % len(expected) for i in range(len(expected))]
    if grading():
        rng = hidden_rng("9.4")
        others = [rng.choice([j for j in range(len(expected)) if j not in (i, (i + 1) % len(expected))])
                  for i in range(len(expected))]
    return grounded["answer"].tolist(), expected, [expected[j] for j in others]


_NUMBER = r"(?<![\w.,])\d+(?:[.,]\d+)?(?![\w]|[.,]\d)"  # 45, 2,000, 24.5 as one number each


def _paraphrases(n: int, seed: int) -> list[tuple[str, str]]:
    """n true paraphrases (original, paraphrase): STS-B pairs rated 5 ("completely equivalent", 8 words or more)
    and PAWS-Wiki pairs labelled paraphrase, half each, none of section 7's samples, no pair of two equal texts."""
    sts = datasets.stsb()
    sts = sts[(sts["score"] == 5.0) & (sts["sentence1"].str.split().str.len() >= 8)]
    paws = datasets.paws()
    paws = paws[paws["label"] == 1]
    shown = set(sts.sample(25, random_state=0)["sentence1"]) | set(paws.sample(25, random_state=0)["sentence1"])
    rows = []
    for frame in (sts, paws):
        fresh = frame[~frame["sentence1"].isin(shown) & (frame["sentence1"] != frame["sentence2"])]
        rows += fresh.sample(n // 2, random_state=seed)[
            ["sentence1", "sentence2"]].itertuples(index=False)
    return [tuple(r) for r in rows]


@cached(1)
def edits_9_5(per_kind: int = 12):
    """Fresh data for 9.5: (kind, original, edited) rows. Automatic edits of WMT16 references that section 7 does
    not use: swap the only 2 numbers, put "not" after the only is/was/are/were, swap the only 2 capitalised words
    (names); and 3 * per_kind true paraphrases (kind "paraphrase", see _paraphrases) that a guard must let pass."""
    used = set(pd.read_csv(DATA / QA_DIR / "meaning_edits.csv")["original"])
    swap = lambda s, pattern, a, b: re.sub(pattern, lambda m: b if m.group(0) == a else a, s)  # noqa: E731
    rows = []
    for s in datasets.wmt16()["ref"].drop_duplicates():
        if s in used or not 8 <= len(s.split()) <= 40 or s[0].isdigit():
            continue
        nums, verbs = re.findall(_NUMBER, s), re.findall(r"\b(?:is|was|are|were)\b", s)
        caps = [w for w in (w.strip(",.;:'\"") for w in s.split()[1:] if w[:1].isupper())
                if w.isalpha() and len(w) > 2 and s.count(w) == 1]
        if len(nums) == 2 and nums[0] != nums[1]:
            rows.append(("numbers", s, swap(s, _NUMBER, *nums)))
        elif len(verbs) == 1 and " not " not in s and "n't" not in s:
            rows.append(("negation", s, re.sub(r"\b(is|was|are|were)\b", r"\1 not", s)))
        elif len(caps) == 2 and caps[0] != caps[1]:
            rows.append(("names", s, swap(s, rf"\b(?:{caps[0]}|{caps[1]})\b", *caps)))
    edits = pd.DataFrame(rows, columns=["kind", "original", "edited"])
    seed = hidden_rng("9.5").randrange(2 ** 32) if grading() else 95  # grading mode: a hidden sample
    edits = edits.groupby("kind").sample(per_kind, random_state=seed)
    kept = pd.DataFrame([("paraphrase", o, e) for o, e in _paraphrases(3 * per_kind, seed)], columns=edits.columns)
    return pd.concat([edits, kept]).sample(frac=1, random_state=seed).reset_index(drop=True)  # no kind in a block


FLAG_HINTS = {
    "numbers": "a swap of two numbers keeps the same numbers: compared as a set (as section 8.2 does) they are "
               "equal, just as BERTScore's greedy matching finds each number wherever it stands. Compare them in "
               "order",
    "names": "a swap of two names keeps the same names: compare them in order, not as a set",
    "negation": "a negation adds (or removes) one word, \"not\": count the negations on each side",
    "paraphrase": "a reworded sentence moves its names and numbers together with the words around them, a swap "
                  "moves only them and leaves every other word in place: flag a changed order only when the rest "
                  "of the sentence is the same",
}

PUNCTUATION_HINT = ("punctuation stuck to a {item}: {missed} of the edits your guard misses have one (\"Paris.\" "
                    "beside \"Paris\", \"12,\" beside \"12\"). Split into words, a {item} with its comma or full "
                    "stop is another string, so the swapped {kind} no longer look like the same ones: take each {item} "
                    "without the punctuation beside it")


def _detached(text: str) -> str:
    """`text` with punctuation set off from the word it touches by a space ("Paris." -> "Paris ."), inner
    punctuation of numbers ("3.5", "1,000") kept."""
    text = re.sub(r"(?<=\w)([.,;:!?)\]\"']+)(?=\s|$)", r" \1", text)
    return re.sub(r"(^|\s)([(\[\"']+)(?=\w)", r"\1\2 ", text)


def _flag_hint(student_fn, edits, kind: str) -> str:
    """The hint for a guard that misses `kind` edits: punctuation stuck to names or numbers when the guard flags
    the missed edits once punctuation is set off from the words (and the data has such edits), else FLAG_HINTS."""
    missed = edits[(edits["kind"] == kind) & ~edits["flag"]]
    if kind in ("numbers", "names"):
        def flags(o, e):
            try:
                return bool(student_fn(_detached(o), _detached(e)))
            except Exception:  # a student's guard may fail on other text: no evidence either way
                return False
        now = sum(flags(o, e) for o, e in zip(missed["original"], missed["edited"]) if _detached(o) != o)
        if now >= max(1, (len(missed) + 1) // 2):
            item = "name" if kind == "names" else "number"
            return PUNCTUATION_HINT.format(missed=now, kind=kind, item=item)
    return FLAG_HINTS[kind]


# ---------------------------------------------------------------- 9.2 paired bootstrap

def _paired_cases():
    """(name, f_a, f_b, skewed) cases for 9.2. In the skewed case system a wins big on two questions and ties
    on the rest: a bootstrap interval is lopsided there (longer above the mean), a t-interval is not."""
    rng = np.random.default_rng(2024)
    cases = []
    for n, shift, spread in ((24, 0.05, 0.02), (40, -0.03, 0.03), (60, 0.0, 0.05)):
        base = rng.normal(0.5, 0.25, n)  # the questions differ a lot in difficulty...
        cases.append((f"{n} questions", base + rng.normal(shift, spread, n), base, False))  # ...the systems little
    rng = np.random.default_rng(2025)
    base = rng.normal(0.5, 0.25, 16)
    diff = rng.normal(0.0, 0.02, 16)
    diff[[3, 11]] += [0.45, 0.5]
    cases.append(("16 questions, system a far better on two of them", base + diff, base, True))
    return cases


def _reference_ci(f_a, f_b, seed: int = 12345, n_resamples: int = 20000):
    """95% percentile bootstrap interval of mean(f_a - f_b), resampling the paired items."""
    from scipy.stats import bootstrap

    diff = np.asarray(f_a, dtype=float) - np.asarray(f_b, dtype=float)
    res = bootstrap((diff,), np.mean, n_resamples=n_resamples, confidence_level=0.95,
                    method="percentile", rng=np.random.default_rng(seed))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)
