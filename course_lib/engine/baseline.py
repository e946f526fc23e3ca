"""Computing a baseline: the mean BERTScore of random, unrelated sentence pairs, every layer.

Reading and applying a baseline is part of the metric (`course_lib.bertscore.baseline`);
computing one needs the scorer, so it lives here.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass

import torch

from course_lib.engine.scorer import score


def random_pairs(sentences: list[str], n_pairs: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """n_pairs pairs of two different sentences drawn at random (unrelated text)."""
    pool = sorted(set(s for s in sentences if s.strip()))
    if len(pool) < 2:
        raise ValueError("need at least two different non-empty sentences")
    rng = random.Random(seed)
    cands, refs = [], []
    while len(cands) < n_pairs:
        a, b = rng.sample(pool, 2)
        cands.append(a)
        refs.append(b)
    return cands, refs


@dataclass
class Baseline:
    """Per-layer baseline: mean [n_layers + 1, 3] and its standard error [n_layers + 1, 3]."""

    mean: torch.Tensor
    stderr: torch.Tensor
    n_pairs: int


def compute_baseline(sentences: list[str], model_type: str | None = None, n_pairs: int = 2000,
                     seed: int = 0, batch_size: int = 64) -> Baseline:
    """The paper's method: b = mean P, R, F over random pairs of sentences, for every layer.

    Standard error of each mean = std / sqrt(n_pairs).
    """
    cands, refs = random_pairs(sentences, n_pairs, seed)
    P, R, F = score(cands, refs, model_type=model_type, all_layers=True, batch_size=batch_size)
    stacked = torch.stack([P, R, F], dim=-1)  # [n_layers + 1, n_pairs, 3]
    mean = stacked.mean(dim=1)
    stderr = stacked.std(dim=1) / math.sqrt(n_pairs)
    return Baseline(mean, stderr, n_pairs)
