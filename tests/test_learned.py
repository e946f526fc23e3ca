"""course_lib.learned: COMET's estimator built small (chapter 10)."""
import numpy as np
import pandas as pd
import pytest
import torch

import course_lib
from course_lib import learned, paths
from course_lib.evaluation.datasets import wmt16
from course_lib.engine import scorer
from course_lib.learned import baseline, cache, evaluation, features, metric
from course_lib.learned.features import comet_features
from course_lib.learned.regressor import fit_ridge, predict, regressor, ridge_predict, train_loop
from notebook_code import NOTEBOOKS, definition

NOTEBOOK = NOTEBOOKS / "10_learned_metric.ipynb"
CAT, MAT = "The cat sat on the mat.", "A cat rested on a mat."


# ---- features ------------------------------------------------------------------------------

def test_feature_shapes():
    h, r, s = (torch.randn(5, 8) for _ in range(3))
    assert comet_features(h, r).shape == (5, 32)
    assert comet_features(h, r, s).shape == (5, 48)


def test_feature_blocks_and_symmetry():
    h, r, s = (torch.randn(5, 8) for _ in range(3))
    x, swapped = comet_features(h, r, s), comet_features(r, h, s)
    assert torch.equal(x[:, :8], h) and torch.equal(x[:, 8:16], r)
    assert torch.equal(swapped[:, :8], x[:, 8:16]) and torch.equal(swapped[:, 8:16], x[:, :8])
    assert torch.equal(swapped[:, 16:32], x[:, 16:32])      # h ⊙ r and |h − r| do not care which is which
    assert (x[:, 24:32] >= 0).all()                          # |h − r|
    assert torch.equal(comet_features(h, h)[:, 24:32], torch.zeros(5, 8))
    hu, ru = h / h.norm(dim=-1, keepdim=True), r / r.norm(dim=-1, keepdim=True)
    cos = torch.nn.functional.cosine_similarity(h, r)
    assert torch.allclose(comet_features(hu, ru)[:, 16:24].sum(-1), cos, atol=1e-6)  # Σ h⊙r = cosine


def test_pooled_vectors_are_unit_length_and_cached(tmp_path, monkeypatch):
    monkeypatch.setenv(paths.CACHE_ENV, str(tmp_path))
    texts = [CAT, MAT, CAT]
    v = learned.pooled(texts, layer=6)
    assert v.shape == (3, 384) and torch.allclose(v.norm(dim=-1), torch.ones(3), atol=1e-5)
    assert torch.equal(v[0], v[2])
    files = list((tmp_path / "learned").glob("pooled-*.pt"))
    assert len(files) == 1
    assert torch.equal(learned.pooled(texts, layer=6), v)            # read back
    assert len(list((tmp_path / "learned").glob("pooled-*.pt"))) == 1
    learned.pooled(texts, layer=5)
    assert len(list((tmp_path / "learned").glob("pooled-*.pt"))) == 2  # the layer is part of the key


def test_the_cache_key_names_the_embedded_model_by_its_weights_not_its_folder():
    from course_lib.model import embedded_model_path, model_ref

    def key(model_type):
        return model_ref(model_type).disk_key

    assert key(None) == key(str(embedded_model_path())) == key("embedded")
    assert str(embedded_model_path()) not in key(None)  # the same key on every machine


# ---- the shipped WMT16 results (data/wmt16_da/vectors/) -------------------------------------

def not_computed(*args, **kwargs):
    raise AssertionError("computed instead of read from data/wmt16_da/vectors/")


@pytest.mark.parametrize("column", ["mt", "ref", "src"])
def test_shipped_wmt16_vectors_are_found_and_equal_a_fresh_computation(column, tmp_path, monkeypatch):
    monkeypatch.setenv(paths.CACHE_ENV, str(tmp_path))      # an empty user cache: only the shipped files
    texts, layer = wmt16()[column].tolist(), metric.Recipe().layer
    with monkeypatch.context() as m:
        m.setattr(features, "sentence_vectors", not_computed)
        shipped = learned.pooled(texts, layer)
    rows = np.random.default_rng(1).choice(len(texts), 24, replace=False)
    fresh = learned.pooled([texts[i] for i in rows], layer, cache=False)
    assert shipped.shape == (len(texts), 384)
    assert (shipped[rows] - fresh).abs().max() < 1e-5   # other batches and CPUs move them at ~1e-7


def test_shipped_wmt16_bertscore_is_found_and_equals_a_fresh_computation(tmp_path, monkeypatch):
    monkeypatch.setenv(paths.CACHE_ENV, str(tmp_path))
    df = wmt16()
    with monkeypatch.context() as m:
        m.setattr(scorer, "score", not_computed)
        shipped = baseline.bertscore_all_layers(df.mt.tolist(), df.ref.tolist())   # [3, layers, N]
    rows = np.random.default_rng(2).choice(len(df), 24, replace=False)
    fresh = torch.stack(course_lib.score(df.mt.iloc[rows].tolist(), df.ref.iloc[rows].tolist(), all_layers=True))
    assert shipped.shape == (3, 7, len(df))
    assert (shipped[:, :, rows] - fresh).abs().max() < 1e-5


@pytest.mark.parametrize("head", ["with_source", "no_source"])
def test_shipped_heads_score_the_same_from_the_engines_loop(head, tmp_path, monkeypatch):
    """The shipped vectors (data/wmt16_da/vectors/) were pooled before pooling moved onto the
    engine's loop (packed rows, no padding); the shipped heads (course_lib/resources/learned) score
    texts pooled now by that loop as they score the shipped vectors, within 1e-5 (a DA z-score)."""
    monkeypatch.setenv(paths.CACHE_ENV, str(tmp_path))
    df, layer, h = wmt16(), metric.Recipe().layer, metric.load_head(head)
    with monkeypatch.context() as m:
        m.setattr(features, "sentence_vectors", not_computed)
        shipped = {c: learned.pooled(df[c].tolist(), layer) for c in ("mt", "ref", "src")}
    rows = np.random.default_rng(3).choice(len(df), 32, replace=False)
    source = shipped["src"][rows] if h.recipe.use_source else None
    expected = predict(h.model, comet_features(shipped["mt"][rows], shipped["ref"][rows], source))
    sub = df.iloc[rows]
    now = learned.score(sub.src.tolist() if h.recipe.use_source else None, sub.mt.tolist(), sub.ref.tolist(),
                        head=head)
    assert len(list((tmp_path / "learned").glob("pooled-*.pt"))) >= 2  # computed now, not read back
    assert (now - expected).abs().max() < 1e-5  # measured 8e-7


# ---- the regressor and its training loop ----------------------------------------------------

def planted(n=600, d=20, seed=0, shuffle=False):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=g)
    y = torch.tanh(x[:, 0] - 0.5 * x[:, 1]) + 0.3 * x[:, 2] + 0.05 * torch.randn(n, generator=g)
    if shuffle:
        y = y[torch.randperm(n, generator=g)]
    return x, y


def test_readable_loop_of_the_chapter_is_the_librarys():
    by_hand = definition(NOTEBOOK, "train_by_hand", torch=torch)
    x, y = planted()
    a, b = regressor(20, 8, seed=3), regressor(20, 8, seed=3)
    losses_a = by_hand(a, x, y, epochs=4, lr=1e-2, batch_size=32, weight_decay=1e-4, seed=3)
    losses_b = train_loop(b, x, y, epochs=4, lr=1e-2, batch_size=32, weight_decay=1e-4, seed=3)
    assert losses_a == losses_b
    for (name, pa), pb in zip(a.state_dict().items(), b.state_dict().values()):
        assert torch.equal(pa, pb), name


def held_out_mse(shuffle):
    x, y = planted(shuffle=shuffle)
    model = regressor(20, 16, seed=0)
    losses = train_loop(model, x[:450], y[:450], epochs=40, lr=1e-2, seed=0)
    return losses, float(((predict(model, x[450:]) - y[450:]) ** 2).mean()), float(y[450:].var())


def test_training_learns_a_planted_signal():
    losses, test_mse, variance = held_out_mse(shuffle=False)
    assert losses[-1] < 0.2 * losses[0]
    assert test_mse < 0.2 * variance


def test_training_does_not_learn_shuffled_labels():
    _, test_mse, variance = held_out_mse(shuffle=True)
    assert test_mse > 0.9 * variance                     # nothing carries over to unseen rows


def test_same_seed_same_weights_other_seed_other_weights():
    x, y = planted(n=200)
    runs = []
    for seed in (0, 0, 1):
        m = regressor(20, 8, seed=seed)
        train_loop(m, x, y, epochs=3, seed=seed)
        runs.append(torch.cat([p.flatten() for p in m.parameters()]))
    assert torch.equal(runs[0], runs[1]) and not torch.equal(runs[0], runs[2])


def test_ridge_recovers_a_planted_linear_rule():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(500, 5, generator=g) * torch.tensor([1.0, 10.0, 0.1, 3.0, 1.0]) + 4
    y = x @ torch.tensor([0.5, -0.2, 3.0, 0.0, 1.0]) + 2
    fit = fit_ridge(x, y, alpha=1e-8)
    assert torch.allclose(ridge_predict(fit, x), y, atol=1e-3)
    expected = np.linalg.lstsq(np.c_[x.numpy(), np.ones(500)], y.numpy(), rcond=None)[0][:5]
    assert np.allclose((fit[0] / fit[3]).numpy(), expected, atol=1e-4)  # weights on the raw scale


# ---- leave one pair out ---------------------------------------------------------------------

LPS = np.repeat(["cs-en", "de-en", "fi-en"], 4)


def test_leave_one_pair_out_never_trains_on_the_test_pair():
    seen = []

    def spy(train, test):
        seen.append((set(LPS[train]), set(LPS[test]), len(train) + len(test)))
        return np.zeros(len(test))

    out = evaluation.leave_one_pair_out(LPS, spy)
    assert not np.isnan(out).any()
    assert len(seen) == 3
    for train_pairs, test_pairs, n in seen:
        assert len(test_pairs) == 1 and not (train_pairs & test_pairs) and n == len(LPS)


def leaky_splits(lps):  # plants a leak: one segment of the test pair in training
    return [(p, np.r_[train, test[:1]], test) for p, train, test in evaluation.pair_splits(lps)]


def test_a_planted_leak_is_refused():
    with pytest.raises(ValueError, match="leak"):
        evaluation.leave_one_pair_out(LPS, lambda train, test: np.zeros(len(test)), splits=leaky_splits)


def test_wmt16_pairs_share_no_source_but_some_references():
    """Leave-one-pair-out never trains on a test source; but WMT16's English references come from
    shared English documents: some test references were seen (with other translations) in training.
    A known confound of the chapter's evaluation, kept visible here."""
    from course_lib.evaluation.datasets import wmt16

    df = wmt16()
    assert df.groupby("src").lp.nunique().max() == 1
    shared = df.groupby("ref").lp.nunique()
    assert (shared > 1).any()
    assert df.ref.isin(shared[shared > 1].index).mean() < 0.5


def test_correlation_interval_brackets_the_estimate():
    g = np.random.default_rng(0)
    h = g.normal(size=300)
    m = h + g.normal(size=300)
    for method in ("pearson", "kendall"):
        r, low, high = evaluation.correlation_interval(h, m, method, n_resamples=200)
        assert low < r < high and high - low < 0.3
    table = evaluation.per_pair(pd.DataFrame({"lp": ["a"] * 150 + ["b"] * 150, "h": h, "m": m}), ["m"],
                                human="h", n_resamples=100)
    assert list(table.lp) == ["a", "b"] and (table.low < table.r).all()


# ---- score: the shipped heads ---------------------------------------------------------------

def test_score_gives_one_number_per_segment_and_ranks_the_obvious():
    refs = ["The bank approved the loan on Monday.", "The weather will be sunny tomorrow."]
    srcs = ["Die Bank genehmigte den Kredit am Montag.", "Das Wetter wird morgen sonnig."]
    good = learned.score(srcs, refs, refs)
    bad = learned.score(srcs, ["Potatoes are green on Fridays.", "The loan was refused by the bank."], refs)
    assert good.shape == (2,) and good.dtype == torch.float32
    assert (good > bad).all()
    assert learned.score(None, refs, refs).shape == (2,)


@pytest.mark.parametrize("name", ["with_source", "no_source"])
def test_shipped_head_reproduces_from_its_recipe(name):
    shipped = learned.load_head(name)
    retrained = learned.train(shipped.recipe)
    # bit for bit on the machine that trained it; another CPU changes the pooled vectors at ~1e-7, so
    # the weights are compared with a bound (seed 1 instead of 0 moves them by 0.83, measured)
    for (key, a), b in zip(shipped.model.state_dict().items(), retrained.model.state_dict().values()):
        assert (a - b).abs().max() < 1e-4, key
    assert shipped.recipe.use_source == (name == "with_source")
    assert set(shipped.recipe.pairs) == set(metric.PAIRS)


def test_shipped_heads_are_small():
    sizes = [p.stat().st_size for p in metric.HEADS.glob("*.safetensors")]
    assert len(sizes) == 2 and max(sizes) < 200_000
    assert (metric.HEADS / "README.md").is_file()


# ---- bad input ------------------------------------------------------------------------------

@pytest.mark.parametrize("args, error, message", [
    (([CAT], [CAT, MAT], [MAT, MAT]), ValueError, r"1 sources, 2 hypotheses, 2 references"),
    ((None, [CAT], [MAT, MAT]), ValueError, r"1 hypotheses, 2 references"),
    (([CAT], [""], [MAT]), ValueError, r"hypotheses\[0\] is empty"),
    (([CAT], [CAT], ["   "]), ValueError, r"references\[0\] is empty"),
    (([None], [CAT], [MAT]), TypeError, r"sources\[0\] is NoneType"),
    (([CAT], [CAT], [3]), TypeError, r"references\[0\] is int"),
    (([CAT], CAT, [MAT]), TypeError, r"hypotheses must be a list of strings, got str"),
    (([CAT], [CAT], None), TypeError, r"references must be a list of strings, got NoneType"),
])
def test_bad_input_names_the_argument(args, error, message):
    with pytest.raises(error, match=message):
        learned.score(*args)


def test_a_source_head_needs_sources():
    with pytest.raises(ValueError, match="trained with sources"):
        learned.score(None, [CAT], [MAT], head="with_source")
