"""Checkers for chapters 07a (using bert-score: exercises 7.1-7.3) and 07b (neighbours, pitfalls
and testing: 7.4-7.6).

Expected answers come from course_lib and from bert-score itself (its scorer, its hash function,
the source of its command line), computed on several cases each time -- never typed in. The find-it
exercises run on what the chapters never print: a command line with other flags (7.3), two other
batches of WMT16 pairs (7.4).
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
    from course_lib.bertscore.baseline import default_baseline_path, read_baseline, rescale
    from course_lib.model import EMBEDDED_MODEL

    cases, per_pair, want = _multi_expected()
    sizes = [len(group) for _, group in cases]
    b = read_baseline(default_baseline_path(EMBEDDED_MODEL))[4]  # [b_P, b_R, b_F] at layer 4
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


def check_7_1(multi_ref_max, hint: int = 1) -> bool:
    """multi_ref_max(per_ref [n_cands, max_refs, 3] zero-padded, n_refs [n_cands]) -> [n_cands, 3]: the P, R, F
    bert-score keeps for each candidate."""
    def test():
        for name, per_ref, sizes, expected in _batches_7_1():
            got = multi_ref_max(per_ref.clone(), torch.tensor(sizes))
            got = torch.as_tensor(got, dtype=torch.float32)
            assert got.shape == expected.shape, (f"{name}: return [n_cands, 3], one row per candidate; yours has "
                                                 f"shape {list(got.shape)}")
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


def _hash_settings(h: str) -> str:
    """A hash with its version part replaced by `_version=…` and the embedded model's folder by <model>."""
    from course_lib.model import embedded_model_path

    return re.sub(r"_version=.*?\)", "_version=…", h.strip().replace(str(embedded_model_path()), "<model>"))


def expected_7_3() -> tuple[str, str]:
    """(hash, flag) for exercise 7.3's command: model, layer 4, --idf, --rescale_with_baseline with a
    --baseline_path, and no tokenizer flag -- so the CLI's own tokenizer default, read from its source."""
    from bert_score.utils import get_hash

    fast = _cli_default_tokenizer() == "fast"
    expected = get_hash("<model>", 4, True, True, True, fast)
    # the flag that makes the command use the Python API's default (use_fast_tokenizer=False)
    return _hash_settings(expected), ("--use_fast_tokenizer" if fast else "")


def check_7_3(answer, fix=None, hint: int = 1) -> bool:
    """answer: the hash exercise 7.3's command prints; fix: the flag that gives the Python call's numbers."""
    def test():
        assert isinstance(answer, str) and answer.strip(), "set answer_7_3 to the hash string the command prints"
        want_hash, want_fix = expected_7_3()
        got = _hash_settings(answer)
        for part, meaning in (("_L4", "the layer"), ("_idf", "idf on"), ("-custom-rescaled", "a baseline file you "
                              "supplied (-rescaled alone means bert-score's own file)")):
            assert part in got or part not in want_hash, f"your hash lacks {part!r}: {meaning}"
        assert got.endswith("_fast-tokenizer") == want_hash.endswith("_fast-tokenizer"), (
            "which tokenizer does the command use when no tokenizer flag is given? (section 3.4)")
        assert got == want_hash, f"the command prints {want_hash!r} (versions aside); yours reads {got!r}"
        assert isinstance(fix, str) and fix.strip(), 'also set fix_7_3 to a flag, e.g. "--idf"'
        assert fix.strip() == want_fix, (f"{fix.strip()!r} does not make the command compute the Python call's "
                                         "numbers: which setting differs between the two?")
    return run("7.3", test, "every part of the hash is one setting (section 3.2); on the command line one flag "
                            "means the opposite of its name (section 3.4).",
               code="run it: probes.run_cli(cli_cands, cli_refs, ['--num_layers', '4', '--idf', "
                    "'--rescale_with_baseline', '--lang', 'en', '--baseline_path', BASELINE], model=MODEL)[0].hash; "
                    "then read the action= of --use_fast_tokenizer in bert_score_cli/score.py", level=hint)


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
    {"a_cands", "a_refs", "b_cands", "b_refs"}."""
    from course_lib.evaluation import datasets

    wmt = datasets.wmt16()
    a, b = wmt[wmt.lp == "cs-en"].head(15), wmt[wmt.lp == "fi-en"].head(15)
    return {"a_cands": a.mt.tolist(), "a_refs": a.ref.tolist(), "b_cands": b.mt.tolist(), "b_refs": b.ref.tolist()}


@lru_cache(maxsize=None)
def expected_7_4() -> dict:
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
        want = expected_7_4()
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
