"""Chapter 05's cases for exercise 5.3 (which references weigh nothing when idf comes from them): reference
sets the chapter never prints (drawn from the check's seed), the answer computed from course_lib's idf, and what
each common slip returns, by the mistake's name, for the hint that names it; and how 5.3's indices and 5.4's pair are
compared (`_same_indices`, `_same_pair`). `checks.ch05` imports these names."""
from __future__ import annotations

import math
import numbers
from collections import Counter

from .compare import Mismatch

# What 5.3's function may not call: anything that scores (the NaN recalls would be read off, not thought).
SCORERS_5_3 = ("course_lib.engine.scorer.score", "course_lib.engine.scorer.score_with",
               "course_lib.bertscore.reference", "course_lib.call.reference",
               "course_lib.teaching.plots.pair_view",
               "bert_score.score", "bert_score.utils.bert_cos_score_idf")

_BASES = ["The dog ran", "A man smiled", "The sun rose", "A child laughed", "The bus left", "The cat sat"]
_EXTRAS = ["at noon", "in the park", "again", "very fast", "near the river", "after lunch", "without a word",
           "on Monday", "down the road", "all day"]


def _reordered(base: str) -> str:
    words = base.lower().split()
    return " ".join(words[1:] + words[:1]).capitalize()


def _reference_sets_5_3(rng) -> list[list[str]]:
    """Three reference sets, each built around one short sentence whose words (and full stop) every reference
    contains: (a) the sentence, re-cased and reordered -- weightless, no duplicates -- and a longer reference
    passed twice (a duplicate that weighs something); (b) the sentence with and without its full stop (only the
    one without is weightless: '.' is a token of its own, absent from one reference); (c) only longer
    references (none weightless, every one with tokens of weight 0)."""
    bases = rng.sample(_BASES, 3)
    sets = []
    e = rng.sample(_EXTRAS, 2)
    sets.append([f"{bases[0]}.", f"{_reordered(bases[0])}.", f"{bases[0]} {e[0]}.", f"{bases[0].upper()}.",
                 f"{bases[0]} {e[1]}.", f"{bases[0]} {e[0]}."])
    e = rng.sample(_EXTRAS, 2)
    sets.append([f"{bases[1]}.", bases[1], f"{bases[1]} {e[0]}.", f"{bases[1]}, {e[1]}."])
    sets.append([f"{bases[2]} {x}." for x in rng.sample(_EXTRAS, 4)])
    for refs in sets:
        rng.shuffle(refs)
    return sets


def _ids(refs) -> list[list[int]]:
    from course_lib.bertscore.embeddings import encode
    from course_lib.model import load

    tokenizer, _ = load()
    return [encode(tokenizer, r) for r in refs]


def _weightless(refs) -> list[int]:
    """The answer key: references whose idf weights (course_lib's idf from `refs`, as idf=True computes it) sum to 0."""
    from course_lib.bertscore.idf import idf_from_ids

    ids = _ids(refs)
    idf = idf_from_ids(ids)
    return [k for k, x in enumerate(ids) if sum(idf[i] for i in x) == 0]


def _in_every(sets) -> set:
    return set.intersection(*map(set, sets)) if sets else set()


def _slips_5_3(refs) -> dict[str, list[list[int]]]:
    """What the common slips return on `refs`, by the mistake's name (several variants each)."""
    ids = _ids(refs)
    special = {ids[0][0], ids[0][-1]}  # [CLS], [SEP]
    zero = _in_every(ids)

    def repeated(texts):
        return [k for k, t in enumerate(texts) if texts.count(t) > 1]

    words, lower = [r.split() for r in refs], [r.lower().split() for r in refs]
    counted = Counter(t for x in ids for t in x)  # df counting every occurrence, not each reference once
    weight = {t: math.log((len(ids) + 1) / (counted[t] + 1)) for t in counted}
    return {"occurrences": [[k for k, x in enumerate(ids) if abs(sum(weight[t] for t in x if t not in special)) < 1e-9],
                            [k for k, x in enumerate(ids) if all(counted[t] == len(ids) for t in set(x) - special)]],
            "whitespace": [[k for k, w in enumerate(ws) if set(w) <= _in_every(ws)] for ws in (words, lower)],
            "duplicates": [repeated(list(refs)), repeated([r.lower() for r in refs])],
            "some": [[k for k, x in enumerate(ids) if set(x) & zero - special], list(range(len(refs)))]}


SLIP_HINTS_5_3 = {  # a whitespace split finds a subset of the weightless references: often none
    "occurrences": "your df counts a token each time it occurs; df(w) counts the references that contain w, each "
                   "reference once however often w occurs in it (a set of its tokens)",
    "duplicates": "you returned the references passed more than once. A repeat is not what makes a weight 0: a "
                  "token weighs 0 when it occurs in every reference, and a reference is weightless when all its "
                  "tokens do -- a repeated reference can hold a token the others lack, and a reference written "
                  "differently (other case: the tokenizer is uncased; other word order) can be weightless",
    "whitespace": "you split the references on spaces; idf counts the model's tokens (word pieces: "
                  "encode(tokenizer, r)), where 'sat.' is two tokens, 'sat' and '.', and case does not count",
    "some": "you returned references with *some* token of weight 0; recall is NaN only when the reference's "
            "total weight is 0: *every* one of its tokens in every reference",
}


# how 5.3's indices and 5.4's pair are compared with the right ones (a slip's too), the wrong kind named
def _same_indices(got, want, args):
    refs = args[0]
    got = got.tolist() if callable(getattr(got, "tolist", None)) else got
    if isinstance(got, (str, bytes)) or not hasattr(got, "__iter__"):
        raise Mismatch("return a list of indices (ints) into refs")
    got = list(got)
    if got and all(isinstance(x, str) for x in got):
        raise Mismatch("you return the references themselves (strings): return their indices, the positions in "
                       "refs (0 for the first)")
    if got and len(got) == len(refs) and all(type(x).__name__ in ("bool", "bool_") for x in got):
        raise Mismatch("you return a mask (one True/False per reference): return the indices of the weightless "
                       "references, the positions of the True ones")
    if not all(isinstance(x, numbers.Integral) and type(x).__name__ not in ("bool", "bool_") for x in got):
        raise Mismatch("return a list of indices (ints) into refs")
    if len(set(got)) < len(got):
        raise Mismatch("an index appears twice: return each weightless reference's index once")
    extra, missing = sorted(set(got) - set(want)), sorted(set(want) - set(got))
    if extra:
        raise Mismatch(f"the references {refs}: each of {[refs[k] for k in extra if k < len(refs)]} has a token "
                       "that is not in every reference: its total weight is above 0, its recall a number")
    if missing:
        raise Mismatch(f"the references {refs}: you left out {[refs[k] for k in missing]}")


def _same_pair(got, want, test):
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        raise Mismatch("answer with a pair (unseen, seen once)")
    try:
        got = [float(x) for x in got]
    except (TypeError, ValueError):
        raise Mismatch("answer with a pair of numbers") from None
    if all(math.isclose(g, w, abs_tol=1e-4) for g, w in zip(got[::-1], want)):
        raise Mismatch("wrong order: your pair is (seen once, unseen); give (unseen, seen once)")
    if all(abs(g - w) < 0.006 for g, w in zip(got, want)) and not all(
            math.isclose(g, w, abs_tol=1e-4) for g, w in zip(got, want)):
        raise Mismatch("your numbers are right to two decimals: give them unrounded (math.log(...)), the check "
                       "compares to 1e-4")
    for g, w, which in zip(got, want, ("the unseen token", "the token seen once")):
        if not math.isclose(g, w, abs_tol=1e-4):
            raise Mismatch(f"{which}: yours {g:.4f} is not its weight")
