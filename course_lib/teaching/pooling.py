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
from course_lib.model import load, num_layers_of


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


@torch.inference_mode()
def sentence_similarity_all_layers(cands: list[str], refs: list[str], model_type: str | None = None,
                                   batch_size: int = 128) -> torch.Tensor:
    """Cosine of the mean-pooled vectors of each (candidate, reference) pair at every hidden state
    -> [n_layers + 1, N] (row 0 = embedding output, the last row = sentence-transformers' view).

    One forward pass per batch of unique sentences (sorted by length, so little padding); each
    layer's token vectors are mean-pooled (`mean_pool`) and scaled to unit length.
    """
    from course_lib.bertscore.embeddings import encode_all, pad

    if len(cands) != len(refs):
        raise ValueError(f"{len(cands)} candidates but {len(refs)} references")
    tokenizer, model = load(model_type)
    texts = list(dict.fromkeys(list(cands) + list(refs)))  # each unique sentence once
    ids = encode_all(tokenizer, texts)
    order = sorted(range(len(texts)), key=lambda k: len(ids[k]))
    device = next(model.parameters()).device
    vectors = torch.empty(num_layers_of(model) + 1, len(texts), model.config.hidden_size)
    for start in range(0, len(order), batch_size):
        batch = order[start:start + batch_size]
        input_ids, mask = pad([ids[k] for k in batch], tokenizer.pad_token_id)
        out = model(input_ids=input_ids.to(device), attention_mask=mask.to(device), output_hidden_states=True)
        states = torch.stack(out.hidden_states, dim=0)                  # [layers, batch, seq_len, dim]
        pooled = mean_pool(states, mask.to(device)).float().cpu()       # [layers, batch, dim]
        vectors[:, batch] = pooled / pooled.norm(dim=-1, keepdim=True)
    position = {t: i for i, t in enumerate(texts)}
    a = vectors[:, [position[c] for c in cands]]
    b = vectors[:, [position[r] for r in refs]]
    return (a * b).sum(dim=-1)
