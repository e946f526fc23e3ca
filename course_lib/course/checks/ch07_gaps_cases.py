"""Chapter 07a's cases for exercise 7.2 (a batch-invariance test): scorers whose batch moves their scores by a
known amount (a sort, a batch mean, one pair off by one, one of P, R, F at a time), and the gaps they give, computed
here the way the exercise asks. `checks.ch07` imports these."""
from __future__ import annotations

import torch

from course_lib.teaching.planted import sorted_separately_score as _sorted_separately  # noqa: F401 (ch07 uses it)


def _last_pair_shifted(cands, refs):
    """A buggy scorer: in a batch of several pairs the last pair's R comes out 0.05 low (an off-by-one in the
    batching); alone, every pair is right. Only the last pair shows the gap."""
    import course_lib

    P, R, F = course_lib.score(cands, refs)
    if len(cands) > 1:
        R = R.clone()
        R[-1] -= 0.05
    return P, R, 2 * P * R / (P + R)


def _batch_centred(cands, refs):
    """A buggy scorer: recall is centred on the batch mean (a statistic of the batch leaks in)."""
    import course_lib

    P, R, F = course_lib.score(cands, refs)
    R = R - R.mean() + 0.5
    return P, R, 2 * P * R / (P + R)


_GAPS: dict = {}


def _expected_gap(score_fn, cands, refs) -> float:
    key = (score_fn, tuple(cands), tuple(refs))
    if key not in _GAPS:
        _GAPS[key] = _gap(score_fn, cands, refs)
    return _GAPS[key]


def _gap(score_fn, cands, refs) -> float:
    return _diffs(score_fn, cands, refs).abs().max().item()


def _reordered_gap(score_fn, cands, refs) -> float:
    """The slip of comparing a batch with the same batch reversed (realigned): no pair is ever scored alone."""
    batch = torch.stack(score_fn(cands, refs), dim=-1)
    backwards = torch.stack(score_fn(cands[::-1], refs[::-1]), dim=-1).flip(0)
    return (batch - backwards).abs().max().item()


def _columns_seen(batch_invariance_gap, cands, refs) -> str:
    """Which of P, R, F the student's gap looks at: for each, a scorer whose batch (two pairs or more) moves that
    score only, by 0.05; the gap sees it when it returns more than 0.01. "PRF" for a right answer."""
    import course_lib

    def moving(j):
        def score(cs, rs):
            out = [s.clone() for s in course_lib.score(cs, rs)]
            if len(cs) > 1:
                out[j] += 0.05
            return tuple(out)
        return score

    seen = ""
    for j, kind in enumerate("PRF"):
        try:
            if abs(float(batch_invariance_gap(moving(j), list(cands[:3]), list(refs[:3])))) > 0.01:
                seen += kind
        except Exception:  # noqa: BLE001  (the student's code fails here too: the main check reports it)
            return "PRF"
    return seen


def _signs_seen(batch_invariance_gap, cands, refs) -> str:
    """Which ways of moving the student's gap sees: "+" for a scorer whose batch (two pairs or more) moves P, R and
    F up by 0.05, "-" for one that moves them down by 0.05; seen when the gap returns more than 0.01 (a signed
    difference returns -0.05 on one of them). "+-" for a right answer, "" for one that never scores a pair alone;
    one sign only is a signed difference. On the check's own scorers a signed answer can return float noise (the
    sorting scorer only lowers scores: its largest signed difference is the unmoved pairs' ~6e-8 here, 0 or below on
    another CPU), which no comparison of values tells from a 0: these probes move every pair far beyond that noise."""
    import course_lib

    def moving(delta):
        def score(cs, rs):
            out = course_lib.score(cs, rs)
            return tuple(s + delta for s in out) if len(cs) > 1 else out
        return score

    seen = ""
    for sign, delta in (("+", 0.05), ("-", -0.05)):
        try:
            if float(batch_invariance_gap(moving(delta), list(cands[:3]), list(refs[:3]))) > 0.01:  # signed: -0.05
                seen += sign
        except Exception:  # noqa: BLE001  (the student's code fails here too: the main check reports it)
            return "+-"
    return seen


def _moved(diffs) -> str:
    """The scores a batch moved by more than 1e-4, in words ("R", "P and R", ...)."""
    return " and ".join(k for k, d in zip("PRF", diffs.abs().amax(dim=0).tolist()) if d > 1e-4) or "none"


def _diffs(score_fn, cands, refs) -> torch.Tensor:
    """[n, 3]: each pair's (P, R, F) scored in the batch minus scored alone."""
    batch = torch.stack(score_fn(cands, refs), dim=-1)
    alone = torch.cat([torch.stack(score_fn([c], [r]), dim=-1) for c, r in zip(cands, refs)])
    return batch - alone
