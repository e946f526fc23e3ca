"""Embedding many sentences fast: length-sorted batches under a token budget, only the layers
needed, the unit vectors of real tokens packed end to end without padding.

The vectors are those of `course_lib.bertscore.embeddings` (tested equal).
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

import torch

from course_lib.bertscore.embeddings import pad


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
        with first_layers(model, layer) as truncated:
            out = model(input_ids=input_ids, attention_mask=attention_mask,
                        output_hidden_states=not truncated)
        return [out.last_hidden_state if truncated else out.hidden_states[layer]]
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
