"""Sentence embeddings by mean pooling: one vector per sentence (the sentence-level view).

sentence-transformers turns all-MiniLM-L6-v2's token vectors h_1..h_T (of its last layer) into one
sentence vector by averaging over the real tokens -- [CLS] and [SEP] included, padding excluded --
and scaling the mean to unit length:

    v = Σ_t m_t · h_t / Σ_t m_t          m_t = 1 for a real token, 0 for padding
    u = v / ||v||_2

The cosine of two such vectors is the model's sentence similarity. It is one number per pair:
it cannot say which words matched which. BERTScore keeps the token vectors and matches them
one by one instead (chapters 03 and 04).

`mean_pool` is the formula on a padded batch (chapter 02). The sentence functions embed with the
engine's one loop (`packing.embed_slices`: each text once, sorted, batched, packed without padding),
so the mean is over each sentence's packed rows (`mean_of_rows`): no padding to mask at all.
"""
from __future__ import annotations

import torch

from course_lib.call.inputs import check_pairs, check_texts
from course_lib.call.setting import resolve_setting
from course_lib.engine.packing import Packed, embed_slices
from course_lib.engine.release import release_freed_memory


def mean_pool(embeddings: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Masked mean over the tokens.

    embeddings: [batch, seq_len, dim], mask: [batch, seq_len] (True / 1 = real token)
    -> [batch, dim], v_b = Σ_t m_bt h_bt / Σ_t m_bt. Padding positions do not count.
    """
    m = mask.unsqueeze(-1).to(embeddings.dtype)  # [batch, seq_len, 1]
    return (embeddings * m).sum(dim=-2) / m.sum(dim=-2).clamp(min=1e-9)


def mean_of_rows(packed: Packed) -> torch.Tensor:
    """The mean of each sentence's packed rows: v_k = Σ_{t of sentence k} h_t / n_k.

    packed.vectors: [tokens, dim] (or [n_layers + 1, tokens, dim]) -> [sentences, dim]
    (or [n_layers + 1, sentences, dim]), in the order of packed.start.
    """
    order = torch.argsort(packed.start)  # sentences in the order their rows are stored
    owner = torch.repeat_interleave(order, packed.length[order])  # [tokens]: whose row it is
    vectors = packed.vectors
    sums = vectors.new_zeros((*vectors.shape[:-2], len(packed.length), vectors.shape[-1]))
    sums.index_add_(-2, owner, vectors)
    return sums / packed.length[:, None].to(vectors.dtype)


def unit(v: torch.Tensor) -> torch.Tensor:
    """u = v / ||v||_2 along the last dimension."""
    return v / v.norm(dim=-1, keepdim=True)


def pooled_by_text(setting, sentences):
    """(number of each distinct sentence, its mean-pooled vector [distinct, dim], or with
    setting.all_layers [n_layers + 1, distinct, dim]), by the engine's loop; float32 on the CPU.
    setting: a resolved `Setting` (its tokenizer, model and layer). The token vectors are embedded a
    slice at a time (`embed_slices`) and only their means kept: every layer of STS-B's 2,758 sentences
    would hold 415 MB at once."""
    index, means = {}, []
    for texts, packed in embed_slices(setting.tokenizer, setting.net, sentences, setting.layer,
                                      all_layers=setting.all_layers, unit=False):
        offset = len(index)
        index.update((t, offset + k) for k, t in enumerate(texts))
        means.append(mean_of_rows(packed).float().cpu())
    release_freed_memory()
    return index, torch.cat(means, dim=-2)


def sentence_vectors(setting, sentences: list[str], normalize: bool = True) -> torch.Tensor:
    """Mean-pooled vectors [batch, dim] of `sentences` (checked) with a resolved `Setting`, unit
    length when `normalize`."""
    index, pooled = pooled_by_text(setting, sentences)
    pooled = pooled[[index[s] for s in sentences]] if sentences else pooled
    return unit(pooled) if normalize else pooled


def sentence_embeddings(sentences: list[str], model_type: str | None = None, *, layer: int,
                        normalize: bool = True) -> torch.Tensor:
    """Mean-pooled sentence vectors [batch, dim] of hidden state `layer`, unit length when
    `normalize`.

    sentence-transformers pools the last layer (6 for all-MiniLM-L6-v2: the layer the model was
    trained to pool), so `layer` has no default here. Texts are tokenized as bert-score does.
    """
    sentences = check_texts(sentences, "sentences")
    return sentence_vectors(resolve_setting(model_type, layer), sentences, normalize)


def sentence_similarity(cands: list[str], refs: list[str], model_type: str | None = None, *,
                        layer: int) -> torch.Tensor:
    """Cosine of the mean-pooled vectors (hidden state `layer`) of each (candidate, reference)
    pair -> [N]."""
    cands, refs = check_pairs(cands, refs)
    vectors = sentence_embeddings(cands + refs, model_type, layer=layer, normalize=True)
    return (vectors[:len(cands)] * vectors[len(cands):]).sum(dim=-1)


def sentence_similarity_all_layers(cands: list[str], refs: list[str], model_type: str | None = None) -> torch.Tensor:
    """Cosine of the mean-pooled vectors of each (candidate, reference) pair at every hidden state
    -> [n_layers + 1, N] (row 0 = embedding output, the last row = sentence-transformers' view).

    One pass of the engine's loop over the unique sentences, keeping every layer; each layer's
    token vectors are averaged per sentence (`mean_of_rows`) and scaled to unit length.
    """
    cands, refs = check_pairs(cands, refs)
    index, pooled = pooled_by_text(resolve_setting(model_type, all_layers=True), cands + refs)
    vectors = unit(pooled)  # [layers, distinct, dim]
    a = vectors[:, [index[c] for c in cands]]
    b = vectors[:, [index[r] for r in refs]]
    return (a * b).sum(dim=-1)
