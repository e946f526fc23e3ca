"""BERTScore end to end: a drop-in for `bert_score.score`. This module only puts the steps in order:

1. check the inputs (`call.inputs`); flatten several references per candidate into pairs
2. resolve the setting once (`call.setting.resolve_setting`): the model, its layer, the
   weights (idf from the references, or 1; 0 for [CLS]/[SEP]), the baseline
3. embed each unique sentence once (`engine.store.SentenceStore`): tokenize a window of pairs in
   one call, sort by token length, batch by a token budget, run the model (only up to the layer
   asked for), keep the vectors packed (`engine.packing`)
4. greedy matching, the taught `greedy_match`, on padded batches of pairs gathered from the
   packed vectors -> P, R, F (`engine.pairs`)
5. several references: keep the best P, R and F separately; then rescale with the baseline
   (`bertscore.baseline`)
Long inputs stream through in chunks of pairs whose stored vectors fit a memory budget
(`engine.streaming`), so 100,000 pairs need no more memory than a few thousand.
"""
from __future__ import annotations

import torch

from course_lib.bertscore.baseline import rescale
from course_lib.bertscore.embeddings import model_limit, warn_truncated
from course_lib.call.inputs import check_count, check_inputs, check_text_unicode, warn_empty
from course_lib.call.setting import Setting, resolve_setting
from course_lib.engine.fast_tokenizer import encode_many
from course_lib.engine.pairs import best_over_references, empty_by_candidate, match_pairs
from course_lib.engine.release import release_freed_memory
from course_lib.engine.store import SentenceStore
from course_lib.engine.streaming import Progress, chunks


def engine_ids(tokenizer, texts: list[str]) -> list[list[int]]:
    """Token ids as the engine makes them (one call; the same ids as the taught `encode_all`)."""
    return encode_many(tokenizer, texts)[0]


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
    use_fast_tokenizer=False (bert-score's default): the ids of the model's slow tokenizer, as
    bert-score makes them; for speed the engine computes them with the model's Hugging Face fast
    tokenizer where it is proven to give the same ids (`engine.fast_tokenizer.fast_tokenizer`).
    use_fast_tokenizer=True: Hugging Face's fast tokenizer, as bert-score does (its ids can
    differ; WordPiece models only, byte-level BPE models such as RoBERTa are refused, see
    `call.setting.resolve_setting`). exclude_special=True: [CLS]/[SEP] are not match
    targets (bert-score keeps them). Returns P, R, F: float tensors of shape [N].
    """
    cands, groups = check_inputs(cands, refs)
    batch_size, _ = check_count(batch_size, "batch_size"), check_count(nthreads, "nthreads")
    if use_fast_tokenizer:
        check_text_unicode(cands, groups)
    flat_refs = [r for g in groups for r in g]
    setting = resolve_setting(model_type, num_layers, idf, lang=lang, device=device, all_layers=all_layers,
                              rescale_with_baseline=rescale_with_baseline, baseline_path=baseline_path,
                              use_fast_tokenizer=use_fast_tokenizer, idf_sents=flat_refs if idf is True else None,
                              ids_of=engine_ids)
    return score_with(setting, cands, groups, verbose=verbose, batch_size=batch_size, return_hash=return_hash,
                      exclude_special=exclude_special)


def score_with(setting: Setting, cands: list[str], groups: list[list[str]], *, verbose=False, batch_size=64,
               return_hash=False, exclude_special=False):
    """`score` with its setting resolved and its inputs checked (`call.inputs.check_inputs`):
    what `score` and `BERTScorer.score` run."""
    flat_cands = [c for c, g in zip(cands, groups) for _ in g]
    flat_refs = [r for g in groups for r in g]
    setting.check_weights_cover(flat_cands + flat_refs, engine_ids)
    tokenizer, model, n_layers, all_layers = setting.tokenizer, setting.net, setting.n_layers, setting.all_layers
    hash_ = setting.hash() if return_hash else None
    shape = (n_layers + 1, 0) if all_layers else (0,)
    if not flat_cands:
        return _with_hash(tuple(torch.zeros(shape) for _ in range(3)), hash_)

    floats_per_token = model.config.hidden_size * ((n_layers + 1) if all_layers else 1)
    truncated = 0
    progress = Progress(len(flat_cands), verbose)
    # made outside inference_mode: the scores returned are ordinary tensors a user may change in place
    prf = torch.empty((n_layers + 1, len(flat_cands), 3) if all_layers else (len(flat_cands), 3))
    empty = torch.zeros(len(flat_cands), 2, dtype=torch.bool)  # which pairs' texts are empty
    with torch.inference_mode(), progress.bar:
        for pairs, sentences, ids, cut in chunks(tokenizer, flat_cands, flat_refs, floats_per_token):
            truncated += cut
            store = SentenceStore(tokenizer, model, setting.layer, setting.weights, batch_size, all_layers)
            progress.chunk(len(pairs), len(sentences))
            store.add(sentences, progress.embedded, ids=ids)
            cand_numbers = torch.tensor([store.index[flat_cands[k]] for k in pairs], dtype=torch.long)
            ref_numbers = torch.tensor([store.index[flat_refs[k]] for k in pairs], dtype=torch.long)
            prf[..., pairs, :], empty[pairs] = match_pairs(store, cand_numbers, ref_numbers, exclude_special)
            progress.matched()
            del store
    release_freed_memory()  # the chunks' vectors and activations, back to the OS (not kept at the peak)
    if truncated:
        warn_truncated(truncated, model_limit(tokenizer))
    warn_empty(*empty_by_candidate(empty, [len(g) for g in groups]))  # naming each empty text

    if len(flat_cands) > len(cands):  # several references: best P, R, F separately
        prf = best_over_references(prf, [len(g) for g in groups])
    if setting.rescale_with_baseline:
        prf = rescale(prf, setting.baseline())
    return _with_hash((prf[..., 0], prf[..., 1], prf[..., 2]), hash_)


def _with_hash(prf: tuple, setting: str | None):
    """(P, R, F), or ((P, R, F), hash) as bert-score returns them with return_hash=True."""
    return prf if setting is None else (prf, setting)
