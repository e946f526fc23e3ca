"""What COMET's estimator reads: one pooled vector per text, and the feature vector of a pair.

Rei et al. (2020) pool the encoder's token vectors of the hypothesis h, the reference r and the
source s into one vector each, and feed a regressor the concatenation

    x = [h; r; h ⊙ r; |h − r|; h ⊙ s; |h − s|]        (⊙: element-wise product)

h ⊙ r and |h − r| say where h and r agree, dimension by dimension (with unit vectors,
Σ_k (h ⊙ r)_k is their cosine); h and r themselves let the regressor judge fluency and topic.
Here the encoder is the course's model, frozen: the vectors are the mean-pooled hidden state of
one layer (`course_lib.engine.pooling`), scaled to unit length.
"""
from __future__ import annotations

import torch

from course_lib.call.setting import resolve_setting
from course_lib.engine.pooling import sentence_vectors
from course_lib.learned.cache import cached


def pooled(texts: list[str], layer: int, model_type: str | None = None, cache: bool = True) -> torch.Tensor:
    """Unit-length mean-pooled vectors of hidden state `layer`, one per text -> [N, dim].

    The setting (model, layer) is resolved once (`resolve_setting`); `pooled_with` does the rest.
    """
    return pooled_with(resolve_setting(model_type, layer), texts, cache)


def pooled_with(setting, texts: list[str], cache: bool = True) -> torch.Tensor:
    """`pooled` with a resolved `Setting`. Each distinct text is embedded once, by the engine's
    loop (`pooling.sentence_vectors`: sorted by length, batched, no padding in the mean, so the
    vectors do not depend on the batch beyond float rounding). With `cache`, the result is kept on
    disk under a hash of the model (`ModelRef.disk_key`), the layer and the texts, and read back on
    the next call (`learned.cache`: WMT16's vectors ship with the course).
    """
    texts = list(texts)
    if cache:
        return cached("pooled", (setting.model.disk_key, setting.layer, texts),
                      lambda: pooled_with(setting, texts, cache=False))
    return sentence_vectors(setting, texts) if texts else torch.empty(0, 0)


def comet_features(h: torch.Tensor, r: torch.Tensor, s: torch.Tensor | None = None) -> torch.Tensor:
    """COMET's estimator input.

    h, r, s: [N, dim] pooled vectors of hypothesis, reference, source (s optional).
    -> [N, 4·dim] = [h; r; h ⊙ r; |h − r|], or with s [N, 6·dim] (+ [h ⊙ s; |h − s|]).
    """
    parts = [h, r, h * r, (h - r).abs()]
    if s is not None:
        parts += [h * s, (h - s).abs()]
    return torch.cat(parts, dim=-1)
