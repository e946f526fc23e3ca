"""Static vs contextual vectors: follow one word through the layers of the model.

Layer 0 is the embedding layer. For token w at position t it computes

    h⁰_t = LayerNorm(E_word[w] + E_position[t] + E_segment[0])

from the token and its position only: no other word of the sentence enters. Each of the layers
1..n then mixes in the other tokens by self-attention, so from layer 1 on the vector of "bank"
depends on whether the sentence is about a river or about money.

The input embedding matrix E_word [vocab_size, dim] is a static embedding table (one vector per
WordPiece token, as in word2vec or GloVe); `nearest_neighbours` searches it by cosine.
"""
from __future__ import annotations

import torch

from course_lib.bertscore.embeddings import Embedded, embed_in, tokens
from course_lib.call.setting import resolve_setting
from course_lib.model import load
from course_lib.bertscore.similarity import normalize


def all_layers(sentences: list[str], model_type: str | None = None) -> Embedded:
    """Embed sentences at every layer at once: embeddings [n_layers + 1, batch, seq_len, dim]
    (index 0 = embedding layer); mask, special and input_ids [batch, seq_len]."""
    setting = resolve_setting(model_type, all_layers=True)
    return embed_in(setting.tokenizer, setting.net, sentences, setting.layer, all_layers=True)


def token_index(token_list: list[str], word: str) -> int:
    """Position of the first token equal to `word` (lowercase for uncased models).

    Raises ValueError when the word is not a single token of the list (e.g. WordPiece split it).
    """
    if word not in token_list:
        raise ValueError(f"{word!r} is not a single token of {token_list}; pick a word the "
                         "tokenizer keeps whole (see course_lib.bertscore.embeddings.tokens)")
    return token_list.index(word)


def word_cosine_by_layer(sentence_a: str, sentence_b: str, word: str, word_b: str | None = None,
                         model_type: str | None = None) -> torch.Tensor:
    """cos(h^k_a, h^k_b) for k = 0..n: the same word (or `word_b`) in two sentences -> [n_layers + 1].

    Both sentences run through the model in one padded batch (the mask keeps them independent).
    """
    tokenizer, _ = load(model_type)
    i = token_index(tokens(tokenizer, sentence_a), word)
    j = token_index(tokens(tokenizer, sentence_b), word if word_b is None else word_b)
    layers = all_layers([sentence_a, sentence_b], model_type).embeddings  # [n_layers + 1, 2, seq_len, dim]
    a, b = layers[:, 0, i], layers[:, 1, j]  # [n_layers + 1, dim] each
    return (normalize(a) * normalize(b)).sum(dim=-1)


def _static_table(model_type):
    """Rows of E_word scaled to unit length: [vocab_size, dim]."""
    _, model = load(model_type)
    return normalize(model.get_input_embeddings().weight.detach().float())


def _single_token_id(tokenizer, word: str) -> int:
    ids = tokenizer.convert_tokens_to_ids(tokenizer.tokenize(word))
    if len(ids) != 1:
        raise ValueError(f"{word!r} is split into {len(ids)} word pieces; pick a single-token word")
    return ids[0]


def static_similarity(word_a: str, word_b: str, model_type: str | None = None) -> float:
    """cos(E_word[a], E_word[b]): the two words' rows of the input embedding matrix (no context,
    no position)."""
    tokenizer, _ = load(model_type)
    table = _static_table(model_type)
    return float(table[_single_token_id(tokenizer, word_a)] @ table[_single_token_id(tokenizer, word_b)])


def nearest_neighbours(word: str, k: int = 5, model_type: str | None = None) -> list[tuple[str, float]]:
    """The k tokens whose input embeddings (rows of E_word) have the highest cosine with `word`'s.

    The word itself is left out. Returns [(token, cosine), ...], best first.
    """
    tokenizer, _ = load(model_type)
    i = _single_token_id(tokenizer, word)
    table = _static_table(model_type)  # [vocab_size, dim], unit rows
    sims = table @ table[i]  # [vocab_size]
    sims[i] = float("-inf")
    best = sims.topk(k)
    return [(tokenizer.convert_ids_to_tokens(int(i)), float(v)) for v, i in zip(best.values, best.indices)]
