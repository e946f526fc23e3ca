"""Embedding many sentences fast: length-sorted batches under a token budget, only the layers
needed, the unit vectors of real tokens packed end to end without padding.

The vectors are those of `course_lib.bertscore.embeddings` (tested equal).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

import torch

from course_lib.bertscore.embeddings import model_limit, pad, warn_truncated
from course_lib.caching import cached
from course_lib.engine.fast_tokenizer import encode_many


def _layer_owner(model):
    """(name, module) of the submodule that holds the ModuleList `layer` of transformer layers,
    when the model has the usual BERT layout (`encoder.layer`; DistilBERT: `transformer.layer`)."""
    for name in ("encoder", "transformer"):
        owner = getattr(model, name, None)
        if owner is not None and isinstance(getattr(owner, "layer", None), torch.nn.ModuleList):
            return name, owner
    return None, None


@cached()  # (model, k) -> its first-k-layers view
def first_layers(model, k: int):
    """A model that runs only the first `k` transformer layers, or None for an unusual layout.

    A shallow copy of `model` and of its layer owner with their own module dicts and a new
    ModuleList of the first k layers: the parameters are shared (no copy of the weights), and
    the cached model is never touched, so threads scoring at different layers cannot disturb
    each other. Built once per (model, k).
    """
    name, owner = _layer_owner(model)
    if owner is None:
        return None
    inner = copy.copy(owner)
    inner._modules = {**owner._modules, "layer": torch.nn.ModuleList(list(owner.layer)[:k])}
    view = copy.copy(model)
    view._modules = {**model._modules, name: inner}
    return view


# Padded tokens (rows × longest row) per model batch in `embed_packed`. 1024, not 2048: every layer of a batch is
# held at once with all_layers=True, and the smaller batches, with streaming chunks of 32 MB, brought chapter 08
# from 1,107-1,171 MB to 931-951 MB (make memory, 2026-12-02, two runs each), within a hub's 1 GB.
MAX_BATCH_TOKENS = 1024


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


def _layer_states(model, input_ids, attention_mask, layer, all_layers):
    """[hidden states of `layer`], or the hidden states of every layer (0..n) without stacking
    them; each [batch, seq_len, dim]."""
    if all_layers:
        return model(input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=True).hidden_states
    view = first_layers(model, layer)
    if view is None:
        out = model(input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=True)
        return [out.hidden_states[layer]]
    return [view(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state]


def pack_unit(states: torch.Tensor, real: torch.Tensor, out: torch.Tensor, unit: bool = True):
    """out [count, dim] <- the vectors of the real tokens of states [batch, seq_len, dim] (flat
    positions `real` [count]), scaled to unit length: x / ||x|| (unit=False: as they are).
    Padding is never normalised."""
    flat = states.reshape(-1, states.shape[-1])
    if flat.dtype == out.dtype:
        torch.index_select(flat, 0, real, out=out)
    else:
        out.copy_(flat.index_select(0, real))
    if unit:
        out.div_(torch.linalg.vector_norm(out, dim=-1, keepdim=True))


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
                 max_tokens: int = MAX_BATCH_TOKENS, progress=None, all_layers: bool = False,
                 unit: bool = True) -> Packed:
    """Embed tokenized sentences in length-sorted batches (`length_batches`) and pack the
    unit-normalised vectors of their real tokens (no padding) into one tensor.

    `layer`: the hidden state to keep (0 = embedding output); all_layers=True keeps every
    layer instead (`layer` is then ignored). `progress(n)` is called after each batch of n
    sentences. unit=False keeps the hidden states as they are (what mean pooling averages).
    """
    if not all_layers and not isinstance(layer, int):
        raise ValueError(f"layer must be a hidden-state index (int) unless all_layers=True, got {layer!r}")
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
    shape = (model.config.num_hidden_layers + 1, int(length.sum()), dim) if all_layers else (int(length.sum()), dim)
    vectors = torch.empty(shape, dtype=torch.float32, device=device)
    row = 0
    for batch in batches:
        input_ids, attention_mask = pad([ids[k] for k in batch], pad_id)
        count = int(attention_mask.sum())
        real = attention_mask.flatten().nonzero().squeeze(1).to(device)  # real tokens' flat positions
        states = _layer_states(model, input_ids.to(device), attention_mask.to(device), layer, all_layers)
        for target, emb in zip(vectors if all_layers else [vectors], states):
            pack_unit(emb, real, target[row:row + count], unit)
        row += count
        if progress is not None:
            progress(len(batch))
    return Packed(vectors, start.to(device), length.to(device), flat_ids.to(device))


SLICE_FLOATS = 1 << 24  # packed vector floats `embed_slices` holds at once (64 MB in float32)


def embed_slices(tokenizer, model, texts: list[str], layer: int | None, *, all_layers: bool = False,
                 unit: bool = True, max_floats: int | None = None):
    """`embed_texts` a slice at a time, for a caller that keeps less than the token vectors (a mean per text):
    the distinct texts, tokenized once (a warning when some are truncated) and sorted longest first, cut into
    slices whose packed vectors hold at most `max_floats` floats (SLICE_FLOATS; a longer text is a slice alone).
    Yields (the slice's texts, their Packed); every text once, over all the slices."""
    new = list(dict.fromkeys(texts))
    ids, truncated = encode_many(tokenizer, new)
    if truncated:
        warn_truncated(truncated, model_limit(tokenizer))
    per_token = model.config.hidden_size * ((model.config.num_hidden_layers + 1) if all_layers else 1)
    budget = SLICE_FLOATS if max_floats is None else max_floats
    order = sorted(range(len(new)), key=lambda k: -len(ids[k]))
    start, tokens = 0, 0
    for n, k in enumerate(order + [None]):
        if k is None or (n > start and (tokens + len(ids[k])) * per_token > budget):
            if n > start or not new:
                chosen = order[start:n]
                yield [new[j] for j in chosen], embed_packed(model, [ids[j] for j in chosen], layer,
                                                             tokenizer.pad_token_id, all_layers=all_layers, unit=unit)
            start, tokens = n, 0
        if k is not None:
            tokens += len(ids[k])


def embed_texts(tokenizer, model, texts: list[str], layer: int | None, *, all_layers: bool = False,
                unit: bool = True, ids: list[list[int]] | None = None, batch_size: int = 64,
                progress=None) -> tuple[dict[str, int], Packed]:
    """The one embedding loop: each distinct text once (dedup), tokenized in one call as bert-score
    does (`fast_tokenizer.encode_many`, a warning when some are truncated), then `embed_packed`
    (sorted by length, batched under a token budget, one forward pass a batch, packed rows).

    `ids`: the texts' token ids, if known (aligned with `texts`). Returns (the number of each
    distinct text, its packed vectors): text t's rows are start[n] .. start[n] + length[n] - 1,
    n = index[t].
    """
    new = list(dict.fromkeys(texts))
    if ids is not None:
        known = dict(zip(texts, ids))
        ids = [known[t] for t in new]
    else:
        ids, truncated = encode_many(tokenizer, new)
        if truncated:
            warn_truncated(truncated, model_limit(tokenizer))
    packed = embed_packed(model, ids, layer, tokenizer.pad_token_id, batch_size, MAX_BATCH_TOKENS, progress,
                          all_layers, unit)
    return {t: k for k, t in enumerate(new)}, packed
