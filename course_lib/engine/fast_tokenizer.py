"""Tokenizing a whole list in one call with a fast (Rust) tokenizer.

`fast_tokenizer`: the Rust twin of a slow tokenizer, built from its own vocabulary. The engine
uses it for speed by default (`use_fast_tokenizer=False`): the same ids as
`course_lib.bertscore.embeddings.encode` (bert-score's slow tokenization), sentence by sentence;
tests/test_speed.py compares the two on every text in data/.
Hugging Face's own fast tokenizer of a model, what bert-score uses with `use_fast_tokenizer=True`
(it may give other ids than the slow one), is loaded by `course_lib.call.setting.fast_tokenizer_of`.
"""
from __future__ import annotations

import os

from course_lib.bertscore.embeddings import encode, model_limit
from course_lib.caching import cached

USE_FAST_TOKENIZER = True  # False forces the slow (reference) tokenizer everywhere


@cached()  # one build per tokenizer, even from several threads
def fast_tokenizer(tokenizer):
    """The Rust twin (`tokenizers.Tokenizer`) of a slow BERT WordPiece tokenizer, or None.

    Built from the slow tokenizer's own vocabulary and settings (lower-casing, accents,
    Chinese characters), with no truncation or padding of its own. Used only where it is
    proven to give bert-score's ids: plain `BertTokenizer`s with no extra added tokens
    (tests/test_speed.py compares the two on every text in data/). Others return None and
    keep the slow path.
    """
    return _build_fast(tokenizer)


def _build_fast(tokenizer):
    from transformers import BertTokenizer

    if type(tokenizer) is not BertTokenizer or not getattr(tokenizer, "do_basic_tokenize", True):
        return None
    if set(tokenizer.get_added_vocab()) - set(tokenizer.all_special_tokens):
        return None  # user-added tokens: the slow path handles them
    if tokenizer.basic_tokenizer.never_split:
        return None
    try:
        from transformers.convert_slow_tokenizer import convert_slow_tokenizer

        backend = convert_slow_tokenizer(tokenizer)
    except Exception:  # no converter for this tokenizer: stay on the slow path
        return None
    backend.no_truncation()
    backend.no_padding()
    backend.add_special_tokens(tokenizer.all_special_tokens)  # "[SEP]" in a text stays one token
    return backend


def _valid_unicode(sentences: list[str]) -> bool:
    try:
        "\n".join(sentences).encode("utf-8")  # "\n": no surrogate pair across two texts
        return True
    except UnicodeEncodeError:
        return False


def encode_many(tokenizer, sentences: list[str]) -> tuple[list[list[int]], int]:
    """`encode` every sentence -> (ids, number of texts truncated to the model's limit).

    The fast path (see `fast_tokenizer`) encodes the whole list in one call and gives the
    same ids as the slow one, sentence by sentence.
    """
    limit = model_limit(tokenizer)
    fast = fast_tokenizer(tokenizer) if USE_FAST_TOKENIZER else None
    if fast is None or not _valid_unicode(sentences):  # Rust takes no lone surrogate: the slow one drops it
        ids = [encode(tokenizer, s) for s in sentences]
        at_limit = [s for s, i in zip(sentences, ids) if len(i) >= limit]
        return ids, sum(len(tokenizer.tokenize(s.strip())) + 2 > limit for s in at_limit)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")  # no fork warnings later
    cls, sep, keep = tokenizer.cls_token_id, tokenizer.sep_token_id, limit - 2
    pieces = [e.ids for e in fast.encode_batch([s.strip() for s in sentences], add_special_tokens=False)]
    return [[cls] + p[:keep] + [sep] for p in pieces], sum(len(p) > keep for p in pieces)
