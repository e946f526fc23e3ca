"""Checkers for chapter 03 (the cosine-similarity matrix). Expected values come from
course_lib's embeddings, similarity and naive modules and the embedded model, on several cases."""
from __future__ import annotations

import torch

from course_lib.bertscore.embeddings import embed, tokens
from course_lib.caching import cached
from course_lib.model import load
from course_lib.bertscore.similarity import cosine_matrix, masked_cosine_matrix

from . import forbid, grading, hidden_rows, run
from .ch03_cases import DOT_HINTS, ROW_NORMS, _dot_slips, _left_mask, _mask_slip

# Exercise 3.1: sentences whose tokens the student counts (words split into pieces, an apostrophe,
# a temperature).
COUNT_SENTENCES = ["Snowfall paralysed Reykjavik's airport overnight.", "Temperatures plunged to -12°C!"]
# Exercise 3.4: a pair this chapter never scores; the student picks the companions it is batched with.
TARGET_3_4 = ("The old museum reopened after two years of repairs.",
              "After two years of repairs, the old museum has opened its doors again.")


@cached()
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


@cached(1)
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


def _dot_cases():
    """(dots [batch, cand_len, ref_len], cand_norms [batch, cand_len], ref_norms [batch, ref_len], cosines) cases:
    first a square one (cand_len = ref_len, where norms on the wrong axis still give numbers), then the random
    and real batches of `_matrix_cases`."""
    g = torch.Generator().manual_seed(32)
    square = (torch.randn(2, 4, 8, generator=g) * torch.rand(2, 4, 1, generator=g) * 10,
              torch.randn(2, 4, 8, generator=g) * torch.rand(2, 4, 1, generator=g) * 10)
    cases = []
    for cand, ref in [square] + [(c, r) for c, r, _, _ in _matrix_cases()]:
        cases.append((cand @ ref.transpose(-1, -2), cand.norm(dim=-1), ref.norm(dim=-1), cosine_matrix(cand, ref)))
    return cases


def check_3_2(cosines_from_dots, row_norms=None, hint: int = 1) -> bool:
    """cosines_from_dots(dots [batch, cand_len, ref_len], cand_norms [batch, cand_len], ref_norms [batch, ref_len])
    -> [batch, cand_len, ref_len] cosines; row_norms_3_2: whose lengths can change a row's best match."""
    def test():
        for dots, cn, rn, want in _dot_cases():
            got = cosines_from_dots(dots.clone(), cn.clone(), rn.clone())
            assert isinstance(got, torch.Tensor), f"return a torch tensor, not {type(got).__name__}"
            shape = f"dots {tuple(dots.shape)}, cand_norms {tuple(cn.shape)}, ref_norms {tuple(rn.shape)}"
            assert not torch.isnan(got).any(), f"for {shape} your matrix has NaN cells"
            if tuple(got.shape) == tuple(want.shape) and (got.float() - want).abs().max().item() < 1e-4:
                continue
            for slip, value in _dot_slips(dots, cn, rn).items():
                if tuple(got.shape) == tuple(value.shape) and (got.float() - value).abs().max().item() < 1e-4:
                    raise AssertionError(f"for {shape}: {DOT_HINTS[slip]}")
            assert tuple(got.shape) == tuple(want.shape), \
                f"for {shape}: shape {tuple(got.shape)}, expected [batch, cand_len, ref_len] = {tuple(want.shape)}"
            raise AssertionError(f"for {shape}: the values differ from the cosines by up to "
                                 f"{(got.float() - want).abs().max().item():.3g}")
        assert row_norms is not None, ("cosines_from_dots is right. Now set row_norms_3_2 to \"candidate\", "
                                       "\"reference\", \"both\" or \"neither\"")
        said = str(row_norms).strip().lower()
        said = {"cand": "candidate", "ref": "reference"}.get(said, said)
        assert said in ("candidate", "reference", "both", "neither"), \
            f"answer row_norms_3_2 with \"candidate\", \"reference\", \"both\" or \"neither\", not {row_norms!r}"
        assert said == "reference", f"not {said!r}: {ROW_NORMS[said]}"
    return run("3.2", test, "cos(x, y) = x·y / (|x| |y|): cell [b, i, j] divides by the length of candidate token "
                            "i and of reference token j. In a batch, the candidate lengths vary along the rows, the "
                            "reference lengths along the columns.",
               code="return dots / (cand_norms[:, :, None] * ref_norms[:, None, :]); "
                    "row_norms_3_2 = 'reference'", level=hint)


@cached(1)
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
            slip = None if torch.equal(torch.isneginf(got), pad) else _mask_slip(got, pad, c_len, r_len)
            assert slip is None, slip
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
                    "torch.tensor(ref_lengths))[:, None]; return cosine_matrix(cand, ref).masked_fill("
                    "~(cand_mask[:, :, None] & ref_mask[:, None, :]), float(\"-inf\"))", level=hint)


def _lengths(text_pair) -> tuple[int, int]:
    """Token counts ([CLS]/[SEP] included) of a (candidate, reference) pair: its matrix's rows and columns."""
    tokenizer, _ = load()
    return len(tokens(tokenizer, text_pair[0])), len(tokens(tokenizer, text_pair[1]))


def _target_padding(companion) -> tuple[int, int]:
    """(padding rows, padding columns) TARGET_3_4 gets in one batch with `companion`."""
    (c, r), (cc, cr) = _lengths(TARGET_3_4), _lengths(companion)
    return max(0, cc - c), max(0, cr - r)


def _naive_change(companion) -> tuple[float, float, float]:
    """TARGET_3_4's naive (P, R, F) in one batch with `companion`, minus its naive (P, R, F) alone."""
    return _naive_change_of(tuple(TARGET_3_4), tuple(companion))


@cached(16)
def _naive_change_of(target, companion) -> tuple[float, float, float]:
    from course_lib.model import DEFAULT_LAYER
    from course_lib.teaching.naive import naive_pair_scores

    alone = naive_pair_scores([target[0]], [target[1]], layer=DEFAULT_LAYER)
    batch = naive_pair_scores([target[0], companion[0]], [target[1], companion[1]], layer=DEFAULT_LAYER)
    return tuple(b[0].item() - a[0].item() for b, a in zip(batch, alone))


def _quote(answer, limit: int = 60) -> str:
    """repr(answer), whole when short, else cut after a whole word with "…" (never mid-word)."""
    text = repr(answer)
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return (cut if cut != text[:limit] else text[:limit]) + "…"


def _companion(answer, name) -> tuple[str, str]:
    assert answer is not None, f"set {name} to a (candidate, reference) pair of two texts"
    assert isinstance(answer, (list, tuple)) and len(answer) == 2, \
        f"{name} must be a (candidate, reference) pair: two texts, not {type(answer).__name__} {_quote(answer)}"
    assert all(isinstance(t, str) for t in answer), \
        f"{name}: give the two texts as strings (the sentences themselves, not token lists or numbers)"
    assert all(t.strip() for t in answer), f"{name}: a text is empty"
    return answer[0], answer[1]


def _sides(rows: int, cols: int) -> str:
    return f"{rows} padding rows (candidate side) and {cols} padding columns (reference side)"


MOVE = 0.005  # the least change of F a companion must cause


def check_3_4(up, down=None, drops=None, hint: int = 1) -> bool:
    """up_3_4, down_3_4: (candidate, reference) companions with which TARGET_3_4's naive F rises, falls
    (by more than MOVE) in one batch; drops_3_4: "precision" or "recall", the one that falls most with down_3_4."""
    def test():
        up_pair = _companion(up, "up_3_4")
        rows, cols = _target_padding(up_pair)
        assert rows and cols, (f"up_3_4 gives the pair {_sides(rows, cols)}. F rises when the pair's [PAD] rows "
                               "meet [PAD] columns: the companion must be longer than the pair on both sides")
        change = _naive_change(up_pair)[2]
        assert change > MOVE, (f"up_3_4 gives the pair {_sides(rows, cols)}, and its F changes by {change:+.4f}: "
                               "make the companion much longer on both sides, so padding dominates the means")
        down_pair = _companion(down, "down_3_4")
        rows, cols = _target_padding(down_pair)
        assert rows or cols, (f"down_3_4 gives the pair no padding: a text is padded up to the longest text on "
                              "its side of the batch, so the companion must be longer than the pair somewhere")
        assert not (rows and cols), (f"down_3_4 gives the pair {_sides(rows, cols)}: padding on both sides "
                                     "means [PAD] rows meet [PAD] columns at cosines near 1. Pad one side only")
        dP, dR, dF = _naive_change(down_pair)
        assert dF < -MOVE, (f"down_3_4 gives the pair {_sides(rows, cols)}, and its F changes by {dF:+.4f}: "
                            "make the companion much longer on that side")
        assert drops is not None, "up_3_4 and down_3_4 work. Now set drops_3_4 to \"precision\" or \"recall\""
        said = str(drops).strip().lower()
        assert said in ("precision", "recall", "p", "r"), \
            f"answer drops_3_4 with \"precision\" or \"recall\", not {drops!r}"
        want = "precision" if dP < dR else "recall"
        assert said[0] == want[0], (f"down_3_4 (the first text is the candidate) gives the pair "
                                    f"{_sides(rows, cols)}: which mean do those padding positions join, the one "
                                    "over the candidate's tokens or the one over the reference's?")
    return run("3.4", test, "a batch pads every candidate to the longest candidate and every reference to the "
                            "longest reference, and the naive code averages over every position. A [PAD] row "
                            "finds a [PAD] column at a cosine near 1; a padding position with no padding on the "
                            "other side finds only real tokens, at low cosines.",
               code="c, r = ch03.TARGET_3_4; up_3_4 = (c + ' ' + c, r + ' ' + r); down_3_4 = (c + ' ' + c, r); "
                    "drops_3_4 = 'precision'  # padding rows join the mean over the candidate's tokens",
               level=hint)


def _hidden_data():
    """In grading mode the value exercises (3.1, 3.4) run on WMT16 texts drawn with the grading seed,
    which no release holds: answers copied from the solutions do not pass, the right code does.
    3.1: two references. 3.4: a pair of at least 25 words on each side (longer than the published pair
    doubled, so a copied companion pads nothing)."""
    count = [r["ref"] for r in hidden_rows("3.1", 2, max_words=12)]
    row = hidden_rows("3.4", 1, max_words=45, where=lambda r: len(r["ref"].split()) >= 25
                      and len(r["mt"].split()) >= 25)[0]
    return count, (row["mt"], row["ref"])


if grading():
    COUNT_SENTENCES, TARGET_3_4 = _hidden_data()
