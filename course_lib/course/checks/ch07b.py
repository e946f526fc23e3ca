"""Checkers for chapter 07b (neighbours, pitfalls and testing): exercises 7.4-7.6.

`ch07` re-exports them, so a notebook calls `ch07.check_7_4` like the checks of chapter 07a. Expected
answers come from course_lib and bert-score (a kept BERTScorer, its hash function, course_lib's input
checks), computed on cases the chapter never prints -- never typed in.
"""
from __future__ import annotations

import re
from functools import lru_cache

import torch

from . import close, grading, hidden_rng, run


def _normalise(answer) -> str:
    return answer.strip().lower().removesuffix(" tokenizer") if isinstance(answer, str) else ""


def _one_number(x) -> float | None:
    """A float from a Python number, a numpy scalar or a one-element tensor; None for anything else."""
    if x is None or isinstance(x, (bool, str, bytes)):
        return None
    try:
        t = torch.as_tensor(x)
        return float(t.reshape(-1)[0]) if t.numel() == 1 else None
    except (TypeError, ValueError, RuntimeError):
        return None


def batches_7_4() -> dict[str, list[str]]:
    """Two batches of 15 WMT16 pairs the chapter never scores (cs-en, then fi-en, in file order):
    {"a_cands", "a_refs", "b_cands", "b_refs"}. In grading mode, hidden batches: 15 cs-en and 15 fi-en
    pairs from seeded places past the published ones (drawn with the grading seed)."""
    from course_lib.evaluation import datasets

    wmt = datasets.wmt16()
    a, b = wmt[wmt.lp == "cs-en"], wmt[wmt.lp == "fi-en"]
    if grading():
        rng = hidden_rng("7.4")
        a, b = (x.iloc[15:].sample(15, random_state=rng.randrange(2 ** 31)) for x in (a, b))
    a, b = a.head(15), b.head(15)
    return {"a_cands": a.mt.tolist(), "a_refs": a.ref.tolist(), "b_cands": b.mt.tolist(), "b_refs": b.ref.tolist()}


@lru_cache(maxsize=None)
def _expected_7_4() -> dict:
    """What exercise 7.4 asks, computed with bert-score's BERTScorer kept from the first call (as HF
    evaluate keeps it) and with course_lib: whose idf a kept scorer uses, how far batch B's F moves, and
    batch B's mean F with idf from both batches' references (a fixed corpus, independent of the order)."""
    import bert_score

    import course_lib
    from course_lib.bertscore.idf import idf_weights
    from course_lib.model import embedded_model_path, load

    d = batches_7_4()
    kept = bert_score.BERTScorer(model_type=str(embedded_model_path()), num_layers=4, idf=True,
                                 idf_sents=d["a_refs"])  # built by the first call, with its references
    F_kept = kept.score(d["b_cands"], d["b_refs"])[2]
    tokenizer, _ = load()
    F_first = course_lib.score(d["b_cands"], d["b_refs"], num_layers=4, idf=idf_weights(d["a_refs"], tokenizer))[2]
    F_second = course_lib.score(d["b_cands"], d["b_refs"], num_layers=4, idf=True)[2]
    if (F_kept - F_first).abs().max() <= 1e-5 < (F_kept - F_second).abs().max():
        uses = "first"
    elif (F_kept - F_second).abs().max() <= 1e-5:
        uses = "second"
    else:
        raise RuntimeError("the kept scorer matches neither idf corpus")
    fixed = idf_weights(d["a_refs"] + d["b_refs"], tokenizer)
    F_fixed = course_lib.score(d["b_cands"], d["b_refs"], num_layers=4, idf=fixed)[2]
    return {"uses": uses, "max_change": (F_kept - F_second).abs().max().item(), "fixed_mean_F": F_fixed.mean().item()}


def check_7_4(answer, hint: int = 1) -> bool:
    """answer: dict with "uses" ("first"/"second"), "max_change" and "fixed_mean_F" on batches_7_4()."""
    def test():
        keys = ("uses", "max_change", "fixed_mean_F")
        assert isinstance(answer, dict) and all(k in answer for k in keys), f"answer_7_4 needs the keys {keys}"
        want = _expected_7_4()
        choice = _normalise(answer["uses"]).removeprefix("the ").removesuffix(" batch").removesuffix(" call")
        assert choice in ("first", "second"), 'set answer_7_4["uses"] to "first" or "second"'
        assert choice == want["uses"], "uses: when does a kept scorer compute its idf weights?"
        for key in ("max_change", "fixed_mean_F"):
            value = _one_number(answer[key])
            assert value is not None, f"{key}: one number (a float, a numpy number or a one-element tensor)"
            assert close(value, want[key], 1e-4), {
                "max_change": "max_change: score batch B with the kept scorer (idf from batch A's references) and "
                              "with idf from batch B's own references; the largest |difference| of F",
                "fixed_mean_F": "fixed_mean_F: compute idf once from the references of both batches "
                                "(idf_weights(a_refs + b_refs, tokenizer)), pass it to course_lib.score for "
                                "batch B, and average F"}[key]
    return run("7.4", test, "a kept scorer computes its idf weights once, when it is built, from the first "
                            "call's references; scores that do not depend on the order of the calls take idf "
                            "from one fixed set of texts chosen in advance.",
               code="d = ch07.batches_7_4(); kept = bert_score.BERTScorer(model_type=MODEL, num_layers=4, idf=True, "
                    "idf_sents=d['a_refs']); F_kept = kept.score(d['b_cands'], d['b_refs'])[2]; F_own = "
                    "course_lib.score(d['b_cands'], d['b_refs'], idf=True)[2]; fixed = idf_weights(d['a_refs'] + "
                    "d['b_refs'], tokenizer); F_fixed = course_lib.score(d['b_cands'], d['b_refs'], idf=fixed)[2]",
               level=hint)


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
    # forbids nothing: validate_text (shown in section 5) judges one text, not a frame; calling it on each
    # cell is a good answer -- the split then agrees with score_frame by construction

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
