"""Checkers for chapter 03 (the cosine-similarity matrix). Expected values come from
course_lib's embeddings, similarity and naive modules and the embedded model, on several cases."""
from __future__ import annotations

from functools import lru_cache

import torch

from course_lib.bertscore.embeddings import embed, tokens
from course_lib.model import load
from course_lib.bertscore.similarity import cosine_matrix, masked_cosine_matrix

from . import forbid, run

# Exercise 3.1: sentences whose tokens the student counts (a word split into pieces, "$20.00").
COUNT_SENTENCES = ["The rouge slippers cost $20", "The red shoes cost $20.00"]
# Exercise 3.4: a short pair, alone and then in a batch with a long pair.
SHORT_PAIR = ("A man is playing a guitar.", "A man plays the guitar.")
LONG_PAIR = ("The orchestra rehearsed the whole symphony twice before the evening concert in the "
             "old town hall.", "Before the concert that evening, the musicians practised the entire "
             "symphony two times in the historic town hall.")


@lru_cache(maxsize=None)
def real_tokens_count(sentence: str) -> int:
    """Rows a sentence's matrix has that count for BERTScore: its tokens minus [CLS] and [SEP]."""
    tokenizer, _ = load()
    return sum(t not in (tokenizer.cls_token, tokenizer.sep_token) for t in tokens(tokenizer, sentence))


def check_3_1(answer, hint: int = 1) -> bool:
    """answer_3_1: for each of COUNT_SENTENCES, the number of tokens that are not [CLS]/[SEP]."""
    def test():
        want = [real_tokens_count(s) for s in COUNT_SENTENCES]
        assert isinstance(answer, (list, tuple)) and len(answer) == len(want), \
            f"give a list of {len(want)} integers, one per sentence"
        for s, got, w in zip(COUNT_SENTENCES, answer, want):
            assert got == w, f"{s!r}: you counted {got}"
    return run("3.1", test, "every WordPiece (## pieces too, and punctuation) is one row; [CLS] and [SEP] "
                            "are not counted.",
               code="answer_3_1 = [len(tokens(tokenizer, s)) - 2 for s in ch03.COUNT_SENTENCES] (print "
                    "tokens(tokenizer, s) to see them)", level=hint)


@lru_cache(maxsize=1)
def _matrix_cases():
    """(cand [batch, cand_len, dim], ref [batch, ref_len, dim], cand_mask, ref_mask) cases:
    random vectors of very different lengths, and a real padded batch from the model."""
    g = torch.Generator().manual_seed(3)
    cases = []
    for batch, n_c, n_r, dim in [(1, 3, 5, 4), (2, 6, 4, 8), (3, 5, 7, 16)]:
        cand = torch.randn(batch, n_c, dim, generator=g) * torch.rand(batch, n_c, 1, generator=g) * 10
        ref = torch.randn(batch, n_r, dim, generator=g) * torch.rand(batch, n_r, 1, generator=g) * 10
        cm = torch.ones(batch, n_c, dtype=torch.bool)
        rm = torch.ones(batch, n_r, dtype=torch.bool)
        for b in range(1, batch):  # later rows are shorter: padding at the end
            cm[b, n_c - b:] = False
            rm[b, n_r - 2 * b:] = False
        cases.append((cand, ref, cm, rm))
    c = embed(["It is freezing today.", "The rouge slippers cost $20"])
    r = embed(["The weather is cold today.", "The red shoes cost $20.00 at the shop on the corner."])
    cases.append((c.embeddings, r.embeddings, c.mask, r.mask))
    return tuple(cases)


def check_3_2(student_cosine_matrix, hint: int = 1) -> bool:
    """student_cosine_matrix(cand [batch, cand_len, dim], ref [batch, ref_len, dim]) ->
    [batch, cand_len, ref_len] cosines."""
    student_cosine_matrix = forbid(student_cosine_matrix, "course_lib.bertscore.similarity",
                                   "course_lib.teaching.naive")

    def test():
        for cand, ref, _, _ in _matrix_cases():
            want = cosine_matrix(cand, ref)
            got = student_cosine_matrix(cand.clone(), ref.clone())
            assert isinstance(got, torch.Tensor), "return a torch tensor"
            assert tuple(got.shape) == tuple(want.shape), (
                f"shape {tuple(got.shape)}, expected [batch, cand_len, ref_len] = {tuple(want.shape)}")
            err = (got.float() - want).abs().max().item()
            assert err < 1e-4, (f"values differ by up to {err:.3g} (vector norms from "
                                f"{cand.norm(dim=-1).min():.2f} to {cand.norm(dim=-1).max():.2f})")
    return run("3.2", test, "scale every vector (the last dimension) to length 1, then take all dot "
                            "products at once: rows are candidate tokens, columns reference tokens.",
               code="c = cand / cand.norm(dim=-1, keepdim=True); r = ref / ref.norm(dim=-1, keepdim=True); "
                    "return c @ r.transpose(-1, -2)", level=hint)


def check_3_3(student_masked_matrix, hint: int = 1) -> bool:
    """student_masked_matrix(cand, ref, cand_mask, ref_mask) -> [batch, cand_len, ref_len] cosines,
    -inf wherever the candidate token or the reference token is padding."""
    student_masked_matrix = forbid(student_masked_matrix, "course_lib.bertscore.similarity.masked_cosine_matrix",
                                   "course_lib.bertscore.similarity.pair_mask")

    def test():
        for cand, ref, cm, rm in _matrix_cases():
            want = masked_cosine_matrix(cand, ref, cm, rm)
            got = student_masked_matrix(cand.clone(), ref.clone(), cm.clone(), rm.clone())
            assert isinstance(got, torch.Tensor), "return a torch tensor"
            assert tuple(got.shape) == tuple(want.shape), \
                f"shape {tuple(got.shape)}, expected {tuple(want.shape)}"
            pad = torch.isinf(want)
            assert torch.equal(torch.isneginf(got), pad), (
                f"{int(pad.sum())} cells pair a token with padding and must be -inf; yours has "
                f"{int(torch.isneginf(got).sum())} -inf cells (real lengths: candidates "
                f"{cm.sum(-1).tolist()}, references {rm.sum(-1).tolist()})")
            err = (got[~pad].float() - want[~pad]).abs().max().item()
            assert err < 1e-4, f"the real cells differ from the cosines by up to {err:.3g}"
    return run("3.3", test, "a cell is padding when its candidate token *or* its reference token is "
                            "padding; such cells must be -inf (a 0 could still win a max).",
               code="both_real = cand_mask[:, :, None] & ref_mask[:, None, :]; return batched_cosine_matrix("
                    "cand, ref).masked_fill(~both_real, float(\"-inf\"))", level=hint)


@lru_cache(maxsize=1)
def naive_alone_and_batched() -> tuple[float, float]:
    """The naive code's F of SHORT_PAIR scored alone and in a batch with LONG_PAIR (layer 4)."""
    from course_lib.model import DEFAULT_LAYER
    from course_lib.teaching.naive import naive_pair_scores

    alone = naive_pair_scores([SHORT_PAIR[0]], [SHORT_PAIR[1]], layer=DEFAULT_LAYER)[2][0].item()
    batched = naive_pair_scores([SHORT_PAIR[0], LONG_PAIR[0]], [SHORT_PAIR[1], LONG_PAIR[1]],
                                layer=DEFAULT_LAYER)[2][0].item()
    return alone, batched


def check_3_4(answer, hint: int = 1) -> bool:
    """answer_3_4: "up" or "down" -- how the naive F of SHORT_PAIR moves when LONG_PAIR joins its batch."""
    def test():
        alone, batched = naive_alone_and_batched()
        want = "up" if batched > alone else "down"
        assert isinstance(answer, str) and answer.strip().lower() in ("up", "down"), \
            'set answer_3_4 to "up" or "down"'
        assert answer.strip().lower() == want, "that is not what the naive code does here"
    return run("3.4", test, "score the short pair alone, then in one batch with the long pair, and "
                            "compare the short pair's F.",
               code="naive.naive_pair_scores([s[0]], [s[1]], layer=DEFAULT_LAYER)[2][0] vs "
                    "naive.naive_pair_scores([s[0], l[0]], [s[1], l[1]], layer=DEFAULT_LAYER)[2][0] with "
                    "s, l = ch03.SHORT_PAIR, ch03.LONG_PAIR", level=hint)
