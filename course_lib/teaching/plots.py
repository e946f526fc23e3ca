"""Pictures of BERTScore: the token similarity matrix with the greedy matches marked.

    similarity_heatmap(cand, ref)   one pair's matrix with the greedy matches framed: a red border on
                                    each row's maximum (-> P), a white inner frame on each column's
                                    maximum (-> R), the matched numbers in bold (never covered)
    maxima_heatmap(cand, ref)       the same matrix with the row maxima (-> P) drawn beside it
                                    and the column maxima (-> R) drawn below it
    matrix_heatmap(sim, rows, cols) any matrix with token labels; masked cells (padding) greyed
"""
from __future__ import annotations

import matplotlib.patheffects as path_effects
import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns
import torch
from matplotlib.patches import Rectangle

from course_lib.bertscore.embeddings import embed
from course_lib.bertscore.idf import uniform_weights
from course_lib.bertscore.pair import PairView, match_cells, match_targets, view_of
from course_lib.call.inputs import warn_empty_view
from course_lib.model import load

CMAP = "viridis"


def pair_view(candidate: str, reference: str, model_type=None, layer=None, weights=None,
              exclude_special: bool = False) -> PairView:
    """Everything a heatmap needs, for one pair (weights: idf dict, or None for uniform)."""
    tokenizer, _ = load(model_type)
    weights = uniform_weights(tokenizer) if weights is None else weights
    batch = embed([candidate, reference], model_type, layer)
    n_c, n_r = int(batch.mask[0].sum()), int(batch.mask[1].sum())
    view = view_of(tokenizer, batch.input_ids[0, :n_c].tolist(), batch.input_ids[1, :n_r].tolist(),
                   batch.embeddings[0, :n_c], batch.embeddings[1, :n_r], weights, exclude_special)
    warn_empty_view(view)
    return view


PRECISION_COLOR = "red"  # border of each row's maximum (candidate token -> best reference token)
RECALL_COLOR = "white"  # inner frame of each column's maximum (reference token -> best candidate token)
_INSET = 0.14  # how far the recall frame sits inside the cell, so both frames show on one cell


def mark_matches(ax, targets: torch.Tensor, cand_weights, ref_weights, mark: str | None = "both"):
    """Draw the greedy matches on a heatmap of `targets` [cand_len, ref_len], leaving the numbers readable.

    "precision": a red border around each row's maximum (candidate token -> best reference token);
    "recall": a white inner frame (outlined in black) inside each column's maximum; "both"; None.
    The number of every marked cell is set in bold. Tokens of weight 0 ([CLS]/[SEP]) are sources
    of no match, so they get no mark.
    """
    if mark is None:
        return
    rows, cols = match_cells(targets, cand_weights, ref_weights)
    rows = rows if mark in ("precision", "both") else set()
    cols = cols if mark in ("recall", "both") else set()
    for i, j in rows:
        ax.add_patch(Rectangle((j + 0.03, i + 0.03), 0.94, 0.94, fill=False, edgecolor=PRECISION_COLOR,
                               lw=2.2, zorder=3))
    outline = [path_effects.withStroke(linewidth=2.8, foreground="black")]
    for i, j in cols:
        frame = Rectangle((j + _INSET, i + _INSET), 1 - 2 * _INSET, 1 - 2 * _INSET, fill=False,
                          edgecolor=RECALL_COLOR, lw=1.3, zorder=4)
        frame.set_path_effects(outline)
        ax.add_patch(frame)
    marked = rows | cols
    for text in ax.texts:  # seaborn's annotations sit at the cell centres (j + 0.5, i + 0.5)
        x, y = text.get_position()
        if (int(y - 0.5 + 0.01), int(x - 0.5 + 0.01)) in marked:
            text.set_fontweight("bold")


def match_key(mark: str | None = "both") -> str:
    """One line that explains `mark_matches`' frames (put under the x-axis label)."""
    keys = {"precision": "red border = row max (→ P)", "recall": "white frame = column max (→ R)"}
    shown = [keys[m] for m in ("precision", "recall") if mark in (m, "both")]
    return "   ".join(shown)


def similarity_heatmap(candidate: str, reference: str, model_type=None, layer=None, weights=None,
                       mark: str = "both", exclude_special: bool = False, ax=None, title=None,
                       annot: bool = True):
    """Heatmap of token cosines (rows = candidate, columns = reference).

    mark: "precision" frames each row's maximum in red (candidate token -> best reference token),
    "recall" frames each column's maximum in white (inside the cell), "both" draws both, None
    draws neither; matched numbers are bold. The x-axis label explains the frames.
    Returns (ax, PairView).
    """
    view = pair_view(candidate, reference, model_type, layer, weights, exclude_special)
    n_c, n_r = view.sim.shape
    if ax is None:
        _, ax = plt.subplots(figsize=(max(5, 0.55 * n_r + 2.5), max(3.5, 0.45 * n_c + 1.5)))
    sns.heatmap(view.sim.numpy(), ax=ax, cmap=CMAP, vmin=0, vmax=1, annot=annot and n_c * n_r <= 400,
                fmt=".2f", annot_kws={"size": 7}, xticklabels=view.ref_tokens,
                yticklabels=view.cand_tokens, cbar_kws={"label": "cosine similarity"})
    mark_matches(ax, match_targets(view, exclude_special), view.cand_weights, view.ref_weights, mark)
    key = match_key(mark)
    _label_axes(ax, xlabel="reference tokens" + (f"\n{key}" if key else ""))
    ax.set_title(title or f"P = {view.P:.3f}   R = {view.R:.3f}   F = {view.F:.3f}")
    return ax, view


def _tidy_zeros(ax):
    """Print a cosine that rounds to zero as 0.00, not -0.00."""
    for text in ax.texts:
        if text.get_text() == "-0.00":
            text.set_text("0.00")


def _label_axes(ax, xlabel="reference tokens", ylabel="candidate tokens"):
    _tidy_zeros(ax)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.tick_params(axis="x", labelrotation=45)
    ax.tick_params(axis="y", labelrotation=0)


def matrix_heatmap(sim, row_labels, col_labels, mask=None, ax=None, title=None, annot=True,
                   vmin=0.0, vmax=1.0, xlabel="reference tokens", ylabel="candidate tokens"):
    """Heatmap of any matrix [rows, cols] with token labels.

    mask [rows, cols] (bool, True = real pair): cells where it is False are left blank on a
    hatched grey background -- the padding a masked matrix ignores. Returns ax.
    """
    sim = torch.as_tensor(sim).detach().float()
    n_r, n_c = sim.shape
    if ax is None:
        _, ax = plt.subplots(figsize=(max(5, 0.55 * n_c + 2.5), max(3.5, 0.45 * n_r + 1.5)))
    hidden = None if mask is None else ~torch.as_tensor(mask, dtype=torch.bool).numpy()
    values = np.where(np.isfinite(sim.numpy()), sim.numpy(), np.nan)
    ax.set_facecolor("#dddddd")
    ax.grid(False)
    sns.heatmap(values, ax=ax, mask=hidden, cmap=CMAP, vmin=vmin, vmax=vmax,
                annot=annot and n_r * n_c <= 400, fmt=".2f", annot_kws={"size": 7},
                xticklabels=col_labels, yticklabels=row_labels, cbar_kws={"label": "cosine similarity"})
    if hidden is not None:
        for i, j in zip(*np.nonzero(hidden)):
            ax.add_patch(Rectangle((j, i), 1, 1, fill=False, hatch="///", edgecolor="#999999", lw=0))
    _label_axes(ax, xlabel, ylabel)
    if title:
        ax.set_title(title)
    return ax


def maxima_heatmap(candidate: str, reference: str, model_type=None, layer=None, weights=None,
                   exclude_special: bool = False, fig=None, title=None, annot: bool = True):
    """The matrix with the numbers that make P and R drawn next to it.

    Right of the heatmap: each row's maximum max_j sim[i, j] (candidate token i's best match),
    whose weighted mean is P. Below it: each column's maximum max_i sim[i, j] (reference token
    j's best match), whose weighted mean is R. Weights are printed with the maxima when they
    are not all 1; weight-0 tokens ([CLS]/[SEP]) are greyed out (they do not count).
    Returns (fig, PairView).
    """
    view = pair_view(candidate, reference, model_type, layer, weights, exclude_special)
    targets = match_targets(view, exclude_special)
    row_max, col_max = targets.max(dim=1).values, targets.max(dim=0).values
    n_c, n_r = view.sim.shape
    if fig is None:
        fig = plt.figure(figsize=(max(6.5, 0.6 * n_r + 4), max(4.5, 0.45 * n_c + 2.6)))
    grid = fig.add_gridspec(2, 3, width_ratios=[n_r, 1.8, 0.35], height_ratios=[n_c, 1.5],
                            wspace=0.08, hspace=0.12)
    ax = fig.add_subplot(grid[0, 0])
    ax_row = fig.add_subplot(grid[0, 1])
    ax_col = fig.add_subplot(grid[1, 0])
    ax_cbar = fig.add_subplot(grid[0, 2])
    kw = dict(cmap=CMAP, vmin=0, vmax=1, fmt=".2f", annot_kws={"size": 7})
    sns.heatmap(view.sim.numpy(), ax=ax, annot=annot and n_c * n_r <= 400, cbar_ax=ax_cbar,
                cbar_kws={"label": "cosine similarity"}, xticklabels=False,
                yticklabels=view.cand_tokens, **kw)
    mark_matches(ax, targets, view.cand_weights, view.ref_weights, "both")
    _tidy_zeros(ax)
    ax.set_ylabel("candidate tokens")
    ax.tick_params(axis="y", labelrotation=0)
    weighted = not (set(view.cand_weights.tolist()) | set(view.ref_weights.tolist())) <= {0.0, 1.0}

    def labels(values, w):
        return np.array([[f"{v:.2f}" + (f"\nw={x:.1f}" if weighted else "") if x > 0 else "–"
                          for v, x in zip(values.tolist(), w.tolist())]])

    rows = row_max.numpy()[:, None]
    margin = {**{k: v for k, v in kw.items() if k != "fmt"}, "annot_kws": {"size": 9}}  # legible w=
    sns.heatmap(rows, ax=ax_row, cbar=False, annot=labels(row_max, view.cand_weights).T, fmt="",
                mask=(view.cand_weights <= 0).numpy()[:, None], xticklabels=["row max"],
                yticklabels=False, **margin)
    ax_row.set_title(f"P = {view.P:.3f}", fontsize=10)
    ax_row.tick_params(axis="y", left=False)
    sns.heatmap(col_max.numpy()[None, :], ax=ax_col, cbar=False, fmt="",
                annot=labels(col_max, view.ref_weights), mask=(view.ref_weights <= 0).numpy()[None, :],
                xticklabels=view.ref_tokens, yticklabels=["column max"], **margin)
    ax_col.text(n_r + 0.2, 0.5, f"R = {view.R:.3f}", va="center", ha="left", fontsize=10)
    ax_col.set_xlabel("reference tokens")
    ax_col.tick_params(axis="x", labelrotation=45)
    ax_col.tick_params(axis="y", labelrotation=0)
    for extra in (ax_row, ax_col):
        extra.set_facecolor("#eeeeee")
        extra.grid(False)
    fig.suptitle(title or f"P = {view.P:.3f}   R = {view.R:.3f}   F = 2PR/(P+R) = {view.F:.3f}")
    return fig, view
