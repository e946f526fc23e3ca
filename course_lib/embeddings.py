"""Tokens in, contextual vectors out.

Tokenization follows bert-score exactly: strip the text, add the special tokens
([CLS] ... [SEP] for BERT, <s> ... </s> for RoBERTa), truncate to the tokenizer's
`model_max_length`. The vector of a token at layer k is the hidden state after k
transformer layers (k = 0 is the embedding layer's output, which knows no context).

For speed, `course_lib.score` tokenizes a whole list in one call with the fast (Rust)
tokenizer where it gives the same ids (`encode_many`), sorts sentences by token length and
batches them by a token budget (`length_batches`), and keeps the vectors of real tokens
packed end to end, without padding (`embed_packed`).
"""
from __future__ import annotations

import os
import warnings
from contextlib import contextmanager
from dataclasses import dataclass

import torch
from torch.nn.utils.rnn import pad_sequence


def _max_length(tokenizer) -> int:
    n = tokenizer.model_max_length
    return n if n < 100_000 else 512  # some tokenizers leave it "infinite"


def _needs_prefix_space(tokenizer) -> bool:
    # byte-level BPE (RoBERTa, GPT-2) marks word starts with a space: bert-score adds one
    return any(c.__name__.startswith(("Roberta", "GPT2")) for c in type(tokenizer).__mro__)


def encode(tokenizer, sentence: str) -> list[int]:
    """Token ids of one sentence, as bert-score's `sent_encode` makes them."""
    sentence = sentence.strip()
    if sentence == "":
        return tokenizer.build_inputs_with_special_tokens([])
    extra = {"add_prefix_space": True} if _needs_prefix_space(tokenizer) else {}
    return tokenizer.encode(
        sentence, add_special_tokens=True, max_length=_max_length(tokenizer), truncation=True, **extra
    )


_FAST: dict = {}
USE_FAST_TOKENIZER = True  # False forces the slow (reference) tokenizer everywhere


def fast_tokenizer(tokenizer):
    """The Rust twin (`tokenizers.Tokenizer`) of a slow BERT WordPiece tokenizer, or None.

    Built from the slow tokenizer's own vocabulary and settings (lower-casing, accents,
    Chinese characters), with no truncation or padding of its own. Used only where it is
    proven to give bert-score's ids: plain `BertTokenizer`s with no extra added tokens
    (tests/test_speed.py compares the two on every text in data/). Others return None and
    keep the slow path.
    """
    key = id(tokenizer)
    if key not in _FAST:
        _FAST[key] = (tokenizer, _build_fast(tokenizer))  # keeps the slow one alive: id stays valid
    return _FAST[key][1]



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


def encode_many(tokenizer, sentences: list[str]) -> tuple[list[list[int]], int]:
    """`encode` every sentence -> (ids, number of texts truncated to the model's limit).

    The fast path (see `fast_tokenizer`) encodes the whole list in one call and gives the
    same ids as the slow one, sentence by sentence.
    """
    limit = _max_length(tokenizer)
    fast = fast_tokenizer(tokenizer) if USE_FAST_TOKENIZER else None
    if fast is None:
        ids = [encode(tokenizer, s) for s in sentences]
        at_limit = [s for s, i in zip(sentences, ids) if len(i) >= limit]
        return ids, sum(len(tokenizer.tokenize(s.strip())) + 2 > limit for s in at_limit)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")  # no fork warnings later
    cls, sep, keep = tokenizer.cls_token_id, tokenizer.sep_token_id, limit - 2
    pieces = [e.ids for e in fast.encode_batch([s.strip() for s in sentences], add_special_tokens=False)]
    return [[cls] + p[:keep] + [sep] for p in pieces], sum(len(p) > keep for p in pieces)


def encode_all(tokenizer, sentences: list[str], warn: bool = True) -> list[list[int]]:
    """`encode` every sentence; warn once, with a count, when some were truncated."""
    ids, truncated = encode_many(tokenizer, sentences)
    if warn and truncated:
        warn_truncated(truncated, _max_length(tokenizer), stacklevel=4)
    return ids


def warn_truncated(n: int, limit: int, stacklevel: int = 3):
    warnings.warn(
        f"{n} text(s) longer than the model's {limit}-token limit were truncated "
        "(as bert-score does); their tail is not scored.",
        stacklevel=stacklevel,
    )


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


def special_mask(input_ids: torch.Tensor, tokenizer) -> torch.Tensor:
    """True where a token is [CLS] or [SEP] (<s> or </s>). Shape = input_ids' shape."""
    special = torch.tensor([tokenizer.cls_token_id, tokenizer.sep_token_id])
    return torch.isin(input_ids, special.to(input_ids.device))


def _layer_list(model):
    """The ModuleList of transformer layers, when the model has the usual BERT layout."""
    for owner in (getattr(model, "encoder", None), getattr(model, "transformer", None)):
        if owner is not None and isinstance(getattr(owner, "layer", None), torch.nn.ModuleList):
            return owner
    return None


@contextmanager
def first_layers(model, k: int):
    """Run only the first `k` transformer layers inside this block (saves the rest)."""
    owner = _layer_list(model)
    if owner is None:
        yield False
        return
    full = owner.layer
    owner.layer = full[:k]
    try:
        yield True
    finally:
        owner.layer = full


@torch.inference_mode()
def hidden_states(model, input_ids, attention_mask, layer: int | None = None) -> torch.Tensor:
    """Hidden states of one layer, [batch, seq_len, dim], or of all layers when `layer` is None,
    [n_layers + 1, batch, seq_len, dim] (index 0 = embedding output)."""
    n = model.config.num_hidden_layers
    if layer is None:
        out = model(input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=True)
        return torch.stack(out.hidden_states, dim=0)
    if not 0 <= layer <= n:
        raise ValueError(f"layer must be between 0 and {n} for this model, got {layer}")
    with first_layers(model, layer) as truncated:
        out = model(input_ids=input_ids, attention_mask=attention_mask,
                    output_hidden_states=not truncated)
    return out.last_hidden_state if truncated else out.hidden_states[layer]


MAX_BATCH_TOKENS = 2048  # padded tokens (rows × longest row) per model batch in `embed_packed`


def length_batches(lengths: list[int], batch_size: int = 64,
                   max_tokens: int = MAX_BATCH_TOKENS) -> list[list[int]]:
    """Group sentence indices into model batches, longest first.

    Sorting by token length puts similar lengths together, so a batch needs little padding.
    Each batch has at most `batch_size` sentences and at most `max_tokens` padded tokens
    (rows × its longest row); a sentence longer than `max_tokens` gets a batch of its own.
    """
    order = sorted(range(len(lengths)), key=lambda k: -lengths[k])
    batches, current = [], []
    for k in order:
        if current and (len(current) >= batch_size or (len(current) + 1) * lengths[current[0]] > max_tokens):
            batches.append(current)
            current = []
        current.append(k)
    return batches + [current] if current else batches


def _layer_states(model, input_ids, attention_mask, layer):
    """[hidden states of `layer`], or the hidden states of every layer (0..n) without stacking
    them; each [batch, seq_len, dim]."""
    if layer is not None:
        return [hidden_states(model, input_ids, attention_mask, layer)]
    return model(input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=True).hidden_states


@dataclass
class Packed:
    """The token vectors of many sentences, stored end to end without padding.

    vectors: [total_tokens, dim] (or [n_layers + 1, total_tokens, dim]), unit length
    start:   [n_sentences]  row of each sentence's first token (input order)
    length:  [n_sentences]  its number of tokens, [CLS]/[SEP] included
    ids:     [total_tokens] the token id of each row
    Sentence k's vectors are rows start[k] .. start[k] + length[k] - 1.
    """

    vectors: torch.Tensor
    start: torch.Tensor
    length: torch.Tensor
    ids: torch.Tensor


@torch.inference_mode()
def embed_packed(model, ids: list[list[int]], layer: int | None, pad_id: int, batch_size: int = 64,
                 max_tokens: int = MAX_BATCH_TOKENS, progress=None) -> Packed:
    """Embed tokenized sentences in length-sorted batches (`length_batches`) and pack the
    unit-normalised vectors of their real tokens (no padding) into one tensor.

    layer=None keeps every layer. `progress(n)` is called after each batch of n sentences.
    """
    device = next(model.parameters()).device
    lengths = [len(i) for i in ids]
    batches = length_batches(lengths, batch_size, max_tokens)
    order = torch.tensor([k for batch in batches for k in batch], dtype=torch.long)
    length = torch.tensor(lengths, dtype=torch.long)
    start = torch.empty_like(length)
    sorted_length = length[order]
    start[order] = sorted_length.cumsum(0) - sorted_length
    flat_ids = torch.tensor([t for k in order.tolist() for t in ids[k]], dtype=torch.long)
    dim = model.config.hidden_size
    shape = (int(length.sum()), dim) if layer is not None else (model.config.num_hidden_layers + 1,
                                                                int(length.sum()), dim)
    vectors = torch.empty(shape, dtype=torch.float32, device=device)
    row = 0
    for batch in batches:
        input_ids, attention_mask = pad([ids[k] for k in batch], pad_id)
        real = attention_mask.bool().to(device)
        count = int(attention_mask.sum())
        states = _layer_states(model, input_ids.to(device), attention_mask.to(device), layer)
        for target, emb in zip([vectors] if layer is not None else vectors, states):
            emb = (emb / emb.norm(dim=-1, keepdim=True)).float()  # [batch, seq_len, dim]
            target[row:row + count] = emb[real]
        row += count
        if progress is not None:
            progress(len(batch))
    return Packed(vectors, start.to(device), length.to(device), flat_ids.to(device))


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

    `layer=None` means the model's default BERTScore layer. `course_lib.score` uses a
    faster path for long lists (dedup, sort, batch).
    """
    from .model import default_layer, load

    tokenizer, model = load(model_type, device)
    layer = default_layer(model_type) if layer is None else layer
    input_ids, attention_mask = pad(encode_all(tokenizer, sentences), tokenizer.pad_token_id)
    dev = next(model.parameters()).device
    emb = hidden_states(model, input_ids.to(dev), attention_mask.to(dev), layer).float().cpu()
    return Embedded(input_ids, emb, attention_mask.bool(), special_mask(input_ids, tokenizer))
