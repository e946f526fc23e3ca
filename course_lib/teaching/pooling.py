"""Sentence embeddings by mean pooling: one vector per sentence (the sentence-level view).

sentence-transformers turns all-MiniLM-L6-v2's token vectors h_1..h_T (of its last layer) into one
sentence vector by averaging over the real tokens -- [CLS] and [SEP] included, padding excluded --
and scaling the mean to unit length:

    v = Σ_t m_t · h_t / Σ_t m_t          m_t = 1 for a real token, 0 for padding
    u = v / ||v||_2

The cosine of two such vectors is the model's sentence similarity. It is one number per pair:
it cannot say which words matched which. BERTScore keeps the token vectors and matches them
one by one instead (chapters 03 and 04).
"""
from __future__ import annotations

import torch

from course_lib.bertscore.embeddings import embed


def mean_pool(embeddings: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Masked mean over the tokens.

    embeddings: [batch, seq_len, dim], mask: [batch, seq_len] (True / 1 = real token)
    -> [batch, dim], v_b = Σ_t m_bt h_bt / Σ_t m_bt. Padding positions do not count.
    """
    m = mask.unsqueeze(-1).to(embeddings.dtype)  # [batch, seq_len, 1]
    return (embeddings * m).sum(dim=-2) / m.sum(dim=-2).clamp(min=1e-9)


def sentence_embeddings(sentences: list[str], model_type: str | None = None, *, layer: int,
                        normalize: bool = True) -> torch.Tensor:
    """Mean-pooled sentence vectors [batch, dim] of hidden state `layer`, unit length when
    `normalize`.

    sentence-transformers pools the last layer (6 for all-MiniLM-L6-v2: the layer the model was
    trained to pool), so `layer` has no default here. Texts are tokenized as in
    `course_lib.bertscore.embeddings` (bert-score's way).
    """
    batch = embed(sentences, model_type, layer)
    pooled = mean_pool(batch.embeddings, batch.mask)
    return pooled / pooled.norm(dim=-1, keepdim=True) if normalize else pooled


def sentence_similarity(cands: list[str], refs: list[str], model_type: str | None = None, *,
                        layer: int) -> torch.Tensor:
    """Cosine of the mean-pooled vectors (hidden state `layer`) of each (candidate, reference)
    pair -> [N]."""
    if len(cands) != len(refs):
        raise ValueError(f"{len(cands)} candidates but {len(refs)} references")
    vectors = sentence_embeddings(list(cands) + list(refs), model_type, layer=layer, normalize=True)
    return (vectors[:len(cands)] * vectors[len(cands):]).sum(dim=-1)
