"""Bad input gets a clear error or a documented, warned behaviour -- never a deep traceback."""
import warnings
from pathlib import Path
from collections import defaultdict

import bert_score
import pytest
import torch

import course_lib
from course_lib.engine.long_text import chunked_score
from course_lib.evaluation import datasets
from course_lib.model import ModelNotAvailableError, embedded_model_path

PATH = str(embedded_model_path())
CAT = "The cat sat on the mat."
MAT = "A cat rested on a mat."
TOL = 1e-5  # the course's claim: course_lib's engine, its reference and bert-score agree to 1e-5 on every P, R, F


def test_none_item_names_its_position():
    with pytest.raises(TypeError, match=r"cands\[1\] is NoneType"):
        course_lib.score([CAT, None], [MAT, MAT])
    with pytest.raises(TypeError, match=r"refs\[0\] is int"):
        course_lib.score([CAT], [3])
    with pytest.raises(TypeError, match=r"refs\[0\]\[1\] is NoneType"):
        course_lib.score([CAT], [[MAT, None]])


def test_a_single_string_is_not_a_list():
    with pytest.raises(TypeError, match="cands must be a list"):
        course_lib.score(CAT, [MAT])


def test_different_lengths_give_both_lengths():
    with pytest.raises(ValueError, match="2 candidates, 1 references"):
        course_lib.score([CAT, CAT], [MAT])


def test_empty_reference_group_is_an_error():
    with pytest.raises(ValueError, match=r"refs\[0\] is an empty list"):
        course_lib.score([CAT], [[]])


def test_empty_lists_give_empty_tensors():
    P, R, F = course_lib.score([], [])
    assert P.shape == R.shape == F.shape == (0,) and P.dtype == torch.float32


def test_empty_and_whitespace_strings_match_bert_score():
    cands = ["", "   ", CAT, "Hello there."]
    refs = [MAT, MAT, "\t ", "Hi there."]
    with pytest.warns(UserWarning, match="Empty (candidate|reference)"):
        ours = course_lib.score(cands, refs)
    theirs = bert_score.score(cands, refs, model_type=PATH, num_layers=4)
    for a, b in zip(ours, theirs):
        assert torch.allclose(a, b, atol=1e-6)
    assert ours[2][:3].tolist() == [0.0, 0.0, 0.0] and ours[2][3] > 0.5


def test_long_text_is_truncated_like_bert_score_with_one_warning():
    long_text = " ".join(datasets.wmt16().ref.tolist()[:40])  # ~1,000 word pieces
    cands, refs = [long_text, CAT, long_text], [MAT, long_text, "Short."]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = course_lib.score(cands, refs)
    messages = [str(w.message) for w in caught if "truncated" in str(w.message)]
    assert len(messages) == 1 and messages[0].startswith("1 text(s) longer than the model's 512-token")
    # one pair at a time: bert-score's padding zeros (see test_score_parity.assert_parity) bite
    # here, since a 512-token text against "Short." has tokens whose best cosine is negative
    for i in range(3):
        theirs = bert_score.score(cands[i:i + 1], refs[i:i + 1], model_type=PATH, num_layers=4)
        for a, b in zip(ours, theirs):
            assert abs(a[i].item() - b.item()) <= 1e-5


def test_other_scripts_are_scored_like_bert_score():
    cands = ["Ich mag Äpfel und Bäume 🍎", "我喜欢吃苹果。", "أنا أحب التفاح", "Café crème brûlée 😊", "שלום עולם"]
    refs = ["I like apples and trees", "我爱苹果", "التفاح لذيذ", "cafe creme brulee", "hello world"]
    ours = course_lib.score(cands, refs)
    theirs = bert_score.score(cands, refs, model_type=PATH, num_layers=4)
    assert all(torch.isfinite(x).all() for x in ours)
    for a, b in zip(ours, theirs):
        assert torch.allclose(a, b, atol=1e-5)


def test_missing_model_path_is_a_clear_error(tmp_path):
    with pytest.raises(ModelNotAvailableError, match="does not exist.*model_type=None"):
        course_lib.score([CAT], [MAT], model_type=str(tmp_path / "no-such-model"))


def test_unavailable_hub_name_is_a_clear_error():
    with pytest.raises(ModelNotAvailableError, match="embedded model"):
        course_lib.score([CAT], [MAT], model_type="no-such-org/no-such-model-xyz", num_layers=1)


def test_bad_layer_and_batch_size():
    with pytest.raises(ValueError, match="between 0 and 6"):
        course_lib.score([CAT], [MAT], num_layers=7)
    with pytest.raises(ValueError, match="batch_size"):
        course_lib.score([CAT], [MAT], batch_size=0)


def test_unknown_model_without_layer_asks_for_one():
    from course_lib.model import default_layer

    assert default_layer("roberta-large") == 17 and default_layer(None) == course_lib.DEFAULT_LAYER
    with pytest.raises(ValueError, match="num_layers"):
        default_layer("/some/local/model")


def test_missing_baseline_is_an_error_not_raw_scores(tmp_path):
    with pytest.raises(FileNotFoundError, match="baseline"):
        course_lib.score([CAT], [MAT], rescale_with_baseline=True, baseline_path=str(tmp_path / "x.tsv"))


def test_idf_from_one_reference_warns_and_mirrors_bert_score():
    # every reference token occurs in the only reference: idf = log(2/2) = 0, so R = 0/0
    with pytest.warns(UserWarning, match="total token weight 0"):
        P, R, F = course_lib.score([CAT], [MAT], idf=True)
    bP, bR, bF = bert_score.score([CAT], [MAT], model_type=PATH, num_layers=4, idf=True)
    assert torch.isnan(R).all() and torch.isnan(bR).all() and F.item() == bF.item() == 0.0
    assert abs(P.item() - bP.item()) <= 1e-6


def test_same_input_twice_and_batch_size_invariance():
    df = datasets.stsb("dev").head(120)
    cands, refs = df.sentence1.tolist(), df.sentence2.tolist()
    first = course_lib.score(cands, refs)
    again = course_lib.score(cands, refs)
    assert all(torch.equal(a, b) for a, b in zip(first, again))
    for batch_size in (1, 7, 500):
        other = course_lib.score(cands, refs, batch_size=batch_size)
        assert max((a - b).abs().max().item() for a, b in zip(first, other)) <= 1e-6


# ------------------------------------------- bad settings fail before any scoring

@pytest.fixture
def no_scoring(monkeypatch):
    """Scoring (the model run) fails the test: an error must come before it."""
    def scoring(*args, **kwargs):
        raise AssertionError("scoring started before the bad input was reported")

    course_lib.load()  # loading the model is not scoring
    monkeypatch.setattr("course_lib.engine.packing.embed_packed", scoring)
    monkeypatch.setattr("course_lib.bertscore.reference.pair_score", scoring)


ENTRY_POINTS = {  # every way to score, with bert-score's arguments
    "score": lambda **kw: course_lib.score([CAT], [MAT], **kw),
    "reference_bertscore": lambda **kw: course_lib.reference_bertscore([CAT], [MAT], **kw),
    "BERTScorer": lambda **kw: course_lib.BERTScorer(**kw).score([CAT], [MAT]),
}


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_idf_dict_missing_token_ids_names_them(entry, no_scoring):
    tokenizer, _ = course_lib.load()
    weights = {i: 1.0 for i in tokenizer.encode(MAT)}  # a plain dict with the reference's ids only
    with pytest.raises(ValueError, match=r"no weight for 2 token id\(s\).*1996 \('the'\), 2938 \('sat'\).*defaultdict"):
        ENTRY_POINTS[entry](idf=weights)


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -0.5])
def test_nan_inf_or_negative_idf_weight_is_an_error(entry, bad, no_scoring):
    tokenizer, _ = course_lib.load()
    weights = defaultdict(lambda: 1.0, {tokenizer.convert_tokens_to_ids("cat"): bad})
    with pytest.raises(ValueError, match=rf"idf weight of token 4937 is {bad}.*finite and >= 0"):
        ENTRY_POINTS[entry](idf=weights)
    with pytest.raises(ValueError, match="<default>"):  # a defaultdict's default is a weight too
        ENTRY_POINTS[entry](idf=defaultdict(lambda: bad))


def test_idf_weights_in_any_mapping_are_taken_as_a_dict():
    from types import MappingProxyType

    weights = dict(course_lib.BERTScorer(idf=True, idf_sents=[CAT, MAT]).idf_dict)  # covers both texts
    expected = course_lib.score([CAT], [MAT], idf=weights)
    frozen = MappingProxyType(weights)  # a Mapping, not a dict: check_idf accepts it, so must every entry
    for got in (course_lib.score([CAT], [MAT], idf=frozen), course_lib.reference_bertscore([CAT], [MAT], idf=frozen),
                course_lib.BERTScorer(idf=frozen).score([CAT], [MAT])):
        assert all((a - b).abs().max() < 1e-6 for a, b in zip(got, expected))


@pytest.mark.parametrize("cands, refs, error, words", [
    ("A cat.", ["A mat."], TypeError, "cands must be a list of strings"),
    ([CAT], [MAT, MAT], ValueError, "same length"), ([None], [MAT], TypeError, r"cands\[0\] is NoneType"),
    ([CAT], [[MAT, CAT]], TypeError, "one reference")])
def test_chunked_score_checks_its_inputs_as_score_does(cands, refs, error, words):
    with pytest.raises(error, match=words):
        chunked_score(cands, refs)


def test_idf_that_is_not_a_dict_is_an_error():
    with pytest.raises(TypeError, match="idf must be True, False or a dict"):
        course_lib.score([CAT], [MAT], idf="yes")


def test_a_complete_idf_dict_still_scores_like_bert_score():
    tokenizer, _ = course_lib.load()
    weights = {i: 1.0 + (i % 3) for i in set(tokenizer.encode(CAT) + tokenizer.encode(MAT))}
    ours = course_lib.score([CAT], [MAT], idf=weights)
    theirs = bert_score.score([CAT], [MAT], model_type=PATH, num_layers=4, idf=weights)
    assert max((a - b).abs().max().item() for a, b in zip(ours, theirs)) <= 1e-6


BASELINE_HEADER = "LAYER,P,R,F\n"
GOOD_ROWS = "".join(f"{k},0.3,0.3,0.3\n" for k in range(7))


@pytest.mark.parametrize("text, words", [
    (BASELINE_HEADER + GOOD_ROWS.replace("4,0.3,0.3,0.3", "4,0.3,1.0,0.3"), r"line 6.*must be < 1"),
    (BASELINE_HEADER + GOOD_ROWS.replace("4,0.3,0.3,0.3", "4,0.3,1.7,0.3"), r"line 6.*must be < 1"),
    (BASELINE_HEADER + GOOD_ROWS.replace("4,0.3,0.3,0.3", "4,nan,0.3,0.3"), r"line 6.*finite numbers"),
    (BASELINE_HEADER + GOOD_ROWS.replace("4,0.3,0.3,0.3", "4,0.3,inf,0.3"), r"line 6.*finite numbers"),
    (BASELINE_HEADER + GOOD_ROWS.replace("4,0.3,0.3,0.3", "4,0.3,abc,0.3"), r"line 6.*finite numbers"),
    (BASELINE_HEADER + GOOD_ROWS.replace("4,0.3,0.3,0.3", "4,0.3,0.3"), r"line 6.*4 finite numbers"),
    (BASELINE_HEADER, "no baseline rows"),
    ("", "an empty file"),
    (BASELINE_HEADER + "".join(f"{k},0.3,0.3,0.3\n" for k in range(3)), r"layers 0..2, but the model has layers 0..6"),
    (BASELINE_HEADER + "".join(f"{k},0.3,0.3,0.3\n" for k in range(25)), r"layers 0..24, but the model has layers 0..6"),
])
@pytest.mark.parametrize("all_layers", [False, True])
def test_bad_baseline_file_is_an_error_before_scoring(tmp_path, text, words, all_layers, no_scoring):
    path = tmp_path / "baseline.tsv"
    path.write_text(text)
    with pytest.raises(ValueError, match=words):
        course_lib.score([CAT], [MAT], rescale_with_baseline=True, baseline_path=str(path), all_layers=all_layers)
    with pytest.raises(ValueError, match=words):
        course_lib.BERTScorer(rescale_with_baseline=True, baseline_path=str(path), all_layers=all_layers)


def test_reference_bertscore_checks_the_baseline_file_too(tmp_path):
    path = tmp_path / "baseline.tsv"
    path.write_text(BASELINE_HEADER + GOOD_ROWS.replace("4,0.3,0.3,0.3", "4,0.3,1.0,0.3"))
    with pytest.raises(ValueError, match="must be < 1"):
        course_lib.reference_bertscore([CAT], [MAT], rescale_with_baseline=True, baseline_path=str(path))
    path.write_text(BASELINE_HEADER + "0,0.3,0.3,0.3\n")
    for entry in (course_lib.score, course_lib.reference_bertscore, chunked_score):  # one rule: baseline_file
        with pytest.raises(ValueError, match="layers 0..0, but the model has layers 0..6: it is another model's"):
            entry([CAT], [MAT], rescale_with_baseline=True, baseline_path=str(path))


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("layer", [True, False, 2.0, "4", -1, 7])
def test_num_layers_must_be_an_int_layer(entry, layer, no_scoring):
    # True was layer 1 (a bool is an int in Python)
    with pytest.raises(ValueError, match="num_layers must be an int between 0 and 6"):
        ENTRY_POINTS[entry](num_layers=layer)


@pytest.mark.parametrize("invisible", ["\u200b\u200b", "\x01\x02", "\u200b \u200d\ufeff", "\x00"])
def test_text_that_tokenizes_to_nothing_is_empty_text(invisible):
    # the same rule as "" (bert-score's): P = R = F = 0, with the empty-text warning
    cands, refs = [invisible, CAT], [MAT, invisible]
    with pytest.warns(UserWarning, match="Empty (candidate|reference)"):
        ours = course_lib.score(cands, refs)
    with pytest.warns(UserWarning, match="Empty (candidate|reference)"):
        reference = course_lib.reference_bertscore(cands, refs)
    with pytest.warns(UserWarning, match="Empty (candidate|reference)"):
        empty = course_lib.score(["", CAT], [MAT, ""])
    theirs = bert_score.score(cands, refs, model_type=PATH, num_layers=4)
    for a, b, c, d in zip(ours, reference, empty, theirs):
        assert a.tolist() == b.tolist() == c.tolist() == d.tolist() == [0.0, 0.0]


def test_lone_surrogate_is_scored_like_bert_score():
    cands, refs = ["abc \ud800 def", CAT, "\udfff"], [MAT, "a cat \udbff on a mat", "x"]
    with pytest.warns(UserWarning, match="Empty candidate"):  # "\udfff" alone is empty text
        ours = course_lib.score(cands, refs)
    with pytest.warns(UserWarning, match="Empty candidate"):
        one_by_one = course_lib.reference_bertscore(cands, refs)
    theirs = bert_score.score(cands, refs, model_type=PATH, num_layers=4)
    for a, b, c in zip(ours, one_by_one, theirs):
        assert torch.isfinite(a).all() and a[0] > 0
        assert torch.allclose(a, c, atol=1e-6) and torch.allclose(b, c, atol=1e-6)
    with pytest.warns(UserWarning, match="Empty candidate"):  # idf tokenizes the references too
        ours_idf = course_lib.score(cands, refs, idf=True)
    theirs_idf = bert_score.score(cands, refs, model_type=PATH, num_layers=4, idf=True)
    for a, c in zip(ours_idf, theirs_idf):
        assert torch.allclose(a, c, atol=1e-6)


def test_lone_surrogate_with_the_fast_tokenizer_is_a_clear_error(no_scoring):
    # bert-score's use_fast_tokenizer=True raises a TypeError from inside the tokenizer here
    with pytest.raises(ValueError, match=r"refs\[1\]\[0\] has a lone surrogate.*use_fast_tokenizer=False"):
        course_lib.score([CAT, CAT], [MAT, ["a \ud800"]], use_fast_tokenizer=True)


def test_metric_idf_needs_a_corpus_and_checks_its_layer_at_construction(no_scoring):
    from course_lib.evaluation.metric import BERTScoreMetric

    # idf from the one reference being scored: every idf is log(2/2) = 0, so R was NaN, F 0
    with pytest.raises(ValueError, match=r"idf=True\) needs a corpus"):
        BERTScoreMetric(idf=True)
    with pytest.raises(ValueError, match="corpus is empty"):
        BERTScoreMetric(idf=[])
    for layer in (99, -1, True):
        with pytest.raises(ValueError, match="num_layers must be an int between 0 and 6"):
            BERTScoreMetric(num_layers=layer)


# ------------------------------------------- one setting, one rule (issue 29's bugs)

@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_an_empty_idf_dict_is_weights_in_every_entry_point(entry, no_scoring):
    # {} is a dict of weights that weighs no token, not "idf off": every entry point refuses it
    # alike (BERTScorer once tested the dict for truth and scored silently without idf)
    with pytest.raises(ValueError, match=r"no weight for \d+ token id\(s\)"):
        ENTRY_POINTS[entry](idf={})


def test_an_idf_dict_hashes_as_idf_in_scorer_and_score():
    weights = defaultdict(lambda: 1.0)  # empty, with a default: weighs every token
    scorer = course_lib.BERTScorer(idf=weights)
    (_, hashed) = course_lib.score([CAT], [MAT], idf=weights, return_hash=True)
    assert "_L4_idf_" in scorer.hash and scorer.hash == hashed
    assert scorer.idf_dict is weights


def test_the_empty_text_rule_is_written_once():
    # the reference and the engine warn with the same words (bert-score's), for either side
    said = []
    for entry in (course_lib.score, course_lib.reference_bertscore):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = entry(["", CAT, CAT], [MAT, " ", MAT])
        said.append(sorted(str(w.message) for w in caught))
        assert [x.tolist()[:2] for x in out] == [[0.0, 0.0]] * 3
    assert said[0] == said[1] == ["Empty candidate sentence detected (cands[0]); setting raw BERTScores to 0.",
                                  "Empty reference sentence detected (refs[1]); setting raw BERTScores to 0."]


def _said(call) -> list[tuple[str, str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [(str(w.message), Path(w.filename).name) for w in caught if "Empty" in str(w.message)]


def test_the_empty_text_warning_names_each_text_where_the_user_passed_it():
    # the engine sorts and packs texts by length; the warning still names the user's own indices,
    # once per side, and points at the user's line (this file), not inside course_lib
    from course_lib.engine.long_text import chunked_score

    cands, refs = [CAT, "", CAT, " ", "\u200b", CAT, ""], [MAT, MAT, "", MAT, MAT, MAT, MAT]
    want = [("Empty candidate sentence detected (cands[1], cands[3], cands[4] and 1 more); setting raw BERTScores "
             "to 0.", "test_bad_input.py"),
            ("Empty reference sentence detected (refs[2]); setting raw BERTScores to 0.", "test_bad_input.py")]
    scorer = course_lib.BERTScorer()
    for call in (lambda: course_lib.score(cands, refs), lambda: course_lib.reference_bertscore(cands, refs),
                 lambda: scorer.score(cands, refs), lambda: chunked_score(cands, refs)):
        assert _said(call) == want
    several = _said(lambda: course_lib.score([CAT, CAT], [[MAT, MAT], [MAT, " "]]))  # refs[i][j]
    assert several == [("Empty reference sentence detected (refs[1][1]); setting raw BERTScores to 0.",
                        "test_bad_input.py")]
    assert _said(lambda: course_lib.score([CAT], [MAT])) == []


def test_a_pandas_series_or_numpy_array_of_str_is_a_list_of_str():
    import numpy as np
    import pandas as pd

    cands, refs = [CAT, "Hello there."], [MAT, "Hi there."]
    expected = course_lib.score(cands, refs)
    expected_reference = course_lib.reference_bertscore(cands, refs)
    # the reference is another code path (pair by pair): it agrees with the engine to TOL, not bit for bit
    assert all((a - b).abs().max().item() <= TOL for a, b in zip(expected_reference, expected))
    for convert in (pd.Series, lambda x: np.array(x, dtype=object), np.array):  # np.array: dtype '<U..'
        # the same function on the converted texts as on the list: the same numbers, exactly
        for got, want in ((course_lib.score(convert(cands), convert(refs)), expected),
                          (course_lib.BERTScorer().score(convert(cands), convert(refs)), expected),  # the engine's path
                          (course_lib.reference_bertscore(convert(cands), convert(refs)), expected_reference)):
            assert all(torch.equal(a, b) for a, b in zip(got, want))
    with pytest.raises(TypeError, match=r"cands\[1\] is float, expected str"):  # a Series' NaN, by position
        course_lib.score(pd.Series([CAT, float("nan"), CAT], index=[7, 8, 9]), refs + [MAT])
    with pytest.raises(TypeError, match=r"sents\[1\] is int, expected str"):
        course_lib.BERTScorer(idf=True).compute_idf(np.array([CAT, 3], dtype=object))
    with pytest.raises(TypeError, match="cands must be a list of strings, got ndarray"):
        course_lib.score(np.array([[CAT]]), [MAT])  # two-dimensional: not a list
