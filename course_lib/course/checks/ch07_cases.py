"""Chapter 07a's cases for exercise 7.8 (predict, then run: what swapping candidates and references does under
three settings): the pairs (drawn with the grading seed in grading mode), the gaps computed with course_lib (equal
to bert-score's to 1e-5), the judge of a prediction and a run (the reasons it quotes live in
course_lib.teaching.swapping).
And exercise 7.3's: the Python calls to translate (drawn with the grading seed in grading
mode), the command's own parser run on the student's flags, and the judge that names the first setting that
differs. `checks.ch07` imports these."""
from __future__ import annotations

import math
import re

from course_lib.caching import cached
from course_lib.teaching.swapping import SAME, WHY as WHY_7_8, SETTINGS as SETTINGS_7_8

from . import first_answer, grading, hidden_rows

TOLERANCE_7_8 = 3e-5  # bert-score and course_lib agree to 1e-5 on each score, so a gap to about twice that


def pairs_7_8(prediction=None) -> tuple[list[str], list[str]]:
    """7.8's (candidates, references), handed out only for a prediction: `prediction` is checked and kept first (in
    learning mode; the record a pass reports); without one, AssertionError says to write it first."""
    _first_prediction(prediction)
    return _pairs_7_8()


def _pairs_7_8() -> tuple[list[str], list[str]]:
    """Five WMT16 pairs the chapter never prints, one of each of five language pairs; in grading mode five others,
    drawn with the grading seed."""
    if grading():
        rows = hidden_rows("7.8", 5)
        return [r["mt"] for r in rows], [r["ref"] for r in rows]
    from course_lib.evaluation import datasets

    picked = datasets.wmt16().groupby("lp").nth(7).head(5)
    return picked["mt"].tolist(), picked["ref"].tolist()


@cached(4)
def _expected_7_8(cands: tuple[str, ...], refs: tuple[str, ...]) -> tuple[dict, dict]:
    """({setting: (max |P swapped - R|, max |F swapped - F|)}, the same with P swapped - P: the slip of comparing
    the swapped P with the original P), computed with course_lib (equal to bert-score to 1e-5)."""
    import course_lib
    from course_lib.bertscore.baseline import default_baseline_path

    options = {"plain": {}, "idf": {"idf": True},
               "rescaled": {"rescale_with_baseline": True, "baseline_path": str(default_baseline_path(None))}}
    right, p_with_p = {}, {}
    for name, opts in options.items():
        P, R, F = course_lib.score(list(cands), list(refs), **opts)
        P2, _, F2 = course_lib.score(list(refs), list(cands), **opts)
        gap_F = float((F2 - F).abs().max())
        right[name], p_with_p[name] = (float((P2 - R).abs().max()), gap_F), (float((P2 - P).abs().max()), gap_F)
    return right, p_with_p


def _two(value, what: str) -> tuple:
    assert isinstance(value, (tuple, list)) and len(value) == 2, f"{what}: give two values, (for P, for F)"
    return tuple(value)


def _first_prediction(prediction) -> dict:
    """Assert that `prediction` is well formed; return the first well-formed prediction of this notebook copy
    ({setting: (bool, bool)}), keeping `prediction` as the first when none was kept (learning mode only: grading
    keeps nothing, and judges the prediction as given)."""
    assert prediction is not None, ("first write your prediction in prediction_7_8 (before you run the swap): for "
                                    "each setting, (does the swapped P equal the original R?, does F stay the same?)")
    assert isinstance(prediction, dict) and set(prediction) == set(SETTINGS_7_8), (
        f"prediction_7_8 should be a dict with the keys {list(SETTINGS_7_8)}")
    for name in SETTINGS_7_8:
        for guess in _two(prediction[name], f"prediction_7_8[{name!r}]"):
            assert type(guess).__name__ in ("bool", "bool_"), (
                f"prediction_7_8[{name!r}] holds {guess!r}: write True (the same) or False (it changes), not text or "
                "numbers")
    given = {name: [bool(g) for g in prediction[name]] for name in SETTINGS_7_8}
    first = first_answer("7.8", given)
    return {name: tuple(first[name]) for name in SETTINGS_7_8}


def _said(same: bool) -> str:
    return "the same" if same else "a change"


def _judge_7_8(prediction, gaps) -> str:
    """Assert that `prediction` was made, that `gaps` is what the swap gives on pairs_7_8(), and that `prediction`
    agrees with it; each failure names the mistake (a wrong prediction: what was predicted, what the run shows,
    why). Return how the first prediction of this notebook copy (made before the run) fared, for the record."""
    first = _first_prediction(prediction)
    assert gaps is not None, "now run the swap and set gaps_7_8 to the measured gaps"
    assert isinstance(gaps, dict) and set(gaps) == set(SETTINGS_7_8), (
        f"gaps_7_8 should be a dict with the keys {list(SETTINGS_7_8)}")
    got = {}
    for name in SETTINGS_7_8:
        pair = _two(gaps[name], f"gaps_7_8[{name!r}]")
        assert not any(isinstance(v, (str, bytes)) for v in pair), (
            f"gaps_7_8[{name!r}] holds text {pair!r}: numbers written as strings; keep the floats")
        got[name] = tuple(float(v) for v in pair)
        assert not any(math.isnan(v) for v in got[name]), (
            f"gaps_7_8[{name!r}] is NaN: a score came back NaN, or a comparison of tensors of different lengths")
        assert min(got[name]) >= 0, f"gaps_7_8[{name!r}] = {got[name]}: a gap is a largest absolute difference, >= 0"
    want, p_with_p = _expected_7_8(*map(tuple, _pairs_7_8()))
    off = lambda a, b: max(abs(x - y) for x, y in zip(a, b)) >= TOLERANCE_7_8  # noqa: E731
    if all(off(got[s], want[s]) and not off(got[s], p_with_p[s]) for s in ("plain", "idf")):
        raise AssertionError("you compared the swapped P with the original P; after the swap the candidate is the "
                             "reference, so compare the swapped P with the original R")
    if off(got["rescaled"], want["rescaled"]) and not off(got["rescaled"], want["plain"]):
        raise AssertionError("your rescaled gaps are those of raw scores: without lang='en' and baseline_path= "
                             "bert-score finds no baseline file for this model and returns raw scores with only a "
                             "warning (section 1)")
    if off(got["idf"], want["idf"]) and not off(got["idf"], want["plain"]):
        raise AssertionError("your idf gaps are those of plain scores: was idf on, and were the weights computed "
                             "from each call's refs (bert_score.score), not from fixed idf_sents (a BERTScorer)?")
    for name in SETTINGS_7_8:
        if off(got[name], want[name]) and not off(got[name][::-1], want[name]):
            raise AssertionError(f"{name}: your two gaps are in the wrong order: each is (P gap, F gap)")
        assert not off(got[name], want[name]), (
            f"{name}: you measured (P {got[name][0]:.2g}, F {got[name][1]:.2g}), which is not what swapping "
            "ch07.pairs_7_8(...) gives: score (cands, refs) and (refs, cands) with the same settings; the gaps are "
            "(the largest |swapped P - original R|, the largest |swapped F - original F|) over the five pairs")
    now = {name: tuple(bool(g) for g in prediction[name]) for name in SETTINGS_7_8}
    wrong = [f"{name} {part}: you predicted {_said(guess)}; the run shows {_said(gap < SAME)}: why? "
             f"{WHY_7_8.get((name, part, guess), '')}".rstrip()
             for name in SETTINGS_7_8 for part, guess, gap in zip("PF", now[name], want[name])
             if guess != (gap < SAME)]
    were = "was" if len(wrong) == 1 else "were"
    assert not wrong, (f"your run is right; {len(wrong)} of your 6 predictions {were} not: " + "; ".join(wrong)
                       + ". Read why, then correct prediction_7_8 to what the run shows (on record: "
                       + _record_7_8(first, want) + ")")
    return _record_7_8(first, want)


def _record_7_8(first: dict, want: dict) -> str:
    """How many of the six parts of the prediction made before the run the run confirms, in words."""
    right = sum(guess == (gap < SAME) for name in SETTINGS_7_8 for guess, gap in zip(first[name], want[name]))
    return f"your prediction before the run had {right} of 6 right"


# ------------------------------------------------------------------ 7.3: from a Python call to the command line

SETTINGS_7_3 = ("num_layers", "idf", "lang", "rescale_with_baseline", "baseline_path", "use_fast_tokenizer")


def _calls_7_3() -> list[dict]:
    """7.3's Python calls, `bert_score.score(cands, refs, model_type=MODEL, **call)`: settings the chapter never ran
    together (the course's baseline file where they rescale); in grading mode five others, drawn with the grading
    seed. Each leaves out what it keeps at the Python default."""
    from course_lib.bertscore.baseline import default_baseline_path

    from . import hidden_rng

    file = str(default_baseline_path(None))
    if not grading():
        return [{"lang": "en", "num_layers": 4, "idf": True, "rescale_with_baseline": True, "baseline_path": file},
                {"num_layers": 2, "idf": False},
                {"lang": "en", "num_layers": 6, "rescale_with_baseline": False, "use_fast_tokenizer": True},
                {"lang": "en", "num_layers": 3, "rescale_with_baseline": True, "baseline_path": file,
                 "use_fast_tokenizer": True},
                {"num_layers": 5, "idf": True, "use_fast_tokenizer": False}]
    rng, calls = hidden_rng("7.3"), []
    for k in range(5):
        call = {"lang": "en"} if rng.random() < 0.7 else {}
        call["num_layers"] = rng.choice([1, 2, 3, 4, 5, 6])
        if k < 2 or rng.random() < 0.6:  # idf stated, True or False (False as a value is no flag)
            call["idf"] = k == 1 or (k > 1 and rng.random() < 0.5)
        if call.get("lang") and rng.random() < 0.5:
            call.update(rescale_with_baseline=True, baseline_path=file)
        elif k == 0:
            call["rescale_with_baseline"] = False
        if k < 2 or rng.random() < 0.5:  # at least one call of each tokenizer
            call["use_fast_tokenizer"] = k == 0 or (k > 1 and rng.random() < 0.5)
        calls.append(call)
    return calls


def _cli_settings(flags) -> dict:
    """What `bert-score -r refs.txt -c cands.txt --model <model> FLAGS` passes to `bert_score.score` for 7.3's
    settings (the command's own parser runs: `probes.cli_arguments`). Raises AssertionError, naming why, when the
    parser refuses the flags."""
    from course_lib.teaching import bertscore_probes as probes

    try:
        seen = probes.cli_arguments(list(flags))
    except probes.CliRefused as refused:
        raise AssertionError(f"the command refuses your flags {list(flags)}: {str(refused)!r}. "
                             f"{_refusal(flags, str(refused))}") from None
    return {k: seen.get(k) for k in SETTINGS_7_3}


def _refusal(flags, error: str) -> str:
    """What argparse's refusal of `flags` means, named: a word with a space, an unknown flag, a value after a
    flag that takes none, a flag without its value."""
    spaced = [f for f in flags if " " in f.strip()]
    if spaced:
        return (f"{spaced[0]!r} is two words in one string; a shell splits a command line at spaces, so each word "
                "is its own string")
    unknown = re.findall(r"(--?[\w-]+)", error.split("unrecognized arguments:")[-1]) if "unrecognized" in error else []
    if unknown:
        return f"the command has no flag {unknown[0]!r}: its flags are declared in bert_score_cli/score.py"
    if "unrecognized" in error:
        return "a flag declared store_true or store_false takes no value: give the flag alone, or leave it out"
    if "expected one argument" in error:
        return "that flag needs its value right after it, as the next string"
    return "read the command's declaration of that flag in bert_score_cli/score.py"


def _judge_7_3(call: dict, flags) -> None:
    """Assert that `flags` make the command compute what `bert_score.score(..., **call)` computes; the message
    names the first setting that differs, and why (the command's defaults are not the Python function's)."""
    import inspect

    import bert_score

    if isinstance(flags, str):
        raise AssertionError(f"you return one string {flags!r}: return a list with one string per word, as the "
                             "shell splits a command line (['--num_layers', '4', ...])")
    assert isinstance(flags, (list, tuple)), f"return a list of strings, not {type(flags).__name__}"
    odd = [f for f in flags if not isinstance(f, str)]
    assert not odd, (f"{odd[0]!r} is not a string: a command line is text, so every flag and every value is a "
                     f"string (str({odd[0]!r}))")
    mine = {"-r", "--ref", "-c", "--cand", "-m", "--model"} & set(flags)
    assert not mine, f"leave out {sorted(mine)}: the files and the model are already on the command line"
    defaults = {k: p.default for k, p in inspect.signature(bert_score.score).parameters.items()}
    want = {k: call.get(k, defaults[k]) for k in SETTINGS_7_3}
    got = _cli_settings(flags)
    shown = "{" + ", ".join(f"{k!r}: {'BASELINE' if k == 'baseline_path' else repr(v)}"  # no local path in a hint
                            for k, v in call.items()) + "}"
    where = f"for the call {shown}"
    if got["use_fast_tokenizer"] != want["use_fast_tokenizer"]:
        if want["use_fast_tokenizer"]:
            raise AssertionError(f"{where}: your flags make the command use the slow tokenizer, where the call uses "
                                 "the fast one. --use_fast_tokenizer is declared with action='store_false' (section "
                                 "3.4): giving it sets the value to False")
        raise AssertionError(f"{where}: the command uses the fast tokenizer, where the call uses the slow one "
                             "(use_fast_tokenizer=False, the Python default when the call leaves it out). What "
                             "does the command use when no tokenizer flag is given? (section 3.4)")
    if got["num_layers"] != want["num_layers"]:
        raise AssertionError(f"{where}: the command would use layer {got['num_layers']} (None: bert-score's table "
                             f"model2layers) where the call uses {want['num_layers']}")
    for key, what in (("idf", "idf"), ("rescale_with_baseline", "baseline rescaling")):
        assert got[key] == want[key], (f"{where}: your command has {what} {'on' if got[key] else 'off'}, the call "
                                       f"{'on' if want[key] else 'off'}")
    if want["rescale_with_baseline"] and got["baseline_path"] != want["baseline_path"]:
        theirs = got["baseline_path"] or "bert-score's own file for the model (none for a local folder)"
        raise AssertionError(f"{where}: the command rescales with {theirs}, the call with {want['baseline_path']}: "
                             "the baseline file is a setting too (the hash says only -custom-rescaled)")
    if "lang" in call and got["lang"] != want["lang"]:
        raise AssertionError(f"{where}: the call sets lang={want['lang']!r}, your command lang={got['lang']!r}")
