"""Chapter 03's exercises as data (the cosine-similarity matrix), compared with course_lib's own functions on cases
drawn when the check runs; `COUNT_SENTENCES` and `TARGET_3_4` are its data (other data in grading: `hidden_data`)."""
from __future__ import annotations

import torch

from course_lib.caching import cached
from course_lib.bertscore.similarity import cosine_matrix

from .compare import Mismatch, same_tensor, text_pair, whole_numbers
from .assemble import chapter_data, checkers
from .exercise import Choice, Exercise, Function, Judge, Slip, Value

PUBLISHED = {
    # 3.1: sentences whose tokens the student counts (words split into pieces, an apostrophe, a temperature)
    "COUNT_SENTENCES": ["Snowfall paralysed Reykjavik's airport overnight.", "Temperatures plunged to -12°C!"],
    # 3.4: a pair this chapter never scores; the student picks the companions it is batched with
    "TARGET_3_4": ("The old museum reopened after two years of repairs.",
                   "After two years of repairs, the old museum has opened its doors again."),
}
MOVE = 0.005  # the least change of F a companion must cause (3.4)


__getattr__ = chapter_data(PUBLISHED)


def hidden_data(rng) -> dict:
    """For grading: two WMT16 references (3.1); a pair of 25+ words a side (3.4: a copied companion pads nothing)."""
    from course_lib.evaluation.datasets import wmt16

    rows = wmt16().to_dict("records")
    short = [r["ref"] for r in rows if len(r["ref"].split()) <= 12]
    long_ = [(r["mt"], r["ref"]) for r in rows if 25 <= len(r["ref"].split()) <= 45 and len(r["mt"].split()) >= 25]
    return {"COUNT_SENTENCES": rng.sample(short, 2), "TARGET_3_4": rng.choice(long_)}


def _tokenizer():
    from course_lib.model import load
    return load()[0]


# ------------------------------------------------------------------ 3.1 count the rows

def _counts(sentences) -> list[int]:
    tokenizer = _tokenizer()
    return [len(tokenizer.tokenize(s)) for s in sentences]


def _split_words(sentences) -> list[str]:
    tokenizer = _tokenizer()
    return [w for s in sentences for w in s.split() if len(tokenizer.tokenize(w)) > 1]


def _same_counts(got, want, sentences):
    whole_numbers(got, len(want))
    for s, g, w in zip(sentences, got, want):
        if g != w:
            raise Mismatch(f"{s!r}: you counted {g}")


def _same_words(got, want, sentences):
    if not isinstance(got, (list, tuple)) or not all(isinstance(x, str) for x in got):
        raise Mismatch("set split_3_1 to a list of words, as the sentences write them")
    got = {x.strip() for x in got}
    written = {w for s in sentences for w in s.split()}
    if got - written:
        raise Mismatch(f"{sorted(got - written)} are not words as the sentences write them (split at spaces, "
                       "punctuation attached)")
    if got != set(want):
        raise Mismatch(f"you found {len(got & set(want))} of the {len(set(want))} words that take several rows, "
                       f"and {len(got - set(want))} that take one")


EX_3_1 = Exercise(
    "3.1", chapter="03",
    idea="every WordPiece (## pieces too, and punctuation) is one row, and [CLS] and [SEP] are not counted; a word "
         "takes several rows when it is split.",
    answers=[
        Value("answer_3_1", "COUNT_SENTENCES", _counts, _same_counts, slips=[
            Slip("special tokens", lambda ss: [n + 2 for n in _counts(ss)],
                 "you counted [CLS] and [SEP]: leave them out"),
            Slip("words", lambda ss: [len(s.split()) for s in ss],
                 "you counted words (split at spaces), not WordPiece tokens"),
            Slip("special, no punctuation", lambda ss: [len(s.split()) + 2 for s in ss],
                 "you counted words and [CLS]/[SEP]: count the tokenizer's pieces, without [CLS]/[SEP]")]),
        Value("split_3_1", "COUNT_SENTENCES", _split_words, _same_words, slips=[
            Slip("pieces", lambda ss: [t for s in ss for t in _tokenizer().tokenize(s) if t.startswith("##")],
                 "you listed pieces (##...), not the words they come from"),
            Slip("every word", lambda ss: [w for s in ss for w in s.split()],
                 "you listed every word: only some are split into pieces")]),
    ],
    after="The library counts the same way: `len(tokens(tokenizer, s)) - 2`, tokens from "
          "course_lib.bertscore.embeddings.")


# ------------------------------------------------------------------ 3.2 cosines from dot products

def _vectors(gen, batch, n, dim):
    return torch.randn(batch, n, dim, generator=gen) * torch.rand(batch, n, 1, generator=gen) * 10


@cached(1)
def _real_batch():
    """The model's vectors of a real padded batch (two pairs)."""
    from course_lib.bertscore.embeddings import embed

    c = embed(["It is freezing today.", "The rouge slippers cost $20"])
    r = embed(["The weather is cold today.", "The red shoes cost $20.00 at the shop on the corner."])
    return c.embeddings, r.embeddings, c.mask, r.mask


def _dot_cases(rng):
    """A square case first (norms on the wrong axis still give numbers there), other shapes, a real batch."""
    gen = torch.Generator().manual_seed(rng.randrange(2 ** 31))
    shapes = [(2, 4, 4, 8)] + [(rng.randint(1, 3), rng.randint(2, 7), rng.randint(2, 7), rng.choice([4, 8, 16]))
                               for _ in range(3)]
    pairs = [(_vectors(gen, b, n, d), _vectors(gen, b, m, d)) for b, n, m, d in shapes]
    pairs.append(_real_batch()[:2])
    return [(c @ r.transpose(-1, -2), c.norm(dim=-1), r.norm(dim=-1)) for c, r in pairs]


def _cosines(dots, cand_norms, ref_norms):
    return dots / (cand_norms[:, :, None] * ref_norms[:, None, :])


EX_3_2 = Exercise(
    "3.2", chapter="03",
    idea="cos(x, y) = x·y / (|x| |y|): cell [b, i, j] divides by the length of candidate token i and of reference "
         "token j. In a batch, the candidate lengths vary along the rows, the reference lengths along the columns.",
    answers=[
        Function("cosines_from_dots", _dot_cases, _cosines, same_tensor, slips=[
            Slip("candidate only", lambda d, cn, rn: d / cn[:, :, None],
                 "you divided by the candidate tokens' lengths only: a cosine divides by both vectors' lengths"),
            Slip("reference only", lambda d, cn, rn: d / rn[:, None, :],
                 "you divided by the reference tokens' lengths only: a cosine divides by both vectors' lengths"),
            Slip("squared", lambda d, cn, rn: _cosines(d, cn, rn) / (cn[:, :, None] * rn[:, None, :]),
                 "you divided by squared lengths: the norms are lengths already, and x·y = |x| |y| cos"),
            Slip("square root", lambda d, cn, rn: d / (cn[:, :, None] * rn[:, None, :]).sqrt(),
                 "you took a square root of the norms: they are lengths already, not squared lengths"),
            Slip("multiplied", lambda d, cn, rn: d * cn[:, :, None] * rn[:, None, :],
                 "you multiplied by the lengths: a cosine divides the dot product by them"),
            Slip("axes", lambda d, cn, rn: d / (cn[:, None, :] * rn[:, :, None]),
                 "the norms sit on the wrong axes: row i is candidate token i, so cand_norms must vary down the "
                 "rows and ref_norms across the columns"),
            Slip("transposed", lambda d, cn, rn: _cosines(d, cn, rn).transpose(1, 2),
                 "your matrix is [batch, ref_len, cand_len]: rows are candidate tokens, columns reference tokens")]),
        Choice("row_norms_3_2", "reference", aliases={"ref": "reference", "cand": "candidate"}, wrong={
            "candidate": "a candidate token's own length divides its whole row by one number, which cannot move the "
                         "row's maximum",
            "both": "one of the two cannot matter: a candidate token's own length divides its whole row by one "
                    "number, which cannot move the row's maximum",
            "neither": "section 2 printed a best match that the lengths changed (a column there); a row's entries "
                       "are divided by different numbers too"}),
    ],
    after="The library's version: `normalize` and `cosine_matrix` in course_lib.bertscore.similarity "
          "(show_source(cosine_matrix)).")


# ------------------------------------------------------------------ 3.3 mask a left-padded batch

def _left(lengths, total):
    """[batch, total]: True for the last `length` positions of each row (left padding)."""
    return torch.arange(total)[None, :] >= (total - torch.tensor(lengths))[:, None]


def _right(lengths, total):
    return torch.arange(total)[None, :] < torch.tensor(lengths)[:, None]


def _left_cases(rng):
    """(cand, ref, cand_lengths, ref_lengths) of LEFT-padded batches (padding first, as decoder-only LLM
    tokenizers pad): random vectors, and the model's vectors of a real batch moved to the right."""
    gen = torch.Generator().manual_seed(rng.randrange(2 ** 31))
    cases = []
    for batch, n_c, n_r, dim in [(1, 3, 5, 4), (2, 6, 4, 8), (3, 5, 7, 16)]:
        cand, ref = _vectors(gen, batch, n_c, dim), _vectors(gen, batch, n_r, dim)
        c_len = [n_c] + [rng.randint(1, n_c - 1) for _ in range(batch - 1)]
        r_len = [n_r] + [rng.randint(1, n_r - 1) for _ in range(batch - 1)]
        cases.append((cand, ref, c_len, r_len))
    cand, ref, cm, rm = _real_batch()
    c_len, r_len = cm.sum(-1).tolist(), rm.sum(-1).tolist()
    cases.append((torch.stack([torch.roll(cand[b], cand.shape[1] - n, dims=0) for b, n in enumerate(c_len)]),
                  torch.stack([torch.roll(ref[b], ref.shape[1] - n, dims=0) for b, n in enumerate(r_len)]),
                  c_len, r_len))
    return cases


def _masked(keep):
    """A masked matrix from `keep(cand, ref, cand_lengths, ref_lengths)` -> [batch, cand_len, ref_len] real cells."""
    def answer(cand, ref, c_len, r_len):
        return cosine_matrix(cand, ref).masked_fill(~keep(cand, ref, c_len, r_len), float("-inf"))
    return answer


def _both(side, shift=0):
    def keep(cand, ref, c_len, r_len):
        return (side([max(0, min(n + shift, cand.shape[1])) for n in c_len], cand.shape[1])[:, :, None]
                & side([max(0, min(n + shift, ref.shape[1])) for n in r_len], ref.shape[1])[:, None, :])
    return keep


def _nan_cells(cand, ref, c_len, r_len):
    keep = _both(_left)(cand, ref, c_len, r_len)
    return cosine_matrix(cand, ref) * keep + float("-inf") * (~keep)


EX_3_3 = Exercise(
    "3.3", chapter="03",
    idea="with left padding, a text of length n in a batch of L positions has its real tokens at positions "
         "L - n ... L - 1. Build each side's mask from the lengths; a cell is padding when its candidate token *or* "
         "its reference token is padding, and must be -inf (a 0 could still win a max).",
    answers=[Function("masked_matrix", _left_cases, _masked(_both(_left)), same_tensor,
                      forbid=("course_lib.bertscore.similarity.masked_cosine_matrix",), slips=[
        Slip("right", _masked(_both(_right)),
             "your -inf cells are where RIGHT padding would be (real tokens first, as in section 4): this batch is "
             "padded on the left, so a text's real tokens are its last positions"),
        Slip("and", _masked(lambda c, r, cl, rl: _left(cl, c.shape[1])[:, :, None] | _left(rl, r.shape[1])[:, None, :]),
             "you put -inf only where both tokens are padding: a cell is padding when its candidate token OR its "
             "reference token is"),
        Slip("candidate only", _masked(lambda c, r, cl, rl: _left(cl, c.shape[1])[:, :, None].expand(-1, -1, r.shape[1])),
             "you masked the candidate's padding rows only: the reference's padding columns must be -inf too"),
        Slip("reference only", _masked(lambda c, r, cl, rl: _left(rl, r.shape[1])[:, None, :].expand(-1, c.shape[1], -1)),
             "you masked the reference's padding columns only: the candidate's padding rows must be -inf too"),
        Slip("one too many", _masked(_both(_left, -1)),
             "your mask takes one real token of each text for padding (an off-by-one in the lengths)"),
        Slip("one too few", _masked(_both(_left, +1)),
             "your mask leaves one padding position of each text unmasked (an off-by-one in the lengths)"),
        Slip("zero", lambda c, r, cl, rl: cosine_matrix(c, r).masked_fill(~_both(_left)(c, r, cl, rl), 0.0),
             "your padding cells hold 0, not -inf: cosines can be negative, so a 0 could still win a max"),
        Slip("unmasked", lambda c, r, cl, rl: cosine_matrix(c, r), "nothing is masked: padding cells must be -inf"),
        Slip("nan", _nan_cells,
             "0 * (-inf) is NaN (IEEE), so a mask multiplied into -inf spoils the cells: put -inf in the padding "
             "cells with masked_fill or torch.where, never by multiplying")])],
    after="The library's version: `pair_mask` and `masked_cosine_matrix` in course_lib.bertscore.similarity "
          "(show_source(masked_cosine_matrix)).")


# ------------------------------------------------------------------ 3.4 choose the neighbours

@cached(32)
def _naive_change(target, companion) -> tuple[float, float, float]:
    """The target's naive (P, R, F) in one batch with `companion`, minus its naive (P, R, F) alone."""
    from course_lib.model import DEFAULT_LAYER
    from course_lib.teaching.naive import naive_pair_scores

    alone = naive_pair_scores([target[0]], [target[1]], layer=DEFAULT_LAYER)
    batch = naive_pair_scores([target[0], companion[0]], [target[1], companion[1]], layer=DEFAULT_LAYER)
    return tuple(b[0].item() - a[0].item() for b, a in zip(batch, alone))


def _padding(target, companion) -> tuple[int, int]:
    """(padding rows, padding columns) the target gets in one batch with `companion`."""
    tokenizer = _tokenizer()
    (c, r), (cc, cr) = [[len(tokenizer.tokenize(t)) for t in pair] for pair in (target, companion)]
    return max(0, cc - c), max(0, cr - r)


def _sides(rows, cols):
    return f"{rows} padding rows (candidate side) and {cols} padding columns (reference side)"


def _judge_up(up, target):
    rows, cols = _padding(target, text_pair(up, "up_3_4"))
    if not (rows and cols):
        raise Mismatch(f"up_3_4 gives the pair {_sides(rows, cols)}. F rises when the pair's [PAD] rows meet [PAD] "
                       "columns: the companion must be longer than the pair on both sides")
    change = _naive_change(tuple(target), tuple(up))[2]
    if not change > MOVE:
        raise Mismatch(f"up_3_4 gives the pair {_sides(rows, cols)}, and its F changes by {change:+.4f}: make the "
                       "companion much longer on both sides, so padding dominates the means")


def _judge_down(down, target):
    rows, cols = _padding(target, text_pair(down, "down_3_4"))
    if not (rows or cols):
        raise Mismatch("down_3_4 gives the pair no padding: a text is padded up to the longest text on its side of "
                       "the batch, so the companion must be longer than the pair somewhere")
    if rows and cols:
        raise Mismatch(f"down_3_4 gives the pair {_sides(rows, cols)}: padding on both sides means [PAD] rows meet "
                       "[PAD] columns at cosines near 1. Pad one side only")
    change = _naive_change(tuple(target), tuple(down))[2]
    if not change < -MOVE:
        raise Mismatch(f"down_3_4 gives the pair {_sides(rows, cols)}, and its F changes by {change:+.4f}: make the "
                       "companion much longer on that side")


def _judge_drops(drops, target, down):
    said = str(drops).strip().lower()
    if said not in ("precision", "recall", "p", "r"):
        raise Mismatch(f"answer drops_3_4 with \"precision\" or \"recall\", not {drops!r}")
    dP, dR, _ = _naive_change(tuple(target), tuple(down))
    if said[0] != ("p" if dP < dR else "r"):
        rows, cols = _padding(target, down)
        raise Mismatch(f"down_3_4 (the first text is the candidate) gives the pair {_sides(rows, cols)}: which mean "
                       "do those padding positions join, the one over the candidate's tokens or the one over the "
                       "reference's?")


EX_3_4 = Exercise(
    "3.4", chapter="03",
    idea="a batch pads every candidate to the longest candidate and every reference to the longest reference, and "
         "the naive code averages over every position. A [PAD] row finds a [PAD] column at a cosine near 1; a "
         "padding position with no padding on the other side finds only real tokens, at low cosines.",
    answers=[Judge("up_3_4", "TARGET_3_4", _judge_up), Judge("down_3_4", "TARGET_3_4", _judge_down),
             Judge("drops_3_4", "TARGET_3_4", _judge_drops, uses=("down_3_4",))],
    after="Compute, don't type: grading runs your code on another pair.")


EXERCISES = {ex.id: ex for ex in (EX_3_1, EX_3_2, EX_3_3, EX_3_4)}
check_3_1, check_3_2, check_3_3, check_3_4 = checkers(EXERCISES, PUBLISHED)
