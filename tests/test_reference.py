"""The definition is right: `reference_bertscore` gives bert-score's numbers, for every option.

`reference_bertscore` (course_lib/bertscore/reference.py) scores one pair at a time from the
functions the chapters teach; the engine is tested equal to it (tests/test_engine_property.py).
Here bert-score 0.3.13 is the witness, with the same local model, on real pairs (WMT16, STS-B)
plus an empty candidate, an empty reference and a text over the model's 512 tokens: layers
0..6, idf off / on / a dict, rescaling with the course's baseline file (bert-score's
`baseline_path=`), several references per candidate. bert-score runs with batch_size=1, where
its padding quirk (padded cells count as cosine 0, tests/test_score_parity.py) cannot occur.
Tolerance: max |ΔP|, |ΔR|, |ΔF| ≤ 1e-5.
"""
import random

import bert_score
import pytest
import torch

from course_lib.bertscore.baseline import default_baseline_path
from course_lib.bertscore.idf import idf_weights
from course_lib.call.reference import reference_bertscore
from course_lib.evaluation import datasets
from course_lib.model import load
from compare import max_diff

TOL = 1e-5
LAYERS = range(7)
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # empty and truncated texts


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """The reference runs one small forward pass per text; one torch thread is faster for that
    on a busy 2-core machine. bert-score runs under the same setting."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def pairs():
    wmt = datasets.wmt16().sample(6, random_state=11)
    sts = datasets.stsb("test").sample(3, random_state=11)
    long_text = " ".join(datasets.wmt16().ref.tolist()[:30])  # ~700 word pieces: truncated to 512
    assert len(load()[0].tokenize(long_text)) > 600
    cands = wmt.mt.tolist() + sts.sentence1.tolist() + ["", "A short one.", long_text]
    refs = wmt.ref.tolist() + sts.sentence2.tolist() + ["Nothing was said.", "  ", wmt.ref.iloc[0]]
    return cands, refs


def witness(cands, refs, model_path, **kw):
    """bert-score at every layer 0..6 in one call: P, R, F [7, N]."""
    return bert_score.score(cands, refs, model_type=model_path, num_layers=6, all_layers=True, batch_size=1, **kw)


@pytest.mark.parametrize("idf", [False, True], ids=["no-idf", "idf"])
def test_every_layer_matches_bert_score(pairs, model_path, idf):
    cands, refs = pairs
    theirs = witness(cands, refs, model_path, idf=idf)
    assert theirs[2].shape == (7, len(cands))
    for layer in LAYERS:
        ours = reference_bertscore(cands, refs, num_layers=layer, idf=idf)
        assert max_diff(ours, [x[layer] for x in theirs]) <= TOL, layer
    assert ours[2][-3:-1].eq(0).all()  # empty candidate, empty reference: 0, as bert-score says


def test_idf_dict_matches_bert_score(pairs, model_path):
    cands, refs = pairs
    weights = idf_weights(datasets.wmt16().ref.tolist()[:500], load()[0])
    ours = reference_bertscore(cands, refs, num_layers=3, idf=weights)
    theirs = bert_score.score(cands, refs, model_type=model_path, num_layers=3, idf=weights, batch_size=1)
    assert max_diff(ours, theirs) <= TOL


def test_rescaled_matches_bert_score(pairs, model_path):
    cands, refs = pairs
    baseline = str(default_baseline_path(None))
    theirs = witness(cands, refs, model_path, idf=True, rescale_with_baseline=True, lang="en", baseline_path=baseline)
    for layer in (0, 4, 6):
        ours = reference_bertscore(cands, refs, num_layers=layer, idf=True, rescale_with_baseline=True,
                                   baseline_path=baseline)
        assert max_diff(ours, [x[layer] for x in theirs]) <= TOL, layer
    raw = reference_bertscore(cands, refs, num_layers=6, idf=True)
    assert max_diff(ours, raw) > 0.1  # rescaling really happened


@pytest.mark.parametrize("layer", [0, 4])
def test_several_references_match_bert_score(pairs, model_path, layer):
    """Best P, best R and best F over a candidate's references, each on its own; idf from all
    references; rescaled. (bert-score's all_layers mode mixes layers up with several
    references, so one call per layer.)"""
    cands, refs = pairs
    rng = random.Random(layer)
    multi = [[r] + rng.sample(refs, rng.randint(1, 2)) for r in refs]
    baseline = str(default_baseline_path(None))
    kw = dict(num_layers=layer, idf=True, rescale_with_baseline=True, baseline_path=baseline)
    ours = reference_bertscore(cands, multi, **kw)
    theirs = bert_score.score(cands, multi, model_type=model_path, batch_size=1, lang="en", **kw)
    assert max_diff(ours, theirs) <= TOL


@pytest.mark.parametrize("idf", [False, True], ids=["no-idf", "idf"])
def test_exclude_special_equals_the_engine_and_changes_both_sides(idf):
    """exclude_special=True: neither side's [CLS]/[SEP] is a match target. "Yes." and "No, thanks!"
    match [SEP] best at some layers, so keeping either side's [CLS]/[SEP] (bert-score's way) moves P
    and R; the engine must drop exactly what the definition drops."""
    from course_lib.engine.scorer import score

    cands = ["Yes.", "The cat sat on the mat.", "No, thanks!"]
    refs = ["No, thanks!", "A cat rested on a mat.", "Yes."]
    for layer in (3, 5):
        kept = reference_bertscore(cands, refs, num_layers=layer, idf=idf)
        excluded = reference_bertscore(cands, refs, num_layers=layer, idf=idf, exclude_special=True)
        assert max_diff(excluded, score(cands, refs, num_layers=layer, idf=idf, exclude_special=True)) <= 1e-6
        assert max_diff(kept, score(cands, refs, num_layers=layer, idf=idf)) <= 1e-6
        assert (kept[0] - excluded[0]).abs().max() > 1e-3 and (kept[1] - excluded[1]).abs().max() > 1e-3


def test_the_reference_fits_one_screen():
    """The definition a student reads in one go: reference_scores and pair_score together within
    50 lines of at most 120 characters (a laptop screen at chapter 04's font); no argument checking
    or setting resolution in it (that is `course_lib.call.reference`)."""
    import inspect

    from course_lib.bertscore import reference

    lines = [line for f in (reference.reference_scores, reference.pair_score)
             for line in inspect.getsource(f).splitlines()]
    assert not any(word in line for line in lines for word in ("resolve_setting", "check_inputs", "warn"))
    assert len(lines) <= 50 and max(map(len, lines)) <= 120, (len(lines), max(map(len, lines)))


def test_greedy_match_reads_like_the_formula_one_tokens_record_a_side():
    """greedy_match(x̂, x): one `Tokens` record (emb, mask, idf, special) for the candidate x̂ and one
    for the reference x, the options by name. A hand-made pair: each side's word (a, b) lies closer
    to [CLS]/[SEP] = (1, 0) than to the other side's word, so keeping either side's [CLS]/[SEP] as
    targets moves P or R; the reference's padding row repeats a (a max over padding finds cos 1)."""
    import inspect

    from course_lib.bertscore.matching import Tokens, greedy_match

    kinds = {p.name: p.kind for p in inspect.signature(greedy_match).parameters.values()}
    assert [n for n, k in kinds.items() if k is not inspect.Parameter.KEYWORD_ONLY] == ["x_hat", "x"]
    cls, a, b = torch.tensor([1.0, 0.0]), torch.tensor([1.0, 0.2]), torch.tensor([1.0, -0.5])
    cos = lambda u, v: float(u @ v / (u.norm() * v.norm()))  # noqa: E731
    x_hat = Tokens(torch.stack([cls, a, cls])[None], torch.tensor([[True, True, True]]),
                   torch.tensor([[0.0, 1.0, 0.0]]), torch.tensor([[True, False, True]]))
    x = Tokens(torch.stack([cls, b, cls, a])[None], torch.tensor([[True, True, True, False]]),
               torch.tensor([[0.0, 1.0, 0.0, 0.0]]), torch.tensor([[True, False, True, False]]))
    for exclude_special in (False, True):
        P = cos(a, b) if exclude_special else max(cos(a, cls), cos(a, b))  # a's best target in x
        R = cos(b, a) if exclude_special else max(cos(b, cls), cos(b, a))  # b's best target in x̂
        got = greedy_match(x_hat, x, exclude_special=exclude_special)
        assert torch.allclose(torch.cat(got), torch.tensor([P, R, 2 * P * R / (P + R)]), atol=1e-6), got
    assert cos(a, cls) > cos(a, b) + 0.1 and cos(b, cls) > cos(b, a) + 0.1  # the options differ on both sides


def test_a_tokenizer_without_cls_or_sep_has_fewer_special_tokens():
    """[CLS]/[SEP] are found by `special_ids`, the one place: a tokenizer that has no [CLS] (its id is
    None) has [SEP] alone as special, in the taught path and in the engine's store alike."""
    from course_lib.bertscore.embeddings import special_ids, special_mask
    from course_lib.bertscore.idf import uniform_weights
    from course_lib.engine.store import SentenceStore

    class NoCls:
        cls_token_id, sep_token_id = None, 2

    ids = torch.tensor([[5, 2, 0]])
    assert special_ids(NoCls()) == [2]
    assert special_mask(ids, NoCls()).tolist() == [[False, True, False]]
    weights = uniform_weights(NoCls())
    assert weights[2] == 0.0 and weights[5] == 1.0 and None not in weights
    store = SentenceStore(NoCls(), None, 0, weights, 8)
    weight, special = store._token_info(ids[0])
    assert special.tolist() == [False, True, False] and weight.tolist() == [1.0, 0.0, 1.0]
