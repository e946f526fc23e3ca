"""A scorer with a planted bug, kept on purpose to show what a batch-invariance test catches.

`sorted_separately_score` wants to batch texts of similar length together, so it sorts the
candidates by length and, separately, the references by length, scores them pair by pair in
those orders, and puts the scores back in the candidates' order. Alone (one pair) it is
right; in a batch most candidates are scored against another pair's reference -- the kind of
mistake torchmetrics 1.9.0 makes (chapter 07b). Chapter 07b and exercise 7.2 use it; never
use it to evaluate anything.
"""
from __future__ import annotations

import torch

from course_lib.engine.scorer import score


def sorted_separately_score(cands: list[str], refs: list[str]):
    """WRONG on purpose: candidates and references sorted by length separately, paired by position.

    Returns P, R, F: float tensors [N] in the candidates' order (each against the wrong reference).
    """
    c_order = sorted(range(len(cands)), key=lambda k: -len(cands[k]))
    r_order = sorted(range(len(refs)), key=lambda k: -len(refs[k]))
    scores = score([cands[k] for k in c_order], [refs[k] for k in r_order])
    out = [torch.empty_like(s) for s in scores]
    for o, s in zip(out, scores):
        o[c_order] = s  # back to the candidates' order, but the references moved
    return tuple(out)
