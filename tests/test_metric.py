"""course_lib.evaluation.metric (BERTScoreMetric: validation, frame scoring) and course_lib.evaluation.signature."""
import math

import pandas as pd
import pytest
import torch

import course_lib
from course_lib.bertscore.embeddings import encode
from course_lib.bertscore.idf import idf_from_ids
from course_lib.evaluation.metric import BERTScoreMetric, validate_text
from course_lib.evaluation.signature import signature, versions
from course_lib.model import embedded_model_path, model_ref

ANSWERS = ["Water boils at 100 degrees Celsius at sea level.", "Jane Austen.",
           "The capital of Australia is Sydney, its largest city and main port."]
REFERENCES = ["At sea level water boils at 100 °C.", "Pride and Prejudice was written by Jane Austen.",
              "The capital of Australia is Canberra."]


@pytest.fixture(scope="module")
def metric():
    return BERTScoreMetric()


def frame(answers=ANSWERS, references=REFERENCES):
    return pd.DataFrame({"question": [f"q{k}" for k in range(len(answers))],
                         "answer": answers, "reference": references},
                        index=[f"row{k}" for k in range(len(answers))])


# ------------------------------------------------------------------ validation

@pytest.mark.parametrize("bad, error, words", [
    ("", ValueError, "empty"), ("   \n\t", ValueError, "whitespace"),
    (None, TypeError, "NoneType"), (3, TypeError, "int"), (["a"], TypeError, "list"),
    (float("nan"), TypeError, "NaN"), (b"bytes", TypeError, "bytes"),
])
def test_validate_text_rejects(bad, error, words):
    with pytest.raises(error, match=words):
        validate_text(bad, "answer")


@pytest.mark.parametrize("side", ["answer", "reference"])
@pytest.mark.parametrize("bad, error", [("", ValueError), ("  ", ValueError), (None, TypeError), (1.5, TypeError)])
def test_score_rejects_bad_pair(metric, side, bad, error):
    pair = {"answer": "A cat.", "reference": "The cat."} | {side: bad}
    with pytest.raises(error, match=side):
        metric.score(**pair)


@pytest.mark.parametrize("column", ["answer", "reference"])
@pytest.mark.parametrize("bad, error", [("", ValueError), (" \t", ValueError), (None, TypeError),
                                        (float("nan"), TypeError), (7, TypeError)])
def test_score_frame_names_the_bad_row(metric, column, bad, error):
    df = frame()
    df.loc["row1", column] = bad
    with pytest.raises(error, match=rf"row 'row1': {column}"):
        metric.score_frame(df)


def test_score_frame_rejects_non_frames_and_missing_columns(metric):
    with pytest.raises(TypeError, match="DataFrame"):
        metric.score_frame({"answer": ANSWERS, "reference": REFERENCES})
    with pytest.raises(KeyError, match="expected"):
        metric.score_frame(frame(), reference_col="expected")


# ------------------------------------------------------------------ scoring

def test_score_frame_equals_course_lib_score(metric):
    df = frame()
    out = metric.score_frame(df)
    P, R, F = course_lib.score(ANSWERS, REFERENCES)
    for col, want in zip("PRF", (P, R, F)):
        assert torch.allclose(torch.tensor(out[col].to_numpy(), dtype=torch.float32), want, atol=1e-6)
    assert list(out.index) == list(df.index)
    assert list(out.columns) == ["question", "answer", "reference", "P", "R", "F"]
    assert "P" not in df.columns  # the input frame is not modified


def test_score_one_pair_equals_frame_row(metric):
    out = metric.score_frame(frame())
    for k, (a, r) in enumerate(zip(ANSWERS, REFERENCES)):
        one = metric.score(a, r)
        assert set(one) == {"P", "R", "F"}
        for col in "PRF":
            assert math.isclose(one[col], out[col].iloc[k], abs_tol=1e-6)


def test_options_reach_course_lib():
    corpus = REFERENCES + ANSWERS  # idf weights computed once, from this corpus
    m = BERTScoreMetric(num_layers=2, idf=corpus, rescale_with_baseline=True)
    out = m.score_frame(frame(), answer_col="answer", reference_col="reference")
    tokenizer, _ = course_lib.load()
    weights = idf_from_ids([encode(tokenizer, t) for t in corpus])
    _, _, F = course_lib.score(ANSWERS, REFERENCES, num_layers=2, idf=weights, rescale_with_baseline=True)
    assert torch.allclose(torch.tensor(out.F.to_numpy(), dtype=torch.float32), F, atol=1e-6)
    one = m.score(ANSWERS[0], REFERENCES[0])  # the same weights for one pair as for the frame
    assert math.isclose(one["F"], out.F.iloc[0], abs_tol=1e-6)


def test_metric_holds_one_bertscorer():
    m = BERTScoreMetric(num_layers=3)
    assert isinstance(m.scorer, course_lib.BERTScorer) and m.scorer.num_layers == 3
    _, model = course_lib.load()
    assert m.scorer._model is model  # the cached model: loaded once per process


def test_empty_frame(metric):
    out = metric.score_frame(frame([], []))
    assert len(out) == 0 and {"P", "R", "F"} <= set(out.columns)


# ------------------------------------------------------------------ signature

def test_signature_default():
    """The exact string, with versions read from independent sources: the running torch and
    transformers, and pyproject.toml for course_lib (the installed metadata must agree)."""
    import tomllib

    import transformers

    from course_lib.paths import ROOT

    course = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    sig = signature()
    assert sig == (f"all-MiniLM-L6-v2_L4_no-idf_raw_course_lib={course}"
                   f"_torch={torch.__version__}_transformers={transformers.__version__}")
    assert versions()["course_lib"] == course and versions(["no-such-package"]) == {"no-such-package": "unknown"}


@pytest.mark.parametrize("change", [{"num_layers": 2}, {"idf": True}, {"rescale_with_baseline": True},
                                    {"exclude_special": True}])
def test_signature_changes_with_each_option(change):
    assert signature(**change) != signature()


def test_signature_layer_none_is_the_default_layer():
    assert signature() == signature(num_layers=course_lib.DEFAULT_LAYER)
    assert signature(model_type="all-MiniLM-L6-v2") == signature()


def test_signature_has_no_machine_path(tmp_path):
    local = tmp_path / "my-finetuned-model"  # a model of one's own, in a local directory
    local.mkdir()
    for file in embedded_model_path().iterdir():
        (local / file.name).symlink_to(file)
    assert model_ref(str(local)).display_name == "my-finetuned-model"
    assert str(tmp_path) not in signature(model_type=str(local), num_layers=3)
    assert model_ref("roberta-large").display_name == "roberta-large"


def test_signature_refuses_the_layers_score_refuses():  # it resolves the setting as score does
    for bad in (99, -1, 7, True, 2.0):
        with pytest.raises(ValueError, match="num_layers must be an int between 0 and 6"):
            signature(num_layers=bad)
    assert "_L6_" in signature(num_layers=6)


def test_metric_carries_its_signature():
    m = BERTScoreMetric(idf=REFERENCES, num_layers=3)
    assert m.signature == signature(idf=True, num_layers=3)
    assert m.signature in repr(m)
