"""Greedy matching: each token is paired with its most similar token on the other side.

With the similarity matrix sim [batch, cand_len, ref_len] and token weights w (idf, or 1):

    P = Σ_i w(x̂_i) · max_j sim[i, j] / Σ_i w(x̂_i)     (every candidate token finds its best match)
    R = Σ_j w(x_j) · max_i sim[i, j] / Σ_j w(x_j)      (every reference token finds its best match)
    F = 2 P R / (P + R)

[CLS] and [SEP] carry weight 0, so they never count as sources. bert-score still lets the
other tokens match *to* them (its open issue #180); `exclude_special=True` forbids that.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from course_lib.bertscore.similarity import masked_cosine_matrix
from course_lib.notices import warn


def weighted_mean(values: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """Σ w·v / Σ w over the last dimension. [batch, len] -> [batch]"""
    return (values * weights).sum(-1) / weights.sum(-1)


def f1(precision: torch.Tensor, recall: torch.Tensor) -> torch.Tensor:
    """Harmonic mean 2PR/(P+R); 0 where it is undefined (both 0, or NaN)."""
    f = 2 * precision * recall / (precision + recall)
    return f.masked_fill(torch.isnan(f), 0.0)


def drop_special(sim: torch.Tensor, cand_special: torch.Tensor, ref_special: torch.Tensor) -> torch.Tensor:
    """exclude_special on a matrix sim [..., cand_len, ref_len]: the rows of candidate [CLS]/[SEP]
    (cand_special [..., cand_len]) and the columns of reference ones (ref_special [..., ref_len])
    set to -inf, so no maximum lands on them (bert-score keeps them as targets)."""
    return sim.masked_fill(cand_special[..., :, None] | ref_special[..., None, :], float("-inf"))


def best_matches(sim: torch.Tensor):
    """Row and column maxima of a (masked) similarity matrix [..., cand_len, ref_len].

    Returns (for precision: best reference match of each candidate token [..., cand_len],
             for recall: best candidate match of each reference token [..., ref_len]).
    """
    return sim.max(dim=-1).values, sim.max(dim=-2).values


@dataclass(frozen=True)
class Tokens:
    """The tokens of one side of a batch of pairs: the candidates x̂ or the references x.

    emb     [batch, len, dim] (or [n_layers + 1, batch, len, dim])  token vectors
    mask    [batch, len]  True for real tokens ([CLS]/[SEP] included), False for padding
    idf     [batch, len]  token weights w (idf, or 1): 0 at padding and at [CLS]/[SEP]
    special [batch, len]  True for [CLS]/[SEP]
    """

    emb: torch.Tensor
    mask: torch.Tensor
    idf: torch.Tensor
    special: torch.Tensor

    def targets(self, exclude_special: bool = False) -> torch.Tensor:
        """The tokens the other side may match to: the real ones (without [CLS]/[SEP] when
        `exclude_special`)."""
        return self.mask & ~self.special if exclude_special else self.mask

    def cpu(self) -> Tokens:
        return Tokens(self.emb.cpu(), self.mask.cpu(), self.idf.cpu(), self.special.cpu())


def greedy_match(x_hat: Tokens, x: Tokens, *, exclude_special: bool = False, unit_length: bool = False):
    """Precision, recall and F1 of a batch of (candidate x̂, reference x) pairs:

        P = Σ_i w(x̂_i) · max_j cos(x̂_i, x_j) / Σ_i w(x̂_i)
        R = Σ_j w(x_j) · max_i cos(x̂_i, x_j) / Σ_j w(x_j)
        F = 2 P R / (P + R)

    The max runs over the other side's `targets` (its real tokens; without [CLS]/[SEP] when
    `exclude_special`). `unit_length=True`: the vectors already have length 1 (the fast engine
    stores them so). Returns P, R, F, each [batch] (or [n_layers + 1, batch]).
    """
    x_hat_targets, x_targets = x_hat.targets(exclude_special), x.targets(exclude_special)
    sim = masked_cosine_matrix(x_hat.emb, x.emb, x_hat_targets, x_targets, unit_length)  # [batch, cand_len, ref_len]
    best_for_cand, best_for_ref = best_matches(sim)
    # padding rows/columns are all -inf; their weight is 0, but 0 * -inf is NaN
    P = weighted_mean(best_for_cand.masked_fill(~x_hat_targets, 0.0), x_hat.idf)
    R = weighted_mean(best_for_ref.masked_fill(~x_targets, 0.0), x.idf)
    return zero_empty(P, R, x_hat, x)


def zero_empty(P, R, x_hat: Tokens, x: Tokens):
    """P = R = F = 0 for pairs with an empty text (`empty_pairs`; the entry points say which texts
    with `warn_empty`). When all weights of a non-empty text are 0 (idf computed from a single
    reference: every token has idf log(2/2) = 0), P or R is 0/0 = NaN as in bert-score, F is set
    to 0, and a warning says so.
    """
    empty = empty_pairs(x_hat.targets(True), x.targets(True))
    P = P.masked_fill(empty, 0.0)
    R = R.masked_fill(empty, 0.0)
    if torch.isnan(P).any() or torch.isnan(R).any():
        warn("Some texts have total token weight 0 (e.g. idf computed from a single reference: "
             "every token's idf is log(2/2) = 0), so P or R is NaN and F is set to 0, as in "
             "bert-score. Compute idf from a larger corpus.")
    return P, R, f1(P, R)


def empty_texts(words: torch.Tensor) -> torch.Tensor:
    """bert-score's rule for empty texts, the one place it is written: a text with no token but
    [CLS]/[SEP] is empty (its pairs score P = R = F = 0, and `warn_empty` says so).

    words [..., len]: True at real tokens other than [CLS]/[SEP]. Returns [...]: True where empty.
    """
    return ~words.any(-1)


def empty_pairs(cand_words: torch.Tensor, ref_words: torch.Tensor) -> torch.Tensor:
    """[...]: True where the candidate or the reference of a pair is empty (`empty_texts`);
    cand_words [..., cand_len], ref_words [..., ref_len] as there."""
    return empty_texts(cand_words) | empty_texts(ref_words)
