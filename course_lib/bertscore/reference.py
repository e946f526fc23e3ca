"""BERTScore end to end, one pair at a time: the definition every faster version must match.

    text -> tokens -> layer-k vectors -> unit length -> cosine matrix [cand_len, ref_len]
         -> greedy P, R (weighted means of row / column maxima) -> F = 2PR / (P + R)
         -> several references: best P, R and F, each on its own -> rescale with a baseline

Built only from the functions the chapters teach, given a resolved setting (the model, its layer,
the token weights, the baseline: `course_lib.call.setting.Setting`). `course_lib.reference_bertscore`
takes bert-score's arguments, resolves the setting and checks the inputs, then runs this
(`course_lib.call.reference`). `course_lib.score` (the fast engine) is tested equal to it;
bert-score's `score` is the second witness.
"""
from __future__ import annotations

import torch

from course_lib.bertscore.baseline import rescale
from course_lib.bertscore.embeddings import embed_in
from course_lib.bertscore.idf import token_weights
from course_lib.bertscore.matching import best_matches, drop_special, empty_pairs, f1, weighted_mean
from course_lib.bertscore.similarity import cosine_matrix


def reference_scores(setting, cands: list[str], groups: list[list[str]], exclude_special: bool = False):
    """BERTScore P, R, F of each candidate against its references: three tensors [N].

    cands: N texts; groups: for each candidate its list of references (best P, R, F over them,
    each on its own). setting: the model (tokenizer, net), the layer, the token weights and the
    baseline (`setting.baseline()`, when `setting.rescale_with_baseline`).
    exclude_special=True: [CLS]/[SEP] are not match targets (bert-score keeps them).
    """
    scores = []
    for cand, group in zip(cands, groups):
        prf = torch.stack([pair_score(cand, ref, setting, exclude_special) for ref in group])
        scores.append(prf.max(dim=0).values)  # best P, best R, best F: each on its own
    prf = torch.stack(scores) if scores else torch.zeros(0, 3)
    if setting.rescale_with_baseline:
        prf = rescale(prf, setting.baseline())
    return prf[:, 0], prf[:, 1], prf[:, 2]


def pair_score(cand: str, ref: str, setting, exclude_special: bool = False) -> torch.Tensor:
    """[P, R, F] of one candidate x̂ against one reference x."""
    x_hat, x = (embed_in(setting.tokenizer, setting.net, [text], setting.layer) for text in (cand, ref))
    if empty_pairs(~x_hat.special[0], ~x.special[0]):  # nothing but [CLS] [SEP]: bert-score's rule
        return torch.zeros(3)
    sim = cosine_matrix(x_hat.embeddings[0], x.embeddings[0])  # [cand_len, ref_len]
    if exclude_special:  # [CLS]/[SEP] are no match targets: their rows and columns drop out
        sim = drop_special(sim, x_hat.special[0], x.special[0])
    best_for_cand, best_for_ref = best_matches(sim)
    w_hat = torch.tensor(token_weights(x_hat.input_ids[0].tolist(), setting.weights))
    w = torch.tensor(token_weights(x.input_ids[0].tolist(), setting.weights))
    P = weighted_mean(best_for_cand.masked_fill(best_for_cand.isinf(), 0.0), w_hat)  # a dropped row: 0
    R = weighted_mean(best_for_ref.masked_fill(best_for_ref.isinf(), 0.0), w)
    return torch.stack([P, R, f1(P, R)])
