"""BERTScore end to end, one pair at a time: the definition every faster version must match.

    text -> tokens -> layer-k vectors -> unit length -> cosine matrix [cand_len, ref_len]
         -> greedy P, R (weighted means of row / column maxima) -> F = 2PR / (P + R)
         -> several references: best P, R and F, each on its own -> rescale with a baseline

Built only from the functions the chapters teach. `course_lib.score` (the fast engine) is
tested equal to it; bert-score's `score` is the second witness.
"""
from __future__ import annotations

import warnings

import torch

from course_lib.bertscore.baseline import baseline_file, read_baseline, rescale
from course_lib.bertscore.embeddings import embed, encode_all
from course_lib.bertscore.idf import idf_weights, token_weights, uniform_weights
from course_lib.bertscore.inputs import check_idf, check_idf_covers, check_inputs
from course_lib.bertscore.matching import best_matches, f1, weighted_mean
from course_lib.bertscore.similarity import cosine_matrix
from course_lib.model import check_layer, choose_model, load, num_layers_of


def reference_bertscore(cands, refs, model_type=None, num_layers=None, idf=False,
                        rescale_with_baseline=False, baseline_path=None, lang=None):
    """BERTScore P, R, F of each candidate against its reference(s): three tensors [N].

    cands: list of str; refs: list of str, or of lists of str (several references).
    model_type, lang: as in `course_lib.score` (None or lang="en": the embedded model).
    num_layers: the hidden state to use (0 = embedding output; None = the model's default).
    idf: False (every token weighs 1), True (idf from the references) or {token id: weight}.
    """
    cands, groups = check_inputs(cands, refs)
    model_type = choose_model(model_type, lang)  # None: the embedded model, however it was named
    tokenizer, model = load(model_type)
    layer = check_layer(num_layers, model_type, num_layers_of(model))
    all_refs = [r for group in groups for r in group]
    if idf is True:  # idf from all references
        weights = idf_weights(all_refs, tokenizer)
    else:  # 1 per token ([CLS] and [SEP]: 0), or the caller's own {token id: weight}
        weights = uniform_weights(tokenizer) if idf is False or idf is None else idf
        check_idf(weights)  # finite weights >= 0 ...
        check_idf_covers(weights, cands + all_refs, tokenizer,  # ... for every token id
                         lambda texts: encode_all(tokenizer, texts, warn=False))
    scores = []
    for cand, group in zip(cands, groups):
        prf = torch.stack([pair_score(cand, ref, model_type, layer, weights) for ref in group])
        scores.append(prf.max(dim=0).values)  # best P, best R, best F: each on its own
    prf = torch.stack(scores) if scores else torch.zeros(0, 3)
    if rescale_with_baseline:
        baselines = read_baseline(baseline_file(baseline_path, model_type, lang), num_layers_of(model))
        prf = rescale(prf, baselines[layer])
    return prf[:, 0], prf[:, 1], prf[:, 2]


def pair_score(cand: str, ref: str, model_type, layer: int, weights) -> torch.Tensor:
    """[P, R, F] of one candidate against one reference."""
    c, r = embed([cand], model_type, layer), embed([ref], model_type, layer)  # one text per batch
    if c.special.all() or r.special.all():  # nothing but [CLS] [SEP]: bert-score's rule
        warnings.warn("Empty candidate or reference; setting its BERTScores to 0.", stacklevel=3)
        return torch.zeros(3)
    sim = cosine_matrix(c.embeddings[0], r.embeddings[0])  # [cand_len, ref_len]
    best_for_cand, best_for_ref = best_matches(sim)
    P = weighted_mean(best_for_cand, torch.tensor(token_weights(c.input_ids[0].tolist(), weights)))
    R = weighted_mean(best_for_ref, torch.tensor(token_weights(r.input_ids[0].tolist(), weights)))
    return torch.stack([P, R, f1(P, R)])
