"""BERTScore end to end: a drop-in for `bert_score.score`.

1. check the inputs; flatten several references per candidate into pairs
2. weights: idf from the references (or 1), 0 for [CLS]/[SEP]
3. embed each unique sentence once: sort by token length, batch, run the model
4. greedy matching on padded batches of pairs -> P, R, F
5. several references: keep the best P, R and F separately; then rescale with a baseline
Long inputs are processed in chunks of pairs, so memory stays bounded.
"""
from __future__ import annotations

import os

import torch
from torch.nn.utils.rnn import pad_sequence
from tqdm.auto import tqdm

from .baseline import default_baseline_path, read_baseline, rescale
from .embeddings import encode_all, hidden_states, pad
from .idf import idf_weights, token_weights, uniform_weights
from .matching import greedy_match
from .model import default_layer, load, num_layers_of

CHUNK_PAIRS = 8192  # pairs embedded and matched at a time (bounds memory for huge inputs)


def check_inputs(cands, refs) -> tuple[list[str], list[list[str]]]:
    """Validate `cands` (list of str) and `refs` (list of str or of lists of str).

    Returns the candidates and, for each, its list of references.
    """
    for name, value in (("cands", cands), ("refs", refs)):
        if isinstance(value, str) or not isinstance(value, (list, tuple)):
            raise TypeError(f"{name} must be a list of strings, got {type(value).__name__}")
    if len(cands) != len(refs):
        raise ValueError(f"cands and refs must have the same length: {len(cands)} candidates, "
                         f"{len(refs)} references")
    for i, c in enumerate(cands):
        if not isinstance(c, str):
            raise TypeError(f"cands[{i}] is {type(c).__name__}, expected str")
    groups = []
    for i, r in enumerate(refs):
        group = [r] if isinstance(r, str) else r
        if not isinstance(group, (list, tuple)):
            raise TypeError(f"refs[{i}] is {type(r).__name__}, expected str or list of str")
        if len(group) == 0:
            raise ValueError(f"refs[{i}] is an empty list: each candidate needs a reference")
        for j, g in enumerate(group):
            if not isinstance(g, str):
                raise TypeError(f"refs[{i}][{j}] is {type(g).__name__}, expected str")
        groups.append(list(group))
    return list(cands), groups


def resolve_weights(idf, flat_refs: list[str], tokenizer):
    """idf=False -> 1 per token ([CLS]/[SEP] 0); True -> idf from the references; dict -> as given."""
    if idf is False or idf is None:
        return uniform_weights(tokenizer)
    if idf is True:
        return idf_weights(flat_refs, tokenizer)
    if isinstance(idf, dict):
        return idf
    raise TypeError(f"idf must be True, False or a dict of token weights, got {type(idf).__name__}")


class SentenceStore:
    """Each unique sentence embedded once: normalised vectors, weights and special-token flags."""

    def __init__(self, tokenizer, model, layer, weights, batch_size):
        self.tokenizer, self.model, self.layer = tokenizer, model, layer
        self.weights, self.batch_size = weights, batch_size
        self.items = {}

    def add(self, sentences: list[str], progress: bool = False):
        new = [s for s in dict.fromkeys(sentences) if s not in self.items]
        ids = encode_all(self.tokenizer, new)
        order = sorted(range(len(new)), key=lambda k: -len(ids[k]))  # similar lengths together
        device = next(self.model.parameters()).device
        special = {self.tokenizer.cls_token_id, self.tokenizer.sep_token_id}
        starts = range(0, len(order), self.batch_size)
        for start in tqdm(starts, desc="embedding", disable=not progress, leave=False):
            batch = order[start:start + self.batch_size]
            input_ids, attention_mask = pad([ids[k] for k in batch], self.tokenizer.pad_token_id)
            emb = hidden_states(self.model, input_ids.to(device), attention_mask.to(device), self.layer)
            emb = (emb / emb.norm(dim=-1, keepdim=True)).float()
            for row, k in enumerate(batch):
                n = len(ids[k])
                vectors = emb[row, :n] if self.layer is not None else emb[:, row, :n].transpose(0, 1)
                self.items[new[k]] = (
                    vectors,  # [len, dim], or [len, n_layers + 1, dim] for all layers
                    torch.tensor(token_weights(ids[k], self.weights), dtype=torch.float32),
                    torch.tensor([i in special for i in ids[k]]),
                )

    def batch(self, sentences: list[str]):
        """Padded tensors for a list of sentences: emb [batch, len, dim] (or
        [n_layers + 1, batch, len, dim]), mask, weights, special [batch, len]."""
        vectors, weights, special = zip(*(self.items[s] for s in sentences))
        emb = pad_sequence(vectors, batch_first=True)
        if self.layer is None:
            emb = emb.permute(2, 0, 1, 3)
        lengths = torch.tensor([len(v) for v in vectors], device=emb.device)
        mask = torch.arange(emb.shape[-2], device=emb.device)[None, :] < lengths[:, None]
        device = emb.device
        return (emb, mask, pad_sequence(weights, batch_first=True).to(device),
                pad_sequence(special, batch_first=True).to(device))


def score_pairs(cands, refs, store: SentenceStore, batch_size: int, exclude_special: bool,
                progress: bool = False) -> torch.Tensor:
    """Scores of aligned (cand, ref) pairs -> [n_pairs, 3] (or [n_layers + 1, n_pairs, 3])."""
    store.add(cands + refs, progress)
    length = {s: len(store.items[s][0]) for s in set(cands + refs)}
    order = sorted(range(len(cands)), key=lambda k: -(length[cands[k]] + length[refs[k]]))
    out = [None] * len(cands)
    for start in range(0, len(order), batch_size):
        idx = order[start:start + batch_size]
        c_emb, c_mask, c_w, c_sp = store.batch([cands[k] for k in idx])
        r_emb, r_mask, r_w, r_sp = store.batch([refs[k] for k in idx])
        P, R, F = greedy_match(c_emb, r_emb, c_mask, r_mask, c_w, r_w, c_sp, r_sp, exclude_special)
        prf = torch.stack([P, R, F], dim=-1).cpu()  # [batch, 3] or [layers, batch, 3]
        for row, k in enumerate(idx):
            out[k] = prf[..., row, :]
    return torch.stack(out, dim=-2)


def score(cands, refs, model_type=None, num_layers=None, idf=False, rescale_with_baseline=False,
          baseline_path=None, batch_size=64, all_layers=False, exclude_special=False,
          device=None, verbose=False):
    """BERTScore precision, recall and F1 of each candidate against its reference(s).

    cands: list of str. refs: list of str, or list of lists of str (best score over them,
    for P, R and F separately). model_type=None: the embedded all-MiniLM-L6-v2, whose
    default layer is `course_lib.model.DEFAULT_LAYER`. idf: False, True (idf from refs) or a
    dict {token id: weight}. rescale_with_baseline: use `baseline_path`, else the course's
    file in data/baselines/. all_layers=True returns every layer: shape [n_layers + 1, N].
    exclude_special=True: [CLS]/[SEP] are not match targets (bert-score keeps them).
    Returns P, R, F: float tensors of shape [N].
    """
    cands, groups = check_inputs(cands, refs)
    if not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
    tokenizer, model = load(model_type, device)
    n_layers = num_layers_of(model)
    layer = default_layer(model_type) if num_layers is None else num_layers
    if not isinstance(layer, int) or not 0 <= layer <= n_layers:
        raise ValueError(f"num_layers must be an int between 0 and {n_layers}, got {layer!r}")
    if rescale_with_baseline:  # fail before the expensive part
        path = baseline_path or default_baseline_path(model_type)
        if not path or not os.path.isfile(path):
            raise FileNotFoundError(
                f"No baseline file for this model at {path}. Compute one with "
                "course_lib.baseline.compute_baseline and write_baseline, or pass baseline_path=.")
        baselines = read_baseline(path)
        baselines = baselines if all_layers else baselines[layer]
    flat_cands = [c for c, g in zip(cands, groups) for _ in g]
    flat_refs = [r for g in groups for r in g]
    shape = (n_layers + 1, 0) if all_layers else (0,)
    if not flat_cands:
        return tuple(torch.zeros(shape) for _ in range(3))

    weights = resolve_weights(idf, flat_refs, tokenizer)
    chunks = range(0, len(flat_cands), CHUNK_PAIRS)
    results = []
    for start in tqdm(chunks, desc="scoring", disable=not verbose or len(chunks) == 1):
        store = SentenceStore(tokenizer, model, None if all_layers else layer, weights, batch_size)
        end = start + CHUNK_PAIRS
        results.append(score_pairs(flat_cands[start:end], flat_refs[start:end], store,
                                   batch_size, exclude_special, progress=verbose))
    prf = torch.cat(results, dim=-2)  # [pairs, 3] or [layers, pairs, 3]

    if len(flat_cands) > len(cands):  # several references: best P, R, F separately
        bounds = torch.tensor([0] + [len(g) for g in groups]).cumsum(0).tolist()
        prf = torch.stack([prf[..., a:b, :].max(dim=-2).values for a, b in zip(bounds[:-1], bounds[1:])], dim=-2)
    if rescale_with_baseline:
        prf = rescale(prf, baselines.unsqueeze(-2) if all_layers else baselines)
    return prf[..., 0], prf[..., 1], prf[..., 2]
