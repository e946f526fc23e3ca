"""Chapter 09's fresh data for exercises 9.4 and 9.5 (in grading mode, drawn with the grading seed):
answers padded with true off-topic text, and automatic meaning edits of WMT16 references. `checks.ch09`
imports these names."""
from __future__ import annotations

import re
from functools import lru_cache

import pandas as pd

from course_lib.evaluation import datasets
from course_lib.paths import DATA

from . import grading, hidden_rng

QA_DIR = "practice"


def _qa_frame():
    questions = pd.read_csv(DATA / QA_DIR / "qa_questions.csv")
    answers = pd.read_csv(DATA / QA_DIR / "qa_answers.csv")
    return answers.merge(questions, on="qid")


def padded_answers() -> tuple[list[str], list[str], list[str]]:
    """Fresh data for 9.4: (grounded answers, padded answers, expected answers), in question order. A padded
    answer is the grounded answer followed by the expected answer of the next question (true, off-topic); in
    grading mode, by the expected answers of two other questions drawn with the grading seed (hidden data)."""
    qa = _qa_frame()
    grounded = qa[qa["system"] == "grounded"].sort_values("qid")
    expected = grounded["expected"].tolist()
    padded = [f"{a} {expected[(i + 1) % len(expected)]}" for i, a in enumerate(grounded["answer"])]
    if grading():  # hidden data: two other questions' expected answers appended, drawn with the grading seed
        rng = hidden_rng("9.4")
        padded = [" ".join([a] + [expected[j] for j in rng.sample([j for j in range(len(expected)) if j != i], 2)])
                  for i, a in enumerate(grounded["answer"])]
    return grounded["answer"].tolist(), padded, expected


_NUMBER = r"(?<![\w.,])\d+(?:[.,]\d+)?(?![\w]|[.,]\d)"  # 45, 2,000, 24.5 as one number each


@lru_cache(maxsize=1)
def edits_9_5(per_kind: int = 12):
    """Fresh data for 9.5: automatic edits (kind, original, edited) of WMT16 references that section 7 does not use:
    swap the only 2 numbers, put "not" after the only is/was/are/were, swap the only 2 capitalised words (names)."""
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
    edits = edits.groupby("kind").sample(per_kind, random_state=seed)  # then shuffled: no kind in a block
    return edits.sample(frac=1, random_state=seed).reset_index(drop=True)
