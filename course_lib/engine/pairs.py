"""Greedy matching of many pairs of stored sentences: the taught `greedy_match`, in batches.

Pairs of similar lengths are gathered from the store into padded batches (`match_batches`), and
each batch goes through `course_lib.bertscore.matching.greedy_match` as it is taught, told only
that the stored vectors already have unit length. Several references: the best P, R and F.
"""
from __future__ import annotations

import torch

from course_lib.bertscore.matching import empty_texts, greedy_match
from course_lib.engine.store import SentenceStore

MATCH_FLOATS = 1 << 23  # the most gathered vector floats per matching batch (32 MB)


def match_batches(cand_len: list[int], ref_len: list[int], dim: int, n_layers: int = 1,
                  max_floats: int = MATCH_FLOATS) -> list[list[int]]:
    """Group pair indices for matching: longest pairs first; each batch's gathered vectors,
    rows × (longest candidate + longest reference) × dim × layers, stay within `max_floats`."""
    order = sorted(range(len(cand_len)), key=lambda k: -(cand_len[k] + ref_len[k]))
    batches, current, lc, lr = [], [], 0, 0
    for k in order:
        c, r = max(lc, cand_len[k]), max(lr, ref_len[k])
        if current and (len(current) + 1) * (c + r) * dim * n_layers > max_floats:
            batches.append(current)
            current, c, r = [], cand_len[k], ref_len[k]
        current.append(k)
        lc, lr = c, r
    return batches + [current] if current else batches


def match_pairs(store: SentenceStore, cand_numbers: torch.Tensor, ref_numbers: torch.Tensor,
                exclude_special: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """Greedy matching of pairs of stored sentences (numbers [n_pairs] each), in batches of
    similar lengths -> P, R, F [n_pairs, 3] (or [n_layers + 1, n_pairs, 3]), and which texts are
    empty (`empty_texts`), [n_pairs, 2]: the candidate's, the reference's."""
    cand_len, ref_len = store.length[cand_numbers].tolist(), store.length[ref_numbers].tolist()
    n_layers = store.vectors.shape[0] if store.all_layers else 1
    out, empty = None, torch.zeros(len(cand_len), 2, dtype=torch.bool)
    for batch in match_batches(cand_len, ref_len, store.vectors.shape[-1], n_layers, MATCH_FLOATS):
        batch = torch.tensor(batch)
        x_hat, x = store.gather(cand_numbers[batch]), store.gather(ref_numbers[batch])
        P, R, F = greedy_match(x_hat, x, exclude_special=exclude_special, unit_length=True)
        prf = torch.stack([P, R, F], dim=-1).cpu()  # [batch, 3] or [layers, batch, 3]
        if out is None:
            out = prf.new_empty((*prf.shape[:-2], len(cand_len), 3))
        out[..., batch, :] = prf
        empty[batch] = torch.stack([empty_texts(x_hat.targets(True)), empty_texts(x.targets(True))], -1).cpu()
    return out, empty


def empty_by_candidate(empty: torch.Tensor, counts: list[int]) -> tuple[list[bool], list[list[bool]]]:
    """[n_pairs, 2] empty-text flags of consecutive groups of pairs (sizes `counts`, one group per
    candidate) -> a flag per candidate, and per candidate one per reference (`warn_empty`'s input)."""
    cands, refs, start = [], [], 0
    for n in counts:
        cands.append(bool(empty[start:start + n, 0].any()))
        refs.append(empty[start:start + n, 1].tolist())
        start += n
    return cands, refs


def best_over_references(prf: torch.Tensor, counts: list[int]) -> torch.Tensor:
    """[..., n_pairs, 3] scores of consecutive groups of pairs (sizes `counts`) ->
    [..., n_groups, 3], the maximum of each column (P, R, F) within each group."""
    counts = torch.tensor(counts)
    group = torch.repeat_interleave(torch.arange(len(counts)), counts)
    slot = torch.arange(len(group)) - (counts.cumsum(0) - counts)[group]
    full = prf.new_full((*prf.shape[:-2], len(counts), int(counts.max()), 3), float("-inf"))
    full[..., group, slot, :] = prf
    return full.max(dim=-2).values
