"""A bert-score script migrated to course_lib (only the import changed): what the README's "Coming from
bert-score" section promises, each promise a test."""
import sys
import warnings

import bert_score
import pytest
import torch

import course_lib
from course_lib.bertscore.baseline import baseline_file, read_baseline
from course_lib.model import DEFAULT_LAYER, embedded_model_path


def test_an_empty_candidate_rescaled_scores_minus_b_over_one_minus_b_as_in_bert_score():
    """Empty text scores P = R = F = 0 raw; rescaled, that 0 becomes (0 - b) / (1 - b) like any score:
    below 0 (the README states it; bert-score does the same)."""
    cands, refs = ["", "A cat sat on the mat."], ["The weather is cold today.", "A cat was on the mat."]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = torch.stack(course_lib.score(cands, refs, rescale_with_baseline=True))
        path = baseline_file(None, None)
        theirs = torch.stack(bert_score.score(cands, refs, model_type=str(embedded_model_path()),
                                              num_layers=DEFAULT_LAYER, lang="en", rescale_with_baseline=True,
                                              baseline_path=path, batch_size=1))
    b = read_baseline(path)[DEFAULT_LAYER]
    assert torch.allclose(ours[:, 0], -b / (1 - b), atol=1e-6) and (ours[:, 0] < 0).all()
    assert torch.allclose(ours, theirs, atol=1e-5)
    assert round(float(ours[2, 0]), 2) == -0.57  # the README's number


def test_a_missing_model_is_a_clear_error_at_once_without_asking_the_network(monkeypatch):
    """A plain script (no HF_HUB_OFFLINE) naming a model this machine lacks: transformers is only asked for
    local files, and the error says how to allow a download (HF_HUB_OFFLINE=0)."""
    import transformers

    from course_lib import model

    calls = []

    def missing(name, *args, **kwargs):
        calls.append(kwargs.get("local_files_only", False))
        raise OSError(f"{name} is not on this machine")
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", missing)
    monkeypatch.setattr(transformers.AutoModel, "from_pretrained", missing)
    with pytest.raises(model.ModelNotAvailableError, match="HF_HUB_OFFLINE=0"):
        model._from_pretrained(model.model_ref("some-org/a-model-nobody-has"))
    assert calls and all(calls), "transformers was asked to download"
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")  # the user allows downloads: then it tries
    with pytest.raises(model.ModelNotAvailableError, match="could not be downloaded"):
        model._from_pretrained(model.model_ref("some-org/a-model-nobody-has"))
    assert calls[-1] is False


def test_lang_en_names_the_model_and_layer_once_at_the_callers_line(monkeypatch):
    """A migrated script's lang="en" means MiniLM at layer 4 here, roberta-large at 17 in bert-score: the
    first call says so in a warning that points at the script's own line, and only once."""
    from course_lib import notices

    monkeypatch.setattr(notices, "_SAID", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        course_lib.score(["A cat."], ["A cat sat."], lang="en"); line = sys._getframe().f_lineno  # noqa: E702
        course_lib.score(["A cat."], ["A cat sat."], lang="en")
    said = [w for w in caught if "lang='en'" in str(w.message)]
    assert len(said) == 1, [str(w.message) for w in caught]
    assert "all-MiniLM-L6-v2 at layer 4" in str(said[0].message) and "roberta-large at layer 17" in str(said[0].message)
    assert said[0].filename == __file__ and said[0].lineno == line


def test_warnings_point_at_the_line_that_called_course_lib():
    """Empty text, a truncated text and replaced idf weights: each warning names this file and line,
    not a line inside the library (Python prints that line under the warning)."""
    long_text = "word " * 600
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        course_lib.score(["", long_text], ["A cat.", "A dog."]); line = sys._getframe().f_lineno  # noqa: E702
        scorer = course_lib.BERTScorer(idf=True, idf_sents=["A cat.", "A dog."])
        scorer.compute_idf(["A cat sat.", "A dog sat."]); idf_line = sys._getframe().f_lineno  # noqa: E702
    said = {w.message.args[0].split()[0]: w for w in caught}
    assert {"Empty", "1", "Overwriting"} <= set(said), [str(w.message) for w in caught]
    for first, at in (("Empty", line), ("1", line), ("Overwriting", idf_line)):
        assert (said[first].filename, said[first].lineno) == (__file__, at), (first, said[first].filename)
