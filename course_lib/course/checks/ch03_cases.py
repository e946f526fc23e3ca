"""Chapter 03's cases for exercise 3.2: what each common slip of `cosines_from_dots` returns, and the
hints that name them. `checks.ch03` imports these names."""
from __future__ import annotations

import torch


def _dot_slips(dots, cn, rn) -> dict[str, torch.Tensor]:
    """What the common slips of 3.2 return, by the mistake's name."""
    slips = {"candidate only": dots / cn[:, :, None], "reference only": dots / rn[:, None, :],
             "squared": dots / (cn[:, :, None] * rn[:, None, :]) ** 2,
             "square root": dots / (cn[:, :, None] * rn[:, None, :]).sqrt(),
             "multiplied": dots * cn[:, :, None] * rn[:, None, :]}
    if dots.shape[1] == dots.shape[2]:
        slips["axes"] = dots / (cn[:, None, :] * rn[:, :, None])
        slips["transposed"] = (dots / (cn[:, :, None] * rn[:, None, :])).transpose(1, 2)
    return slips


DOT_HINTS = {
    "candidate only": "you divided by the candidate tokens' lengths only: a cosine divides by both vectors' lengths",
    "reference only": "you divided by the reference tokens' lengths only: a cosine divides by both vectors' lengths",
    "squared": "you divided by squared lengths: the norms are lengths already, and x·y = |x| |y| cos",
    "square root": "you took a square root of the norms: they are lengths already, not squared lengths",
    "multiplied": "you multiplied by the lengths: a cosine divides the dot product by them",
    "axes": "the norms sit on the wrong axes: row i is candidate token i, so cand_norms must vary down the rows "
            "and ref_norms across the columns",
    "transposed": "your matrix is [batch, ref_len, cand_len]: rows are candidate tokens, columns reference tokens",
}
ROW_NORMS = {"candidate": "a candidate token's own length divides its whole row by one number, which cannot move "
                          "the row's maximum",
             "both": "one of the two cannot matter: a candidate token's own length divides its whole row by one "
                     "number, which cannot move the row's maximum",
             "neither": "section 2 printed a best match that the lengths changed (a column there); a row's entries "
                        "are divided by different numbers too"}
