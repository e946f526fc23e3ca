"""Chapter 03's cases for exercises 3.2 and 3.3: what each common slip of `cosines_from_dots` returns, where each
slip of the 3.3 mask puts its -inf cells, and the hints that name them. `checks.ch03` imports these names."""
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


# for 3.3: where each common slip puts its -inf cells ([batch, cand_len, ref_len] booleans), and its hint
def _left_mask(lengths, total: int) -> torch.Tensor:
    """[batch, total]: True for the last `length` positions of each row (left padding)."""
    return torch.arange(total)[None, :] >= (total - torch.tensor(lengths))[:, None]


def _mask_slips(c_len, r_len, n_c: int, n_r: int) -> dict[str, torch.Tensor]:
    left = _left_mask

    def right(lengths, total):
        return torch.arange(total)[None, :] < torch.tensor(lengths)[:, None]

    c, r = left(c_len, n_c)[:, :, None], left(r_len, n_r)[:, None, :]
    return {"right": ~(right(c_len, n_c)[:, :, None] & right(r_len, n_r)[:, None, :]),
            "both": ~c & ~r, "candidate only": (~c).expand(-1, -1, n_r), "reference only": (~r).expand(-1, n_c, -1),
            "one too many": ~(left([n - 1 for n in c_len], n_c)[:, :, None]
                              & left([n - 1 for n in r_len], n_r)[:, None, :]),
            "one too few": ~(left([min(n + 1, n_c) for n in c_len], n_c)[:, :, None]
                             & left([min(n + 1, n_r) for n in r_len], n_r)[:, None, :])}


MASK_HINTS = {
    "right": "your -inf cells are where RIGHT padding would be (real tokens first, as in section 4): this batch is "
             "padded on the left, so a text's real tokens are its last positions",
    "both": "you put -inf only where both tokens are padding: a cell is padding when its candidate token OR its "
            "reference token is",
    "candidate only": "you masked the candidate's padding rows only: the reference's padding columns must be -inf too",
    "reference only": "you masked the reference's padding columns only: the candidate's padding rows must be -inf too",
    "one too many": "your mask takes one real token of each text for padding (an off-by-one in the lengths)",
    "one too few": "your mask leaves one padding position of each text unmasked (an off-by-one in the lengths)",
    "zero": "your padding cells hold 0, not -inf: cosines can be negative, so a 0 could still win a max",
}


def _mask_slip(got: torch.Tensor, pad: torch.Tensor, c_len, r_len) -> str | None:
    """The hint naming the slip whose -inf cells `got` has, or None."""
    if not torch.isneginf(got).any() and bool((got[pad] == 0).all()):
        return MASK_HINTS["zero"]
    for name, cells in _mask_slips(c_len, r_len, got.shape[1], got.shape[2]).items():
        if not torch.equal(cells, pad) and torch.equal(torch.isneginf(got), cells):
            return MASK_HINTS[name]
    return None
