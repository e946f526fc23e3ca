"""bert-score as the witness of every entry point that scores, on real data.

Tests that compare two of the course's own paths cannot see a mistake in code both share (a [SEP]
weighed 1 without idf, an attention mask of all ones in the packed loop, P and R swapped in one
entry point's return). Here each entry point -- `course_lib.score`, `BERTScorer.score`,
`reference_bertscore`, the long-text `chunked_score`, the demo's `analyze` and its class ranking
`rank_answers`, and the learned metric's mean-pooled vectors -- is compared with bert-score 0.3.13
itself, on WMT16 pairs of different lengths. bert-score embeds each sentence alone (batch_size=1), so
its padding quirk (padded cells multiplied by 0, chapter 03) cannot enter: the claim is 1e-5 on
every pair, raw and rescaled, with and without idf.
"""
from collections import defaultdict

import bert_score
import pytest
import torch

import course_lib
from course_lib.bertscore.baseline import default_baseline_path
from course_lib.evaluation import datasets
from compare import max_diff

TOL = 1e-5
LAYER = 3  # not the default layer: an entry point that ignores the layer it is given fails


@pytest.fixture(scope="module")
def pairs():
    """12 WMT16 pairs, two per language pair, whose candidate and reference differ in length (so a
    batch of the two is padded)."""
    wmt = datasets.wmt16()
    wmt = wmt[wmt.mt.str.len() < 160]
    sample = wmt.groupby("lp").sample(2, random_state=1)
    cands, refs = sample.mt.tolist(), sample.ref.tolist()
    assert len(cands) == 12 and sum(len(c.split()) != len(r.split()) for c, r in zip(cands, refs)) >= 8
    return cands, refs


def witness(cands, refs, model_path, idf=False, rescale=False, layer=LAYER):
    """bert-score's (P, R, F) [N], each sentence embedded alone; idf: a weights dict or False."""
    kw = dict(lang="en", rescale_with_baseline=True, baseline_path=str(default_baseline_path(None))) if rescale else {}
    return bert_score.score(cands, refs, model_type=model_path, num_layers=layer, idf=idf, batch_size=1, **kw)


def weights_of(refs):
    """bert-score's own idf dict of `refs` (get_idf_dict), as every entry point is given it."""
    from transformers import AutoTokenizer

    from course_lib.model import embedded_model_path

    tokenizer = AutoTokenizer.from_pretrained(str(embedded_model_path()), use_fast=False)
    return bert_score.utils.get_idf_dict(refs, tokenizer, nthreads=1)


@pytest.mark.parametrize("rescale", [False, True], ids=["raw", "rescaled"])
@pytest.mark.parametrize("idf", [False, True], ids=["no-idf", "idf"])
def test_score_bertscorer_and_reference_equal_bert_score(pairs, model_path, idf, rescale):
    cands, refs = pairs
    weights = weights_of(refs) if idf else False
    theirs = witness(cands, refs, model_path, weights, rescale)
    kw = dict(num_layers=LAYER, idf=weights, rescale_with_baseline=rescale)
    assert max_diff(course_lib.score(cands, refs, **kw), theirs) <= TOL
    assert max_diff(course_lib.BERTScorer(**kw).score(cands, refs), theirs) <= TOL
    assert max_diff(course_lib.reference_bertscore(cands, refs, **kw), theirs) <= TOL


@pytest.mark.parametrize("rescale", [False, True], ids=["raw", "rescaled"])
def test_chunked_score_equals_bert_score_on_texts_that_fit(pairs, model_path, rescale):
    from course_lib.engine.long_text import chunked_score

    cands, refs = pairs
    ours = chunked_score(cands, refs, num_layers=LAYER, rescale_with_baseline=rescale)
    assert max_diff(ours, witness(cands, refs, model_path, rescale=rescale)) <= TOL


def test_chunked_score_of_a_text_in_windows_equals_bert_score_when_the_window_is_the_whole_text(model_path):
    """A text longer than `size` is embedded in windows; with one window over all of it (size >= its
    length) the vectors are the model's own, and so are the scores."""
    from course_lib.engine.long_text import chunked_score

    cand = "The committee approved the budget after a long debate about schools and roads. " * 3
    ref = "After much debate on roads and schools, the committee passed the budget. " * 3
    ours = chunked_score([cand], [ref], num_layers=LAYER, size=200)
    assert max_diff(ours, witness([cand], [ref], model_path)) <= TOL


@pytest.mark.parametrize("rescale", [False, True], ids=["raw", "rescaled"])
def test_the_demos_scores_equal_bert_score(pairs, model_path, rescale):
    from course_lib import demo

    cands, refs = pairs
    demo.clear_cache()
    got = [demo.analyze(c, r, layer=LAYER, rescale_with_baseline=rescale) for c, r in zip(cands, refs)]
    ours = tuple(torch.tensor([getattr(g, k) for g in got]) for k in "PRF")
    assert max_diff(ours, witness(cands, refs, model_path, rescale=rescale)) <= TOL


def test_the_demos_idf_scores_equal_bert_score(pairs, model_path):
    from course_lib import demo

    cands, refs = pairs
    corpus = "witness idf corpus"
    demo.IDF_CORPORA[corpus] = lambda: sorted(set(refs))
    try:
        got = [demo.analyze(c, r, layer=LAYER, idf_corpus=corpus) for c, r in zip(cands, refs)]
    finally:
        demo.IDF_CORPORA.pop(corpus)
        demo.forget_idf(corpus)
    ours = tuple(torch.tensor([getattr(g, k) for g in got]) for k in "PRF")
    assert max_diff(ours, witness(cands, refs, model_path, weights_of(sorted(set(refs))))) <= TOL


def test_the_demos_class_ranking_equals_bert_score(pairs, model_path):
    from course_lib import demo

    cands, refs = pairs
    answers, reference = cands[:6], refs[0]
    table = demo.rank_answers(answers, reference, layer=LAYER, rescale_with_baseline=True)
    by_answer = table.set_index("answer")
    ours = tuple(torch.tensor(by_answer.loc[answers, f"BERTScore {k}"].tolist()) for k in "PRF")
    assert max_diff(ours, witness(answers, [reference] * 6, model_path, rescale=True)) <= TOL


@pytest.mark.parametrize("slices", ["one slice", "a text a slice"])
def test_pooled_vectors_equal_the_mean_of_bert_scores_token_vectors(pairs, model_path, slices, monkeypatch):
    """The learned metric's input: the mean of each text's token vectors at a layer, unit length.
    bert-score's own embedding function (`get_bert_embedding`, each text alone) gives the token
    vectors; their mean is the witness of `learned.pooled` and `pooling.sentence_embeddings` (and of
    `sentence_similarity_all_layers` at that layer), whether the texts are embedded in one slice or one by one."""
    from course_lib import learned
    from course_lib.engine import packing, pooling

    if slices == "a text a slice":
        monkeypatch.setattr(packing, "SLICE_FLOATS", 1)

    cands, refs = pairs
    texts = cands[:4] + refs[:4]
    tokenizer = bert_score.utils.get_tokenizer(model_path, use_fast=False)
    model = bert_score.utils.get_model(model_path, LAYER).eval()
    rows = []
    for text in texts:
        emb, mask, _ = bert_score.utils.get_bert_embedding([text], model, tokenizer, defaultdict(lambda: 1.0),
                                                           batch_size=1, device="cpu")
        mean = emb[0][mask[0].bool()].mean(0)
        rows.append(mean / mean.norm())
    theirs = torch.stack(rows)
    assert (learned.pooled(texts, LAYER, cache=False) - theirs).abs().max() <= TOL
    assert (pooling.sentence_embeddings(texts, layer=LAYER) - theirs).abs().max() <= TOL
    cosines = pooling.sentence_similarity_all_layers(texts[:4], texts[4:])[LAYER]
    assert (cosines - (theirs[:4] * theirs[4:]).sum(-1)).abs().max() <= TOL
