"""Pictures of BERTScore: the token similarity matrix with the greedy matches marked."""
from __future__ import annotations

from dataclasses import dataclass

import matplotlib.pyplot as plt
import seaborn as sns
import torch

from .embeddings import embed, tokens
from .idf import token_weights, uniform_weights
from .matching import greedy_match
from .model import load
from .similarity import cosine_matrix


@dataclass
class PairView:
    """One candidate/reference pair, ready to draw: token labels, matrix, weights, scores."""

    cand_tokens: list[str]
    ref_tokens: list[str]
    sim: torch.Tensor  # [cand_len, ref_len]
    cand_weights: torch.Tensor
    ref_weights: torch.Tensor
    P: float
    R: float
    F: float


def pair_view(candidate: str, reference: str, model_type=None, layer=None, weights=None,
              exclude_special: bool = False) -> PairView:
    """Everything a heatmap needs, for one pair (weights: idf dict, or None for uniform)."""
    tokenizer, _ = load(model_type)
    weights = uniform_weights(tokenizer) if weights is None else weights
    batch = embed([candidate, reference], model_type, layer)
    n_c, n_r = int(batch.mask[0].sum()), int(batch.mask[1].sum())
    c_ids, r_ids = batch.input_ids[0, :n_c].tolist(), batch.input_ids[1, :n_r].tolist()
    c_emb, r_emb = batch.embeddings[0, :n_c], batch.embeddings[1, :n_r]
    c_w = torch.tensor(token_weights(c_ids, weights))
    r_w = torch.tensor(token_weights(r_ids, weights))
    P, R, F = greedy_match(c_emb[None], r_emb[None], batch.mask[:1, :n_c], batch.mask[1:, :n_r],
                           c_w[None], r_w[None], batch.special[:1, :n_c], batch.special[1:, :n_r],
                           exclude_special)
    return PairView(tokens(tokenizer, candidate), tokens(tokenizer, reference),
                    cosine_matrix(c_emb, r_emb), c_w, r_w, P.item(), R.item(), F.item())


def similarity_heatmap(candidate: str, reference: str, model_type=None, layer=None, weights=None,
                       mark: str = "both", exclude_special: bool = False, ax=None, title=None,
                       annot: bool = True):
    """Heatmap of token cosines (rows = candidate, columns = reference).

    mark: "precision" boxes each row's maximum (candidate token -> best reference token),
    "recall" circles each column's maximum, "both" draws both, None draws neither.
    Returns (ax, PairView).
    """
    view = pair_view(candidate, reference, model_type, layer, weights, exclude_special)
    n_c, n_r = view.sim.shape
    if ax is None:
        _, ax = plt.subplots(figsize=(max(5, 0.55 * n_r + 2.5), max(3.5, 0.45 * n_c + 1.5)))
    sns.heatmap(view.sim.numpy(), ax=ax, cmap="viridis", vmin=0, vmax=1, annot=annot and n_c * n_r <= 400,
                fmt=".2f", annot_kws={"size": 7}, xticklabels=view.ref_tokens,
                yticklabels=view.cand_tokens, cbar_kws={"label": "cosine similarity"})
    targets = view.sim.clone()
    if exclude_special:
        c_sp = torch.tensor([t in _SPECIAL for t in view.cand_tokens])
        r_sp = torch.tensor([t in _SPECIAL for t in view.ref_tokens])
        targets[c_sp, :] = float("-inf")
        targets[:, r_sp] = float("-inf")
    if mark in ("precision", "both"):
        for i, j in enumerate(targets.argmax(dim=1).tolist()):
            if view.cand_weights[i] > 0:
                ax.add_patch(plt.Rectangle((j, i), 1, 1, fill=False, edgecolor="red", lw=2))
    if mark in ("recall", "both"):
        for j, i in enumerate(targets.argmax(dim=0).tolist()):
            if view.ref_weights[j] > 0:
                ax.plot(j + 0.5, i + 0.5, "o", ms=14, mfc="none", mec="white", mew=1.8)
    ax.set_xlabel("reference tokens")
    ax.set_ylabel("candidate tokens")
    ax.tick_params(axis="x", labelrotation=45)
    ax.tick_params(axis="y", labelrotation=0)
    ax.set_title(title or f"P = {view.P:.3f}   R = {view.R:.3f}   F = {view.F:.3f}")
    return ax, view


_SPECIAL = {"[CLS]", "[SEP]", "<s>", "</s>"}
