"""A naive, WRONG BERTScore, kept only to show what goes wrong without masks.

It reproduces the from-scratch code of Comet's blog post "BERTScore For LLM Evaluation"
(2024), written here in our own words: tokenize with padding, take one layer's hidden states,
normalise, multiply, then take maxima and plain means over *every* position. Three mistakes
follow from that, and `course_lib.score` avoids all of them:

1. [CLS] and [SEP] are averaged as if they were words (bert-score gives them weight 0);
2. in a batch, padding positions are averaged too, and they are also match targets, so a
   pair's score depends on the other sentences in its batch;
3. the batch's means are pooled into one number (no score per pair).

The post uses the last layer (`last_hidden_state`): pass `layer=6` (the model's last) for that;
`layer=None` is the model's default BERTScore layer, as everywhere in course_lib.
Do not use these functions to evaluate anything: they exist for chapter 03's comparison.
"""
from __future__ import annotations

import torch

from course_lib.call.setting import resolve_setting


@torch.inference_mode()
def naive_embeddings(texts, model_type=None, layer=None) -> torch.Tensor:
    """Hidden states of `texts` padded to the longest one: [batch, seq_len, dim].

    WRONG on purpose: the attention mask is used by the model but not returned, so whoever
    uses these vectors can no longer tell padding from words. layer=None: the model's default
    BERTScore layer (0 = embedding output).
    """
    setting = resolve_setting(model_type, layer)
    tokenizer, model, layer = setting.tokenizer, setting.net, setting.layer
    texts = [texts] if isinstance(texts, str) else list(texts)
    inputs = tokenizer(texts, return_tensors="pt", padding=True, truncation=True)
    inputs = {k: v.to(next(model.parameters()).device) for k, v in inputs.items()}
    out = model(**inputs, output_hidden_states=True)
    return out.hidden_states[layer].float().cpu()


def naive_cosine_matrix(cand_emb: torch.Tensor, ref_emb: torch.Tensor) -> torch.Tensor:
    """[batch, cand_len, dim] x [batch, ref_len, dim] -> [batch, cand_len, ref_len] cosines,
    over every position: [CLS], [SEP] and padding included (no mask)."""
    cand = torch.nn.functional.normalize(cand_emb, dim=-1)
    ref = torch.nn.functional.normalize(ref_emb, dim=-1)
    return torch.bmm(cand, ref.transpose(1, 2))


def naive_precision(sim: torch.Tensor) -> torch.Tensor:
    """WRONG: mean over *all* rows (and all pairs) of each row's maximum."""
    return sim.max(dim=2).values.mean()


def naive_recall(sim: torch.Tensor) -> torch.Tensor:
    """WRONG: mean over *all* columns (and all pairs) of each column's maximum."""
    return sim.max(dim=1).values.mean()


def naive_f1(precision, recall):
    """2PR / (P + R) -- this part is right."""
    return 2 * precision * recall / (precision + recall)


def naive_bert_score(candidates, references, model_type=None, layer=None) -> dict:
    """The blog post's BERTScore: one dict {"precision", "recall", "f1"} of floats for the
    whole input (a string, or a list of strings padded into one batch). WRONG, see above."""
    sim = naive_cosine_matrix(naive_embeddings(candidates, model_type, layer),
                              naive_embeddings(references, model_type, layer))
    precision, recall = naive_precision(sim), naive_recall(sim)
    return {"precision": precision.item(), "recall": recall.item(),
            "f1": naive_f1(precision, recall).item()}


def naive_pair_scores(candidates, references, model_type=None, layer=None):
    """The same naive means, but one (P, R, F) per pair of the padded batch: tensors [batch].

    Shows the padding mistake directly: a pair's numbers change when a longer sentence joins
    its batch (more [PAD] rows and columns enter its maxima and means).
    """
    sim = naive_cosine_matrix(naive_embeddings(candidates, model_type, layer),
                              naive_embeddings(references, model_type, layer))
    P = sim.max(dim=2).values.mean(dim=1)
    R = sim.max(dim=1).values.mean(dim=1)
    return P, R, naive_f1(P, R)
