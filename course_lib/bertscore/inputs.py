"""Checking what a caller passes to BERTScore, before any work is done."""
from __future__ import annotations


def check_inputs(cands, refs) -> tuple[list[str], list[list[str]]]:
    """Validate `cands` (list of str) and `refs` (list of str or of lists of str).

    Returns the candidates and, for each, its list of references.
    """
    for name, value in (("cands", cands), ("refs", refs)):
        if isinstance(value, str) or not isinstance(value, (list, tuple)):
            raise TypeError(f"{name} must be a list of strings, got {type(value).__name__}")
    if len(cands) != len(refs):
        raise ValueError(f"cands and refs must have the same length: {len(cands)} candidates, "
                         f"{len(refs)} references")
    for i, c in enumerate(cands):
        if not isinstance(c, str):
            raise TypeError(f"cands[{i}] is {type(c).__name__}, expected str")
    groups = []
    for i, r in enumerate(refs):
        group = [r] if isinstance(r, str) else r
        if not isinstance(group, (list, tuple)):
            raise TypeError(f"refs[{i}] is {type(r).__name__}, expected str or list of str")
        if len(group) == 0:
            raise ValueError(f"refs[{i}] is an empty list: each candidate needs a reference")
        for j, g in enumerate(group):
            if not isinstance(g, str):
                raise TypeError(f"refs[{i}][{j}] is {type(g).__name__}, expected str")
        groups.append(list(group))
    return list(cands), groups
