"""Cosine similarity between every candidate token and every reference token."""
from __future__ import annotations

import torch


def normalize(embeddings: torch.Tensor) -> torch.Tensor:
    """Scale each token vector to unit length: x / ||x||_2 (last dimension)."""
    return embeddings / embeddings.norm(dim=-1, keepdim=True)


def cosine_matrix(cand: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
    """All pairwise cosines, batched.

    cand: [batch, cand_len, dim], ref: [batch, ref_len, dim]  ->  [batch, cand_len, ref_len]
    sim[b, i, j] = cos(x̂_i, x_j) = x̂_i · x_j / (||x̂_i|| ||x_j||), x̂_i the i-th candidate token,
    x_j the j-th reference token (the paper's notation: x the reference, x̂ the candidate).
    A single pair ([len, dim] each) gives a [cand_len, ref_len] matrix.
    """
    return normalize(cand) @ normalize(ref).transpose(-1, -2)


def pair_mask(cand_mask: torch.Tensor, ref_mask: torch.Tensor) -> torch.Tensor:
    """[batch, cand_len] and [batch, ref_len] booleans -> [batch, cand_len, ref_len]:
    True where both tokens are real (not padding)."""
    return cand_mask.unsqueeze(-1) & ref_mask.unsqueeze(-2)


def masked_cosine_matrix(cand, ref, cand_mask, ref_mask, unit_length: bool = False) -> torch.Tensor:
    """`cosine_matrix` with padding pairs set to -inf, so a max never picks them.
    unit_length=True: the vectors already have length 1, so their cosine is their dot product."""
    sim = cand @ ref.transpose(-1, -2) if unit_length else cosine_matrix(cand, ref)
    return sim.masked_fill(~pair_mask(cand_mask, ref_mask), float("-inf"))
