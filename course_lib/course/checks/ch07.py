"""Checkers for chapters 07a (using bert-score: exercises 7.1-7.3) and 07b (neighbours, pitfalls
and testing: 7.4-7.6).

Expected answers come from course_lib and from bert-score itself (its scorer, its hash function,
the source of its command line), computed on several cases each time -- never typed in.
"""
from __future__ import annotations

import inspect
import re
from functools import lru_cache

import torch

from course_lib.teaching.planted import sorted_separately_score as _sorted_separately

from . import close, forbid, run

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


@lru_cache(maxsize=None)
def _wmt_cases(n: int = 6) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """n real WMT16 (translation, reference) pairs, one per language pair, in file order."""
    from course_lib.evaluation import datasets

    df = datasets.wmt16().groupby("lp").head(1).head(n)
    return tuple(df.mt), tuple(df.ref)


@lru_cache(maxsize=None)
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


def check_7_1(multi_ref_max, hint: int = 1) -> bool:
    """multi_ref_max(per_ref [n_refs, 3]) -> [3], the P, R, F bert-score keeps for one candidate."""
    def test():
        cases, per_pair, want = _multi_expected()
        start = 0
        for (cand, group), expected in zip(cases, want):
            per_ref = per_pair[start:start + len(group)].clone()
            start += len(group)
            got = torch.as_tensor(multi_ref_max(per_ref.clone()), dtype=torch.float32).reshape(-1)
            assert got.numel() == 3, f"return three numbers (P, R, F); you returned {got.numel()}"
            for name, g, w in zip("PRF", got.tolist(), expected.tolist()):
                assert close(g, w, 1e-6), (f"for {cand!r} with {len(group)} references your {name} is "
                                           f"{g:.4f}, bert-score's rule gives {w:.4f}")
    return run("7.1", test, "bert-score keeps the best P, the best R and the best F, each on its own (they "
                            "may come from different references); do not return the row of the best F.",
               code="return per_ref.max(dim=0).values", level=hint)


# ------------------------------------------------------------------ 7.2: scorers with known gaps

def _batch_centred(cands, refs):
    """A buggy scorer: recall is centred on the batch mean (a statistic of the batch leaks in)."""
    import course_lib

    P, R, F = course_lib.score(cands, refs)
    R = R - R.mean() + 0.5
    return P, R, 2 * P * R / (P + R)


_GAPS: dict = {}


def _expected_gap(score_fn, cands, refs) -> float:
    key = (score_fn, tuple(cands), tuple(refs))
    if key not in _GAPS:
        _GAPS[key] = _gap(score_fn, cands, refs)
    return _GAPS[key]


def _gap(score_fn, cands, refs) -> float:
    batch = torch.stack(score_fn(cands, refs), dim=-1)
    alone = torch.cat([torch.stack(score_fn([c], [r]), dim=-1) for c, r in zip(cands, refs)])
    return (batch - alone).abs().max().item()


def check_7_2(batch_invariance_gap, hint: int = 1) -> bool:
    """batch_invariance_gap(score_fn, cands, refs) -> float."""
    import course_lib

    def test():
        cands, refs = _wmt_cases(6)
        scorers = {"course_lib.score": course_lib.score, "a scorer that sorts candidates and references "
                   "separately": _sorted_separately, "a scorer that centres R on the batch": _batch_centred}
        for name, fn in scorers.items():
            got = batch_invariance_gap(fn, list(cands), list(refs))
            want = _expected_gap(fn, cands, refs)
            assert close(got, want, 1e-6), f"on {name} you return {float(got):.4f}, expected {want:.4f}"
    return run("7.2", test, "score all pairs in one call, then each pair alone; return the largest "
                            "difference over all pairs and over P, R and F.",
               code="batch = torch.stack(score_fn(cands, refs), -1); alone = torch.cat([torch.stack(score_fn("
                    "[c], [r]), -1) for c, r in zip(cands, refs)]); return (batch - alone).abs().max().item()",
               level=hint)


# ------------------------------------------------------------------ 7.3 - 7.5: questions

def _cli_default_tokenizer() -> str:
    """'fast' or 'slow': what `bert-score` on the command line uses without the flag, read from its
    argparse declaration (store_false means the value is True when the flag is absent)."""
    import bert_score_cli.score as cli

    source = inspect.getsource(cli.main)
    action = re.search(r'"--use_fast_tokenizer",\s*action="(store_true|store_false)"', source).group(1)
    return "fast" if action == "store_false" else "slow"


def _normalise(answer) -> str:
    return answer.strip().lower().removesuffix(" tokenizer") if isinstance(answer, str) else ""


def check_7_3(answer, hint: int = 1) -> bool:
    def test():
        assert _normalise(answer) in ("fast", "slow"), 'set answer_7_3 to "fast" or "slow"'
        assert _normalise(answer) == _cli_default_tokenizer(), "that is the Python API's default, not the CLI's"
    return run("7.3", test, "look at the end of the hash the command printed without any flag.",
               code="read the `action=` of --use_fast_tokenizer in bert_score_cli/score.py: store_true means "
                    "the flag is off unless given.", level=hint)


@lru_cache(maxsize=None)
def _kept_scorer_uses() -> str:
    """'first' or 'second': whose references a BERTScorer built with the first batch's references
    (as HF evaluate's wrapper builds it) uses as idf corpus when it scores a second batch."""
    import bert_score

    import course_lib
    from course_lib.bertscore.idf import idf_weights
    from course_lib.model import embedded_model_path, load

    mt, ref = _wmt_cases(6)
    a_refs, b_cands, b_refs = list(ref[:3]), list(mt[3:]), list(ref[3:])
    scorer = bert_score.BERTScorer(model_type=str(embedded_model_path()), num_layers=4, idf=True,
                                   idf_sents=a_refs)
    kept = scorer.score(b_cands, b_refs)[2]
    tokenizer, _ = load()
    from_first = course_lib.score(b_cands, b_refs, num_layers=4, idf=idf_weights(a_refs, tokenizer))[2]
    from_second = course_lib.score(b_cands, b_refs, num_layers=4, idf=True)[2]
    if (kept - from_first).abs().max() <= 1e-5 < (kept - from_second).abs().max():
        return "first"
    if (kept - from_second).abs().max() <= 1e-5:
        return "second"
    raise RuntimeError("the kept scorer matches neither idf corpus")


def check_7_4(answer, hint: int = 1) -> bool:
    def test():
        choice = _normalise(answer).removeprefix("the ").removesuffix(" batch")
        assert choice in ("first", "second"), 'set answer_7_4 to "first" or "second"'
        assert choice == _kept_scorer_uses(), ("compare F_cached with the two idf variants in chapter 07b, "
                                               "section 1")
    return run("7.4", test, "the scorer is built once, and its idf weights are computed when it is built.",
               code="compare F_cached with the two idf variants in chapter 07b, section 1.", level=hint)


PAPER_HASH = "roberta-large_L17_no-idf_version=0.3.12(hug_trans=4.57.1)-rescaled_fast-tokenizer"


def check_7_5(answer, reported: str = PAPER_HASH, hint: int = 1) -> bool:
    """answer: dict with model, layer, idf, custom_baseline, fast_tokenizer; rebuilt into a hash."""
    from bert_score.utils import get_hash

    def test():
        keys = ("model", "layer", "idf", "custom_baseline", "fast_tokenizer")
        assert isinstance(answer, dict) and all(k in answer for k in keys), f"answer_7_5 needs the keys {keys}"
        assert all(answer[k] is not None for k in keys), "fill in every value (replace the Nones)"
        versions = re.search(r"_version=.*?\)", reported).group(0)
        rebuilt = get_hash(answer["model"], answer["layer"], answer["idf"], "rescaled" in reported,
                           answer["custom_baseline"], answer["fast_tokenizer"])
        rebuilt = re.sub(r"_version=.*?\)", lambda _: versions, rebuilt)  # compare settings, not versions
        assert rebuilt == reported, f"your settings give the hash {rebuilt!r}"
    return run("7.5", test, "read the hash left to right: every part is one setting.",
               code="model, _L<layer>, _idf or _no-idf, versions, -rescaled (bert-score's file) or "
                    "-custom-rescaled (your file), _fast-tokenizer.", level=hint)


def _frames_7_6():
    """Small (question, answer, reference) frames with bad rows of every kind, non-default index."""
    import pandas as pd

    good = ("Water boils at 100 °C.", "Water boils at 100 degrees Celsius at sea level.")
    rows = [good, ("", good[1]), (good[0], "   "), (None, good[1]), (good[0], float("nan")),
            ("\t\n", good[1]), (42, good[1]), ("Jane Austen.", "Pride and Prejudice is by Jane Austen."),
            (good[0], ["a list"])]
    df = pd.DataFrame(rows, columns=["answer", "reference"], index=[f"q{k}" for k in range(len(rows))])
    df.insert(0, "question", "?")
    clean = df.iloc[[0, 7]]
    return [(df, "answer", "reference"), (clean, "answer", "reference"),
            (df.rename(columns={"answer": "output", "reference": "expected"}).iloc[::-1], "output", "expected")]


def _expected_7_6(df, answer_col, reference_col):
    from course_lib.evaluation.metric import validate_text

    rejected = []
    for label, a, r in zip(df.index, df[answer_col], df[reference_col]):
        try:
            validate_text(a, "answer")
            validate_text(r, "reference")
        except (TypeError, ValueError):
            rejected.append(label)
    return df.drop(index=rejected), rejected


def check_7_6(split_valid, hint: int = 1) -> bool:
    """split_valid(df, answer_col, reference_col) -> (rows that can be scored, labels of the others)."""
    split_valid = forbid(split_valid, "course_lib.evaluation.metric.validate_text")

    def test():
        for df, a_col, r_col in _frames_7_6():
            before = df.copy()
            got = split_valid(df, a_col, r_col)
            assert isinstance(got, tuple) and len(got) == 2, "return a tuple (valid_rows, rejected_labels)"
            valid, rejected = got
            want_valid, want_rejected = _expected_7_6(df, a_col, r_col)
            assert list(rejected) == want_rejected, (
                f"rejected {list(rejected)}, expected {want_rejected} (in the frame's order)")
            assert list(valid.index) == list(want_valid.index), "valid rows: keep every other row, in order"
            assert list(valid.columns) == list(df.columns), "keep all the columns of the valid rows"
            assert df.equals(before), "do not modify the input frame"
    return run("7.6", test, "a row is rejected when its answer or its reference is not a string (None, NaN, "
               "a number, a list) or is empty after .strip(); use the column names you are given.",
               code="ok = pd.Series([isinstance(a, str) and bool(a.strip()) and isinstance(r, str) and "
                    "bool(r.strip()) for a, r in zip(df[answer_col], df[reference_col])], index=df.index); "
                    "return df[ok], list(df.index[~ok])", level=hint)
