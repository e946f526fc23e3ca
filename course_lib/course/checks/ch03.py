"""Checkers for chapter 03 (the cosine-similarity matrix). Expected values come from
course_lib's embeddings, similarity and naive modules and the embedded model, on several cases."""
from __future__ import annotations

from functools import lru_cache

import torch

from course_lib.bertscore.embeddings import embed, tokens
from course_lib.model import load
from course_lib.bertscore.similarity import cosine_matrix, masked_cosine_matrix

from . import forbid, grading, hidden_rows, run

# Exercise 3.1: sentences whose tokens the student counts (words split into pieces, an apostrophe,
# a temperature).
COUNT_SENTENCES = ["Snowfall paralysed Reykjavik's airport overnight.", "Temperatures plunged to -12°C!"]
# Exercise 3.4: three pairs of very different lengths, scored alone and then in one batch: the first is
# short on both sides, the second has the longest candidate, the third the longest reference.
NEIGHBOURS = [
    ("A child is reading.", "A kid reads a book."),
    ("The committee postponed its decision on the controversial highway project until after the "
     "regional elections.", "It rained."),
    ("Prices rose.", "Consumer prices rose sharply in March, driven mainly by higher energy and food "
     "costs across the eurozone."),
]


@lru_cache(maxsize=None)
def _real_tokens_count(sentence: str) -> int:
    """Rows a sentence's matrix has that count for BERTScore: its tokens minus [CLS] and [SEP]."""
    tokenizer, _ = load()
    return sum(t not in (tokenizer.cls_token, tokenizer.sep_token) for t in tokens(tokenizer, sentence))


def _split_words(sentence: str) -> list[str]:
    """The words of `sentence` (split at spaces, as written) that take more than one row of its matrix."""
    tokenizer, _ = load()
    return [w for w in sentence.split() if len(tokenizer.tokenize(w)) > 1]


def check_3_1(answer, split=None, hint: int = 1) -> bool:
    """answer_3_1: for each of COUNT_SENTENCES, the number of tokens that are not [CLS]/[SEP];
    split_3_1: the words (as the sentences write them) that take more than one row."""
    def test():
        want = [_real_tokens_count(s) for s in COUNT_SENTENCES]
        assert isinstance(answer, (list, tuple)) and len(answer) == len(want), \
            f"give a list of {len(want)} integers, one per sentence"
        strings = [x for x in answer if isinstance(x, str)]
        assert not strings, (f"you gave text ({strings[0]!r}), not a number: give integers, e.g. 7, not "
                             "'7' or the tokens themselves")
        assert all(isinstance(x, int) or (isinstance(x, float) and x.is_integer()) for x in answer), (
            f"give whole numbers (token counts), not {[type(x).__name__ for x in answer]}")
        for s, got, w in zip(COUNT_SENTENCES, answer, want):
            assert got != w + 2, f"{s!r}: you counted {got}, [CLS] and [SEP] included: leave them out"
            assert got == w, f"{s!r}: you counted {got}"
        assert isinstance(split, (list, tuple)) and all(isinstance(x, str) for x in split), (
            "answer_3_1 is right. Now set split_3_1 to the list of words (as the sentences write them, e.g. "
            "\"airport\") that take more than one row")
        words = [w for s in COUNT_SENTENCES for w in _split_words(s)]
        got = [x.strip() for x in split]
        pieces = [x for x in got if x.startswith("##") or x not in {w for s in COUNT_SENTENCES for w in s.split()}]
        assert not pieces, (f"{pieces}: list whole words as the sentence writes them (split at spaces, "
                            "punctuation attached), not their pieces")
        assert not set(got) - set(words), f"{sorted(set(got) - set(words))} take(s) one row only"
        assert not set(words) - set(got), (f"you found {len(set(got))} of the {len(set(words))} words: a word "
                                          "WordPiece does not know is split into pieces, and a punctuation mark "
                                          "attached to a word is a row of its own")
    return run("3.1", test, "every WordPiece (## pieces too, and punctuation) is one row; [CLS] and [SEP] "
                            "are not counted. A word takes several rows when it is split.",
               code="answer_3_1 = [len(tokens(tokenizer, s)) - 2 for s in ch03.COUNT_SENTENCES]; split_3_1 = "
                    "[w for s in ch03.COUNT_SENTENCES for w in s.split() if len(tokenizer.tokenize(w)) > 1]",
               level=hint)


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
    student_cosine_matrix = forbid(student_cosine_matrix, "course_lib.bertscore.similarity.cosine_matrix",
                                   "course_lib.bertscore.similarity.masked_cosine_matrix",
                                   "course_lib.bertscore.similarity.normalize",
                                   "course_lib.teaching.naive.naive_cosine_matrix")

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


@lru_cache(maxsize=1)
def _left_padded_cases():
    """(cand, ref, cand_lengths, ref_lengths) of LEFT-padded batches (padding first, as decoder-only
    LLM tokenizers pad): random vectors, and the model's vectors of a real batch moved to the right."""
    cases = []
    for cand, ref, cm, rm in _matrix_cases():
        c_len, r_len = cm.sum(-1).tolist(), rm.sum(-1).tolist()
        cand_l = torch.stack([torch.roll(cand[b], cand.shape[1] - n, dims=0) for b, n in enumerate(c_len)])
        ref_l = torch.stack([torch.roll(ref[b], ref.shape[1] - n, dims=0) for b, n in enumerate(r_len)])
        cases.append((cand_l, ref_l, c_len, r_len))
    return tuple(cases)


def _left_mask(lengths, total: int) -> torch.Tensor:
    """[batch, total]: True for the last `length` positions of each row (left padding)."""
    return torch.arange(total)[None, :] >= (total - torch.tensor(lengths))[:, None]


def check_3_3(student_masked_matrix, hint: int = 1) -> bool:
    """student_masked_matrix(cand, ref, cand_lengths, ref_lengths) -> [batch, cand_len, ref_len] cosines
    of a LEFT-padded batch, -inf wherever the candidate token or the reference token is padding."""
    student_masked_matrix = forbid(student_masked_matrix, "course_lib.bertscore.similarity.masked_cosine_matrix")

    def test():
        for cand, ref, c_len, r_len in _left_padded_cases():
            cm, rm = _left_mask(c_len, cand.shape[1]), _left_mask(r_len, ref.shape[1])
            want = masked_cosine_matrix(cand, ref, cm, rm)
            got = student_masked_matrix(cand.clone(), ref.clone(), list(c_len), list(r_len))
            assert isinstance(got, torch.Tensor), "return a torch tensor"
            assert tuple(got.shape) == tuple(want.shape), \
                f"shape {tuple(got.shape)}, expected {tuple(want.shape)}"
            pad = torch.isinf(want)
            nan = int(torch.isnan(got).sum())
            assert not nan, (f"{nan} cells of your matrix are NaN: 0 * (-inf) is NaN (IEEE), so a mask "
                             "multiplied into -inf (or -inf added, times a mask) spoils the cells. Put -inf "
                             "in the padding cells with masked_fill or torch.where, never by multiplying")
            assert torch.equal(torch.isneginf(got), pad), (
                f"{int(pad.sum())} cells pair a token with padding and must be -inf; yours has "
                f"{int(torch.isneginf(got).sum())} -inf cells, {int((torch.isneginf(got) != pad).sum())} of them "
                f"(or of the cells that should be) in the wrong place (real lengths: candidates {list(c_len)}, "
                f"references {list(r_len)}, of {cand.shape[1]} and {ref.shape[1]} positions; the padding is "
                "at the start)")
            err = (got[~pad].float() - want[~pad]).abs().max().item()
            assert err < 1e-4, f"the real cells differ from the cosines by up to {err:.3g}"
    return run("3.3", test, "with left padding, a text of length n in a batch of L positions has its real "
                            "tokens at positions L - n ... L - 1. Build each side's mask from the lengths; a cell "
                            "is padding when its candidate token *or* its reference token is padding, and must "
                            "be -inf (a 0 could still win a max).",
               code="cand_mask = torch.arange(cand.shape[1])[None, :] >= (cand.shape[1] - torch.tensor("
                    "cand_lengths))[:, None]; ref_mask = torch.arange(ref.shape[1])[None, :] >= (ref.shape[1] - "
                    "torch.tensor(ref_lengths))[:, None]; return batched_cosine_matrix(cand, ref).masked_fill("
                    "~(cand_mask[:, :, None] & ref_mask[:, None, :]), float(\"-inf\"))", level=hint)


@lru_cache(maxsize=1)
def _naive_changes() -> tuple[float, ...]:
    """For each pair of NEIGHBOURS: its naive F in one batch with the others minus its naive F alone."""
    from course_lib.model import DEFAULT_LAYER
    from course_lib.teaching.naive import naive_pair_scores

    cands, refs = [c for c, _ in NEIGHBOURS], [r for _, r in NEIGHBOURS]
    batched = naive_pair_scores(cands, refs, layer=DEFAULT_LAYER)[2]
    return tuple(batched[k].item() - naive_pair_scores([c], [r], layer=DEFAULT_LAYER)[2][0].item()
                 for k, (c, r) in enumerate(NEIGHBOURS))


def _neighbour_padding() -> list[tuple[int, int]]:
    """(padding rows, padding columns) of each pair of NEIGHBOURS in one batch."""
    tokenizer, _ = load()
    n_c = [len(tokens(tokenizer, c)) for c, _ in NEIGHBOURS]
    n_r = [len(tokens(tokenizer, r)) for _, r in NEIGHBOURS]
    return [(max(n_c) - a, max(n_r) - b) for a, b in zip(n_c, n_r)]


def check_3_4(answer, padding=None, hint: int = 1) -> bool:
    """answer_3_4: for each pair of NEIGHBOURS, naive F in the batch minus naive F alone;
    padding_3_4: the (padding rows, padding columns) each pair gets in the batch."""
    def test():
        want = _naive_changes()
        assert isinstance(answer, (list, tuple)) and len(answer) == len(want), \
            f"set answer_3_4 to a list of {len(want)} numbers, one change of F per pair"
        try:
            got = [float(x) for x in answer]
        except (TypeError, ValueError):
            raise AssertionError(f"set answer_3_4 to a list of {len(want)} numbers") from None
        for k, (g, w) in enumerate(zip(got, want)):
            if abs(g + w) < 1e-3 < abs(w):
                raise AssertionError(f"pair {k}: wrong sign (F in the batch minus F alone)")
            assert abs(g - w) < 1e-3, f"pair {k}: the change of its naive F is not {g:+.4f}"
        pads = _neighbour_padding()
        assert isinstance(padding, (list, tuple)) and len(padding) == len(pads) and all(
            isinstance(p, (list, tuple)) and len(p) == 2 for p in padding), (
            "answer_3_4 is right. Now set padding_3_4 to a list of (padding rows, padding columns), one per pair")
        got_p = [tuple(int(x) for x in p) for p in padding]
        if got_p == [(b, a) for a, b in pads]:
            raise AssertionError("rows are candidate tokens, columns reference tokens: you swapped them")
        for k, (g, w) in enumerate(zip(got_p, pads)):
            assert g == w, (f"pair {k}: not {g}. The candidates are padded to the longest candidate, the "
                            "references to the longest reference, each side on its own ([CLS]/[SEP] count)")
    return run("3.4", test, "score each pair alone, then all three in one batch, and subtract. In the batch, "
                            "every candidate is padded to the longest candidate and every reference to the longest "
                            "reference; a [PAD] row finds a [PAD] column at cosine near 1 (inflates), a padding "
                            "row with no padding column to meet matches only real tokens (deflates).",
               code="cs, rs = zip(*ch03.NEIGHBOURS); batch = naive.naive_pair_scores(list(cs), list(rs), "
                    "layer=DEFAULT_LAYER)[2]; alone = [naive.naive_pair_scores([c], [r], layer=DEFAULT_LAYER)[2][0] "
                    "for c, r in ch03.NEIGHBOURS]; answer_3_4 = [float(b - a) for b, a in zip(batch, alone)]; n_c = "
                    "[len(tokens(tokenizer, c)) for c in cs]; n_r = [len(tokens(tokenizer, r)) for r in rs]; "
                    "padding_3_4 = [(max(n_c) - a, max(n_r) - b) for a, b in zip(n_c, n_r)]", level=hint)


def _hidden_data():
    """In grading mode the value exercises (3.1, 3.4) run on WMT16 texts drawn with the grading seed,
    which no release holds: answers copied from the solutions do not pass, the right code does.
    3.1: two references. 3.4: three pairs shaped as the published ones -- the first short on both
    sides, the second with the longest candidate, the third with the longest reference."""
    count = [r["ref"] for r in hidden_rows("3.1", 2, max_words=12)]
    short = hidden_rows("3.4", 3, max_words=6, where=lambda r: len(r["mt"].split()) <= 6)
    long_ = hidden_rows("3.4:long", 2, max_words=60, where=lambda r: len(r["ref"].split()) >= 22
                        and len(r["mt"].split()) >= 22)
    neighbours = [(short[0]["mt"], short[0]["ref"]), (long_[0]["mt"], short[1]["ref"]),
                  (short[2]["mt"], long_[1]["ref"])]
    return count, neighbours


if grading():
    COUNT_SENTENCES, NEIGHBOURS = _hidden_data()
