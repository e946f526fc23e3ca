"""BERTScore end to end: a drop-in for `bert_score.score`.

1. check the inputs; flatten several references per candidate into pairs
2. weights: idf from the references (or 1), 0 for [CLS]/[SEP]
3. embed each unique sentence once: tokenize a window of pairs in one call, sort by token
   length, batch by a token budget, run the model (only up to the layer asked for), keep the
   vectors packed
4. greedy matching on padded batches of pairs, gathered from the packed vectors -> P, R, F
5. several references: keep the best P, R and F separately; then rescale with a baseline
Long inputs stream through in chunks of pairs whose stored vectors fit a memory budget
(`course_lib.engine.streaming`), so 100,000 pairs need no more memory than a few thousand.
"""
from __future__ import annotations

import os
import threading

import torch

from course_lib.bertscore.baseline import default_baseline_path, read_baseline, rescale
from course_lib.bertscore.embeddings import _max_length, warn_truncated
from course_lib.engine import packing
from course_lib.engine.streaming import Progress, chunks
from course_lib.engine.fast_tokenizer import encode_many
from course_lib.bertscore.idf import idf_from_ids, uniform_weights, weight_of
from course_lib.bertscore.matching import best_matches, weighted_mean, zero_empty
from course_lib.bertscore.similarity import pair_mask
from course_lib.bertscore.inputs import (check_count, check_idf, check_idf_covers, check_inputs,
                                         check_layer, check_text_unicode, choose_model)
from course_lib.engine.hash import bert_score_hash
from course_lib.model import load, num_layers_of

MATCH_FLOATS = 1 << 23  # the most gathered vector floats per matching batch (32 MB)


def resolve_weights(idf, flat_refs: list[str], tokenizer):
    """idf=False -> 1 per token ([CLS]/[SEP] 0); True -> idf from the references; dict -> as given."""
    if idf is False or idf is None:
        return uniform_weights(tokenizer)
    if idf is True:  # = idf.idf_weights(flat_refs, tokenizer), tokenized in one call
        return idf_from_ids(encode_many(tokenizer, flat_refs)[0])
    if isinstance(idf, dict):
        return idf
    raise TypeError(f"idf must be True, False or a dict of token weights, got {type(idf).__name__}")


class SentenceStore:
    """Each unique sentence embedded once: unit vectors packed end to end (no padding), with
    the weight and the [CLS]/[SEP] flag of every token.

    vectors [tokens, dim] (or [n_layers + 1, tokens, dim]); weight, special [tokens];
    start, length [sentences]; `index` maps a sentence to its number.
    """

    def __init__(self, tokenizer, model, layer, weights, batch_size, all_layers: bool = False):
        self.tokenizer, self.model, self.layer, self.all_layers = tokenizer, model, layer, all_layers
        self.weights, self.batch_size = weights, batch_size
        self.index: dict[str, int] = {}
        self.vectors = self.weight = self.special = self.start = self.length = None

    def add(self, sentences: list[str], progress=None, ids: list[list[int]] | None = None,
            buffer: packing.Buffer | None = None):
        """Embed the sentences (each once) into this empty store. `ids`: their token ids, if
        known. `progress`: a function called with each model batch's number of sentences.
        `buffer`: memory to write the vectors into, reused from store to store (this store's
        vectors are then valid only until the buffer's next use)."""
        if self.start is not None:
            raise RuntimeError("a SentenceStore is filled once; make a new one for more sentences")
        new = list(dict.fromkeys(sentences))
        if ids is not None:
            known = dict(zip(sentences, ids))
            ids = [known[s] for s in new]
        else:
            ids, truncated = encode_many(self.tokenizer, new)
            if truncated:
                warn_truncated(truncated, _max_length(self.tokenizer))
        packed = packing.embed_packed(self.model, ids, self.layer, self.tokenizer.pad_token_id,
                                      self.batch_size, packing.MAX_BATCH_TOKENS, progress, self.all_layers,
                                      buffer)
        self.weight, self.special = self._token_info(packed.ids)
        self.vectors, self.start, self.length = packed.vectors, packed.start, packed.length
        self.index = {s: k for k, s in enumerate(new)}

    def _token_info(self, ids: torch.Tensor):
        """Weight [tokens] and [CLS]/[SEP] flag [tokens] of each token id, looked up once per
        distinct id."""
        distinct, inverse = torch.unique(ids, return_inverse=True)
        table = torch.tensor([weight_of(self.weights, i) for i in distinct.tolist()], dtype=torch.float32)
        special_ids = [i for i in (self.tokenizer.cls_token_id, self.tokenizer.sep_token_id) if i is not None]
        special = torch.isin(ids, torch.tensor(special_ids, dtype=ids.dtype, device=ids.device))
        return table.to(ids.device)[inverse], special

    def gather(self, numbers: torch.Tensor):
        """Padded tensors of the sentences numbered `numbers` [batch]: emb [batch, len, dim]
        (or [n_layers + 1, batch, len, dim]), mask, weights, special [batch, len]."""
        numbers = numbers.to(self.start.device)
        length = self.length[numbers]
        positions = torch.arange(int(length.max()), device=length.device)
        mask = positions[None, :] < length[:, None]
        rows = torch.where(mask, self.start[numbers][:, None] + positions[None, :], 0)
        emb = self.vectors[:, rows] if self.all_layers else self.vectors[rows]
        return emb, mask, self.weight[rows].masked_fill(~mask, 0.0), self.special[rows] & mask

    def batch(self, sentences: list[str]):
        """Padded tensors for a list of sentences: emb [batch, len, dim] (or
        [n_layers + 1, batch, len, dim]), mask, weights, special [batch, len]."""
        return self.gather(torch.tensor([self.index[s] for s in sentences]))


def match_batches(cand_len: list[int], ref_len: list[int], dim: int, n_layers: int = 1,
                  max_floats: int = MATCH_FLOATS) -> list[list[int]]:
    """Group pair indices for matching: longest pairs first; each batch's gathered vectors,
    rows × (longest candidate + longest reference) × dim × layers, stay within `max_floats`."""
    order = sorted(range(len(cand_len)), key=lambda k: -(cand_len[k] + ref_len[k]))
    batches, current, lc, lr = [], [], 0, 0
    for k in order:
        c, r = max(lc, cand_len[k]), max(lr, ref_len[k])
        if current and (len(current) + 1) * (c + r) * dim * n_layers > max_floats:
            batches.append(current)
            current, c, r = [], cand_len[k], ref_len[k]
        current.append(k)
        lc, lr = c, r
    return batches + [current] if current else batches


def match_unit(cand_emb, ref_emb, cand_mask, ref_mask, cand_weights, ref_weights, cand_special,
               ref_special, exclude_special: bool):
    """`matching.greedy_match` for vectors already of unit length (the stored ones): the cosine
    matrix [..., batch, cand_len, ref_len] is a plain batched product, not normalised again."""
    if exclude_special:
        cand_mask, ref_mask = cand_mask & ~cand_special, ref_mask & ~ref_special
    sim = (cand_emb @ ref_emb.transpose(-1, -2)).masked_fill_(~pair_mask(cand_mask, ref_mask), float("-inf"))
    best_for_cand, best_for_ref = best_matches(sim)
    P = weighted_mean(best_for_cand.masked_fill_(~cand_mask, 0.0), cand_weights)  # padding: -inf -> 0
    R = weighted_mean(best_for_ref.masked_fill_(~ref_mask, 0.0), ref_weights)
    return zero_empty(P, R, cand_mask, ref_mask, cand_special, ref_special)


def match_pairs(store: SentenceStore, cand_numbers: torch.Tensor, ref_numbers: torch.Tensor,
                exclude_special: bool) -> torch.Tensor:
    """Greedy matching of pairs of stored sentences (numbers [n_pairs] each), in batches of
    similar lengths -> [n_pairs, 3] (or [n_layers + 1, n_pairs, 3]) P, R, F."""
    cand_len, ref_len = store.length[cand_numbers].tolist(), store.length[ref_numbers].tolist()
    n_layers = store.vectors.shape[0] if store.all_layers else 1
    out = None
    for batch in match_batches(cand_len, ref_len, store.vectors.shape[-1], n_layers):
        batch = torch.tensor(batch)
        c_emb, c_mask, c_w, c_sp = store.gather(cand_numbers[batch])
        r_emb, r_mask, r_w, r_sp = store.gather(ref_numbers[batch])
        P, R, F = match_unit(c_emb, r_emb, c_mask, r_mask, c_w, r_w, c_sp, r_sp, exclude_special)
        prf = torch.stack([P, R, F], dim=-1).cpu()  # [batch, 3] or [layers, batch, 3]
        if out is None:
            out = prf.new_empty((*prf.shape[:-2], len(cand_len), 3))
        out[..., batch, :] = prf
    return out


def score(cands, refs, model_type=None, num_layers=None, verbose=False, idf=False, device=None,
          batch_size=64, nthreads=4, all_layers=False, lang=None, return_hash=False,
          rescale_with_baseline=False, baseline_path=None, use_fast_tokenizer=False, *,
          exclude_special=False):
    """BERTScore precision, recall and F1 of each candidate against its reference(s).

    bert-score 0.3.13's arguments, in its order (a positional call means what it means there);
    course-only options are keyword-only. Differences (table: docs in README, chapter 07):
    cands: list of str. refs: list of str, or list of lists of str (best score over them,
    for P, R and F separately). model_type=None and lang=None or "en": the embedded
    all-MiniLM-L6-v2 at `course_lib.model.DEFAULT_LAYER`; model_type wins over lang; another
    lang is an error (no model for it offline). num_layers: hidden-state index (0 = embedding
    output). verbose=True: a progress bar (stderr). idf: False, True (idf from refs) or a dict
    {token id: weight} (finite, >= 0; a plain dict must weigh every token of the texts).
    batch_size: the most sentences per model batch (each batch also holds at most
    `packing.MAX_BATCH_TOKENS` padded tokens); the scores do not depend on it. nthreads:
    checked, otherwise unused (bert-score uses it only to count idf in worker processes; here
    that is one tokenizer call). all_layers=True returns every layer: shape [n_layers + 1, N].
    return_hash=True returns ((P, R, F), bert-score's hash of the setting).
    rescale_with_baseline: use `baseline_path`, else the course's file in course_lib/resources/baselines/, else
    (with lang) bert-score's file for lang and model_type; a missing file is an error.
    use_fast_tokenizer=True: tokenize with the Hugging Face fast tokenizer, as bert-score does
    (WordPiece models; byte-level BPE models such as RoBERTa are refused, see
    `_hf_fast_tokenizer`). exclude_special=True: [CLS]/[SEP] are not match targets
    (bert-score keeps them). Returns P, R, F: float tensors of shape [N].
    """
    cands, groups = check_inputs(cands, refs)
    batch_size, _ = check_count(batch_size, "batch_size"), check_count(nthreads, "nthreads")
    model_type = choose_model(model_type, lang)
    check_idf(idf)
    if use_fast_tokenizer:
        check_text_unicode(cands, groups)
    tokenizer, model = load(model_type, device)
    if use_fast_tokenizer:
        tokenizer = _hf_fast_tokenizer(model_type)
    n_layers = num_layers_of(model)
    layer = check_layer(num_layers, model_type, n_layers)
    if rescale_with_baseline:  # fail before the expensive part
        baselines = read_baseline(_baseline_file(baseline_path, model_type, lang), n_layers)
        baselines = baselines if all_layers else baselines[layer]
    flat_cands = [c for c, g in zip(cands, groups) for _ in g]
    flat_refs = [r for g in groups for r in g]
    check_idf_covers(idf, flat_cands + flat_refs, tokenizer, lambda texts: encode_many(tokenizer, texts)[0])
    setting = bert_score_hash(model_type, layer, idf, rescale_with_baseline, baseline_path is not None,
                              use_fast_tokenizer) if return_hash else None
    shape = (n_layers + 1, 0) if all_layers else (0,)
    if not flat_cands:
        return _with_hash(tuple(torch.zeros(shape) for _ in range(3)), setting)

    weights = resolve_weights(idf, flat_refs, tokenizer)
    floats_per_token = model.config.hidden_size * ((n_layers + 1) if all_layers else 1)
    truncated = [0]
    progress = Progress(len(flat_cands), verbose)
    # made outside inference_mode: the scores returned are ordinary tensors a user may change in place
    prf = torch.empty((n_layers + 1, len(flat_cands), 3) if all_layers else (len(flat_cands), 3))
    buffer = packing.Buffer()  # one block of memory for every chunk's vectors
    with torch.inference_mode(), progress.bar:
        for pairs, sentences, ids in chunks(tokenizer, flat_cands, flat_refs, floats_per_token, truncated):
            store = SentenceStore(tokenizer, model, layer, weights, batch_size, all_layers)
            progress.chunk(len(pairs), len(sentences))
            store.add(sentences, progress.embedded, ids=ids, buffer=buffer)
            cand_numbers = torch.tensor([store.index[flat_cands[k]] for k in pairs], dtype=torch.long)
            ref_numbers = torch.tensor([store.index[flat_refs[k]] for k in pairs], dtype=torch.long)
            prf[..., pairs, :] = match_pairs(store, cand_numbers, ref_numbers, exclude_special)
            progress.matched()
            del store
    del buffer
    if truncated[0]:
        warn_truncated(truncated[0], _max_length(tokenizer), stacklevel=2)

    if len(flat_cands) > len(cands):  # several references: best P, R, F separately
        prf = best_over_references(prf, [len(g) for g in groups])
    if rescale_with_baseline:
        prf = rescale(prf, baselines.unsqueeze(-2) if all_layers else baselines)
    return _with_hash((prf[..., 0], prf[..., 1], prf[..., 2]), setting)


def _with_hash(prf: tuple, setting: str | None):
    """(P, R, F), or ((P, R, F), hash) as bert-score returns them with return_hash=True."""
    return prf if setting is None else (prf, setting)


def _baseline_file(baseline_path, model_type, lang) -> str:
    """`baseline_path`, else the course's file for the model, else (with `lang`) the file
    bert-score ships for lang and model_type; a clear error when there is none."""
    path = default_baseline_path(model_type) if baseline_path is None else baseline_path
    if baseline_path is None and not os.path.isfile(path) and lang is not None and model_type is not None:
        import bert_score

        path = os.path.join(os.path.dirname(bert_score.__file__), "rescale_baseline",
                            lang.lower(), f"{model_type}.tsv")
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"No baseline file for this model at {path}. Compute one with "
            "course_lib.engine.baseline.compute_baseline and write_baseline, or pass baseline_path=.")
    return str(path)


_FAST_HF: dict = {}
_FAST_HF_LOCK = threading.Lock()  # two threads asking at once load it once


def _hf_fast_tokenizer(model_type):
    """The Hugging Face fast tokenizer of a model (use_fast_tokenizer=True), loaded once.

    bert-score then calls `tokenizer.encode` on it, which course_lib's `encode` does too: the
    same ids for WordPiece (BERT) models. For byte-level BPE models (RoBERTa, GPT-2) bert-score
    drops the leading space it otherwise adds, a tokenization course_lib does not reproduce:
    refused with an error rather than scored differently.
    """
    from transformers import AutoTokenizer

    from course_lib.bertscore.embeddings import _needs_prefix_space
    from course_lib.model import EMBEDDED_MODEL, is_embedded, resolve

    key = EMBEDDED_MODEL if is_embedded(model_type) else model_type
    with _FAST_HF_LOCK:
        if key not in _FAST_HF:
            _FAST_HF[key] = AutoTokenizer.from_pretrained(resolve(model_type), use_fast=True,
                                                          local_files_only=True)
        fast = _FAST_HF[key]
    if _needs_prefix_space(fast):
        raise NotImplementedError(
            f"use_fast_tokenizer=True with {type(fast).__name__}: bert-score then tokenizes without "
            "the leading space it adds otherwise, which course_lib does not reproduce. Use "
            "use_fast_tokenizer=False (bert-score's default).")
    return fast


def best_over_references(prf: torch.Tensor, counts: list[int]) -> torch.Tensor:
    """[..., n_pairs, 3] scores of consecutive groups of pairs (sizes `counts`) ->
    [..., n_groups, 3], the maximum of each column (P, R, F) within each group."""
    counts = torch.tensor(counts)
    group = torch.repeat_interleave(torch.arange(len(counts)), counts)
    slot = torch.arange(len(group)) - (counts.cumsum(0) - counts)[group]
    full = prf.new_full((*prf.shape[:-2], len(counts), int(counts.max()), 3), float("-inf"))
    full[..., group, slot, :] = prf
    return full.max(dim=-2).values
