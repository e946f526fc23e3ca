"""Texts longer than the model's window: what truncation drops, and a chunked alternative.

A BERT-style model has a fixed number of positions L (512 for the course's model and for
roberta-large). With [CLS] and [SEP] around it, at most L - 2 word pieces of a text fit;
bert-score, and `course_lib.score` with it, keep the first L - 2 and drop the rest (with a
warning). For a text of n word pieces the share that is never scored is

    lost(n) = max(0, n - (L - 2)) / n

Chunked embedding (an alternative, not part of BERTScore):
1. split the n word pieces into windows of at most W tokens (W <= L - 2), consecutive
   windows overlapping by `overlap` tokens;
2. embed each window on its own, as the sequence [CLS] window [SEP];
3. give each token the vector from the window in which it sits farthest from an edge
   (the most context on both sides);
4. keep [CLS] of the first window and [SEP] of the last: n + 2 vectors [n + 2, dim], one per
   token of the whole text, as if the model had read it in one go;
5. greedy matching over these vectors exactly as BERTScore does (`matching.greedy_match`).

A text that fits in one window gets exactly the vectors `course_lib.score` gives it.
Caveats: a token never sees context beyond its window; the vectors of different windows were
computed separately; baselines (rescaling) were measured on sentences, not on documents.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from course_lib.bertscore.baseline import rescale
from course_lib.bertscore.embeddings import hidden_states, model_limit, needs_prefix_space, pad, special_mask
from course_lib.bertscore.idf import token_weights
from course_lib.call.inputs import check_count, check_inputs, warn_empty
from course_lib.bertscore.matching import Tokens, empty_texts, greedy_match
from course_lib.call.setting import resolve_setting
from course_lib.engine.store import SentenceStore
from course_lib.model import load


def word_pieces(tokenizer, text: str) -> list[int]:
    """Token ids of the whole text, without [CLS]/[SEP] and without truncation."""
    extra = {"add_prefix_space": True} if needs_prefix_space(tokenizer) else {}
    return tokenizer.convert_tokens_to_ids(tokenizer.tokenize(text.strip(), **extra))


def lost_fraction(n_pieces: int, limit: int) -> float:
    """Share of a text's n word pieces that truncation to `limit` positions drops:
    max(0, n - (limit - 2)) / n ([CLS] and [SEP] take two of the positions)."""
    if n_pieces <= 0:
        return 0.0
    return max(0, n_pieces - (limit - 2)) / n_pieces


def truncation_table(texts: list[str], model_type=None):
    """One row per text: word pieces n, kept, lost, lost_fraction (a pandas DataFrame)."""
    import pandas as pd

    tokenizer, _ = load(model_type)
    limit = model_limit(tokenizer)
    n = [len(word_pieces(tokenizer, t)) for t in texts]
    return pd.DataFrame({
        "n_pieces": n,
        "kept": [min(k, limit - 2) for k in n],
        "lost": [max(0, k - (limit - 2)) for k in n],
        "lost_fraction": [lost_fraction(k, limit) for k in n],
    })


def windows(n: int, size: int, overlap: int = 64) -> list[tuple[int, int]]:
    """Spans [start, end) of at most `size` tokens covering positions 0..n-1; consecutive
    spans share `overlap` tokens. One span when n <= size."""
    if size < 1 or not 0 <= overlap < size:
        raise ValueError(f"need size >= 1 and 0 <= overlap < size, got size={size}, overlap={overlap}")
    if n <= size:
        return [(0, n)]
    spans, start, step = [], 0, size - overlap
    while True:
        end = min(start + size, n)
        spans.append((end - size, end) if end == n else (start, end))  # last window: full size
        if end == n:
            return spans
        start += step


def owners(n: int, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """For each position p < n: (window index, offset of p inside that window), choosing the
    window where p is farthest from an edge, i.e. the largest min(p - start, end - 1 - p)."""
    out = []
    for p in range(n):
        best = max((min(p - a, b - 1 - p), -w) for w, (a, b) in enumerate(spans) if a <= p < b)
        w = -best[1]
        out.append((w, p - spans[w][0]))
    return out


@dataclass
class LongEmbedding:
    """A whole text embedded window by window.

    ids:        [n + 2] token ids ([CLS] + word pieces + [SEP])
    embeddings: [n + 2, dim] unit-length vectors of one layer
    spans:      the windows [start, end) over the word pieces
    """

    ids: list[int]
    embeddings: torch.Tensor
    spans: list[tuple[int, int]]


def embed_long(text: str, model_type=None, layer: int | None = None, size: int | None = None,
               overlap: int = 64, device=None) -> LongEmbedding:
    """Embed a text of any length: windows of `size` word pieces (default L - 2), each run
    through the model as [CLS] window [SEP]; every token keeps its most central vector."""
    return embed_long_with(resolve_setting(model_type, layer, device=device), text, size, overlap)


def embed_long_with(setting, text: str, size: int | None = None, overlap: int = 64) -> LongEmbedding:
    """`embed_long` with a resolved `Setting` (its tokenizer, model and layer)."""
    tokenizer, model, layer = setting.tokenizer, setting.net, setting.layer
    size = model_limit(tokenizer) - 2 if size is None else size
    if size > model_limit(tokenizer) - 2:
        raise ValueError(f"size must be at most {model_limit(tokenizer) - 2} for this model")
    body = word_pieces(tokenizer, text)
    spans = windows(len(body), size, min(overlap, max(size - 1, 0)))
    ids = [tokenizer.build_inputs_with_special_tokens(body[a:b]) for a, b in spans]
    input_ids, attention_mask = pad(ids, tokenizer.pad_token_id)
    dev = next(model.parameters()).device
    emb = hidden_states(model, input_ids.to(dev), attention_mask.to(dev), layer).float().cpu()
    emb = emb / emb.norm(dim=-1, keepdim=True)  # [n_windows, window_len, dim]
    rows = [emb[0, 0]]  # [CLS] of the first window
    rows += [emb[w, 1 + k] for w, k in owners(len(body), spans)]  # +1: skip the window's [CLS]
    rows.append(emb[len(spans) - 1, len(ids[-1]) - 1])  # [SEP] of the last window
    full_ids = tokenizer.build_inputs_with_special_tokens(body)
    return LongEmbedding(full_ids, torch.stack(rows), spans)


def chunked_score(cands: list[str], refs: list[str], model_type=None, num_layers: int | None = None,
                  size: int | None = None, overlap: int = 64, rescale_with_baseline: bool = False,
                  baseline_path=None, batch_size: int = 64, lang=None):
    """BERTScore P, R, F [N] of each (candidate, reference) pair, every text embedded whole
    with `embed_long` (no truncation). No idf (every token weighs 1, [CLS]/[SEP] 0); one
    reference per candidate. Inputs are checked as `course_lib.score` checks them. Texts that
    fit in one window are embedded in batches, as `course_lib.score` does, so for them the
    result equals `course_lib.score(cands, refs)`."""
    cands, groups = check_inputs(cands, refs)
    if any(len(g) != 1 for g in groups):
        raise TypeError("chunked_score takes one reference (a str) per candidate")
    refs, batch_size = [g[0] for g in groups], check_count(batch_size, "batch_size")
    setting = resolve_setting(model_type, num_layers, lang=lang, rescale_with_baseline=rescale_with_baseline,
                              baseline_path=baseline_path)  # fails before the expensive part
    tokenizer, model, layer, weights = setting.tokenizer, setting.net, setting.layer, setting.weights
    limit = model_limit(tokenizer) - 2 if size is None else size
    texts = list(dict.fromkeys(list(cands) + list(refs)))
    fits = [t for t in texts if len(word_pieces(tokenizer, t)) <= limit]
    store = SentenceStore(tokenizer, model, layer, weights, batch_size)  # one window: batch them
    store.add(fits)
    cache: dict[str, Tokens] = {}  # text -> its tokens, a batch of one
    for text in texts:
        if text in store.index:
            cache[text] = store.batch([text]).cpu()
            continue
        e = embed_long_with(setting, text, size, overlap)
        vectors, w = e.embeddings, torch.tensor(token_weights(e.ids, weights))
        special = special_mask(torch.tensor(e.ids)[None], tokenizer)[0]
        cache[text] = Tokens(vectors[None].cpu(), torch.ones(1, len(vectors), dtype=torch.bool), w[None].cpu(),
                             special[None].cpu())

    scores = []
    for c, r in zip(cands, refs):  # pairs one at a time: documents are few and long
        scores.append(torch.stack(greedy_match(cache[c], cache[r]), -1)[0])
    empty = {text: bool(empty_texts(tokens.targets(True))) for text, tokens in cache.items()}
    warn_empty([empty[c] for c in cands], [[empty[r]] for r in refs])
    prf = torch.stack(scores) if scores else torch.zeros(0, 3)  # [N, 3]
    if setting.rescale_with_baseline:
        prf = rescale(prf, setting.baseline())
    return prf[:, 0], prf[:, 1], prf[:, 2]
