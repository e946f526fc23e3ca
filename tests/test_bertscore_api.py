"""bert-score's own API tests, replayed on course_lib as a user migrating from bert-score would.

The calls of bert-score's tests/test_score_function.py and tests/test_scorer.py (Tiiiger/bert_score,
https://github.com/Tiiiger/bert_score/tree/master/tests; Zhang et al., "BERTScore: Evaluating Text
Generation with BERT", ICLR 2020) are made on `course_lib.score` and `course_lib.BERTScorer` with
the same positional and keyword arguments, the same sentences, and checked for the same return
shapes and hash format. One change: the course runs offline, so the model is the embedded
all-MiniLM-L6-v2 (its directory, `embedded_model_path()`, at layer 4) instead of roberta-large at
layer 17, and lang="en" means the embedded model. bert-score's hard-coded roberta-large numbers
are replaced by bert-score itself, run on the same model: every P, R, F within TOL.
Rescaling uses the course's baseline file, given to bert-score as `baseline_path` (bert-score
ships no baseline for this model).
"""
import inspect
import warnings

import bert_score
import matplotlib
import numpy as np
import pytest
import torch
from transformers import __version__ as ht_version

import course_lib
from course_lib.bertscore.baseline import default_baseline_path
from course_lib.model import embedded_model_path

matplotlib.use("Agg")

MODEL = str(embedded_model_path())  # replaces "roberta-large"
NAME = course_lib.EMBEDDED_MODEL  # in course_lib's hash: the embedded model's name, never this machine's path
LAYER = 4                            # replaces 17
BASELINE = str(default_baseline_path(None))
TOL = 1e-5  # absolute, on every P, R, F (bert-score's own tests: 5 decimals)
VERSION = f"version={bert_score.__version__}(hug_trans={ht_version})"

# the sentences of bert-score's tests
cands = [
    "28-year-old chef found dead in San Francisco mall",
    "A 28-year-old chef who recently moved to San Francisco was found dead in the staircase of a local shopping center.",
    'The victim\'s brother said he cannot imagine anyone who would want to harm him,"Finally, it went uphill again at him."',
]
refs = [
    "28-Year-Old Chef Found Dead at San Francisco Mall",
    "A 28-year-old chef who had recently moved to San Francisco was found dead in the stairwell of a local mall this week.",
    "But the victim's brother says he can't think of anyone who would want to hurt him, saying, \"Things were finally going well for him.\"",
]
MULTI_CANDS = ["I like lemons.", "Hi", "Hey", "Hello", "Go", ""]
MULTI_REFS = [
    ["I am proud of you.", "I love lemons.", "Go go go."],
    ["I am proud of you.", "Go go go."],
    ["Hi", ""],
    ["I am proud of you.", "I love lemons.", "Go go go.", "hello"],
    ["I am proud of you.", "Go go go.", "Go", "Go to school"],
    ["test"],
]

def assert_are_tensors(*args):
    assert all(torch.is_tensor(a) for a in args), "All values should be of type torch.Tensor"


def assert_close(ours, theirs, tol=TOL):
    """Same shapes, every value within tol; returns the largest |ours - theirs|."""
    assert len(ours) == len(theirs) == 3
    for a, b in zip(ours, theirs):
        assert a.shape == b.shape
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=0, atol=tol)
    return max((a - b).abs().max().item() for a, b in zip(ours, theirs))


def test_hash_format():  # what each test below expects, written out once
    assert course_lib.score(cands[:1], refs[:1], model_type=MODEL, num_layers=LAYER, return_hash=True)[1] \
        == f"{NAME}_L4_no-idf_{VERSION}"


# ---------------------------------------------------------- tests/test_score_function.py

@pytest.mark.parametrize("idf", [False, True])
def test_score_and_idf_score(idf):  # test_score, test_idf_score
    (P, R, F), hash_code = course_lib.score(
        cands, refs, model_type=MODEL, num_layers=LAYER, idf=idf, batch_size=3, return_hash=True)
    (bP, bR, bF), their_hash = bert_score.score(
        cands, refs, model_type=MODEL, num_layers=LAYER, idf=idf, batch_size=3, return_hash=True)
    assert_are_tensors(P, R, F)
    assert_close((P, R, F), (bP, bR, bF))
    assert hash_code == f"{NAME}_L4_{'idf' if idf else 'no-idf'}_{VERSION}" == their_hash.replace(MODEL, NAME)  # bert-score hashes the path it was given


@pytest.mark.parametrize("idf", [False, True])
def test_score_rescale_and_idf_score_rescale(idf):  # test_score_rescale, test_idf_score_rescale
    (P, R, F), hash_code = course_lib.score(
        cands, refs, model_type=MODEL, num_layers=LAYER, idf=idf, batch_size=3, return_hash=True,
        lang="en", rescale_with_baseline=True)
    theirs = bert_score.score(
        cands, refs, model_type=MODEL, num_layers=LAYER, idf=idf, batch_size=3,
        lang="en", rescale_with_baseline=True, baseline_path=BASELINE)
    assert_are_tensors(P, R, F)
    assert_close((P, R, F), theirs)
    assert hash_code == f"{NAME}_L4_{'idf' if idf else 'no-idf'}_{VERSION}-rescaled"


def test_idf_score_rescale_fast_tokenizer():
    (P, R, F), hash_code = course_lib.score(
        cands, refs, model_type=MODEL, num_layers=LAYER, idf=True, batch_size=3, return_hash=True,
        lang="en", rescale_with_baseline=True, use_fast_tokenizer=True)
    theirs = bert_score.score(
        cands, refs, model_type=MODEL, num_layers=LAYER, idf=True, batch_size=3,
        lang="en", rescale_with_baseline=True, baseline_path=BASELINE, use_fast_tokenizer=True)
    assert_are_tensors(P, R, F)
    assert_close((P, R, F), theirs)
    assert hash_code == f"{NAME}_L4_idf_{VERSION}-rescaled_fast-tokenizer"


def test_multi_refs():
    c, r = ["I like lemons."], [["I am proud of you.", "I love lemons.", "Go go go."]]
    P_mul, R_mul, F_mul = course_lib.score(c, r, batch_size=3, return_hash=False, lang="en",
                                           rescale_with_baseline=True)
    P_best, R_best, F_best = course_lib.score(c, [r[0][1]], batch_size=3, return_hash=False, lang="en",
                                              rescale_with_baseline=True)
    assert_close((P_mul, R_mul, F_mul), (P_best, R_best, F_best))
    theirs = bert_score.score(c, r, model_type=MODEL, num_layers=LAYER, batch_size=3, lang="en",
                              rescale_with_baseline=True, baseline_path=BASELINE)
    assert_close((P_mul, R_mul, F_mul), theirs)


def test_multi_refs_working():
    with pytest.warns(UserWarning, match="Empty"):
        P_mul, R_mul, F_mul = course_lib.score(MULTI_CANDS, MULTI_REFS, batch_size=3, return_hash=False,
                                               lang="en", rescale_with_baseline=True)
    assert_are_tensors(P_mul, R_mul, F_mul)
    theirs = bert_score.score(MULTI_CANDS, MULTI_REFS, model_type=MODEL, num_layers=LAYER, batch_size=3,
                              lang="en", rescale_with_baseline=True, baseline_path=BASELINE)
    assert_close((P_mul, R_mul, F_mul), theirs)


def test_score_en_sci():  # skipped in bert-score (no model); offline here: a clear error
    with pytest.raises(course_lib.ModelNotAvailableError, match="lang='en-sci'.*offline.*model_type="):
        course_lib.score(cands, refs, lang="en-sci", return_hash=True)


# ---------------------------------------------------------- tests/test_scorer.py

def bert_scorer(**kwargs):
    """bert-score's scorer on the embedded model (the course's baseline when rescaling)."""
    if kwargs.get("rescale_with_baseline"):
        kwargs["baseline_path"] = BASELINE
    return bert_score.BERTScorer(model_type=MODEL, num_layers=LAYER, **kwargs)


@pytest.mark.parametrize("options, suffix", [
    ({}, "no-idf"),                                                                    # test_scorer
    ({"idf": True, "idf_sents": refs}, "idf"),                                          # test_idf_scorer
    ({"rescale_with_baseline": True}, "no-idf"),                                        # test_scorer_rescale
    ({"rescale_with_baseline": True, "idf": True, "idf_sents": refs}, "idf"),           # test_idf_scorer_rescale
])
def test_scorer(options, suffix):
    scorer = course_lib.BERTScorer(lang="en", batch_size=3, **options)
    (P, R, F), hash_code = scorer.score(cands, refs, return_hash=True)
    assert_are_tensors(P, R, F)
    assert_close((P, R, F), bert_scorer(lang="en", batch_size=3, **options).score(cands, refs))
    rescaled = "-rescaled" if options.get("rescale_with_baseline") else ""
    assert hash_code == f"{NAME}_L4_{suffix}_{VERSION}{rescaled}" == scorer.hash
    assert_close((P, R, F), course_lib.score(cands, refs, lang="en", batch_size=3, idf=options.get("idf", False),
                                             rescale_with_baseline=options.get("rescale_with_baseline", False)))


def test_scorer_multi_refs():
    scorer = course_lib.BERTScorer(lang="en", batch_size=3, rescale_with_baseline=True)
    c, r = ["I like lemons."], [["I am proud of you.", "I love lemons.", "Go go go."]]
    P_mul, R_mul, F_mul = scorer.score(c, r)
    P_best, R_best, F_best = scorer.score(c, [r[0][1]])
    assert_close((P_mul, R_mul, F_mul), (P_best, R_best, F_best))


def test_scorer_multi_refs_working():
    scorer = course_lib.BERTScorer(lang="en", batch_size=3, rescale_with_baseline=True)
    with pytest.warns(UserWarning, match="Empty"):
        P_mul, R_mul, F_mul = scorer.score(MULTI_CANDS, MULTI_REFS)
    assert_are_tensors(P_mul, R_mul, F_mul)
    theirs = bert_scorer(lang="en", batch_size=3, rescale_with_baseline=True).score(MULTI_CANDS, MULTI_REFS)
    assert_close((P_mul, R_mul, F_mul), theirs)


# ---------------------------------------------------------- the shape of the API

def parameters(f):
    return [(p.name, p.default, p.kind) for p in inspect.signature(f).parameters.values()]


def test_same_names_order_and_defaults_as_bert_score():
    n = len(parameters(bert_score.score))
    assert parameters(course_lib.score)[:n] == parameters(bert_score.score)
    assert all(kind == inspect.Parameter.KEYWORD_ONLY for _, _, kind in parameters(course_lib.score)[n:])
    assert parameters(course_lib.BERTScorer.__init__) == parameters(bert_score.BERTScorer.__init__)
    m = len(parameters(bert_score.BERTScorer.score))
    assert parameters(course_lib.BERTScorer.score)[:m] == parameters(bert_score.BERTScorer.score)
    assert [(name, kind) for name, _, kind in parameters(course_lib.BERTScorer.score)[m:]] == \
        [("exclude_special", inspect.Parameter.KEYWORD_ONLY)]  # course-only, as in course_lib.score


def test_positional_arguments_mean_what_they_mean_in_bert_score(capsys):
    # score(cands, refs, model_type, num_layers, verbose, idf, ...): the 5th is verbose, not idf
    ours = course_lib.score(cands, refs, MODEL, LAYER, True)
    theirs = bert_score.score(cands, refs, MODEL, LAYER, True)
    plain = course_lib.score(cands, refs, MODEL, LAYER)
    with_idf = course_lib.score(cands, refs, MODEL, LAYER, False, True)
    assert_close(ours, theirs)
    assert_close(ours, plain, tol=0)
    assert (with_idf[0] - plain[0]).abs().max() > 1e-3  # the 6th is idf
    assert_close(with_idf, bert_score.score(cands, refs, MODEL, LAYER, False, True))
    # BERTScorer(model_type, num_layers, batch_size, nthreads, all_layers, idf, idf_sents, ...)
    scorer = course_lib.BERTScorer(MODEL, LAYER, 3, 4, False, True, refs)
    assert scorer.idf is True and scorer.hash == f"{NAME}_L4_idf_{VERSION}"
    assert_close(scorer.score(cands, refs), with_idf)
    capsys.readouterr()


def test_all_layers_shape_and_numbers():
    ours = course_lib.score(cands, refs, model_type=MODEL, num_layers=LAYER, all_layers=True)
    theirs = bert_score.score(cands, refs, model_type=MODEL, num_layers=LAYER, all_layers=True)
    assert ours[0].shape == (7, 3)
    assert_close(ours, theirs)


def test_lang_picks_the_embedded_model_and_model_type_wins():
    plain = course_lib.score(cands, refs)
    assert_close(course_lib.score(cands, refs, lang="EN"), plain, tol=0)
    assert_close(course_lib.score(cands, refs, model_type=course_lib.EMBEDDED_MODEL), plain, tol=0)
    # bert-score: model_type wins over lang (lang then only names the baseline folder)
    assert_close(course_lib.score(cands, refs, model_type=MODEL, num_layers=LAYER, lang="de"), plain, tol=0)
    for lang in ("de", "zh", "xx"):
        with pytest.raises(course_lib.ModelNotAvailableError, match=rf"lang='{lang}'.*pass model_type="):
            course_lib.score(cands, refs, lang=lang)
        with pytest.raises(course_lib.ModelNotAvailableError, match="offline"):
            course_lib.BERTScorer(lang=lang)
    # every name of the embedded model hashes as bert-score names it given the model's name
    for name in (None, course_lib.EMBEDDED_MODEL, MODEL):
        assert course_lib.BERTScorer(model_type=name).hash == f"{NAME}_L4_no-idf_{VERSION}"


def test_nthreads_is_checked_and_changes_nothing():
    plain = course_lib.score(cands, refs, idf=True)
    assert_close(course_lib.score(cands, refs, idf=True, nthreads=1), plain, tol=0)
    for bad in (0, -2, 1.5, True):
        with pytest.raises(ValueError, match="nthreads"):
            course_lib.score(cands, refs, nthreads=bad)


def test_scorer_loads_the_model_once(monkeypatch):
    scorer = course_lib.BERTScorer(lang="en")
    assert scorer._model is course_lib.load()[1]

    def no_loading(*args, **kwargs):
        raise AssertionError("the model was loaded again")

    monkeypatch.setattr("course_lib.model._from_pretrained", no_loading)
    first = scorer.score(cands, refs)
    for _ in range(2):
        assert_close(scorer.score(cands, refs), first, tol=0)


def test_scorer_idf_weights():
    scorer = course_lib.BERTScorer(idf=True)
    with pytest.raises(ValueError, match="no idf weights.*idf_sents"):
        scorer.score(cands, refs)
    scorer.compute_idf(refs)
    assert_close(scorer.score(cands, refs), course_lib.score(cands, refs, idf=True))
    with pytest.warns(UserWarning, match="Overwriting"):
        scorer.compute_idf(cands)
    assert_close(scorer.score(cands, refs),
                 bert_scorer(idf=True, idf_sents=cands).score(cands, refs))


def test_scorer_score_passes_exclude_special_on():
    short = (["Yes.", "The cat sat on the mat."], ["No, thanks!", "A cat rested on a mat."])  # "Yes." matches [SEP]
    scorer = course_lib.BERTScorer(num_layers=2)
    kept, excluded = scorer.score(*short), scorer.score(*short, exclude_special=True)
    for ours, engine in ((kept, course_lib.score(*short, num_layers=2)),
                         (excluded, course_lib.score(*short, num_layers=2, exclude_special=True))):
        assert all(torch.equal(a, b) for a, b in zip(ours, engine))
    assert (excluded[2] - kept[2]).abs().max() > 1e-4  # the setting really reached the engine


def test_plot_example(tmp_path, monkeypatch):
    """As bert-score's: returns None (nothing echoes in a notebook), shown with plt.show() unless
    matplotlib only writes files; the title's P, R, F are .score's, rescaled ones said so."""
    import matplotlib
    import matplotlib.pyplot as plt

    shown = []
    monkeypatch.setattr(plt, "show", lambda *a, **k: shown.append(True))
    scorer = course_lib.BERTScorer(lang="en")
    out = tmp_path / "pair.png"
    monkeypatch.setattr(matplotlib, "get_backend", lambda: "agg")  # files only (the tests', CI's)
    assert scorer.plot_example(cands[0], refs[0], fname=str(out)) is None
    assert out.is_file() and out.stat().st_size > 0 and not shown
    title = plt.gca().get_title()
    P, R, F = scorer.score(cands[:1], refs[:1])
    assert f"P = {P.item():.3f}" in title and f"F = {F.item():.3f}" in title and "rescaled" not in title
    rescaling = course_lib.BERTScorer(lang="en", rescale_with_baseline=True)
    monkeypatch.setattr(matplotlib, "get_backend", lambda: "TkAgg")  # a script with a window
    rescaling.plot_example(cands[0], refs[0])
    title = plt.gca().get_title()
    P, R, F = rescaling.score(cands[:1], refs[:1])
    assert f"F = {F.item():.3f}" in title and f"R = {R.item():.3f}" in title and "(rescaled)" in title
    assert shown == [True]
    plt.close("all")


# each comparison above asserts its own bound; this one computes, on its own (alone or in any
# order), the comparisons it reports: the engine's settings against bert-score on the same data
REPORTED = [
    ("plain", cands, refs, {}),
    ("idf", cands, refs, {"idf": True}),
    ("rescaled", cands, refs, {"rescale_with_baseline": True}),
    ("idf, rescaled", cands, refs, {"idf": True, "rescale_with_baseline": True}),
    ("multi-refs, rescaled", MULTI_CANDS, MULTI_REFS, {"rescale_with_baseline": True}),
    ("all layers", cands, refs, {"all_layers": True}),
]


def test_report_largest_difference(capsys):
    deltas = {}
    for name, c, r, options in REPORTED:
        theirs_options = dict(options, baseline_path=BASELINE) if options.get("rescale_with_baseline") else options
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Empty")  # MULTI_CANDS has an empty candidate
            ours = course_lib.score(c, r, model_type=MODEL, num_layers=LAYER, batch_size=3, lang="en", **options)
            theirs = bert_score.score(c, r, model_type=MODEL, num_layers=LAYER, batch_size=3, lang="en",
                                      **theirs_options)
        deltas[name] = assert_close(ours, theirs)  # fails beyond TOL, naming the values
    assert max(deltas.values()) < TOL
    with capsys.disabled():
        print(f"\nmax |course_lib - bert-score| over {len(deltas)} comparisons: {max(deltas.values()):.1e} "
              f"({', '.join(f'{k}: {v:.1e}' for k, v in deltas.items())})")
