"""Proof by agreement: course_lib.score gives bert_score.score's numbers on real data.

Same local model (the embedded all-MiniLM-L6-v2), 600 real pairs (WMT16 DA to-English and
STS-B), every layer 0..6, idf on and off, rescaling on and off (both given the course's baseline
file), several references per candidate. Tolerance: max |ΔP|, |ΔR|, |ΔF| ≤ 1e-5.
"""
import random

import bert_score
import pytest
import torch

import course_lib
from course_lib.call.setting import resolve_setting
import course_lib.engine.scorer
from course_lib.evaluation import datasets
from course_lib.bertscore.baseline import default_baseline_path
from compare import max_diff

TOL = 1e-5
LAYERS = range(0, 7)


@pytest.fixture(scope="module")
def pairs():
    wmt = datasets.wmt16().groupby("lp").sample(70, random_state=0)
    sts = datasets.stsb("test").sample(180, random_state=0)
    cands = wmt.mt.tolist() + sts.sentence1.tolist()
    refs = wmt.ref.tolist() + sts.sentence2.tolist()
    return cands, refs


def assert_parity(ours, theirs, cands, refs, model_path, **kw):
    """≤ TOL on every pair, with one documented exception.

    bert-score multiplies padded similarities by 0 instead of masking them, so in a padded batch
    a token whose best real cosine is negative (common at layers 0 and 6 of this model, whose
    cosines spread widely) gets 0 as its best match: its score depends on the batch. For such
    pairs we require (a) bert-score's batched P or R to be the higher one and (b) our scores to
    equal bert-score's for that pair scored alone (batch_size=1: no padding, no quirk).
    """
    diff = torch.stack([(a - b).abs() for a, b in zip(ours, theirs)]).amax(0)
    quirk = (diff > TOL).nonzero().flatten().tolist()
    assert len(quirk) <= 0.15 * len(cands), f"{len(quirk)} of {len(cands)} pairs differ"
    if not quirk:
        return
    assert all(theirs[0][i] >= ours[0][i] - TOL and theirs[1][i] >= ours[1][i] - TOL for i in quirk)
    alone = bert_score.score([cands[i] for i in quirk], [refs[i] for i in quirk],
                             model_type=model_path, batch_size=1, **kw)
    assert max_diff([x[quirk] for x in ours], alone) <= TOL


@pytest.mark.parametrize("idf", [False, True], ids=["no-idf", "idf"])
@pytest.mark.parametrize("layer", LAYERS)
def test_every_layer_matches_bert_score(pairs, model_path, layer, idf):
    cands, refs = pairs
    ours = course_lib.score(cands, refs, num_layers=layer, idf=idf)
    theirs = bert_score.score(cands, refs, model_type=model_path, num_layers=layer, idf=idf)
    assert len(ours[0]) == len(cands) >= 500
    # idf=True: idf from all 600 references, also when bert-score scores a pair alone
    weights = resolve_setting(idf=idf, idf_sents=refs).weights
    assert_parity(ours, theirs, cands, refs, model_path, num_layers=layer, idf=weights)


@pytest.mark.parametrize("idf", [False, True], ids=["no-idf", "idf"])
@pytest.mark.parametrize("layer", [0, 4, 6])
def test_rescaled_matches_bert_score(pairs, model_path, layer, idf):
    cands, refs = pairs
    path = str(default_baseline_path(None))
    ours = course_lib.score(cands, refs, num_layers=layer, idf=idf, rescale_with_baseline=True)
    theirs = bert_score.score(cands, refs, model_type=model_path, num_layers=layer, idf=idf,
                              lang="en", rescale_with_baseline=True, baseline_path=path)
    weights = resolve_setting(idf=idf, idf_sents=refs).weights
    assert_parity(ours, theirs, cands, refs, model_path, num_layers=layer, idf=weights, lang="en",
                  rescale_with_baseline=True, baseline_path=path)
    raw = course_lib.score(cands, refs, num_layers=layer, idf=idf)
    assert max_diff(ours, raw) > 0.1  # rescaling really happened


@pytest.mark.parametrize("rescale", [False, True], ids=["raw", "rescaled"])
@pytest.mark.parametrize("idf", [False, True], ids=["no-idf", "idf"])
def test_several_references_match_bert_score(pairs, model_path, idf, rescale):
    cands, refs = pairs
    rng = random.Random(1)
    multi = [[r] + rng.sample(refs, rng.randint(0, 2)) for r in refs[:300]]
    kw = dict(lang="en", baseline_path=str(default_baseline_path(None))) if rescale else {}
    ours = course_lib.score(cands[:300], multi, idf=idf, rescale_with_baseline=rescale)
    theirs = bert_score.score(cands[:300], multi, model_type=model_path, num_layers=4, idf=idf,
                              rescale_with_baseline=rescale, **kw)
    assert max_diff(ours, theirs) <= TOL


def test_all_layers_at_once_matches_bert_score(pairs, model_path):
    cands, refs = pairs
    ours = course_lib.score(cands, refs, all_layers=True)
    theirs = bert_score.score(cands, refs, model_type=model_path, all_layers=True, num_layers=6)
    assert ours[2].shape == (7, len(cands))
    assert max_diff([x[1:6] for x in ours], [x[1:6] for x in theirs]) <= TOL  # 0 and 6: see assert_parity
    single = course_lib.score(cands, refs, num_layers=2)
    assert max_diff([x[2] for x in ours], single) <= 1e-6


def test_exclude_special_is_stricter_and_differs(pairs):
    cands, refs = pairs
    default = course_lib.score(cands[:50], refs[:50])
    strict = course_lib.score(cands[:50], refs[:50], exclude_special=True)
    # removing match targets can only lower (or keep) each token's best match
    assert (strict[0] <= default[0] + 1e-6).all() and (strict[1] <= default[1] + 1e-6).all()
    assert max_diff(strict, default) > 1e-4


def test_idf_dict_is_accepted(pairs, model_path):
    cands, refs = pairs
    tokenizer, _ = course_lib.load()
    from course_lib.bertscore.idf import idf_weights

    weights = idf_weights(datasets.wmt16().ref.tolist(), tokenizer)
    ours = course_lib.score(cands[:100], refs[:100], idf=weights)
    theirs = bert_score.score(cands[:100], refs[:100], model_type=model_path, num_layers=4, idf=weights)
    assert max_diff(ours, theirs) <= TOL


def test_bert_scores_padding_quirk_explicitly(model_path):
    """bert-score multiplies padded similarity cells by 0 instead of masking them. A token whose
    real cosines are all negative then gets 0 as its best match, but only when its pair shares a
    padded batch with a longer one. "Yes" against a WMT16 reference at layer 0: bert-score's R
    is exact alone (batch_size=1) and higher in a batch of two; ours does not move."""
    from course_lib.bertscore.embeddings import embed
    from course_lib.bertscore.matching import weighted_mean
    from course_lib.bertscore.similarity import cosine_matrix

    wmt = datasets.wmt16()
    ref, other = wmt.ref.iloc[1], (wmt.mt.iloc[1], wmt.ref.iloc[5])  # the other pair is longer
    kw = dict(model_type=model_path, num_layers=0)
    alone = bert_score.score(["Yes"], [ref], batch_size=1, **kw)
    batched = bert_score.score(["Yes", other[0]], [ref, other[1]], batch_size=64, **kw)
    ours = course_lib.score(["Yes"], [ref], num_layers=0)
    ours_batched = course_lib.score(["Yes", other[0]], [ref, other[1]], num_layers=0)
    assert max_diff(ours, alone) <= TOL  # exact where bert-score has no padding
    assert max_diff([x[:1] for x in ours_batched], ours) <= 1e-6  # ours: the batch does not matter
    assert batched[1][0] - alone[1][0] > 1e-3  # bert-score's R moves with the batch
    # the cause, computed by hand: reference tokens whose best real cosine is negative count as 0
    c, r = embed(["Yes"], layer=0), embed([ref], layer=0)
    best = cosine_matrix(c.embeddings[0], r.embeddings[0]).max(dim=0).values  # [ref_len]
    weights = (~r.special[0]).float()  # 1 per token, [CLS]/[SEP] 0
    assert (best[weights > 0] < 0).any()
    assert abs(weighted_mean(best, weights) - alone[1][0]) <= TOL
    assert abs(weighted_mean(best.clamp(min=0), weights) - batched[1][0]) <= TOL
