"""Checking what a caller passes to BERTScore, before any work is done: the one validator of texts
(`check_text`, `check_texts`, `check_pairs`, `check_inputs`, `check_aligned`) that every entry point
uses, and the checks of the other arguments."""
from __future__ import annotations

import math
import numbers
from collections.abc import Mapping

import torch

from course_lib.bertscore.embeddings import encode, special_mask
from course_lib.bertscore.matching import empty_texts
from course_lib.notices import warn


def check_text(value, name: str = "text", *, nonempty: bool = False) -> str:
    """The one check of a text: a str (a table's missing value, a NaN float, is named so); with
    `nonempty`, also not empty or whitespace only. Errors name it (`name`)."""
    if not isinstance(value, str):
        nan = isinstance(value, float) and math.isnan(value)
        raise TypeError(f"{name} is {type(value).__name__}, expected str" + (" (NaN: a missing value)" if nan else ""))
    if nonempty and not value.strip():
        raise ValueError(f"{name} is empty or whitespace only: nothing to score")
    return value


def check_texts(value, name: str = "texts", *, nonempty: bool = False) -> list[str]:
    """The one check of "a list of str": a list, tuple, pandas Series or numpy array of str ->
    list[str] (the same texts, so the same scores), each item by `check_text` (errors name the
    argument and the item's position)."""
    return [check_text(t, f"{name}[{i}]", nonempty=nonempty) for i, t in enumerate(_as_list(value, name, "strings"))]


def check_aligned(optional=(), *, nonempty: bool = False, **named) -> int:
    """Aligned lists of texts passed by name (`check_aligned(hypotheses=..., references=...)`), each
    by `check_texts`, all of one length, which is returned; those named in `optional` may be None."""
    lengths = {name: len(check_texts(texts, name, nonempty=nonempty)) for name, texts in named.items()
               if not (texts is None and name in optional)}
    if len(set(lengths.values())) > 1:
        raise ValueError("the texts must come in aligned lists of the same length, got "
                         + ", ".join(f"{n} {name}" for name, n in lengths.items()))
    return next(iter(lengths.values()), 0)


def _as_list(value, name: str, of: str) -> list:
    """A list, tuple, or one-dimensional pandas Series / numpy array, as a list."""
    if isinstance(value, (list, tuple)):
        return list(value)
    if hasattr(value, "tolist") and getattr(value, "ndim", None) == 1:  # a Series or an array
        return value.tolist()
    raise TypeError(f"{name} must be a list of {of}, got {type(value).__name__}")


def check_pairs(cands, refs, names: tuple[str, str] = ("cands", "refs")) -> tuple[list[str], list[str]]:
    """Two aligned lists of str (`check_texts` each), one text of the second per text of the first."""
    name_a, name_b = names
    a, b = check_texts(cands, name_a), check_texts(refs, name_b)
    if len(a) != len(b):
        raise ValueError(f"{name_a} and {name_b} must have the same length: {len(a)} {name_a}, {len(b)} {name_b}")
    return a, b


def check_inputs(cands, refs) -> tuple[list[str], list[list[str]]]:
    """Validate `cands` (list of str) and `refs` (list of str or of lists of str).

    Returns the candidates and, for each, its list of references.
    """
    refs = _as_list(refs, "refs", "strings")  # before cands' items: the shape first
    cands = check_texts(cands, "cands")
    if len(cands) != len(refs):
        raise ValueError(f"cands and refs must have the same length: {len(cands)} candidates, "
                         f"{len(refs)} references")
    groups = []
    for i, r in enumerate(refs):
        group = [r] if isinstance(r, str) else r
        if not isinstance(group, (list, tuple)):
            raise TypeError(f"refs[{i}] is {type(r).__name__}, expected str or list of str")
        if len(group) == 0:
            raise ValueError(f"refs[{i}] is an empty list: each candidate needs a reference")
        groups.append(check_texts(group, f"refs[{i}]"))
    return cands, groups


def check_count(value, name: str) -> int:
    """A positive int (batch_size, nthreads); True/False and floats are refused."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def idf_is_weights(idf) -> bool:
    """Is `idf` the caller's own weights {token id: weight} (any Mapping), not True/False/None?"""
    return isinstance(idf, Mapping)


def check_idf(idf) -> None:
    """idf must be False/None, True, or a Mapping {token id: weight} of finite weights >= 0
    (a defaultdict's default weight too): a NaN, infinite or negative weight makes P/R NaN
    or meaningless. Whether the weights cover the texts: `check_idf_covers`."""
    if idf is None or isinstance(idf, bool):
        return
    if not idf_is_weights(idf):
        raise TypeError(f"idf must be True, False or a dict {{token id: weight}}, got {type(idf).__name__}")
    items = list(idf.items())
    if getattr(idf, "default_factory", None) is not None:
        items.append(("<default>", idf.default_factory()))
    for token, weight in items:
        try:
            ok = math.isfinite(weight) and weight >= 0
        except TypeError:
            raise TypeError(f"idf weight of token {token!r} must be a number, got {weight!r}") from None
        if not ok:
            raise ValueError(f"idf weight of token {token!r} is {weight!r}: idf weights must be finite "
                             "and >= 0 (bert-score's idf is log((M + 1) / (df + 1)) >= 0)")


def check_idf_covers(idf, texts: list[str], tokenizer, ids_of) -> None:
    """A plain idf dict must weigh every token id of the texts ([CLS]/[SEP] included, as
    bert-score looks them up); a defaultdict has a default. `ids_of(texts)`: their token ids,
    called only when there is something to check."""
    if not idf_is_weights(idf) or getattr(idf, "default_factory", None) is not None:
        return
    missing = sorted({i for ids in ids_of(list(dict.fromkeys(texts))) for i in ids} - set(idf))
    if missing:
        shown = ", ".join(f"{i} ({tokenizer.convert_ids_to_tokens(i)!r})" for i in missing[:5])
        raise ValueError(
            f"The idf dict has no weight for {len(missing)} token id(s) in these texts: {shown}"
            f"{', ...' if len(missing) > 5 else ''}. Give every token id a weight, or pass a "
            "collections.defaultdict whose default is the weight of unseen tokens (bert-score's "
            "get_idf_dict uses log(M + 1) for M reference texts).")


def check_text_unicode(cands: list[str], groups: list[list[str]]) -> None:
    """A fast (Rust) tokenizer takes only valid Unicode: name the first text with a lone
    surrogate (such as '\\ud800'), which only the slow tokenizer accepts (it drops it)."""
    named = [(f"cands[{i}]", c) for i, c in enumerate(cands)]
    named += [(f"refs[{i}][{j}]", r) for i, g in enumerate(groups) for j, r in enumerate(g)]
    for name, text in named:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as err:
            raise ValueError(
                f"{name} has a lone surrogate ({text[err.start]!r} at position {err.start}): not valid "
                "Unicode, so the fast tokenizer cannot read it (bert-score's fails too). Use "
                "use_fast_tokenizer=False (the slow tokenizer drops it), or clean the text.") from None


# ---------------------------------------------------------------------------------------------
# Empty texts: which ones, and bert-score's warning naming each
# ---------------------------------------------------------------------------------------------

def empty_flags(tokenizer, cands: list[str], groups: list[list[str]]) -> tuple[list[bool], list[list[bool]]]:
    """Which texts are empty (`matching.empty_texts` on their tokens): a flag per candidate, and per
    candidate one per reference (`warn_empty`'s input)."""
    def empty(text: str) -> bool:
        return bool(empty_texts(~special_mask(torch.tensor(encode(tokenizer, text)), tokenizer)))
    return [empty(c) for c in cands], [[empty(r) for r in group] for group in groups]


SHOWN_PLACES = 3  # the empty texts a warning names; it counts the others


def warn_empty(empty_cand, empty_ref) -> None:
    """bert-score's warning for empty texts, naming each one as the caller passed it: cands[i], and
    refs[i] (one reference per candidate) or refs[i][j] (several references).

    empty_cand: a flag per candidate; empty_ref: per candidate, a flag per reference.
    """
    several = any(len(flags) != 1 for flags in empty_ref)
    places = {"candidate": [f"cands[{i}]" for i, e in enumerate(empty_cand) if e],
              "reference": [f"refs[{i}][{j}]" if several else f"refs[{i}]"
                            for i, flags in enumerate(empty_ref) for j, e in enumerate(flags) if e]}
    for side, where in places.items():
        if where:
            more = f" and {len(where) - SHOWN_PLACES} more" if len(where) > SHOWN_PLACES else ""
            warn(f"Empty {side} sentence detected ({', '.join(where[:SHOWN_PLACES])}{more}); "
                 "setting raw BERTScores to 0.")


def warn_empty_view(view) -> None:
    """`warn_empty` for one pair's view (`course_lib.bertscore.pair.PairView`): its candidate or
    reference is empty when it has no token but [CLS]/[SEP]."""
    warn_empty([bool(empty_texts(~view.cand_special))], [[bool(empty_texts(~view.ref_special))]])
