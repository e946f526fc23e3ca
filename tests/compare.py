"""Comparing scores in tests: the largest difference between two sets of tensors."""


def max_diff(ours, theirs) -> float:
    """max |a - b| over matching tensors of `ours` and `theirs` (e.g. (P, R, F) against (P, R, F)).

    NaN-aware: a NaN (total token weight 0, e.g. idf from one reference) must sit where the other
    side has a NaN, and then counts as no difference; shapes must be equal."""
    diffs = [0.0]
    for a, b in zip(ours, theirs):
        assert a.shape == b.shape, (a.shape, b.shape)
        assert bool((a.isnan() == b.isnan()).all()), "NaN in one and not in the other"
        if a.numel():
            diffs.append((a - b).nan_to_num(0.0).abs().max().item())
    return max(diffs)
