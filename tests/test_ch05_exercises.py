"""Chapter 05's checkers: they pass the notebook's solutions, fail stubs and planted mistakes."""
import math
from collections import Counter, defaultdict
from functools import partial

import pytest
import torch

from course_lib.bertscore import idf as idf_lib
from course_lib.bertscore.embeddings import encode
from course_lib.course.checks import ch05, reset_attempts
from notebook_code import NOTEBOOKS, assert_names_mistake, definition, passes, stub

NOTEBOOK = NOTEBOOKS / "05_idf.ipynb"


solution = partial(definition, NOTEBOOK, math=math, Counter=Counter, defaultdict=defaultdict, torch=torch)


# ---- 5.1: bert-score's idf -------------------------------------------------------------------

def idf_no_smoothing(token_ids):  # the paper's formula: log(M / df), unseen -> log(M + 1)
    m, df = len(token_ids), Counter()
    for ids in token_ids:
        df.update(set(ids))
    weights = defaultdict(lambda: math.log(m + 1))
    weights.update({w: math.log(m / c) for w, c in df.items()})
    return weights


def idf_counts_occurrences(token_ids):  # counts every occurrence, not the texts
    m, df = len(token_ids), Counter()
    for ids in token_ids:
        df.update(ids)
    weights = defaultdict(lambda: math.log(m + 1))
    weights.update({w: math.log((m + 1) / (c + 1)) for w, c in df.items()})
    return weights


def idf_plain_dict(token_ids):  # right weights, but no weight for unseen tokens
    m, df = len(token_ids), Counter()
    for ids in token_ids:
        df.update(set(ids))
    return {w: math.log((m + 1) / (c + 1)) for w, c in df.items()}


def idf_unseen_zero(token_ids):
    weights = defaultdict(float)
    weights.update(idf_plain_dict(token_ids))
    return weights


def idf_log10(token_ids):
    weights = idf_plain_dict(token_ids)
    out = defaultdict(lambda: math.log10(len(token_ids) + 1))
    out.update({w: v / math.log(10) for w, v in weights.items()})
    return out


def idf_upside_down(token_ids):
    out = defaultdict(lambda: -math.log(len(token_ids) + 1))
    out.update({w: -v for w, v in idf_plain_dict(token_ids).items()})
    return out


@pytest.mark.parametrize("wrong, named", [(idf_counts_occurrences, "df counts every occurrence"),
                                          (idf_no_smoothing, "the paper's weights log(M / df)"),
                                          (idf_log10, "log base 10"), (idf_upside_down, "upside down")],
                         ids=lambda x: getattr(x, "__name__", "hint"))
def test_5_1_hints_name_the_mistake(wrong, named, capsys):
    reset_attempts("5.1")
    assert_names_mistake(ch05.check_5_1, wrong, named=named, capsys=capsys)


def test_5_1_solution_passes(capsys):
    assert passes(ch05.check_5_1, solution("my_idf"), capsys)


@pytest.mark.parametrize("wrong", [stub, idf_no_smoothing, idf_counts_occurrences, idf_plain_dict,
                                   idf_unseen_zero])
def test_5_1_wrong_answers_fail(wrong, capsys):
    assert not passes(ch05.check_5_1, wrong, capsys)


# ---- 5.2: the weights of a test set's candidates ---------------------------------------------

def _weights(token_ids, m, log=math.log, smooth=True, occurrences=False, unseen=None):
    df = Counter()
    for ids in token_ids:
        df.update(ids if occurrences else set(ids))
    default = log(m + 1) if unseen is None else unseen
    weights = defaultdict(lambda: default)
    weights.update({w: log((m + 1) / (c + 1)) if smooth else log(m / c) for w, c in df.items()})
    return weights


def _per_candidate(weights_from, cands, refs, tokenizer, **kw):
    corpus = weights_from(cands, refs)
    w = _weights([encode(tokenizer, t) for t in corpus], len(corpus), **kw)
    return [[w[i] for i in encode(tokenizer, c)] for c in cands]


def weights_from_candidates(cands, refs, tokenizer):  # idf from the wrong side of the test set
    return _per_candidate(lambda c, r: c, cands, refs, tokenizer)


def weights_from_both(cands, refs, tokenizer):  # candidates and references pooled
    return _per_candidate(lambda c, r: c + r, cands, refs, tokenizer)


def weights_paper_formula(cands, refs, tokenizer):  # log(M / df), no +1 smoothing
    return _per_candidate(lambda c, r: r, cands, refs, tokenizer, smooth=False)


def weights_log10(cands, refs, tokenizer):  # another base of the logarithm
    return _per_candidate(lambda c, r: r, cands, refs, tokenizer, log=math.log10)


def weights_count_occurrences(cands, refs, tokenizer):  # df counts tokens, not references
    return _per_candidate(lambda c, r: r, cands, refs, tokenizer, occurrences=True)


def weights_unseen_zero(cands, refs, tokenizer):  # a token in no reference weighs 0
    return _per_candidate(lambda c, r: r, cands, refs, tokenizer, unseen=0.0)


def weights_unique_references(cands, refs, tokenizer):  # M = distinct references only
    return _per_candidate(lambda c, r: sorted(set(r)), cands, refs, tokenizer)


def _solution_5_2():
    import numpy as np

    from course_lib.model import load
    from notebook_code import run_cells

    tokenizer, _ = load()
    return run_cells(NOTEBOOK, "def candidate_weights", solution=True, idf_lib=idf_lib, encode=encode, np=np,
                     ch05=ch05, tokenizer=tokenizer)


def test_5_2_solution_passes(capsys):
    ns = _solution_5_2()
    assert passes(ch05.check_5_2, ns["candidate_weights"], ns["heaviest_5_2"], capsys=capsys)
    tied = list(ns["heaviest_5_2"])
    tied[1] = "sang" if tied[1] == "bird" else "bird"  # bird and sang tie (both in no reference)
    assert passes(ch05.check_5_2, ns["candidate_weights"], tied, capsys=capsys)


def test_5_2_wrong_heaviest_fails(capsys):
    ns = _solution_5_2()
    right = list(ns["heaviest_5_2"])
    assert right[3] == "a"  # "a" (in one reference) beats "mat" (in the reference passed twice)
    for wrong in (None, right[:3], right[:3] + ["mat"], ["the"] * 4, right[:2] + ["the", "a"], ["log", "bird", "dog", "cat"]):
        assert not passes(ch05.check_5_2, ns["candidate_weights"], wrong, capsys=capsys)


@pytest.mark.parametrize("wrong", [stub, weights_from_candidates, weights_from_both, weights_paper_formula,
                                   weights_log10, weights_count_occurrences, weights_unseen_zero,
                                   weights_unique_references])
def test_5_2_wrong_answers_fail(wrong, capsys):
    assert not passes(ch05.check_5_2, wrong, ["log", "bird", "dog", "a"], capsys=capsys)


def test_5_2_test_set_has_one_reference_per_candidate_and_a_repeat():
    cands, refs = ch05.IDF_TEST_SET
    assert len(cands) == len(refs) and len(set(refs)) < len(refs)


# ---- 5.1's code hint runs as pasted ------------------------------------------------------------

def _code_hint(check, answer, capsys) -> str:
    check(answer, hint=2)
    out = capsys.readouterr().out
    return out.split(" Code: ", 1)[1].strip()


def test_5_1_code_hint_runs_when_pasted(capsys):
    code = _code_hint(ch05.check_5_1, idf_plain_dict, capsys)
    namespace = {"math": math, "Counter": Counter, "defaultdict": defaultdict}
    exec("def my_idf(token_ids):\n    " + code, namespace)
    assert passes(ch05.check_5_1, namespace["my_idf"], capsys)


# ---- 5.3: which references weigh nothing ------------------------------------------------------

def _token_sets(refs, tokenizer):
    return [set(encode(tokenizer, r)) for r in refs]


def weightless_duplicates(refs, tokenizer):  # FEW_REFS' weightless references happen to be its repeats
    return [k for k, r in enumerate(refs) if list(refs).count(r) > 1]


def weightless_whitespace(refs, tokenizer):  # words, not the model's tokens: "sat." is one "token"
    words = [set(r.lower().split()) for r in refs]
    in_every = set.intersection(*words)
    return [k for k, w in enumerate(words) if w <= in_every]


def weightless_some_token(refs, tokenizer):  # some token weighs 0 (not all of them)
    sets = _token_sets(refs, tokenizer)
    in_every = set.intersection(*sets) - {tokenizer.cls_token_id, tokenizer.sep_token_id}
    return [k for k, s in enumerate(sets) if s & in_every]


def weightless_any_weight_0(refs, tokenizer):  # [CLS]/[SEP] weigh 0 in every reference: all of them
    weights = idf_lib.idf_weights(refs, tokenizer)
    return [k for k, r in enumerate(refs) if min(weights[i] for i in encode(tokenizer, r)) == 0]


def weightless_df_counts_occurrences(refs, tokenizer):  # df += every occurrence, not each reference once
    ids = [encode(tokenizer, r) for r in refs]
    df = Counter(t for x in ids for t in x)
    special = {tokenizer.cls_token_id, tokenizer.sep_token_id}
    return [k for k, x in enumerate(ids) if sum(math.log((len(ids) + 1) / (df[t] + 1)) for t in x
                                                if t not in special) == 0]


def _right(refs, tokenizer):
    sets = _token_sets(refs, tokenizer)
    return [k for k, s in enumerate(sets) if s <= set.intersection(*sets)]


def weightless_from_1(refs, tokenizer):
    return [k + 1 for k in _right(refs, tokenizer)]


def weightless_mask(refs, tokenizer):
    return [k in _right(refs, tokenizer) for k in range(len(refs))]


def weightless_strings(refs, tokenizer):
    return [refs[k] for k in _right(refs, tokenizer)]


def weightless_by_scoring(refs, tokenizer):  # reads the NaN recalls off: the check forbids scoring
    import warnings

    import course_lib
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, R, _ = course_lib.score(list(refs), list(refs), idf=True)
    return [k for k, r in enumerate(R.tolist()) if math.isnan(r)]


def weightless_by_idf_lib(refs, tokenizer):  # idf from the library, the idea (total weight 0) its own
    weights = idf_lib.idf_weights(refs, tokenizer)
    return [k for k, r in enumerate(refs) if sum(weights[i] for i in encode(tokenizer, r)) == 0]


def test_5_3_answer_key_is_where_the_recall_is_nan():
    """The checker's key (course_lib's idf: total weight 0) is where course_lib.score's recall is NaN, on every
    case; the cases separate the slips: a weightless reference that is not a repeat, a repeat that weighs."""
    import warnings

    import course_lib
    from course_lib.course.checks import ch05_cases

    sets = [list(ch05.FEW_REFS[1])] + ch05_cases._reference_sets_5_3()
    assert ch05_cases._weightless(sets[0]) == [0, 3]  # "The cat sat.", passed twice
    for refs in sets:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, R, F = course_lib.score(list(refs), list(refs), idf=True)
        assert ch05_cases._weightless(refs) == [k for k, r in enumerate(R.tolist()) if math.isnan(r)], refs
    keys = [ch05_cases._weightless(refs) for refs in sets]
    assert [] in keys and any(k and k != weightless_duplicates(r, None) for r, k in zip(sets, keys))
    assert any(weightless_duplicates(r, None) and not set(weightless_duplicates(r, None)) & set(k)
               for r, k in zip(sets, keys))  # a repeated reference that weighs something


def test_5_3_hidden_cases_separate_the_slips_too(monkeypatch):
    """In grading mode the sets are drawn with the grading seed: on them too every slip fails, the solution passes."""
    from course_lib.course.checks import ch05_cases
    from course_lib.model import load

    tokenizer, _ = load()
    learning = ch05_cases._reference_sets_5_3()
    monkeypatch.setenv("COURSE_GRADING", "1")
    for seed in ("1", "2", "3"):
        monkeypatch.setenv("COURSE_GRADING_SEED", seed)
        sets = ch05_cases._reference_sets_5_3()
        assert sets != learning
        assert all(ch05_cases._slip_5_3(refs, _right(refs, tokenizer)) is None for refs in sets)
        for slip in (weightless_duplicates, weightless_whitespace, weightless_some_token, weightless_any_weight_0,
                     weightless_df_counts_occurrences,
                     weightless_from_1, weightless_mask, weightless_strings):
            assert any(ch05_cases._slip_5_3(refs, slip(refs, tokenizer)) for refs in sets), (seed, slip.__name__)


def test_5_3_solution_passes(capsys):
    assert passes(ch05.check_5_3, solution("weightless", encode=encode), capsys)
    assert passes(ch05.check_5_3, weightless_by_idf_lib, capsys)


@pytest.mark.parametrize("wrong", [stub, weightless_duplicates, weightless_whitespace, weightless_some_token,
                                   weightless_any_weight_0, weightless_from_1, weightless_mask, weightless_strings,
                                   weightless_by_scoring, lambda refs, tokenizer: [0, 3]])
def test_5_3_wrong_answers_fail(wrong, capsys):
    assert not passes(ch05.check_5_3, wrong, capsys)


@pytest.mark.parametrize("wrong, named", [
    (weightless_duplicates, "passed more than once"), (weightless_whitespace, "split the references on spaces"),
    (weightless_some_token, "*some* token of weight 0"), (weightless_any_weight_0, "*some* token of weight 0"),
    (weightless_from_1, "indices start at 0"), (weightless_mask, "you return a mask"),
    (weightless_strings, "the references themselves (strings)"),
    (weightless_df_counts_occurrences, "your df counts a token each time it occurs"),
    (weightless_by_scoring, "asks you to write yourself")])
def test_5_3_hints_name_the_mistake_idea_first(wrong, named, capsys):
    from course_lib.course.checks import reset_attempts

    reset_attempts()  # earlier tests repeated these mistakes: the code would show by itself
    assert ch05.check_5_3(wrong) is False
    out = capsys.readouterr().out
    assert named in out and "occurs in all M references" in out and "Code:" not in out, out
    assert ch05.check_5_3(wrong) is False and ch05.check_5_3(wrong) is False
    assert "Code:" in capsys.readouterr().out.splitlines()[-1]  # the third repeat of one mistake shows the code


def test_5_3_code_hint_runs_when_pasted(capsys):
    code = _code_hint(ch05.check_5_3, weightless_duplicates, capsys).split("  #")[0]
    namespace = {"encode": encode}
    exec("def weightless(refs, tokenizer):\n    " + code.replace("; ", "\n    "), namespace)
    assert passes(ch05.check_5_3, namespace["weightless"], capsys)


# ---- 5.4: the heaviest weights of a test set ----------------------------------------------------

M_CS = 560  # the cs-en rows (the checker counts them itself); 524 distinct references


def test_5_4(capsys):
    right = (math.log(M_CS + 1), math.log((M_CS + 1) / 2))
    unseen = list(ch05._unseen_tokens(ch05.INVENTED_CANDIDATE))
    assert "minister" in unseen and "##bula" in unseen and "prague" not in unseen  # a common word unseen too
    assert passes(ch05.check_5_4, right, unseen, capsys=capsys)
    for wrong in (None, 6.33, (right[1], right[0]), (math.inf, math.log(M_CS)),
                  (math.log(525), math.log(525 / 2)),           # distinct references only
                  (math.log(2565), math.log(2565 / 2)),         # the chapter's WMT16 corpus
                  (round(right[0], 2), round(right[1], 2))):    # rounded
        assert not passes(ch05.check_5_4, wrong, unseen, capsys=capsys)
    for wrong_unseen in (None, ["##or", "##bula"], unseen + ["prague"], "minister"):
        assert not passes(ch05.check_5_4, right, wrong_unseen, capsys=capsys)


def test_5_4_hints_name_rounding_and_repeats(capsys):
    right = (math.log(M_CS + 1), math.log((M_CS + 1) / 2))
    ch05.check_5_4((round(right[0], 2), round(right[1], 2)))
    assert "unrounded" in capsys.readouterr().out
    ch05.check_5_4((math.log(525), math.log(525 / 2)))
    assert "repeated one each time" in capsys.readouterr().out
    ch05.check_5_4((right[1], right[0]))  # the pair in the wrong order
    assert "wrong order" in capsys.readouterr().out
    unseen = list(ch05._unseen_tokens(ch05.INVENTED_CANDIDATE))
    ch05.check_5_4(right, unseen + ["zorbulak"])  # a word the tokenizer splits, not a token
    out = capsys.readouterr().out
    assert "'zorbulak'] is not a token of the candidate" in out and "occur in some" not in out


def test_5_4_solution_and_code_hint_run(capsys):
    import course_lib
    from course_lib.evaluation import datasets
    from course_lib.model import load
    from notebook_code import run_cells

    tokenizer, _ = load()
    names = dict(ch05=ch05, math=math, idf_lib=idf_lib, encode=encode, tokenizer=tokenizer, datasets=datasets,
                 wmt=datasets.wmt16(), course_lib=course_lib)
    ns = run_cells(NOTEBOOK, "answer_5_4", solution=True, **names)
    assert passes(ch05.check_5_4, ns["answer_5_4"], ns["unseen_5_4"], capsys=capsys)
    code = _code_hint(ch05.check_5_4, None, capsys)
    pasted = dict(names)
    exec(code, pasted)
    assert passes(ch05.check_5_4, pasted["answer_5_4"], pasted["unseen_5_4"], capsys=capsys)
