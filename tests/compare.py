"""Comparing scores in tests: the largest difference between two sets of tensors."""


def max_diff(ours, theirs) -> float:
    """max |a - b| over matching tensors of `ours` and `theirs` (e.g. (P, R, F) against (P, R, F))."""
    return max((a - b).abs().max().item() for a, b in zip(ours, theirs))
