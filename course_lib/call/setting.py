"""A call's settings, resolved once: the one object every entry point takes.

`resolve_setting` turns bert-score's arguments (model_type, lang, num_layers, idf, all_layers,
rescale_with_baseline, baseline_path, use_fast_tokenizer, device) into a frozen `Setting`,
applying each rule where it is built, once:

    model reference (`model.model_ref`) -> load -> layer (`model.check_layer`) -> idf weights
    (`inputs.check_idf`, computed from `idf_sents` when idf=True) -> baseline table

`reference_bertscore`, `course_lib.score`, `BERTScorer`, the long-text path, the demo,
`evaluation.signature` and the learned metric all take it, so none repeats the preamble.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

import torch

from course_lib.bertscore.baseline import baseline_file, read_baseline
from course_lib.bertscore.embeddings import encode_all, needs_prefix_space
from course_lib.bertscore.idf import idf_from_ids, uniform_weights
from course_lib.caching import cached
from course_lib.call.inputs import check_idf, check_idf_covers, idf_is_weights
from course_lib.model import ModelRef, check_layer, load, model_ref, num_layers_of


@dataclass(frozen=True)
class Setting:
    """One resolved BERTScore setting.

    model: who the model is and its names (`model.ModelRef`); tokenizer, net: loaded once.
    n_layers: the model's layer count (hidden states 0..n_layers); layer: the one scored.
    idf: weigh tokens by idf; weights: {token id: weight} (1 per token and 0 for [CLS]/[SEP]
    without idf; None while idf=True waits for its corpus, see `with_idf_from`).
    baselines: [n_layers + 1, 3] when rescaling, else None.
    """

    model: ModelRef
    tokenizer: Any
    net: Any
    n_layers: int
    layer: int
    all_layers: bool
    idf: bool
    weights: Any
    rescale_with_baseline: bool
    custom_baseline: bool
    baseline_path: str | None
    baselines: torch.Tensor | None
    use_fast_tokenizer: bool
    lang: str | None
    device: Any

    def hash(self) -> str:
        """bert-score's hash of this setting, by `bert_score.utils.get_hash` itself. The model
        is `ModelRef.hash_name`: the embedded model's name, never this machine's path."""
        from bert_score.utils import get_hash

        return get_hash(self.model.hash_name, self.layer, self.idf, self.rescale_with_baseline,
                        self.custom_baseline, self.use_fast_tokenizer)

    def baseline(self) -> torch.Tensor:
        """The (P, R, F) baseline [3] of the layer scored ([n_layers + 1, 1, 3] with all_layers)."""
        return self.baselines[:, None] if self.all_layers else self.baselines[self.layer]

    def with_idf_from(self, texts: list[str], ids_of: Callable | None = None) -> "Setting":
        """This setting with idf weights computed from `texts` (idf=True), else itself.
        `ids_of(tokenizer, texts)`: their token ids (default: the taught `encode_all`)."""
        if not self.idf or self.weights is not None:
            return self
        return dataclasses.replace(self, weights=idf_from_ids((ids_of or _ids)(self.tokenizer, list(texts))))

    def check_weights_cover(self, texts: list[str], ids_of: Callable | None = None) -> None:
        """A plain idf dict must weigh every token id of `texts` (`inputs.check_idf_covers`)."""
        if self.weights is None:
            raise ValueError("idf=True but no idf weights: pass idf_sents=[...] to BERTScorer or call "
                             ".compute_idf(sents) first (bert-score asserts 'IDF weights are not computed').")
        check_idf_covers(self.weights, texts, self.tokenizer, lambda t: (ids_of or _ids)(self.tokenizer, t))


@cached()
def fast_tokenizer_of(path: str):
    """The Hugging Face fast tokenizer of the model at `path` (bert-score's use_fast_tokenizer=True),
    loaded once per process."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(path, use_fast=True, local_files_only=True)


def _ids(tokenizer, texts: list[str]) -> list[list[int]]:
    """Token ids of texts, as the taught `encode_all` makes them (no truncation warning here)."""
    return encode_all(tokenizer, texts, warn=False)


def resolve_setting(model_type=None, num_layers=None, idf=False, *, lang=None, device=None,
                    all_layers=False, rescale_with_baseline=False, baseline_path=None,
                    use_fast_tokenizer=False, idf_sents=None, ids_of: Callable | None = None) -> Setting:
    """The `Setting` of a call with bert-score's arguments. Every rule is applied here:
    which model (`model_ref`), the layer (`check_layer`), idf (False/None, True, or a Mapping
    of finite weights >= 0; an empty dict is weights, not "off"), the baseline file (read and
    checked now, before any scoring), the fast tokenizer (refused for byte-level BPE models).
    idf=True: the weights come from `idf_sents` if given, else later from `with_idf_from`."""
    ref = model_ref(model_type, lang)
    check_idf(idf)
    tokenizer, net = load(ref, device)
    if use_fast_tokenizer:
        tokenizer = fast_tokenizer_of(ref.path)
        if needs_prefix_space(tokenizer):
            raise NotImplementedError(
                f"use_fast_tokenizer=True with {type(tokenizer).__name__}: bert-score then tokenizes without "
                "the leading space it adds otherwise, which course_lib does not reproduce. Use "
                "use_fast_tokenizer=False (bert-score's default).")
    n_layers = num_layers_of(net)
    layer = check_layer(num_layers, ref, n_layers)
    use_idf = idf is True or idf_is_weights(idf)
    weights = idf if idf_is_weights(idf) else (None if use_idf else uniform_weights(tokenizer))
    file = baselines = None
    if rescale_with_baseline:
        file = baseline_file(baseline_path, ref, lang)
        baselines = read_baseline(file, n_layers)
    setting = Setting(model=ref, tokenizer=tokenizer, net=net, n_layers=n_layers, layer=layer,
                      all_layers=bool(all_layers), idf=use_idf, weights=weights,
                      rescale_with_baseline=bool(rescale_with_baseline), custom_baseline=baseline_path is not None,
                      baseline_path=file, baselines=baselines, use_fast_tokenizer=bool(use_fast_tokenizer),
                      lang=lang, device=device)
    return setting.with_idf_from(idf_sents, ids_of) if idf_sents is not None else setting
