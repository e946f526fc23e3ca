"""BERTScore end to end, one pair at a time: the definition every faster version must match.

    text -> tokens -> layer-k vectors -> unit length -> cosine matrix [cand_len, ref_len]
         -> greedy P, R (weighted means of row / column maxima) -> F = 2PR / (P + R)
         -> several references: best P, R and F, each on its own -> rescale with a baseline

Built only from the functions the chapters teach. `course_lib.score` (the fast engine) is
tested equal to it; bert-score's `score` is the second witness.
"""
from __future__ import annotations

import torch

from course_lib.bertscore.baseline import rescale
from course_lib.bertscore.embeddings import embed_with, empty_flags
from course_lib.bertscore.idf import token_weights
from course_lib.bertscore.inputs import check_inputs
from course_lib.bertscore.matching import best_matches, empty_pairs, f1, warn_empty, weighted_mean
from course_lib.bertscore.setting import Setting, resolve_setting
from course_lib.bertscore.similarity import cosine_matrix


def reference_bertscore(cands, refs, model_type=None, num_layers=None, idf=False,
                        rescale_with_baseline=False, baseline_path=None, lang=None, *, exclude_special=False):
    """BERTScore P, R, F of each candidate against its reference(s): three tensors [N].

    cands: list of str; refs: list of str, or of lists of str (several references).
    model_type, lang: as in `course_lib.score` (None or lang="en": the embedded model).
    num_layers: the hidden state to use (0 = embedding output; None = the model's default).
    idf: False (every token weighs 1), True (idf from the references) or {token id: weight}.
    exclude_special=True: [CLS]/[SEP] are not match targets (bert-score keeps them).
    """
    cands, groups = check_inputs(cands, refs)
    all_refs = [r for group in groups for r in group]
    setting = resolve_setting(model_type, num_layers, idf, lang=lang, rescale_with_baseline=rescale_with_baseline,
                              baseline_path=baseline_path, idf_sents=all_refs if idf is True else None)
    setting.check_weights_cover(cands + all_refs)  # a plain idf dict weighs every token id
    scores = []
    for cand, group in zip(cands, groups):
        prf = torch.stack([pair_score(cand, ref, setting, exclude_special) for ref in group])
        scores.append(prf.max(dim=0).values)  # best P, best R, best F: each on its own
    prf = torch.stack(scores) if scores else torch.zeros(0, 3)
    warn_empty(*empty_flags(setting.tokenizer, cands, groups))  # bert-score's warning, naming each empty text
    if setting.rescale_with_baseline:
        prf = rescale(prf, setting.baseline())
    return prf[:, 0], prf[:, 1], prf[:, 2]


def pair_score(cand: str, ref: str, setting: Setting, exclude_special: bool = False) -> torch.Tensor:
    """[P, R, F] of one candidate x̂ against one reference x."""
    x_hat, x = (embed_with(setting, [text]) for text in (cand, ref))  # one text a batch
    if empty_pairs(~x_hat.special[0], ~x.special[0]):  # nothing but [CLS] [SEP]: bert-score's rule
        return torch.zeros(3)
    sim = cosine_matrix(x_hat.embeddings[0], x.embeddings[0])  # [cand_len, ref_len]
    if exclude_special:  # [CLS]/[SEP] are no match targets: their rows and columns drop out
        sim = sim.masked_fill(x_hat.special[0][:, None] | x.special[0][None, :], float("-inf"))
    best_for_cand, best_for_ref = best_matches(sim)
    w_hat = torch.tensor(token_weights(x_hat.input_ids[0].tolist(), setting.weights))
    w = torch.tensor(token_weights(x.input_ids[0].tolist(), setting.weights))
    P = weighted_mean(best_for_cand.masked_fill(best_for_cand.isinf(), 0.0), w_hat)  # a dropped row: 0
    R = weighted_mean(best_for_ref.masked_fill(best_for_ref.isinf(), 0.0), w)
    return torch.stack([P, R, f1(P, R)])
