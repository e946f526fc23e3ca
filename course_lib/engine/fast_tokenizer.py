"""Tokenizing a whole list in one call with Hugging Face's fast (Rust) tokenizer.

`fast_tokenizer`: transformers' own fast tokenizer of a slow tokenizer's model (loaded by
`course_lib.call.setting.fast_tokenizer_of`, what bert-score uses with
`use_fast_tokenizer=True`), where it is allowed. The engine uses it for speed by default
(`use_fast_tokenizer=False`): it gives the same ids as `course_lib.bertscore.embeddings.encode`
(bert-score's slow tokenization) on every text in data/ and on tricky strings, which
tests/test_speed.py compares. Elsewhere the two may differ, so only a plain `BertTokenizer` with
no user-added tokens takes it, and texts with a lone surrogate go the slow way.
"""
from __future__ import annotations

import copy
import os

from course_lib.bertscore.embeddings import count_truncated, encode, model_limit
from course_lib.caching import cached
from course_lib.call.setting import fast_tokenizer_of

USE_FAST_TOKENIZER = True  # False forces the slow (reference) tokenizer everywhere


@cached()  # one look per tokenizer, even from several threads
def fast_tokenizer(tokenizer):
    """Our own copy (no truncation or padding) of the Rust `tokenizers.Tokenizer` inside the
    model's Hugging Face fast tokenizer, or None. Only for a plain `BertTokenizer` (no
    never-split words, no user-added tokens) whose fast one has the same vocabulary,
    lower-casing, accents and Chinese characters; others keep the slow path."""
    from tokenizers.normalizers import BertNormalizer
    from transformers import BertTokenizer

    if type(tokenizer) is not BertTokenizer or not tokenizer.do_basic_tokenize \
            or tokenizer.basic_tokenizer.never_split \
            or set(tokenizer.get_added_vocab()) - set(tokenizer.all_special_tokens):
        return None
    try:
        fast = fast_tokenizer_of(tokenizer.name_or_path)
    except Exception:  # no fast tokenizer at that path
        return None
    norm, basic = fast.backend_tokenizer.normalizer, tokenizer.basic_tokenizer
    if not isinstance(norm, BertNormalizer) or fast.get_vocab() != tokenizer.get_vocab() or \
            (norm.lowercase, norm.strip_accents, norm.handle_chinese_chars) != (
                basic.do_lower_case, basic.strip_accents, basic.tokenize_chinese_chars):
        return None
    backend = copy.deepcopy(fast.backend_tokenizer)  # transformers sets its truncation on every call
    backend.no_truncation()
    backend.no_padding()
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
        return ids, count_truncated(tokenizer, sentences, ids)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")  # no fork warnings later
    cls, sep, keep = tokenizer.cls_token_id, tokenizer.sep_token_id, limit - 2
    pieces = [e.ids for e in fast.encode_batch([s.strip() for s in sentences], add_special_tokens=False)]
    ids = [[cls] + p[:keep] + [sep] for p in pieces]
    return ids, count_truncated(tokenizer, sentences, ids)
