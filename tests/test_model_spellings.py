"""One model, however it is named: every entry point resolves the model in one place
(`course_lib.model.choose_model` / `is_embedded`) and gives the same numbers for each spelling of
the embedded model: None, its hub name, its own directory (the path bert-score loads it by), and
lang="en" where the entry point has bert-score's `lang`.
"""
import pytest
import torch

import course_lib
from compare import max_diff
from course_lib.engine.long_text import chunked_score
from course_lib.evaluation.metric import BERTScoreMetric
from course_lib.model import EMBEDDED_MODEL, embedded_model_path, load

CANDS = ["The cat sat on the mat.", "It is freezing today.", "Red shoes cost $30."]
REFS = ["A cat rested on a mat.", "The weather is cold today.", "The blue socks cost $20."]

SPELLINGS = {
    "None": {},
    "name": {"model_type": EMBEDDED_MODEL},
    "directory": {"model_type": str(embedded_model_path())},
    "directory/": {"model_type": str(embedded_model_path()) + "/"},
    'lang="en"': {"lang": "en"},
}


def metric_scores(**kw):
    metric = BERTScoreMetric(**kw)
    rows = [metric.score(c, r) for c, r in zip(CANDS, REFS)]
    return tuple(torch.tensor([row[k] for row in rows]) for k in "PRF")


ENTRY_POINTS = {  # name -> (scores for the keyword arguments, does it take lang?)
    "score": (lambda **kw: course_lib.score(CANDS, REFS, **kw), True),
    "BERTScorer": (lambda **kw: course_lib.BERTScorer(**kw).score(CANDS, REFS), True),
    "reference_bertscore": (lambda **kw: course_lib.reference_bertscore(CANDS, REFS, **kw), True),
    "chunked_score": (lambda **kw: chunked_score(CANDS, REFS, **kw), True),
    "BERTScoreMetric": (metric_scores, False),
}


@pytest.fixture(scope="module")
def expected():
    """The embedded model at its default layer, raw and rescaled, by `course_lib.score` with no
    model named; and the demo's scores (it always uses the embedded model)."""
    from course_lib import demo

    raw = course_lib.score(CANDS, REFS)
    shown = [demo.analyze(c, r) for c, r in zip(CANDS, REFS)]
    assert max_diff(raw, [torch.tensor([x.raw[k] for x in shown]) for k in range(3)]) < 1e-6
    return {False: raw, True: course_lib.score(CANDS, REFS, rescale_with_baseline=True)}


CASES = [(entry, spelling) for entry, (_, takes_lang) in ENTRY_POINTS.items() for spelling in SPELLINGS
         if takes_lang or "lang" not in SPELLINGS[spelling]]  # BERTScoreMetric has no lang


@pytest.mark.parametrize("rescale", [False, True])
@pytest.mark.parametrize("entry, spelling", CASES)
def test_every_entry_point_takes_every_spelling_of_the_embedded_model(entry, spelling, rescale, expected):
    run, _ = ENTRY_POINTS[entry]
    got = run(**SPELLINGS[spelling], rescale_with_baseline=rescale)
    assert max_diff(got, expected[rescale]) < 1e-6, f"{entry} with {spelling}"


@pytest.mark.parametrize("spelling", [s for s in SPELLINGS if "lang" not in SPELLINGS[s]])
def test_load_checks_and_caches_the_embedded_model_once_whatever_its_name(spelling):
    assert load(**SPELLINGS[spelling]) is load()  # one cache entry, checked once (its checksums)


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_the_setting_is_recorded_the_same_whatever_the_name(spelling):
    kw = SPELLINGS[spelling]
    assert course_lib.BERTScorer(**kw).hash == course_lib.BERTScorer().hash
    assert course_lib.score(CANDS[:1], REFS[:1], return_hash=True, **kw)[1] == course_lib.BERTScorer().hash
    if "lang" not in kw:
        assert BERTScoreMetric(**kw).signature == BERTScoreMetric().signature
