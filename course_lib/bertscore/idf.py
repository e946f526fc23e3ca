"""Inverse document frequency of word pieces, as BERTScore weighs tokens.

With M reference texts and df(w) = the number of them that contain token w:

    idf(w) = log((M + 1) / (df(w) + 1))          (+1 smoothing, as bert-score computes it)
    idf(w) = log(M + 1)                            for a token seen in no reference

[CLS] and [SEP] occur in every text, so their idf is log((M+1)/(M+1)) = 0 by the formula.
Without idf every token weighs 1, and [CLS]/[SEP] weigh 0.
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict

from course_lib.bertscore.embeddings import encode, special_ids


def document_frequency(token_ids: list[list[int]]) -> Counter:
    """df(w): in how many of the texts token id w appears (at least once)."""
    df = Counter()
    for ids in token_ids:
        df.update(set(ids))
    return df


def idf_from_ids(token_ids: list[list[int]]) -> defaultdict:
    """idf weights {token id: weight} from tokenized texts; unseen ids get log(M + 1)."""
    m = len(token_ids)
    weights = defaultdict(lambda: math.log(m + 1))
    weights.update({w: math.log((m + 1) / (c + 1)) for w, c in document_frequency(token_ids).items()})
    return weights


def idf_weights(corpus: list[str], tokenizer) -> defaultdict:
    """idf of every token id, from a reference corpus (list of texts)."""
    return idf_from_ids([encode(tokenizer, text) for text in corpus])


def uniform_weights(tokenizer) -> defaultdict:
    """The weights used when idf is off: 1 for every token, 0 for [CLS] and [SEP]."""
    weights = defaultdict(lambda: 1.0)
    weights.update({i: 0.0 for i in special_ids(tokenizer)})
    return weights


def weight_of(weights, token_id: int) -> float:
    """weights[token_id], read without changing `weights`: indexing a defaultdict would add
    every unseen id to it, and the same weights are shared by every call that scores with them."""
    factory = getattr(weights, "default_factory", None)
    if factory is not None and token_id not in weights:
        return float(factory())
    return float(weights[token_id])


def token_weights(ids: list[int], weights) -> list[float]:
    """The weight of each token of one text."""
    return [weight_of(weights, i) for i in ids]

