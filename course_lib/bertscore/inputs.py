"""Checking what a caller passes to BERTScore, before any work is done."""
from __future__ import annotations

import math
import numbers
import os
from collections.abc import Mapping


def check_inputs(cands, refs) -> tuple[list[str], list[list[str]]]:
    """Validate `cands` (list of str) and `refs` (list of str or of lists of str).

    Returns the candidates and, for each, its list of references.
    """
    for name, value in (("cands", cands), ("refs", refs)):
        if isinstance(value, str) or not isinstance(value, (list, tuple)):
            raise TypeError(f"{name} must be a list of strings, got {type(value).__name__}")
    if len(cands) != len(refs):
        raise ValueError(f"cands and refs must have the same length: {len(cands)} candidates, "
                         f"{len(refs)} references")
    for i, c in enumerate(cands):
        if not isinstance(c, str):
            raise TypeError(f"cands[{i}] is {type(c).__name__}, expected str")
    groups = []
    for i, r in enumerate(refs):
        group = [r] if isinstance(r, str) else r
        if not isinstance(group, (list, tuple)):
            raise TypeError(f"refs[{i}] is {type(r).__name__}, expected str or list of str")
        if len(group) == 0:
            raise ValueError(f"refs[{i}] is an empty list: each candidate needs a reference")
        for j, g in enumerate(group):
            if not isinstance(g, str):
                raise TypeError(f"refs[{i}][{j}] is {type(g).__name__}, expected str")
        groups.append(list(group))
    return list(cands), groups


def check_count(value, name: str) -> int:
    """A positive int (batch_size, nthreads); True/False and floats are refused."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def check_layer(num_layers, model_type, n_layers: int) -> int:
    """The hidden state to use: `num_layers` (0 = embedding output .. n_layers), or the model's
    default layer when None. True/False are refused (a bool is an int in Python: True = layer 1)."""
    from course_lib.model import default_layer

    layer = default_layer(model_type) if num_layers is None else num_layers
    if isinstance(layer, bool) or not isinstance(layer, numbers.Integral) or not 0 <= layer <= n_layers:
        raise ValueError(f"num_layers must be an int between 0 and {n_layers} (a hidden-state index, "
                         f"0 = embedding output) or None, got {num_layers!r}")
    return int(layer)


def check_idf(idf, texts: list[str] | None = None, tokenizer=None, ids_of=None) -> None:
    """idf must be False/None, True, or a dict {token id: weight} of finite weights >= 0
    (a defaultdict's default weight too): a NaN, infinite or negative weight makes P/R NaN
    or meaningless. With `texts`: also `check_idf_covers`."""
    if idf is None or isinstance(idf, bool):
        return
    if not isinstance(idf, Mapping):
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
    if texts is not None:
        check_idf_covers(idf, texts, tokenizer, ids_of)


def check_idf_covers(idf, texts: list[str], tokenizer, ids_of=None) -> None:
    """A plain idf dict must weigh every token id of the texts ([CLS]/[SEP] included, as
    bert-score looks them up); a defaultdict has a default. `ids_of(texts)`: their token ids
    (default: `embeddings.encode`, one text at a time)."""
    if not isinstance(idf, Mapping) or getattr(idf, "default_factory", None) is not None:
        return
    if ids_of is None:
        from course_lib.bertscore.embeddings import encode

        ids_of = lambda texts: [encode(tokenizer, t) for t in texts]  # noqa: E731
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


def _is_embedded_path(model_type) -> bool:
    """Is `model_type` the embedded model's own directory?"""
    from course_lib.model import embedded_model_path

    if not isinstance(model_type, str) or not os.path.isdir(os.path.expanduser(model_type)):
        return False
    try:
        return os.path.samefile(os.path.expanduser(model_type), embedded_model_path())
    except ImportError:  # the embedded model's package is not installed
        return False


def choose_model(model_type, lang):
    """bert-score's rule: `model_type` wins; else `lang` picks the language's default model.
    Offline the course has one model, English: lang="en" (or None) -> the embedded model (None).
    Another language is an error that says how to pass a model you have on disk. The embedded
    model's directory, given as model_type, is the embedded model too (None): checked, its
    default layer and baseline known."""
    if model_type is not None:
        return None if _is_embedded_path(model_type) else model_type
    if lang is None:
        return None
    if not isinstance(lang, str):
        raise TypeError(f"lang must be a language code such as 'en', got {type(lang).__name__}")
    if lang.lower() == "en":
        return None
    from bert_score.utils import lang2model

    from course_lib.model import EMBEDDED_MODEL, ModelNotAvailableError

    raise ModelNotAvailableError(
        f"No model for lang={lang!r} is available offline: the course embeds one English model "
        f"({EMBEDDED_MODEL}). bert-score would use {lang2model[lang.lower()]!r}; if you have it (or "
        "another model for this language) on disk, pass model_type='<name or directory>' and "
        "num_layers=<layer>.")
