"""Chapter 03's checkers: they pass the notebook's solutions, fail stubs and planted mistakes."""
from functools import partial

import pytest
import torch

from course_lib.teaching import naive
from course_lib.course.checks import ch03
from course_lib.bertscore.embeddings import tokens
from course_lib.model import DEFAULT_LAYER, load
from notebook_code import NOTEBOOKS, assert_names_mistake, passes, run_cells, stub

NOTEBOOK = NOTEBOOKS / "03_similarity_matrix.ipynb"


solution_cell = partial(run_cells, NOTEBOOK, solution=True, torch=torch)


# ---- 3.1: count the rows ---------------------------------------------------------------------

def test_3_1_solution_passes(capsys):
    tokenizer, _ = load()
    ns = solution_cell("answer_3_1", tokens=tokens, tokenizer=tokenizer, ch03=ch03)
    assert passes(ch03.check_3_1, ns["answer_3_1"], ns["split_3_1"], capsys)
    assert ns["split_3_1"] == ["paralysed", "Reykjavik's", "overnight.", "-12°C!"]


def test_3_1_wrong_answers_fail(capsys):
    tokenizer, _ = load()
    with_special = [len(tokens(tokenizer, s)) for s in ch03.COUNT_SENTENCES]  # [CLS]/[SEP] counted
    words = [len(s.split()) for s in ch03.COUNT_SENTENCES]  # words, not WordPiece tokens
    for wrong in (None, with_special, words, with_special[:1]):
        assert not passes(ch03.check_3_1, wrong, capsys)


def test_3_1_hints_name_strings_and_the_special_tokens(capsys):
    """Counts typed as strings get a hint about the type (not "you counted 10", the right count); counts
    with [CLS]/[SEP] get one naming them."""
    right = [ch03._real_tokens_count(s) for s in ch03.COUNT_SENTENCES]
    assert not ch03.check_3_1([str(n) for n in right])
    out = capsys.readouterr().out
    assert "not a number" in out and "you counted" not in out
    assert not ch03.check_3_1([n + 2 for n in right])
    assert "[CLS] and [SEP] included" in capsys.readouterr().out


@pytest.mark.parametrize("split, named", [(None, "Now set split_3_1"), (["paralysed", "Reykjavik's"], "you found 2 of the 4"),
                                          (["para", "##ly", "##sed"], "not their pieces"),
                                          (["paralysed", "Reykjavik's", "overnight.", "-12°C!", "airport"],
                                           "take(s) one row only")])
def test_3_1_split_words_name_each_mistake(split, named, capsys):
    right = [ch03._real_tokens_count(s) for s in ch03.COUNT_SENTENCES]
    assert not ch03.check_3_1(right, split)
    assert named in capsys.readouterr().out


# ---- 3.2: cosines from dot products ------------------------------------------------------------

def _right_32(dots, cn, rn):
    return dots / (cn[:, :, None] * rn[:, None, :])


SLIPS_3_2 = {
    "candidate lengths only": (lambda d, cn, rn: d / cn[:, :, None], "candidate tokens' lengths only"),
    "reference lengths only": (lambda d, cn, rn: d / rn[:, None, :], "reference tokens' lengths only"),
    "norms on the wrong axes": (lambda d, cn, rn: d / (cn[:, None, :] * rn[:, :, None]), "on the wrong axes"),
    "transposed": (lambda d, cn, rn: _right_32(d, cn, rn).transpose(1, 2), "[batch, ref_len, cand_len]"),
    "squared lengths": (lambda d, cn, rn: d / (cn[:, :, None] * rn[:, None, :]) ** 2, "squared lengths"),
    "square root": (lambda d, cn, rn: d / (cn[:, :, None] * rn[:, None, :]).sqrt(), "square root"),
    "multiplied": (lambda d, cn, rn: d * cn[:, :, None] * rn[:, None, :], "you multiplied"),
    "numpy": (lambda d, cn, rn: _right_32(d, cn, rn).numpy(), "return a torch tensor"),
    "NaN": (lambda d, cn, rn: d * float("nan"), "NaN cells"),
    "stub": (stub, "replace `raise NotImplementedError()`"),
}


def test_3_2_solution_passes(capsys):
    fn = solution_cell("def cosines_from_dots")["cosines_from_dots"]
    answer = solution_cell("row_norms_3_2 = None")["row_norms_3_2"]
    assert passes(ch03.check_3_2, fn, answer, capsys=capsys)
    assert passes(ch03.check_3_2, fn, " Ref ", capsys=capsys)


@pytest.mark.parametrize("name", sorted(SLIPS_3_2))
def test_3_2_hints_name_the_mistake(name, capsys):
    wrong, named = SLIPS_3_2[name]
    assert_names_mistake(ch03.check_3_2, wrong, "reference", named=named, capsys=capsys)


@pytest.mark.parametrize("answer, named", [(None, "Now set row_norms_3_2"), ("candidate", "its whole row by one number"),
                                           ("both", "one of the two cannot matter"), ("neither", "section 2 printed"),
                                           ("rows", "answer row_norms_3_2 with")])
def test_3_2_row_norms_hints(answer, named, capsys):
    assert ch03.check_3_2(_right_32, answer) is False
    assert named in capsys.readouterr().out


# ---- 3.3: mask a left-padded batch ----------------------------------------------------------

def _cos(cand, ref):
    return (cand / cand.norm(dim=-1, keepdim=True)) @ (ref / ref.norm(dim=-1, keepdim=True)).transpose(1, 2)


def _left(lengths, total):
    return torch.arange(total)[None, :] >= (total - torch.tensor(lengths))[:, None]


def _right(lengths, total):  # the chapter's layout: real tokens first
    return torch.arange(total)[None, :] < torch.tensor(lengths)[:, None]


def padding_not_masked(cand, ref, cand_lengths, ref_lengths):
    return _cos(cand, ref)


def right_padding_assumed(cand, ref, cand_lengths, ref_lengths):  # section 4's layout, not this batch's
    both = _right(cand_lengths, cand.shape[1])[:, :, None] & _right(ref_lengths, ref.shape[1])[:, None, :]
    return _cos(cand, ref).masked_fill(~both, float("-inf"))


def only_reference_masked(cand, ref, cand_lengths, ref_lengths):
    return _cos(cand, ref).masked_fill(~_left(ref_lengths, ref.shape[1])[:, None, :], float("-inf"))


def padding_set_to_zero(cand, ref, cand_lengths, ref_lengths):  # 0 can still win a max over negative cosines
    both = _left(cand_lengths, cand.shape[1])[:, :, None] & _left(ref_lengths, ref.shape[1])[:, None, :]
    return _cos(cand, ref).masked_fill(~both, 0.0)


def off_by_one(cand, ref, cand_lengths, ref_lengths):  # one padding position too many
    both = (_left([n - 1 for n in cand_lengths], cand.shape[1])[:, :, None]
            & _left([n - 1 for n in ref_lengths], ref.shape[1])[:, None, :])
    return _cos(cand, ref).masked_fill(~both, float("-inf"))


def test_3_3_solution_passes(capsys):
    from course_lib.bertscore.similarity import cosine_matrix

    fn = solution_cell("def masked_matrix", cosine_matrix=cosine_matrix)["masked_matrix"]
    assert passes(ch03.check_3_3, fn, capsys)


@pytest.mark.parametrize("wrong", [stub, padding_not_masked, right_padding_assumed, only_reference_masked,
                                   padding_set_to_zero, off_by_one])
def test_3_3_wrong_answers_fail(wrong, capsys):
    assert not passes(ch03.check_3_3, wrong, capsys)


def both_must_be_padding(cand, ref, cand_lengths, ref_lengths):  # AND of the paddings where OR is needed
    pad = ~_left(cand_lengths, cand.shape[1])[:, :, None] & ~_left(ref_lengths, ref.shape[1])[:, None, :]
    return _cos(cand, ref).masked_fill(pad, float("-inf"))


@pytest.mark.parametrize("wrong, named", [
    (right_padding_assumed, "RIGHT padding would be"), (both_must_be_padding, "only where both tokens are padding"),
    (only_reference_masked, "the reference's padding columns only"), (padding_set_to_zero, "hold 0, not -inf"),
    (off_by_one, "takes one real token of each text for padding")], ids=lambda x: getattr(x, "__name__", "hint"))
def test_3_3_hints_name_the_mistake(wrong, named, capsys):
    from course_lib.course.checks import reset_attempts

    reset_attempts("3.3")
    assert_names_mistake(ch03.check_3_3, wrong, named=named, capsys=capsys)


def test_3_3_four_different_slips_do_not_show_the_code(capsys):
    from course_lib.course.checks import reset_attempts

    reset_attempts("3.3")
    for wrong in (right_padding_assumed, both_must_be_padding, only_reference_masked, off_by_one):
        assert ch03.check_3_3(wrong) is False
        assert "Code:" not in capsys.readouterr().out
    reset_attempts("3.3")


def minus_inf_times_mask(cand, ref, cand_lengths, ref_lengths):  # 0 * (-inf) is NaN in every real cell
    both = (_left(cand_lengths, cand.shape[1])[:, :, None] & _left(ref_lengths, ref.shape[1])[:, None, :])
    return _cos(cand, ref) * both + float("-inf") * (~both)


def test_3_3_names_nan_from_zero_times_minus_inf(capsys):
    assert not ch03.check_3_3(minus_inf_times_mask)
    out = capsys.readouterr().out
    assert "NaN" in out and "0 * (-inf)" in out and "differ by up to nan" not in out


# ---- 3.4: choose the neighbours --------------------------------------------------------------

def _doubled():
    c, r = ch03.TARGET_3_4
    return c, r, f"{c} {c}", f"{r} {r}"


def test_3_4_solution_passes(capsys):
    tokenizer, _ = load()
    ns = solution_cell("up_3_4 = None", naive=naive, DEFAULT_LAYER=DEFAULT_LAYER, ch03=ch03, tokens=tokens,
                       tokenizer=tokenizer)
    assert passes(ch03.check_3_4, ns["up_3_4"], ns["down_3_4"], ns["drops_3_4"], capsys=capsys)
    c, r, cc, rr = _doubled()
    assert passes(ch03.check_3_4, [cc, rr], [c, rr], " Recall ", capsys=capsys)  # the reference side works too


def test_3_4_the_target_is_never_scored_above_the_exercise():
    import nbformat

    for cell in nbformat.read(NOTEBOOK, as_version=4).cells:
        if "### Exercise 3.4" in cell.source:
            break
        assert "museum" not in cell.source and "TARGET_3_4" not in cell.source


def test_3_4_why_padding_lifts_or_drags_is_told_only_after_it():
    """Section 5 shows that the naive error goes both ways; which padding lifts, which drags, and which mean
    it joins is the exercise's to work out, told after it."""
    import nbformat

    cells = nbformat.read(NOTEBOOK, as_version=4).cells
    start = next(i for i, c in enumerate(cells) if "### Exercise 3.4" in c.source)
    for cell in cells[:start]:
        text = " ".join(cell.source.lower().split())
        assert "one side only is" not in text and "join precision" not in text and "drags precision" not in text
    after = " ".join(" ".join(c.source.split()) for c in cells[start:])
    assert "`[PAD]` rows join precision's mean" in after


def _answers():
    c, r, cc, rr = _doubled()
    return {
        "up one side": ((cc, r), (cc, r), "precision"),                     # [PAD] rows, no [PAD] column
        "up no padding": ((c, r), (cc, r), "precision"),                    # the companion is no longer
        "up too little": ((c + " x", r + " y"), (cc, r), "precision"),      # one [PAD] row and column
        "up a string": (cc, (cc, r), "precision"),
        "up token lists": ((cc.split(), rr.split()), (cc, r), "precision"),
        "down both sides": ((cc, rr), (cc, rr), "precision"),
        "down no padding": ((cc, rr), ("Hi.", "Hi."), "precision"),
        "down missing": ((cc, rr), None, None),
        "drops missing": ((cc, rr), (cc, r), None),
        "drops the other": ((cc, rr), (cc, r), "recall"),                  # padding rows join precision's mean
        "drops swapped order": ((cc, rr), (c, rr), "precision"),           # a longer reference pads columns: R
        "drops not a mean": ((cc, rr), (cc, r), "f1"),
    }


HINTS_3_4 = {"up one side": "longer than the pair on both sides", "up no padding": "longer than the pair on both sides",
             "up too little": "much longer on both sides", "up a string": "must be a (candidate, reference) pair",
             "up token lists": "as strings", "down both sides": "Pad one side only", "down no padding": "no padding",
             "down missing": "set down_3_4", "drops missing": "Now set drops_3_4",
             "drops the other": "which mean do those padding positions join",
             "drops swapped order": "0 padding rows (candidate side) and", "drops not a mean": "with \"precision\" or"}


@pytest.mark.parametrize("name", sorted(HINTS_3_4))
def test_3_4_hints_name_the_mistake(name, capsys):
    assert ch03.check_3_4(*_answers()[name]) is False
    out = capsys.readouterr().out
    assert HINTS_3_4[name] in out and "Code:" not in out, out



def test_3_4_type_hint_quotes_the_text_whole_or_cut_at_a_word(capsys):
    """A text handed in instead of a pair is quoted whole, or cut after a whole word with "…" (it once read
    'The school build')."""
    long_text = "The school building was finally repaired after the long winter storms damaged it."
    assert ch03.check_3_4(long_text) is False
    out = capsys.readouterr().out
    assert "not str '" in out and "…" in out, out
    quoted = out.split("not str '", 1)[1].split("…", 1)[0]
    assert long_text.startswith(quoted) and long_text[len(quoted)] == " ", out  # the cut falls between words
    assert ch03.check_3_4("Too short.") is False
    assert "not str 'Too short.'" in capsys.readouterr().out

# ---- the code hints run as pasted --------------------------------------------------------------

def _code_hint(check, *answers, capsys):
    check(*answers, hint=2)
    return capsys.readouterr().out.split(" Code: ", 1)[1].strip()


def test_code_hints_run_when_pasted(capsys):
    tokenizer, _ = load()
    names = dict(torch=torch, tokens=tokens, tokenizer=tokenizer, ch03=ch03, naive=naive, DEFAULT_LAYER=DEFAULT_LAYER)
    exec(_code_hint(ch03.check_3_1, None, capsys=capsys), names)
    assert passes(ch03.check_3_1, names["answer_3_1"], names["split_3_1"], capsys)
    hint_3_2 = _code_hint(ch03.check_3_2, stub, capsys=capsys)
    exec("def cosines_from_dots(dots, cand_norms, ref_norms):\n    " + hint_3_2.split("; ")[0], names)
    exec(hint_3_2.split("; ")[1], names)
    assert passes(ch03.check_3_2, names["cosines_from_dots"], names["row_norms_3_2"], capsys=capsys)
    from course_lib.bertscore.similarity import cosine_matrix

    names["cosine_matrix"] = cosine_matrix
    exec("def masked_matrix(cand, ref, cand_lengths, ref_lengths):\n    "
         + _code_hint(ch03.check_3_3, stub, capsys=capsys), names)
    assert passes(ch03.check_3_3, names["masked_matrix"], capsys)
    exec(_code_hint(ch03.check_3_4, None, capsys=capsys).split("  #")[0], names)
    assert passes(ch03.check_3_4, names["up_3_4"], names["down_3_4"], names["drops_3_4"], capsys=capsys)
