"""Checkers for chapter 07a (using bert-score: exercises 7.1-7.3, and 7.8, predict then run, whose cases are in
ch07_cases); those of 07b (neighbours, pitfalls and testing: 7.4-7.7) are in ch07b and re-exported here.

Expected answers come from course_lib and from bert-score itself (its scorer, its hash function,
the command line's own parser), computed on several cases each time -- never typed in. The find-it
exercises run on what the chapters never print: Python calls with other settings (7.3), two other
batches of WMT16 pairs (7.4), five other WMT16 pairs (7.8; drawn with the grading seed in grading mode).
"""
from __future__ import annotations

import torch

from course_lib.caching import cached
from . import close, grading, run
from .ch07_cases import _calls_7_3, _judge_7_3, _judge_7_8, pairs_7_8  # noqa: F401 (ch07.pairs_7_8)
from .ch07_gaps_cases import (_batch_centred, _columns_seen, _diffs, _expected_gap, _last_pair_shifted,  # noqa: F401
                              _moved, _reordered_gap, _signs_seen, _sorted_separately)

# (candidate, references) cases for 7.1: real WMT16 sentences plus two built so that the best P
# and the best R come from different references (a long reference that contains the candidate,
# and a short one that the candidate contains).
_MULTI = [
    ("The cat sat on the mat.",
     ["The cat sat on the mat next to the old wooden door of the farmhouse.", "A cat."]),
    ("Prices rose sharply in March.",
     ["In March prices went up a lot, more than the bank had expected.", "Prices rose.",
      "Costs fell in May."]),
]


@cached()
def _wmt_cases(n: int = 6) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """n real WMT16 (translation, reference) pairs, one per language pair, in file order."""
    from course_lib.evaluation import datasets

    df = datasets.wmt16().groupby("lp").head(1).head(n)
    return tuple(df.mt), tuple(df.ref)


@cached()
def _multi_expected():
    """The 7.1 cases, their per-reference scores [pairs, 3] and course_lib's multi-reference result."""
    import course_lib

    mt, ref = _wmt_cases(4)
    cases = _MULTI + [(mt[k], [ref[k], ref[(k + 1) % 4], mt[(k + 2) % 4]]) for k in range(4)]
    flat_c = [c for c, group in cases for _ in group]
    flat_r = [r for _, group in cases for r in group]
    per_pair = torch.stack(course_lib.score(flat_c, flat_r), dim=-1)
    want = torch.stack(course_lib.score([c for c, _ in cases], [g for _, g in cases]), dim=-1)
    return cases, per_pair, want


def _padded(per_pair, sizes, pad: float = 0.0):
    """Per-pair scores [pairs, 3] -> [n_cands, max(sizes), 3], rows past sizes[k] filled with `pad`."""
    out = torch.full((len(sizes), max(sizes), 3), pad)
    start = 0
    for k, n in enumerate(sizes):
        out[k, :n] = per_pair[start:start + n]
        start += n
    return out


def _batches_7_1():
    """(name, per_ref [n_cands, max_refs, 3] zero-padded, n_refs, expected [n_cands, 3]) cases: real scores
    (expected = course_lib's own multi-reference result), the same rescaled (some below 0), a batch whose
    first candidate's scores are at most 0 (one real score exactly 0), and one candidate alone, no padding."""
    from course_lib.bertscore.baseline import rescale
    from course_lib.call.setting import resolve_setting

    cases, per_pair, want = _multi_expected()
    sizes = [len(group) for _, group in cases]
    b = resolve_setting(rescale_with_baseline=True).baseline()  # [b_P, b_R, b_F] at the default layer
    rescaled = rescale(per_pair, b)
    starts = torch.tensor([0] + sizes[:-1]).cumsum(0)
    want_rescaled = torch.stack([rescaled[s:s + n].max(dim=0).values for s, n in zip(starts.tolist(), sizes)])
    negative = torch.tensor([[0.0, -0.12, -0.20], [-0.05, -0.41, -0.15], [0.0, 0.0, 0.0],  # a real P of exactly 0
                             [0.42, 0.10, 0.20], [0.05, 0.33, 0.15], [0.0, 0.0, 0.0]]).view(2, 3, 3)
    return [("real scores (several references per candidate)", _padded(per_pair, sizes), sizes, want),
            ("rescaled scores (some below 0)", _padded(rescaled, sizes), sizes, want_rescaled),
            ("a candidate whose scores are at most 0", negative, [2, 2],
             torch.tensor([[0.0, -0.12, -0.15], [0.42, 0.33, 0.20]])),
            ("one candidate, no padding", per_pair[:2].unsqueeze(0).clone(), [2], per_pair[:2].max(dim=0).values[None])]


def _multi_ref_slip(per_ref, sizes, got) -> str | None:
    """7.1's common slip that `got` [n_cands, 3] shows, named; None when it is none of them."""
    positions, n_refs = torch.arange(per_ref.shape[1])[None, :], torch.tensor(sizes)[:, None]
    real = positions < n_refs  # [n_cands, max_refs]
    masked = per_ref.masked_fill(~real[:, :, None], float("-inf"))
    best = masked.max(dim=1).values
    p, r = best[:, 0], best[:, 1]
    slips = {
        "you keep all three numbers of the reference with the best F; bert-score keeps the best P, the best R and "
        "the best F each on its own, and they may come from different references":
            per_ref[torch.arange(len(per_ref)), masked[:, :, 2].argmax(dim=1)],
        "you recompute F from the best P and the best R; bert-score keeps the best F of the references, which need "
        "not be the harmonic mean of the best P and the best R": torch.stack([p, r, 2 * p * r / (p + r)], dim=-1),
        "you average over the references; bert-score keeps the best of each": (per_ref * real[:, :, None]).sum(dim=1)
        / torch.tensor(sizes)[:, None],
        "a padding 0 wins where every real score of a candidate is below 0: leave every padding row out of the "
        "maximum (if you do mask: the real references sit at positions 0 to n_refs - 1)":
            per_ref.max(dim=1).values,
        "you take every cell that is not 0 as a real reference; a real score can be exactly 0: n_refs says which are "
        "real": per_ref.masked_fill(per_ref == 0, float("-inf")).max(dim=1).values,
        "you took the maximum over P, R and F of each reference (dim 2); the references are dim 1":
            per_ref.max(dim=2).values,
        "you leave out each candidate's last real reference: the real ones sit at positions 0 to n_refs - 1, so a "
        "position k is real when k < n_refs":
            per_ref.masked_fill(~(positions < n_refs - 1)[:, :, None], float("-inf")).max(dim=1).values,
    }
    for why, value in slips.items():
        if value.shape == got.shape and torch.allclose(value, got, atol=1e-6) and not torch.allclose(best, got,
                                                                                                     atol=1e-6):
            return why
    return None


def check_7_1(multi_ref_max, hint: int = 1) -> bool:
    """multi_ref_max(per_ref [n_cands, max_refs, 3] zero-padded, n_refs [n_cands]) -> [n_cands, 3]: the P, R, F
    bert-score keeps for each candidate."""
    def test():
        for name, per_ref, sizes, expected in _batches_7_1():
            got = multi_ref_max(per_ref.clone(), torch.tensor(sizes))
            assert not (isinstance(got, tuple) and hasattr(got, "values") and hasattr(got, "indices")), (
                "you return what torch.max(dim=...) returns, a pair (values, indices): take its .values")
            got = torch.as_tensor(got, dtype=torch.float32)
            assert got.shape == expected.shape, (f"{name}: return [n_cands, 3], one row per candidate; yours has "
                                                 f"shape {list(got.shape)}")
            slip = _multi_ref_slip(per_ref, sizes, got)
            assert slip is None, f"{name}: {slip}"
            for k in range(len(sizes)):
                for j, kind in enumerate("PRF"):
                    assert close(got[k, j], expected[k, j], 1e-6), (
                        f"{name}: candidate {k} ({sizes[k]} real references) gets {kind} = {got[k, j].item():.4f}, "
                        f"bert-score's rule gives {expected[k, j].item():.4f}")
    return run("7.1", test, "bert-score keeps the best P, the best R and the best F over a candidate's real "
                            "references, each on its own (they may come from different references); a padding row "
                            "is not a reference, and its 0 must never win, even when every real score is negative.",
               code="real = torch.arange(per_ref.shape[1])[None, :] < torch.as_tensor(n_refs)[:, None]; "
                    "return per_ref.masked_fill(~real[:, :, None], float('-inf')).max(dim=1).values", level=hint)


# ------------------------------------------------------------------ 7.2 (its scorers and gaps: ch07_gaps_cases)

def check_7_2(batch_invariance_gap, hint: int = 1) -> bool:
    """batch_invariance_gap(score_fn, cands, refs) -> float."""
    import course_lib

    def test():
        cands, refs = _wmt_cases(6)
        scorers = {"course_lib.score": course_lib.score, "a scorer that sorts candidates and references "
                   "separately": _sorted_separately, "a scorer that centres R on the batch": _batch_centred,
                   "a scorer that gets one pair of a batch wrong": _last_pair_shifted}
        for name, fn in scorers.items():
            got = batch_invariance_gap(fn, list(cands), list(refs))
            assert not isinstance(got, torch.Tensor), ("you return a tensor: return the gap as a float (a tensor's "
                                                       ".item()), one number a test can compare")
            want = _expected_gap(fn, cands, refs)
            diffs = _diffs(fn, cands, refs) if not close(got, want, 1e-6) else None
            if diffs is not None and (seen := _columns_seen(batch_invariance_gap, cands, refs)) not in ("", "PRF"):
                raise AssertionError(f"on {name} you return {float(got):.4f}: you compare {' and '.join(seen)} only; "
                                     "a batch can move any of P, R and F (this one moves "
                                     f"{_moved(diffs)}): take all three")
            if diffs is not None and _signs_seen(batch_invariance_gap, cands, refs) in ("+", "-"):
                raise AssertionError(f"on {name} you return {float(got):.4f}, expected {want:.4f}: you return the "
                                     "largest signed difference; the gap is the largest |difference|: a batch can "
                                     "move a score down as well as up")
            if diffs is not None and want < 1e-5 and abs(float(got)) > 1e-3:
                raise AssertionError(f"on {name}, which no batch moves (its gap is below 1e-5), you return "
                                     f"{float(got):.4f}: you compare different pairs; compare pair k in the batch "
                                     "with pair k scored alone, the pairs in the same order")
            if diffs is not None and close(got, _reordered_gap(fn, cands, refs), 1e-6):
                raise AssertionError(f"on {name} you compare the batch with the same pairs in another order: both "
                                     "runs share the other pairs, so what the batch adds (a batch mean, a sort) is in "
                                     "both and cancels; compare with each pair scored alone, with no other pairs")
            if diffs is not None and abs(float(got)) < 1e-9 and want > 1e-3:
                raise AssertionError(f"on {name}, whose batch moves a score by {want:.4f}, you return 0: did you score "
                                     "each pair alone (a list of one candidate and one reference) and compare?")
            if diffs is not None and close(got, diffs.abs().mean().item(), 1e-6):
                raise AssertionError(f"on {name} you return the mean difference; a test asks for the worst case: the "
                                     "largest one")
            if diffs is not None and len(diffs) > 1:
                skipped = [k for k in (0, len(diffs) - 1) if close(got, torch.cat([diffs[:k], diffs[k + 1:]]).abs()
                                                                   .max().item(), 1e-6)]
                assert not skipped, (f"on {name} your gap leaves out pair {skipped[0]} of {len(diffs)} (numbered from "
                                     "0): every pair must be scored alone and compared, the first and the last too")
            signed = () if diffs is None else (diffs.max().item(), (-diffs).max().item())
            assert not any(close(got, x, 1e-6) for x in signed), (
                f"on {name} you return the largest signed difference; the gap is the largest |difference|: a "
                "batch can move a score down as well as up")
            assert close(got, want, 1e-6), f"on {name} you return {float(got):.4f}, expected {want:.4f}"
        seen = _columns_seen(batch_invariance_gap, cands, refs)  # scorers that move P, R or F alone
        missing = " or ".join(k for k in "PRF" if k not in seen)
        assert seen in ("", "PRF"), (f"on a scorer whose batch moves {missing} alone, your gap stays 0: you compare "
                                     f"{' and '.join(seen)} only; take all three")
    return run("7.2", test, "score all pairs in one call, then each pair alone; return the largest "
                            "difference over all pairs and over P, R and F.",
               code="batch = torch.stack(score_fn(cands, refs), -1); alone = torch.cat([torch.stack(score_fn("
                    "[c], [r]), -1) for c, r in zip(cands, refs)]); return (batch - alone).abs().max().item()",
               level=hint)


# ------------------------------------------------------------------ 7.3: a command line

def check_7_3(student_flags, hint: int = 1) -> bool:
    """Exercise 7.3: `student_flags(call)` -> the flags after `bert-score -r refs.txt -c cands.txt --model <model>`
    with which the command computes what `bert_score.score(cands, refs, model_type=MODEL, **call)` computes. Read
    by the command's own parser (ch07_cases._cli_settings) on calls of the checker's (`_calls_7_3`)."""
    def test():
        calls = _calls_7_3()
        answers = [student_flags(dict(call)) for call in calls]
        given = [isinstance(f, (list, tuple)) and "--use_fast_tokenizer" in f for f in answers]
        if any(given) and given == [bool(c.get("use_fast_tokenizer")) for c in calls]:
            raise AssertionError("you give --use_fast_tokenizer exactly when the call asks for the fast tokenizer: "
                                 "its name says the opposite of what it does. Read its action= in the command's "
                                 "source (section 3.4)")
        for call, flags in zip(calls, answers):
            _judge_7_3(call, flags)

    return run("7.3", test, "for each setting, compare the value the call means (its own, or the Python default) with "
                            "what the command uses when no flag is given, and add a flag only where they differ; read "
                            "each flag's declaration in the command's source (section 3.4): one of them works the "
                            "opposite way to its name.",
               code="flags = [w for key in ('num_layers', 'lang', 'baseline_path') if call.get(key) is not None for "
                    "w in ('--' + key, str(call[key]))]; flags += ['--idf'] * bool(call.get('idf')) + "
                    "['--rescale_with_baseline'] * bool(call.get('rescale_with_baseline')) + ['--use_fast_tokenizer'] "
                    "* (not call.get('use_fast_tokenizer', False)); return flags", level=hint)


# ------------------------------------------------------------------ 7.8: predict, then run (swap the lists)

def check_7_8(prediction, gaps, hint: int = 1) -> bool:
    """prediction: {"plain" | "idf" | "rescaled": (swapped P equals the original R?, F stays the same?)}, written
    before the run; gaps: {setting: (max |P swapped - R|, max |F swapped - F|)} measured on ch07.pairs_7_8(prediction).
    A wrong prediction fails with why; corrected to what the run shows, it passes, and the pass says how the first
    prediction (kept when the pairs were handed out) fared."""
    record = []

    def test():
        on_record = _judge_7_8(prediction, gaps)
        if not grading():  # a grading run keeps no first prediction
            record.append(f"On record: {on_record}.")
    return run("7.8", test, "score (cands, refs) and (refs, cands) with the same settings; compare the swapped P with "
                            "the original R and the swapped F with the original F, the largest absolute difference "
                            "over the pairs.",
               code="c, r = ch07.pairs_7_8(prediction_7_8); for each setting opts ({}, {'idf': True}, {'rescale_with_baseline': "
                    "True, 'lang': 'en', 'baseline_path': BASELINE}): P, R, F = bert_score.score(c, r, model_type="
                    "MODEL, num_layers=LAYER, **opts); P2, R2, F2 = bert_score.score(r, c, ...same...); gaps_7_8["
                    "setting] = ((P2 - R).abs().max().item(), (F2 - F).abs().max().item())", level=hint,
               note=record)


# 7.4 - 7.7 (chapter 07b) live in ch07b; a notebook calls them from here
from .ch07b import (HASH_KEYS, PAPER_HASH, batches_7_4, check_7_4, check_7_5,  # noqa: E402,F401
                    check_7_6, check_7_7, _expected_7_4)
