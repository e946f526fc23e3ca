"""How an exercise's answer is compared with the right one (and with a planted slip's): numbers, texts and lists
(`same_value`), tensors (`same_tensor`, which raises Mismatch naming what differs)."""
from __future__ import annotations

import math


class Mismatch(AssertionError):
    """What is wrong with an answer, in one sentence for the student."""


def same_value(a, b) -> bool:
    """Two answers alike: numbers within 1e-6, texts stripped, lists and tuples item by item."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, str) and isinstance(b, str):
        return a.strip() == b.strip()
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return math.isclose(a, b, abs_tol=1e-6, rel_tol=0)
    return False



def same_tensor(got, want, args=None, tol=1e-4):
    """Tensors equal: shape, NaN, where -inf is, and the finite cells within `tol`."""
    import torch

    if not isinstance(got, torch.Tensor):
        raise Mismatch(f"return a torch tensor, not {type(got).__name__}")
    if tuple(got.shape) != tuple(want.shape):
        raise Mismatch(f"shape {tuple(got.shape)}, expected [batch, cand_len, ref_len] = {tuple(want.shape)}")
    got = got.double()
    want = want.double()
    nan_got, nan_want = torch.isnan(got), torch.isnan(want)
    if not torch.equal(nan_got, nan_want):
        raise Mismatch(f"{int(nan_got.sum())} cells of your matrix are NaN")
    got, want = got.masked_fill(nan_got, 0.0), want.masked_fill(nan_want, 0.0)  # NaN where it should be (a slip)
    inf_got, inf_want = torch.isneginf(got), torch.isneginf(want)
    if not torch.equal(inf_got, inf_want):
        raise Mismatch(f"{int(inf_want.sum())} cells must be -inf; yours has {int(inf_got.sum())} -inf cells, "
                       f"{int((inf_got != inf_want).sum())} of them (or of those that should be) in the wrong place")
    real = ~inf_want
    err = (got[real] - want[real]).abs().max().item() if real.any() else 0.0
    if not bool(((got[real] - want[real]).abs() <= tol * (1 + want[real].abs())).all()):  # relative for large values
        raise Mismatch(f"the values differ from the right ones by up to {err:.3g}")


def text_pair(answer, name: str) -> tuple[str, str]:
    """`answer` as a (candidate, reference) pair of two non-empty texts, or Mismatch saying what it is instead."""
    if not isinstance(answer, (list, tuple)) or len(answer) != 2:
        text = repr(answer)
        text = text if len(text) <= 60 else text[:60].rsplit(" ", 1)[0] + "…"  # cut between words
        raise Mismatch(f"{name} must be a (candidate, reference) pair: two texts, not {type(answer).__name__} {text}")
    if not all(isinstance(t, str) and t.strip() for t in answer):
        raise Mismatch(f"{name}: give the two texts as non-empty strings")
    return tuple(answer)


def whole_numbers(got, n: int) -> None:
    """`got` is a list of `n` whole numbers, or Mismatch saying what it is instead."""
    if not isinstance(got, (list, tuple)) or len(got) != n:
        raise Mismatch(f"give a list of {n} integers")
    if any(isinstance(x, str) for x in got):
        raise Mismatch("you gave text, not numbers: give integers, e.g. 7, not '7'")
    if not all(isinstance(x, int) or (isinstance(x, float) and x.is_integer()) for x in got):
        raise Mismatch("give whole numbers")
