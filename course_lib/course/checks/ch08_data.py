"""Chapter 08's data for exercise 8.4 (does sentence order matter?): SummEval summaries and references
from articles the chapter never scores, the published ones or, in grading mode, a draw from the grading
seed on which the published answer fails. `checks.ch08` imports these names."""
from __future__ import annotations

import numpy as np

from course_lib.caching import cached
from course_lib.evaluation import datasets

from . import grading, hidden_rng


def sentences(text: str) -> list[str]:
    """A SummEval summary's sentences (split after ., ! or ? followed by a space)."""
    import re

    return [s for s in re.split(r"(?<=[.!?])\s+", str(text).strip()) if s]


def order_test_data(n: int = 40) -> tuple[list[str], list[str]]:
    """Fresh data for 8.4: (summaries, references). One summary of at least three sentences for each of
    the first n SummEval articles from article 51 on (chapter 08 scores only articles 1-50), against
    that article's first reference. In grading mode, hidden data drawn with the grading seed
    (`_hidden_seed_8_4`)."""
    summaries, refs = _order_data(n, _hidden_seed_8_4(n) if grading() else None)
    return list(summaries), list(refs)  # copies: the cached lists stay as drawn


@cached()
def _order_data(n: int, seed: int | None) -> tuple[list[str], list[str]]:
    """order_test_data's rows: seed None, the published ones (each article's first summary and first
    reference); a seed, a seeded summary of each article against a seeded one of its references."""
    docs, summaries = datasets.summeval()
    later = docs.iloc[50:]
    part = summaries[summaries["doc_id"].isin(later["doc_id"])]
    part = part[part["summary"].map(lambda t: len(sentences(t)) >= 3)]
    if seed is not None:
        part = part.sample(frac=1, random_state=seed).groupby("doc_id", sort=False).head(1).head(n)
        rng = np.random.default_rng(seed)
        ref_of = {d: refs[int(rng.integers(len(refs)))] for d, refs in zip(docs["doc_id"], docs["refs"])}
        return part["summary"].tolist(), [ref_of[d] for d in part["doc_id"]]
    part = part.groupby("doc_id").head(1).head(n)
    first_ref = {d: refs[0] for d, refs in zip(docs["doc_id"], docs["refs"])}
    return part["summary"].tolist(), [first_ref[d] for d in part["doc_id"]]


def _f_drop(summaries, refs) -> float:
    """BERTScore F's mean relative drop, (before - after) / before per summary, when the sentences of each
    summary are reversed."""
    return _f_drops(tuple(summaries), tuple(refs))[0]


def _f_abs_drop_8_4() -> float:
    """BERTScore F's mean absolute drop, before - after, on order_test_data() (a slip check_8_4 names)."""
    return _f_drops(*map(tuple, order_test_data()))[1]


@cached(4)
def _f_drops(summaries: tuple[str, ...], refs: tuple[str, ...]) -> tuple[float, float]:
    """(mean relative drop, mean absolute drop) of BERTScore F when each summary's sentences are reversed."""
    import course_lib

    reversed_ = [" ".join(sentences(s)[::-1]) for s in summaries]
    before, after = course_lib.score(list(summaries), list(refs))[2], course_lib.score(reversed_, list(refs))[2]
    return float(((before - after) / before).mean()), float((before - after).mean())


def _tolerance_8_4(want: float) -> float:
    """How far f_drop_8_4 may be from the right value. Learning: 25% of it (plus 0.002). Grading: 2% (plus
    1e-4) -- the drop moves by about 30% from one set of summaries to another, so the learning tolerance
    would let the published number pass on hidden data; the right code gives the value to about 1e-6."""
    return 0.02 * abs(want) + 1e-4 if grading() else 0.25 * abs(want) + 0.002


@cached()
def _hidden_seed_8_4(n: int) -> int:
    """The grading seed's draw for 8.4, drawn again while the published drop would pass on it."""
    published = _f_drop(*_order_data(n, None))
    rng = hidden_rng("8.4")
    while True:
        seed = rng.randrange(2 ** 31)
        want = _f_drop(*_order_data(n, seed))
        if abs(published - want) > _tolerance_8_4(want):
            return seed
