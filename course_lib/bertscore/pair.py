"""One pair, everything a picture of it needs: the token labels, the cosine matrix
[cand_len, ref_len], the token weights, which tokens are special ([CLS]/[SEP], by id) and P, R, F
from `matching.greedy_match`. The chapters' heatmaps (`course_lib.teaching.plots`), the live demo
and `BERTScorer.plot_example` all draw this one view, and mark the same greedy matches
(`match_cells`).
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from course_lib.bertscore.embeddings import special_mask
from course_lib.bertscore.idf import token_weights
from course_lib.bertscore.matching import Tokens, drop_special, greedy_match
from course_lib.bertscore.similarity import cosine_matrix


@dataclass
class PairView:
    """One candidate/reference pair, ready to draw. sim [cand_len, ref_len]; weights and special
    flags ([CLS]/[SEP], found by their ids) [cand_len] / [ref_len]."""

    cand_tokens: list[str]
    ref_tokens: list[str]
    sim: torch.Tensor
    cand_weights: torch.Tensor
    ref_weights: torch.Tensor
    P: float
    R: float
    F: float
    cand_special: torch.Tensor
    ref_special: torch.Tensor


def view_of(tokenizer, cand_ids: list[int], ref_ids: list[int], cand_emb: torch.Tensor,
            ref_emb: torch.Tensor, weights, exclude_special: bool = False) -> PairView:
    """The view of one pair from its token ids and vectors ([cand_len, dim], [ref_len, dim]);
    weights: {token id: weight} (idf, or `uniform_weights`)."""
    c_w, r_w = torch.tensor(token_weights(cand_ids, weights)), torch.tensor(token_weights(ref_ids, weights))
    c_sp, r_sp = special_mask(torch.tensor(cand_ids), tokenizer), special_mask(torch.tensor(ref_ids), tokenizer)
    x_hat = Tokens(cand_emb[None], torch.ones(1, len(cand_ids), dtype=torch.bool), c_w[None], c_sp[None])
    x = Tokens(ref_emb[None], torch.ones(1, len(ref_ids), dtype=torch.bool), r_w[None], r_sp[None])
    P, R, F = greedy_match(x_hat, x, exclude_special=exclude_special)
    return PairView(tokenizer.convert_ids_to_tokens(cand_ids), tokenizer.convert_ids_to_tokens(ref_ids),
                    cosine_matrix(cand_emb, ref_emb), c_w, r_w, P.item(), R.item(), F.item(), c_sp, r_sp)


def match_targets(view: PairView, exclude_special: bool = False) -> torch.Tensor:
    """The matrix the maxima are taken over: `view.sim`, with [CLS]/[SEP] rows and columns set
    to -inf when `exclude_special` (bert-score keeps them as targets)."""
    return drop_special(view.sim, view.cand_special, view.ref_special) if exclude_special else view.sim.clone()


def match_cells(targets: torch.Tensor, cand_weights, ref_weights) -> tuple[set, set]:
    """The greedy matches of a matrix `targets` [cand_len, ref_len] as (row, column) cells.

    Returns (precision_cells, recall_cells): {(i, argmax_j targets[i, j])} for each candidate
    token i of weight > 0, and {(argmax_i targets[i, j], j)} for each reference token j of weight > 0.
    """
    rows = {(i, j) for i, j in enumerate(targets.argmax(dim=1).tolist()) if cand_weights[i] > 0}
    cols = {(i, j) for j, i in enumerate(targets.argmax(dim=0).tolist()) if ref_weights[j] > 0}
    return rows, cols
