"""Bad input gets a clear error or a documented, warned behaviour -- never a deep traceback."""
import warnings

import bert_score
import pytest
import torch

import course_lib
from course_lib.evaluation import datasets
from course_lib.model import ModelNotAvailableError, embedded_model_path

PATH = str(embedded_model_path())
CAT = "The cat sat on the mat."
MAT = "A cat rested on a mat."


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
