"""Tokens in, contextual vectors out.

Tokenization follows bert-score exactly: strip the text, add the special tokens
([CLS] ... [SEP] for BERT, <s> ... </s> for RoBERTa), truncate to the tokenizer's
`model_max_length`. The vector of a token at layer k is the hidden state after k
transformer layers (k = 0 is the embedding layer's output, which knows no context).

This is the readable version, one padded batch at a time. The fast engine
(`course_lib.engine`) gives the same vectors for long lists.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch.nn.utils.rnn import pad_sequence

from course_lib.notices import warn as warn_at_caller


def model_limit(tokenizer) -> int:
    """L: the most tokens the model reads at once, [CLS] and [SEP] included (512 here)."""
    n = tokenizer.model_max_length
    return n if n < 100_000 else 512  # some tokenizers leave it "infinite"


def needs_prefix_space(tokenizer) -> bool:
    # byte-level BPE (RoBERTa, GPT-2) marks word starts with a space: bert-score adds one
    return any(c.__name__.startswith(("Roberta", "GPT2")) for c in type(tokenizer).__mro__)


def encode(tokenizer, sentence: str) -> list[int]:
    """Token ids of one sentence, as bert-score's `sent_encode` makes them."""
    sentence = sentence.strip()
    if sentence == "":
        return tokenizer.build_inputs_with_special_tokens([])
    extra = {"add_prefix_space": True} if needs_prefix_space(tokenizer) else {}
    return tokenizer.encode(
        sentence, add_special_tokens=True, max_length=model_limit(tokenizer), truncation=True, **extra
    )


def encode_all(tokenizer, sentences: list[str], warn: bool = True) -> list[list[int]]:
    """`encode` every sentence; warn once, with a count, when some were truncated."""
    ids = [encode(tokenizer, s) for s in sentences]
    truncated = count_truncated(tokenizer, sentences, ids)
    if warn and truncated:
        warn_truncated(truncated, model_limit(tokenizer))
    return ids


def count_truncated(tokenizer, sentences: list[str], ids: list[list[int]]) -> int:
    """How many of the sentences `encode` cut to the model's limit (their ids fill it and their
    word pieces, with [CLS] and [SEP], are more): the one count every path reports."""
    limit = model_limit(tokenizer)
    return sum(len(tokenizer.tokenize(s.strip())) + 2 > limit for s, i in zip(sentences, ids) if len(i) >= limit)


def warn_truncated(n: int, limit: int):
    """Say, at the caller's line (`course_lib.notices.warn`), that n texts were truncated."""
    warn_at_caller(f"{n} text(s) longer than the model's {limit}-token limit were truncated "
                   "(as bert-score does); their tail is not scored.")


def tokens(tokenizer, sentence: str) -> list[str]:
    """The token strings of `sentence`, special tokens included (labels for plots)."""
    return tokenizer.convert_ids_to_tokens(encode(tokenizer, sentence))


def pad(ids: list[list[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad token id lists.

    Returns `input_ids` [batch, max_len] and `attention_mask` [batch, max_len] (1 = real token).
    """
    seqs = [torch.tensor(i, dtype=torch.long) for i in ids]
    input_ids = pad_sequence(seqs, batch_first=True, padding_value=pad_id)
    lengths = torch.tensor([len(i) for i in ids])
    attention_mask = (torch.arange(input_ids.shape[1])[None, :] < lengths[:, None]).long()
    return input_ids, attention_mask


def special_ids(tokenizer) -> list[int]:
    """The ids of the tokens BERTScore treats as special, [CLS] and [SEP] (<s> and </s>): weight
    0, and no match targets with exclude_special. A tokenizer without one of them has fewer."""
    return [i for i in (tokenizer.cls_token_id, tokenizer.sep_token_id) if i is not None]


def special_mask(input_ids: torch.Tensor, tokenizer) -> torch.Tensor:
    """True where a token is [CLS] or [SEP] (<s> or </s>; `special_ids`). Shape = input_ids' shape."""
    special = torch.tensor(special_ids(tokenizer), dtype=input_ids.dtype, device=input_ids.device)
    return torch.isin(input_ids, special)


@torch.inference_mode()
def hidden_states(model, input_ids, attention_mask, layer: int | None, all_layers: bool = False) -> torch.Tensor:
    """Hidden states of hidden-state index `layer` (0 = embedding output), [batch, seq_len, dim],
    or with all_layers=True of every layer, [n_layers + 1, batch, seq_len, dim] (layer unused).
    The layer is resolved by the caller (`course_lib.model.check_layer`, in a Setting or in `embed`)."""
    out = model(input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=True)
    return torch.stack(out.hidden_states, dim=0) if all_layers else out.hidden_states[layer]


@dataclass
class Embedded:
    """A padded batch of embedded sentences.

    embeddings: [batch, seq_len, dim] (or [n_layers + 1, batch, seq_len, dim])
    mask:       [batch, seq_len]  True for real tokens (special tokens included), False for padding
    special:    [batch, seq_len]  True for [CLS]/[SEP]
    input_ids:  [batch, seq_len]
    """

    input_ids: torch.Tensor
    embeddings: torch.Tensor
    mask: torch.Tensor
    special: torch.Tensor


def embed(sentences: list[str], model_type: str | None = None, layer: int | None = None,
          device: str | None = None) -> Embedded:
    """Embed a small list of sentences in one padded batch (for teaching and plots).

    `layer=None` means the model's default BERTScore layer: which model and which layer are decided
    by `course_lib.model` (`model_ref`, `check_layer`), as every entry point's setting decides them.
    `course_lib.score` gives the same vectors faster for long lists (course_lib.engine: dedup, sort,
    batch, pack).
    """
    from course_lib.model import check_layer, load, model_ref, num_layers_of

    ref = model_ref(model_type)
    tokenizer, model = load(ref, device)
    return embed_in(tokenizer, model, sentences, check_layer(layer, ref, num_layers_of(model)))


def embed_in(tokenizer, model, sentences: list[str], layer: int, all_layers: bool = False) -> Embedded:
    """`embed` with the model, its tokenizer and the layer given (a resolved setting's: the
    reference definition and the chapters' helpers); all_layers=True: embeddings
    [n_layers + 1, batch, seq_len, dim]."""
    input_ids, attention_mask = pad(encode_all(tokenizer, sentences), tokenizer.pad_token_id)
    dev = next(model.parameters()).device
    emb = hidden_states(model, input_ids.to(dev), attention_mask.to(dev), layer, all_layers).float().cpu()
    return Embedded(input_ids, emb, attention_mask.bool(), special_mask(input_ids, tokenizer))
