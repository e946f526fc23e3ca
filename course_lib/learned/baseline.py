"""The simplest learned metric: a linear (ridge) combination of scores the course already has.

Columns of x, one row per (hypothesis, reference):
    P0..P6, R0..R6, F0..F6   BERTScore at every layer (course_lib.score, all_layers=True)
    chrF                     sacrebleu's sentence chrF (0..100)
    length ratio             words in the hypothesis / words in the reference

`regressor.fit_ridge` learns one weight per column from human scores.
"""
from __future__ import annotations

import sacrebleu
import torch

from course_lib.learned.cache import cached


def bertscore_all_layers(hypotheses: list[str], references: list[str], model_type: str | None = None) -> torch.Tensor:
    """course_lib.score(hypotheses, references, all_layers=True), cached on disk -> [3, layers, N] (P, R, F).
    The setting is resolved once; the cache key is its model (`ModelRef.disk_key`)."""
    from course_lib.call.inputs import check_inputs
    from course_lib.call.setting import resolve_setting
    from course_lib.engine.scorer import score_with  # course_lib.score, its setting resolved

    setting = resolve_setting(model_type, all_layers=True)
    hypotheses, groups = check_inputs(hypotheses, references)
    references = [g[0] for g in groups]
    return cached("bertscore", (setting.model.disk_key, hypotheses, references),
                  lambda: torch.stack(score_with(setting, hypotheses, groups)))


def baseline_features(hypotheses: list[str], references: list[str]) -> tuple[torch.Tensor, list[str]]:
    """The ridge baseline's inputs -> (x [N, 3·layers + 2], column names)."""
    prf = bertscore_all_layers(hypotheses, references)                      # [3, layers, N]
    n_layers = prf.shape[1]
    chrf = cached("chrf", (list(hypotheses), list(references)), lambda: torch.tensor(
        [sacrebleu.sentence_chrf(h, [r]).score for h, r in zip(hypotheses, references)]))  # seconds for WMT16
    ratio = torch.tensor([len(h.split()) / max(len(r.split()), 1) for h, r in zip(hypotheses, references)])
    x = torch.cat([prf.reshape(3 * n_layers, -1).T, chrf[:, None], ratio[:, None]], dim=1)
    names = [f"{s}{k}" for s in "PRF" for k in range(n_layers)] + ["chrF", "length ratio"]
    return x.float(), names
