"""Chapter 07's exercise checkers: pass on the notebook's solutions, fail on stubs and planted bugs."""
import pytest
import torch

from course_lib.course.checks import ch07, ch07_cases, first_answers_file, reset_attempts
from notebook_code import NOTEBOOKS, assert_names_mistake, definition, passes, run_cells, stub

NOTEBOOK_A = NOTEBOOKS / "07a_using_bert_score.ipynb"          # exercises 7.1-7.3
NOTEBOOK_B = NOTEBOOKS / "07b_neighbours_and_testing.ipynb"    # exercises 7.4-7.7


def solution(marker: str) -> dict:
    """Run the solution cell containing `marker`, from whichever of the two notebooks holds it."""
    notebook = NOTEBOOK_A if marker in NOTEBOOK_A.read_text() else NOTEBOOK_B
    return run_cells(notebook, marker, torch=torch, ch07=ch07)


# ------------------------------------------------------------------ planted wrong answers

def _real(per_ref, n_refs):
    return torch.arange(per_ref.shape[1])[None, :] < torch.as_tensor(n_refs)[:, None]


def no_mask(per_ref, n_refs):  # the padding's 0 can win (bert-score's own padding mistake)
    return per_ref.max(dim=1).values


def best_f_row(per_ref, n_refs):  # the reference with the best F, all three of its numbers
    masked = per_ref.masked_fill(~_real(per_ref, n_refs)[:, :, None], float("-inf"))
    return per_ref[torch.arange(len(per_ref)), masked[:, :, 2].argmax(dim=1)]


def mean_over_references(per_ref, n_refs):
    return per_ref.sum(dim=1) / torch.as_tensor(n_refs)[:, None]


def max_over_wrong_axis(per_ref, n_refs):  # max over P, R, F of each reference
    return per_ref.max(dim=2).values


def f_of_max_p_and_r(per_ref, n_refs):  # recomputes F from the best P and R instead of taking the best F
    best = per_ref.masked_fill(~_real(per_ref, n_refs)[:, :, None], float("-inf")).max(dim=1).values
    p, r = best[:, 0], best[:, 1]
    return torch.stack([p, r, 2 * p * r / (p + r)], dim=-1)


def nonzero_as_real(per_ref, n_refs):  # takes every non-zero cell as real: ignores n_refs
    return per_ref.masked_fill(per_ref == 0, float("-inf")).max(dim=1).values


def first_candidate_only(per_ref, n_refs):
    return per_ref[0, :n_refs[0]].max(dim=0).values


def _stacked(scores):
    return torch.stack(scores, dim=-1)


def gap_batch_vs_batch(score_fn, cands, refs):  # never scores a pair alone: always 0
    return (_stacked(score_fn(cands, refs)) - _stacked(score_fn(cands, refs))).abs().max().item()


def gap_first_pair_only(score_fn, cands, refs):
    batch = _stacked(score_fn(cands, refs))
    return (batch[0] - _stacked(score_fn(cands[:1], refs[:1]))[0]).abs().max().item()


def gap_mean(score_fn, cands, refs):  # mean instead of max
    batch = _stacked(score_fn(cands, refs))
    alone = torch.cat([_stacked(score_fn([c], [r])) for c, r in zip(cands, refs)])
    return (batch - alone).abs().mean().item()


def gap_f_only(score_fn, cands, refs):  # ignores P and R
    batch = score_fn(cands, refs)[2]
    alone = torch.cat([score_fn([c], [r])[2] for c, r in zip(cands, refs)])
    return (batch - alone).abs().max().item()


def gap_p_only(score_fn, cands, refs):  # ignores R and F (a walkthrough got "another order" for it)
    batch = score_fn(cands, refs)[0]
    alone = torch.cat([score_fn([c], [r])[0] for c, r in zip(cands, refs)])
    return (batch - alone).abs().max().item()


def gap_p_and_r(score_fn, cands, refs):  # ignores F
    batch = torch.stack(score_fn(cands, refs)[:2], dim=-1)
    alone = torch.cat([torch.stack(score_fn([c], [r])[:2], dim=-1) for c, r in zip(cands, refs)])
    return (batch - alone).abs().max().item()


# ------------------------------------------------------------------ 7.1

def test_7_1_solution_passes(capsys):
    assert passes(ch07.check_7_1, solution("def multi_ref_max")["multi_ref_max"], capsys)


@pytest.mark.parametrize("wrong", [stub, no_mask, best_f_row, mean_over_references, max_over_wrong_axis,
                                   f_of_max_p_and_r, nonzero_as_real, first_candidate_only],
                         ids=lambda f: f.__name__)
def test_7_1_rejects(wrong, capsys):
    assert not passes(ch07.check_7_1, wrong, capsys)


def mask_off_by_one(per_ref, n_refs):  # <= where < is needed: one padding row gets in
    real = torch.arange(per_ref.shape[1])[None, :] <= torch.as_tensor(n_refs)[:, None]
    return per_ref.masked_fill(~real[:, :, None], float("-inf")).max(dim=1).values


def max_without_values(per_ref, n_refs):  # forgets .values: returns (values, indices)
    return per_ref.masked_fill(~_real(per_ref, n_refs)[:, :, None], float("-inf")).max(dim=1)


def mask_drops_last_real(per_ref, n_refs):  # n_refs - 1 as the last index: < n_refs - 1 leaves the last one out
    real = torch.arange(per_ref.shape[1])[None, :] < torch.as_tensor(n_refs)[:, None] - 1
    return per_ref.masked_fill(~real[:, :, None], float("-inf")).max(dim=1).values


@pytest.mark.parametrize("wrong, named", [(mask_off_by_one, "positions 0 to n_refs - 1"),
                                          (mask_drops_last_real, "you leave out each candidate's last real reference"),
                                          (max_without_values, "take its .values")])
def test_7_1_names_the_walkthroughs_slips(wrong, named, capsys):
    reset_attempts("7.1")
    assert_names_mistake(ch07.check_7_1, wrong, named=named, capsys=capsys)


@pytest.mark.parametrize("wrong, named", [(best_f_row, "the reference with the best F"),
                                          (f_of_max_p_and_r, "you recompute F from the best P and the best R"),
                                          (mean_over_references, "you average over the references"),
                                          (no_mask, "a padding 0 wins"),
                                          (nonzero_as_real, "a real score can be exactly 0")],
                         ids=lambda f: getattr(f, "__name__", "hint"))
def test_7_1_names_the_mistake(wrong, named, capsys):
    reset_attempts("7.1")
    assert_names_mistake(ch07.check_7_1, wrong, named=named, capsys=capsys)


# ------------------------------------------------------------------ 7.2

def test_7_2_solution_passes(capsys):
    assert passes(ch07.check_7_2, solution("def batch_invariance_gap")["batch_invariance_gap"], capsys)


@pytest.mark.parametrize("wrong", [stub, gap_batch_vs_batch, gap_first_pair_only, gap_mean, gap_f_only],
                         ids=lambda f: f.__name__)
def test_7_2_rejects(wrong, capsys):
    assert not passes(ch07.check_7_2, wrong, capsys)


def gap_as_tensor(score_fn, cands, refs):  # the task asks for a float
    batch = torch.stack(score_fn(cands, refs), dim=-1)
    alone = torch.cat([torch.stack(score_fn([c], [r]), dim=-1) for c, r in zip(cands, refs)])
    return (batch - alone).abs().max()


def gap_signed(score_fn, cands, refs):  # no abs: a batch that lowers a score is missed
    batch = torch.stack(score_fn(cands, refs), dim=-1)
    alone = torch.cat([torch.stack(score_fn([c], [r]), dim=-1) for c, r in zip(cands, refs)])
    return (batch - alone).max().item()


def gap_skips_last(score_fn, cands, refs):  # off by one: range(len(cands) - 1)
    batch = torch.stack(score_fn(cands, refs), dim=-1)
    alone = torch.cat([torch.stack(score_fn([cands[k]], [refs[k]]), dim=-1) for k in range(len(cands) - 1)])
    return (batch[:-1] - alone).abs().max().item()


def gap_batch_vs_reversed(score_fn, cands, refs):  # the batch against itself reversed: no pair ever alone
    batch = torch.stack(score_fn(cands, refs), dim=-1)
    backwards = torch.stack(score_fn(cands[::-1], refs[::-1]), dim=-1).flip(0)
    return (batch - backwards).abs().max().item()


def gap_pairs_mismatched(score_fn, cands, refs):  # alone scores taken in reverse order: pair k against pair n-1-k
    batch = torch.stack(score_fn(cands, refs), dim=-1)
    alone = torch.cat([torch.stack(score_fn([c], [r]), dim=-1) for c, r in zip(cands[::-1], refs[::-1])])
    return (batch - alone).abs().max().item()


@pytest.mark.parametrize("wrong, named", [(gap_as_tensor, "you return a tensor"),
                                          (gap_batch_vs_reversed, "the same pairs in another order"),
                                          (gap_pairs_mismatched, "you compare different pairs"),
                                          (gap_signed, "the largest signed difference"),
                                          (gap_skips_last, "your gap leaves out pair 5 of 6"),
                                          (gap_batch_vs_batch, "did you score each pair alone"),
                                          (gap_mean, "you return the mean difference"),
                                          (gap_f_only, "you compare F only"),
                                          (gap_p_only, "you compare P only"),
                                          (gap_p_and_r, "you compare P and R only")],
                         ids=["tensor", "reversed batch", "mismatched pairs", "signed", "skips last",
                              "batch vs batch", "mean", "F only", "P only", "P and R only"])
def test_7_2_names_the_mistake(wrong, named, capsys):
    from course_lib.course.checks import reset_attempts

    reset_attempts("7.2")
    assert_names_mistake(ch07.check_7_2, wrong, named=named, capsys=capsys)


def _noise_free(score_fn):
    """score_fn with its scores rounded to 4 decimals: the pairs it does not move give a batch-vs-alone difference of
    exactly 0, as bit-identical runs do on some CPUs (on others they differ by ~1e-7, of either sign)."""
    def score(cands, refs):
        return tuple(torch.round(s, decimals=4) for s in score_fn(cands, refs))
    return score


@pytest.mark.parametrize("wrong, named", [(gap_signed, "the largest signed difference"),
                                          (gap_batch_vs_batch, "did you score each pair alone")],
                         ids=["signed", "batch vs batch"])
def test_7_2_names_the_mistake_whatever_the_float_noise(wrong, named, capsys, monkeypatch):
    # the sorting scorer only lowers scores, so a signed answer returns the other pairs' float noise there: ~6e-8 on
    # one CPU, 0 or below on another (where it was told "you return 0"). Without the noise, it is still named.
    from course_lib.course.checks import reset_attempts

    cands, refs = ch07._wmt_cases(6)
    noise_free = _noise_free(ch07._sorted_separately)
    diffs = ch07._diffs(noise_free, list(cands), list(refs))
    assert diffs.max().item() == 0 and diffs.abs().max().item() > 0.05  # the other machine's case, here
    monkeypatch.setattr(ch07, "_sorted_separately", noise_free)
    reset_attempts("7.2")
    assert_names_mistake(ch07.check_7_2, wrong, named=named, capsys=capsys)


def test_7_2_buggy_scorers_really_are_batch_dependent():
    cands, refs = ch07._wmt_cases(6)
    import course_lib

    assert ch07._expected_gap(course_lib.score, cands, refs) <= 1e-5
    assert ch07._expected_gap(ch07._sorted_separately, cands, refs) > 0.05
    assert ch07._expected_gap(ch07._batch_centred, cands, refs) > 0.05
    last = ch07._diffs(ch07._last_pair_shifted, cands, refs).abs().max(dim=1).values
    assert last[-1] > 0.03 and last[:-1].max() < 1e-5   # only the last pair of the batch is wrong


# ------------------------------------------------------------------ 7.3 - 7.5 (questions)

def _flags_without_fast(call):  # planted: every setting typed as a flag, no tokenizer flag (the CLI's default)
    flags = ["--num_layers", str(call["num_layers"])] + (["--lang", call["lang"]] if "lang" in call else [])
    flags += ["--idf"] if call.get("idf") else []
    if call.get("rescale_with_baseline"):
        flags += ["--rescale_with_baseline", "--baseline_path", call["baseline_path"]]
    return flags


def _literal_tokenizer(call):  # planted: --use_fast_tokenizer given when the call asks for the fast tokenizer
    return _flags_without_fast(call) + (["--use_fast_tokenizer"] if call.get("use_fast_tokenizer") else [])


def _always_flag(call):  # planted: the flag every time (right for the calls that keep the Python default only)
    return _flags_without_fast(call) + ["--use_fast_tokenizer"]


def _valued(call):  # planted: store_true flags given a value, as Python keywords are
    return _always_flag(call) + ["--idf", str(bool(call.get("idf")))]


def _no_baseline_file(call):
    flags = _always_flag(call)
    if "--baseline_path" in flags:
        del flags[flags.index("--baseline_path"):flags.index("--baseline_path") + 2]
    return flags


def _int_layer(call):
    flags = _always_flag(call)
    flags[1] = call["num_layers"]
    return flags


def _one_string(call):
    return " ".join(_always_flag(call))


def _no_layer(call):
    return _always_flag(call)[2:]


def _no_lang(call):
    flags = _always_flag(call)
    return flags[:2] + flags[4:] if "--lang" in flags else flags


def _with_files(call):
    return ["-r", "refs.txt", "-c", "cands.txt"] + _always_flag(call)


def test_7_3(capsys):
    solution_7_3 = definition(NOTEBOOK_A, "cli_flags")
    assert passes(ch07.check_7_3, solution_7_3, capsys)
    for wrong in (stub, _flags_without_fast, _literal_tokenizer, _valued, _no_baseline_file, _int_layer,
                  _one_string, _no_layer, _no_lang, _with_files):
        assert not passes(ch07.check_7_3, wrong, capsys), wrong.__name__
    # the cases need the tokenizer flag in both directions: the two halves of the mistake fail on different calls
    calls = ch07._calls_7_3()
    assert any(c.get("use_fast_tokenizer") for c in calls) and any(not c.get("use_fast_tokenizer") for c in calls)
    assert not passes(ch07.check_7_3, _always_flag, capsys)


def _key_present(call):  # planted: a store_true flag whenever the call names the setting, even as False
    flags = _always_flag(call)
    return flags + [f"--{k}" for k in ("idf", "rescale_with_baseline") if k in call and f"--{k}" not in flags]


def _spaced(call):
    return ["--num_layers " + str(call["num_layers"])] + _always_flag(call)[2:]


def _unknown_flag(call):
    return ["--layers"] + _always_flag(call)[1:]


@pytest.mark.parametrize("wrong, named", [
    (_flags_without_fast, "What does the command use when no tokenizer flag is given?"),
    (_literal_tokenizer, "its name says the opposite of what it does"),
    (_always_flag, "giving it sets the value to False"),
    (_valued, "unrecognized arguments: True"),
    (_no_baseline_file, "the baseline file is a setting too"),
    (_int_layer, "is not a string"),
    (_one_string, "one string per word"),
    (_no_layer, "would use layer None"),
    (_no_lang, "the call sets lang='en'"),
    (_with_files, "the files and the model are already on the command line"),
    (_key_present, "your command has idf on, the call off"),
    (_spaced, "is two words in one string"),
    (_unknown_flag, "the command has no flag '--layers'"),
])
def test_7_3_names_the_mistake(wrong, named, capsys):
    reset_attempts("7.3")
    assert_names_mistake(ch07.check_7_3, wrong, named=named, capsys=capsys)


def test_7_3_code_hint_runs_when_pasted(capsys):
    reset_attempts("7.3")
    ch07.check_7_3(stub, hint=2)
    code = capsys.readouterr().out.split("Code: ", 1)[1].strip()
    namespace = {}
    exec("def cli_flags(call):\n    " + code, namespace)
    assert passes(ch07.check_7_3, namespace["cli_flags"], capsys)


def test_7_3_reads_the_flags_with_the_commands_own_parser_and_leaves_no_trace():
    """_cli_settings runs bert-score's own `main` (its parser, its defaults) and records what bert_score.score would
    get; it restores bert_score.score and torch's sharing strategy."""
    import bert_score

    strategy, score = torch.multiprocessing.get_sharing_strategy(), bert_score.score
    got = ch07_cases._cli_settings(["--num_layers", "3", "--idf"])
    assert got == {"num_layers": 3, "idf": True, "lang": None, "rescale_with_baseline": False,
                   "baseline_path": None, "use_fast_tokenizer": True}   # the command's default: fast
    assert ch07_cases._cli_settings(["--use_fast_tokenizer"])["use_fast_tokenizer"] is False
    assert torch.multiprocessing.get_sharing_strategy() == strategy and bert_score.score is score


def test_7_3_grading_mode_draws_other_calls(monkeypatch):
    learning = ch07._calls_7_3()
    monkeypatch.setenv("COURSE_GRADING", "1")
    monkeypatch.setenv("COURSE_GRADING_SEED", "7")
    hidden = ch07._calls_7_3()
    assert hidden != learning and len(hidden) == 5
    assert {c.get("use_fast_tokenizer", False) for c in hidden} == {True, False}
    assert ch07.check_7_3(definition(NOTEBOOK_A, "cli_flags"))
    with pytest.raises(AssertionError):  # grading mode: a failing check raises
        ch07.check_7_3(_flags_without_fast)


def _kept_scorer(batches):  # planted: one BERTScorer built on the first call (HF evaluate's wrapper)
    import bert_score

    from course_lib.model import embedded_model_path

    scorer, out = None, []
    for cands, refs in batches:
        scorer = scorer or bert_score.BERTScorer(model_type=str(embedded_model_path()), num_layers=4, idf=True,
                                                 idf_sents=refs)
        out.append(scorer.score(cands, refs)[2])
    return out


def _own_idf(batches):  # planted: idf from each batch's own references
    import course_lib

    return [course_lib.score(cands, refs, idf=True)[2] for cands, refs in batches]


def _no_idf(batches):  # planted: no idf at all (order-free, but not what the script does)
    import course_lib

    return [course_lib.score(cands, refs)[2] for cands, refs in batches]


def _distinct_refs(batches):  # right too: idf from the distinct references (a repeated reference counted once)
    import course_lib
    from course_lib.bertscore.idf import idf_weights
    from course_lib.model import load

    weights = idf_weights(sorted({r for _, refs in batches for r in refs}), load()[0])
    return [course_lib.score(cands, refs, idf=weights)[2] for cands, refs in batches]


def _other_refs(batches):  # right too: idf from a fixed corpus of references chosen in advance
    import course_lib
    from course_lib.bertscore.idf import idf_weights
    from course_lib.evaluation import datasets
    from course_lib.model import load

    weights = idf_weights(datasets.wmt16()["ref"].head(300).tolist(), load()[0])
    return [course_lib.score(cands, refs, idf=weights)[2] for cands, refs in batches]


def _candidates_idf(batches):  # planted: idf from all the candidates
    import course_lib
    from course_lib.bertscore.idf import idf_weights
    from course_lib.model import load

    weights = idf_weights([c for cands, _ in batches for c in cands], load()[0])
    return [course_lib.score(cands, refs, idf=weights)[2] for cands, refs in batches]


def _means(batches):  # planted: one mean F per batch
    return [F.mean() for F in _all_refs_bert_score(batches)]


def _all_refs_bert_score(batches):  # right, the other way: one BERTScorer with idf_sents = all references
    import bert_score

    from course_lib.model import embedded_model_path

    refs = [r for _, rs in batches for r in rs]
    scorer = bert_score.BERTScorer(model_type=str(embedded_model_path()), num_layers=4, idf=True, idf_sents=refs)
    return [scorer.score(cands, rs)[2] for cands, rs in batches]


def test_7_4(capsys):
    import course_lib
    from course_lib.bertscore.idf import idf_weights
    from course_lib.model import load

    solution = definition(NOTEBOOK_B, "fixed_idf_F", course_lib=course_lib, idf_weights=idf_weights,
                          tokenizer=load()[0])
    assert passes(ch07.check_7_4, solution, capsys)
    assert passes(ch07.check_7_4, _all_refs_bert_score, capsys)
    assert passes(ch07.check_7_4, _distinct_refs, capsys)  # the exercise leaves the choice of references open
    assert passes(ch07.check_7_4, _other_refs, capsys)
    named = {_kept_scorer: "which batch came first", _own_idf: "its batchmates", _no_idf: "without idf",
             _candidates_idf: "your idf comes from the candidates", _means: "one F per pair", stub: "replace"}
    for wrong, text in named.items():
        assert not ch07.check_7_4(wrong), wrong.__name__
        out = capsys.readouterr().out
        assert "❌" in out and text in out, (wrong.__name__, out)


def _read_hash_split(h):  # the model cut at the first "_": wrong for folders named my_model
    import re

    parts = h.split("_")
    rest = re.search(r"_L(\d+)_(idf|no-idf)_version=[^)]*\)(-custom-rescaled|-rescaled)?(_fast-tokenizer)?$", h)
    return {"model": parts[0], "layer": int(rest[1]), "idf": rest[2] == "idf", "rescaled": rest[3] is not None,
            "custom_baseline": rest[3] == "-custom-rescaled", "fast_tokenizer": rest[4] is not None}


def _read_hash_slip(kind):
    def fn(h):
        right = solution("def read_hash")["read_hash"](h)
        if kind == "layer as text":
            return {**right, "layer": str(right["layer"])}
        if kind == "custom from rescaled":  # any rescaled counted as the authors' own file
            return {**right, "custom_baseline": right["rescaled"]}
        if kind == "fast always":
            return {**right, "fast_tokenizer": True}
        return {k: v for k, v in right.items() if k != "rescaled"}
    return fn


def test_7_5_solution_passes(capsys):
    read_hash = solution("def read_hash")["read_hash"]
    assert passes(ch07.check_7_5, read_hash, capsys)
    assert read_hash(ch07.PAPER_HASH) == {"model": "roberta-large", "layer": 17, "idf": False, "rescaled": True,
                                          "custom_baseline": False, "fast_tokenizer": True}


@pytest.mark.parametrize("wrong, named", [(_read_hash_split, "may itself hold '_'"),
                                          (_read_hash_slip("layer as text"), "not the text"),
                                          (_read_hash_slip("custom from rescaled"), "-rescaled alone"),
                                          (_read_hash_slip("fast always"), "fast_tokenizer is False"),
                                          (_read_hash_slip("a key missing"), "return a dict with the keys")])
def test_7_5_rejects_each_mistake_with_a_hint_naming_it(wrong, named, capsys):
    assert not ch07.check_7_5(wrong)
    assert named in capsys.readouterr().out
    assert not passes(ch07.check_7_5, stub, capsys)


# ------------------------------------------------------------------ 7.6

def split_no_strip(df, answer_col="answer", reference_col="reference"):  # whitespace-only passes
    bad = [k for k, a, r in zip(df.index, df[answer_col], df[reference_col])
           if not isinstance(a, str) or not isinstance(r, str) or not a or not r]
    return df.drop(index=bad), bad


def split_answers_only(df, answer_col="answer", reference_col="reference"):  # references never checked
    bad = [k for k, a in zip(df.index, df[answer_col]) if not isinstance(a, str) or not a.strip()]
    return df.drop(index=bad), bad


def split_dropna_only(df, answer_col="answer", reference_col="reference"):  # None/NaN only
    bad = list(df.index[df[[answer_col, reference_col]].isna().any(axis=1)])
    return df.drop(index=bad), bad


def split_fixed_columns(df, answer_col="answer", reference_col="reference"):  # ignores the column names
    return split_answers_only(df, "answer", "reference") if "answer" in df else (df, [])


def split_by_validate_text(df, answer_col="answer", reference_col="reference"):  # the metric's own check per cell
    from course_lib.evaluation.metric import validate_text

    def ok(a, r):
        try:
            validate_text(a, "answer")
            validate_text(r, "reference")
            return True
        except (TypeError, ValueError):
            return False

    keep = [ok(a, r) for a, r in zip(df[answer_col], df[reference_col])]
    return df[keep], [label for label, k in zip(df.index, keep) if not k]


def split_modifies_input(df, answer_col="answer", reference_col="reference"):  # drops in place
    valid, rejected = split_by_validate_text(df, answer_col, reference_col)
    df.drop(index=rejected, inplace=True)
    return df, rejected


def test_7_6_solution_passes(capsys):
    fn = solution("def split_valid")["split_valid"]
    assert passes(ch07.check_7_6, fn, capsys)
    # validate_text (shown in section 5) is allowed: it judges one text; the exercise is the frame around it
    assert passes(ch07.check_7_6, split_by_validate_text, capsys)
    assert not passes(ch07.check_7_6, split_modifies_input, capsys)


def split_adds_a_column(df, answer_col="answer", reference_col="reference"):  # a helper column on the input
    df["ok"] = [isinstance(a, str) and bool(a.strip()) and isinstance(r, str) and bool(r.strip())
                for a, r in zip(df[answer_col], df[reference_col])]
    return df[df["ok"]].drop(columns="ok"), list(df.index[~df["ok"]])


@pytest.mark.parametrize("wrong", [split_modifies_input, split_adds_a_column])
def test_7_6_names_a_changed_input_frame(wrong, capsys):
    from course_lib.course.checks import reset_attempts

    reset_attempts("7.6")  # earlier tests made the same mistake: its third repeat would show the code
    assert_names_mistake(ch07.check_7_6, wrong, named="changed the frame it was given", capsys=capsys)


@pytest.mark.parametrize("wrong", [stub, split_no_strip, split_answers_only, split_dropna_only,
                                   split_fixed_columns])
def test_7_6_rejects(wrong, capsys):
    assert not passes(ch07.check_7_6, wrong, capsys)


# ------------------------------------------------------------------ 7.7: undo the sort

def _planted_7_7():
    from notebook_code import definition

    names = {}
    for name in ("pair_f1", "length_order"):
        names[name] = definition(NOTEBOOK_B, name, marker="def planted_batch_f1", torch=torch)
    planted = definition(NOTEBOOK_B, "planted_batch_f1", torch=torch, **names)
    return planted, names


def _variant(kind):
    """batch_f1 with one planted mistake (or none)."""
    _, names = _planted_7_7()
    pair_f1, length_order = names["pair_f1"], names["length_order"]

    def fn(cands, refs, embed_one):
        s_c, s_r = length_order(cands), length_order(refs)
        if kind == "unsorted":  # the batching dropped: every pair embedded alone, in its own order
            return [pair_f1(embed_one(c), embed_one(r)) for c, r in zip(cands, refs)]
        emb_c = [embed_one(cands[i]) for i in s_c]
        emb_r = [embed_one(refs[i]) for i in s_r]
        if kind == "no put back":  # left in length order: row j compares cands[s_c[j]] with refs[s_r[j]]
            return [pair_f1(c, r) for c, r in zip(emb_c, emb_r)]
        if kind == "sorted rows":  # right pairs, but the scores left in the candidates' length order
            inv = [s_r.index(k) for k in range(len(refs))]
            return [pair_f1(emb_c[j], emb_r[inv[s_c[j]]]) for j in range(len(cands))]
        if kind == "one side":  # only the candidates put back
            emb_c = [emb_c[s_c.index(k)] for k in range(len(cands))]
            emb_r = [emb_r[i] for i in s_r]
            return [pair_f1(c, r) for c, r in zip(emb_c, emb_r)]
        emb_c = [emb_c[s_c.index(k)] for k in range(len(cands))]
        emb_r = [emb_r[s_r.index(k)] for k in range(len(refs))]
        return [pair_f1(c, r) for c, r in zip(emb_c, emb_r)]
    return fn


def test_7_7_solution_passes(capsys):
    _, names = _planted_7_7()
    fn = run_cells(NOTEBOOK_B, "def batch_f1", solution=True, torch=torch, **names)["batch_f1"]
    assert passes(ch07.check_7_7, fn, capsys)
    assert passes(ch07.check_7_7, _variant("right"), capsys)


@pytest.mark.parametrize("kind, named", [("planted", "still mis-paired"), ("no put back", "still mis-paired"),
                                         ("one side", "still mis-paired"), ("sorted rows", "stay in length order"),
                                         ("unsorted", "keep the batching")])
def test_7_7_rejects_each_mistake_with_a_hint_naming_it(kind, named, capsys):
    fn = _planted_7_7()[0] if kind == "planted" else _variant(kind)
    assert not ch07.check_7_7(fn)
    assert named in capsys.readouterr().out
    assert not passes(ch07.check_7_7, stub, capsys)


def test_7_7_batches_are_mis_paired_by_the_planted_code():
    """Each batch of the check makes the planted code pair at least two rows wrongly (else it could pass)."""
    from course_lib.course.checks import ch07b

    for cands, refs in ch07b._batches_7_7():
        s_c, s_r = ch07b._length_order(cands), ch07b._length_order(refs)
        assert sum(s_c[s_c[j]] != s_r[s_r[j]] for j in range(len(cands))) >= 2


def test_7_5_and_7_7_cases_are_drawn_again_with_the_grading_seed(monkeypatch):
    """The function exercises' cases come from a seeded draw: the grading seed draws others (7.5 keeps the
    paper's hash first, the one the chapter asks about)."""
    from course_lib.course.checks import ch07b

    published_hashes, published_batches = ch07b._hashes_7_5(), ch07b._batches_7_7()
    monkeypatch.setenv("COURSE_GRADING_SEED", "12345")
    hashes, batches = ch07b._hashes_7_5.__wrapped__(), ch07b._batches_7_7.__wrapped__()
    assert hashes[0] == published_hashes[0] and set(hashes[1:]) != set(published_hashes[1:])
    assert not set(batches) & set(published_batches) and len(batches) == 3


# ------------------------------------------------------------------ 7.8: predict, then run (swap the lists)

RIGHT_7_8 = {"plain": (True, True), "idf": (False, False), "rescaled": (False, True)}


def _gaps_7_8():
    """The check's own gaps on ch07.pairs_7_8() and those of the slip "swapped P compared with the original P"."""
    return ch07_cases._expected_7_8(*map(tuple, ch07_cases._pairs_7_8()))


def test_7_8_solution_passes(capsys):
    import bert_score

    from course_lib.bertscore.baseline import default_baseline_path
    from course_lib.model import DEFAULT_LAYER, embedded_model_path

    ns = run_cells(NOTEBOOK_A, "prediction_7_8 = None", "gaps_7_8 = None", solution=True, ch07=ch07,
                   bert_score=bert_score, MODEL=str(embedded_model_path()), LAYER=DEFAULT_LAYER,
                   BASELINE=str(default_baseline_path(None)))
    assert ns["prediction_7_8"] == RIGHT_7_8
    assert passes(ch07.check_7_8, ns["prediction_7_8"], ns["gaps_7_8"], capsys)  # bert-score's run
    want, _ = _gaps_7_8()
    assert passes(ch07.check_7_8, RIGHT_7_8, want, capsys)  # course_lib's run: the same to 1e-5
    # the truth the prediction is judged by: plain swaps exactly; idf moves both; rescaling moves P only
    assert max(want["plain"]) < 1e-6 and min(want["idf"]) > 0.01 and want["rescaled"][0] > 1e-5 > want["rescaled"][1]


def _mistakes_7_8():
    """(name, prediction, gaps, words of the hint that names the mistake)."""
    want, p_with_p = _gaps_7_8()
    raw = dict(want, rescaled=want["plain"])  # bert-score without lang / baseline_path: raw scores, a warning
    return [
        ("no prediction yet", None, want, "first write your prediction"),
        ("a prediction but no run", RIGHT_7_8, None, "now run the swap"),
        ("'swapping always swaps P and R'", {k: (True, True) for k in RIGHT_7_8}, want,
         "computes the idf weights from `refs`"),
        ("'rescaled F changes too'", dict(RIGHT_7_8, rescaled=(False, False)), want, "rescaled with b_F both times"),
        ("'rescaling keeps P = R'", dict(RIGHT_7_8, rescaled=(True, True)), want, "b_P for P and b_R for R"),
        ("a prediction as text", dict(RIGHT_7_8, plain=("yes", "yes")), want, "write True (the same) or False"),
        ("swapped P compared with the original P", RIGHT_7_8, p_with_p, "compare the swapped P with the original R"),
        ("rescaled without a baseline file (raw scores)", RIGHT_7_8, raw, "returns raw scores with only a warning"),
        ("idf weights from fixed sentences", RIGHT_7_8, dict(want, idf=want["plain"]),
         "not from fixed idf_sents"),
        ("gaps as strings", RIGHT_7_8, dict(want, idf=tuple(str(v) for v in want["idf"])),
         "numbers written as strings"),
        ("a NaN gap", RIGHT_7_8, dict(want, idf=(float("nan"), 0.0)), "is NaN"),
        ("a signed difference", RIGHT_7_8, dict(want, idf=(-want["idf"][0], want["idf"][1])),
         "a gap is a largest absolute"),
        ("gaps of other pairs", RIGHT_7_8, dict(want, idf=(want["idf"][0] * 1.5, want["idf"][1])),
         "which is not what swapping"),
        ("(F gap, P gap)", RIGHT_7_8, dict(want, idf=want["idf"][::-1]), "your two gaps are in the wrong order"),
    ]


def test_7_8_hint_for_a_wrong_run_does_not_print_the_right_gaps(capsys):
    want, _ = _gaps_7_8()
    ch07.check_7_8(RIGHT_7_8, dict(want, idf=(want["idf"][0] * 1.5, want["idf"][1])))
    out = capsys.readouterr().out
    assert f"{want['idf'][0]:.2g}" not in out, out  # the right gap would be copied into gaps_7_8
    from course_lib.course.checks import reset_attempts

    reset_attempts("7.8")  # the next tests make this mistake again: a third repeat would show the code


@pytest.mark.parametrize("index", range(14))
def test_7_8_rejects_each_mistake_with_a_hint_naming_it(index, capsys):
    name, prediction, gaps, words = _mistakes_7_8()[index]
    assert not passes(ch07.check_7_8, prediction, gaps, capsys), name
    ch07.check_7_8(prediction, gaps)
    out = capsys.readouterr().out
    assert words in out and "Code:" not in out, (name, out)


def test_7_8_a_wrong_prediction_is_explained_then_corrected_and_the_first_stays_on_record(capsys):
    """Learning mode: a wrong prediction fails with what the run shows and why; corrected to the run, it passes, and
    the pass reports how the prediction made before the run fared (it never says how to erase it)."""
    reset_attempts("7.8")  # the failures earlier tests left in this process
    want, _ = _gaps_7_8()
    first = dict(RIGHT_7_8, rescaled=(True, True))  # 'rescaling keeps P = R'
    assert not passes(ch07.check_7_8, first, want, capsys)
    ch07.check_7_8(first, want)
    out = capsys.readouterr().out
    assert out.startswith("❌"), out
    assert "rescaled P: you predicted the same; the run shows a change: why?" in out
    assert "b_P for P and b_R for R" in out and "correct prediction_7_8 to what the run shows" in out, out
    assert "5 of 6 right" in out and "reset_attempts" not in out and "Code:" not in out, out
    ch07.check_7_8(RIGHT_7_8, want)  # corrected after reading why
    out = capsys.readouterr().out
    assert out.startswith("✅") and "your prediction before the run had 5 of 6 right" in out, out


def test_7_8_the_prediction_is_kept_when_the_pairs_are_handed_out(capsys):
    """ch07.pairs_7_8(prediction) keeps the prediction before any run: a right one given only at the check after the
    run passes, and the record is the one handed in with the pairs."""
    want, _ = _gaps_7_8()
    assert ch07.pairs_7_8({k: (True, True) for k in RIGHT_7_8}) == ch07_cases._pairs_7_8()
    ch07.check_7_8(RIGHT_7_8, want)
    out = capsys.readouterr().out
    assert out.startswith("✅") and "had 3 of 6 right" in out, out


def test_7_8_the_record_outlives_a_pass_and_reset_attempts_forgets_it(capsys):
    """A pass does not clear the record: a corrected prediction run again still reports the first one."""
    want, _ = _gaps_7_8()
    wrong = {k: (True, True) for k in RIGHT_7_8}
    assert passes(ch07.check_7_8, wrong, None, capsys) is False  # the prediction first, before the run
    assert not passes(ch07.check_7_8, wrong, want, capsys)
    for _ in range(2):  # the pass, then a Run All with the corrected prediction
        ch07.check_7_8(RIGHT_7_8, want)
        assert "had 3 of 6 right" in capsys.readouterr().out
    reset_attempts("7.8")
    assert not first_answers_file().exists() or "7.8" not in first_answers_file().read_text()
    ch07.check_7_8(RIGHT_7_8, want)
    assert "had 6 of 6 right" in capsys.readouterr().out


def test_7_8_the_pairs_need_a_prediction():
    with pytest.raises(AssertionError, match="first write your prediction"):
        ch07.pairs_7_8()


def test_7_8_grading_keeps_no_first_prediction(monkeypatch, capsys):
    """Grading keeps no attempts (each nbgrader run is a fresh process): it judges the prediction saved in the
    notebook, and writes no file."""
    monkeypatch.setenv("COURSE_GRADING", "1")
    from course_lib.course.checks import CheckFailed

    cands, refs = ch07.pairs_7_8({k: (True, True) for k in RIGHT_7_8})
    want = ch07_cases._expected_7_8(tuple(cands), tuple(refs))[0]
    assert ch07.check_7_8(RIGHT_7_8, want) is True
    with pytest.raises(CheckFailed):
        ch07.check_7_8(dict(RIGHT_7_8, plain=(False, True)), want)
    assert not first_answers_file().exists()


def test_7_8_hint_reveals_nothing_before_the_prediction(capsys):
    """Called before a prediction is written, the check says what to do and nothing about the answer."""
    ch07.check_7_8(None, None)
    out = capsys.readouterr().out
    assert "first write your prediction" in out
    for why in ("idf weights", "b_P", "b_F", "symmetric", "True, True"):
        assert why not in out, out


def test_7_8_pairs_are_drawn_with_the_grading_seed(monkeypatch):
    published = ch07_cases._pairs_7_8()
    monkeypatch.setenv("COURSE_GRADING", "1")
    monkeypatch.setenv("COURSE_GRADING_SEED", "3")
    hidden = ch07_cases._pairs_7_8()
    assert len(hidden[0]) == 5 and not set(hidden[0]) & set(published[0])


def test_7_8_explain_swap_prints_every_reason_and_refuses_a_run_it_contradicts():
    """The cell after 7.8 states no result in its markdown: explain_swap prints the reasons next to the student's
    run, and raises when the run shows something a reason would contradict (planted runs)."""
    from course_lib.bertscore.baseline import default_baseline_path
    from course_lib.bertscore.baseline import read_baseline
    from course_lib.teaching.swapping import WHY, explain_swap

    want, p_with_p = _gaps_7_8()
    row = tuple(read_baseline(str(default_baseline_path(None)))[4].tolist())
    text = " ".join(explain_swap(want, row, 4).split())  # the reasons come wrapped
    assert all(" ".join(reason.split()) in text for reason in WHY.values()), text
    for planted in (dict(want, rescaled=(want["rescaled"][0], 0.01)),  # rescaled F moved
                    dict(want, idf=want["plain"]),                       # idf left the swap exact
                    p_with_p):                                          # the swapped P compared with P
        with pytest.raises(AssertionError):
            explain_swap(planted, row, 4)
