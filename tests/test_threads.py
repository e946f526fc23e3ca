"""Scoring from several threads at once gives the numbers of scoring in one thread.

The engine runs only the layers it needs. It once did so by cutting the cached model's layer
list in place while scoring, so a second thread scoring at another layer silently ran a model
with the wrong number of layers (wrong scores, and once a model left with 1 layer). The shared
model must never be mutated while scoring.
"""
import threading

import pytest
import torch

from course_lib.caching import Cache
from course_lib.engine import packing
from course_lib.engine.scorer import score
from course_lib.evaluation import datasets
from course_lib.model import load, num_layers_of

ROUNDS = 6  # calls per thread; the old in-place code failed in the first rounds


@pytest.fixture(scope="module")
def pairs():
    wmt = datasets.wmt16().sample(16, random_state=7)
    return wmt.mt.tolist(), wmt.ref.tolist()


def run_threads(jobs):
    """Run each job (a function of no arguments) ROUNDS times in its own thread, all at once,
    started together. Returns, per job, the list of its results."""
    barrier = threading.Barrier(len(jobs))
    results = [[] for _ in jobs]
    errors = []

    def work(k):
        try:
            barrier.wait()
            for _ in range(ROUNDS):
                results[k].append(jobs[k]())
        except Exception as err:  # noqa: BLE001 - reported in the main thread
            errors.append(err)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return results


def test_two_threads_at_different_layers_give_single_thread_scores(pairs):
    cands, refs = pairs
    _, model = load()
    n_layers = num_layers_of(model)
    layers = (1, n_layers)
    alone = {k: score(cands, refs, num_layers=k) for k in layers}
    assert (alone[1][2] - alone[n_layers][2]).abs().max() > 0.05  # the layers really differ

    results = run_threads([lambda k=k: score(cands, refs, num_layers=k) for k in layers])
    for k, runs in zip(layers, results):
        assert len(runs) == ROUNDS
        for P, R, F in runs:
            for ours, single in zip((P, R, F), alone[k]):
                assert torch.equal(ours, single), f"layer {k}: max |Δ| {(ours - single).abs().max():.3g}"
    assert len(model.encoder.layer) == n_layers  # the cached model keeps every layer


def test_all_layers_and_one_layer_in_threads(pairs):
    cands, refs = pairs
    _, model = load()
    alone_all = score(cands, refs, all_layers=True)
    alone_two = score(cands, refs, num_layers=2)
    runs_all, runs_two = run_threads([lambda: score(cands, refs, all_layers=True),
                                      lambda: score(cands, refs, num_layers=2)])
    for got in runs_all:
        assert all(torch.equal(a, b) for a, b in zip(got, alone_all))
    for got in runs_two:
        assert all(torch.equal(a, b) for a, b in zip(got, alone_two))
    assert len(model.encoder.layer) == num_layers_of(model)


def test_truncated_view_shares_parameters_and_leaves_the_model_alone():
    _, model = load()
    before = {name: id(m) for name, m in model.named_modules()}
    view = packing.first_layers(model, 2)
    assert view is packing.first_layers(model, 2)  # cached
    assert len(view.encoder.layer) == 2
    assert {name: id(m) for name, m in model.named_modules()} == before
    shared = dict(model.named_parameters())
    assert all(p is shared[name] for name, p in view.named_parameters())  # no copies of weights


def test_two_threads_loading_a_model_at_once_share_one_load(monkeypatch):
    """`load` checks its cache under a lock: two threads asking for a model not loaded yet get
    the same object, loaded once."""
    from course_lib import model as M

    calls = []

    class Fake(torch.nn.Module):
        pass

    def slow_load(ref):
        calls.append(ref.arg)
        threading.Event().wait(0.2)  # a slow disk: the other thread arrives meanwhile
        return object(), Fake()

    monkeypatch.setattr(M, "_from_pretrained", slow_load)
    monkeypatch.setattr(M, "_LOADED", Cache())
    barrier, got = threading.Barrier(2), []

    def work():
        barrier.wait()
        got.append(M.load("some/model", "cpu"))

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == ["some/model"] and got[0] is got[1]


def test_scoring_does_not_change_the_idf_weights_it_is_given(pairs):
    """idf weights are shared by every call that scores with them (a BERTScorer, the demo):
    reading the weight of a token no reference has must not add it to the defaultdict."""
    from course_lib.bertscore.idf import idf_weights, token_weights
    from course_lib.call.reference import reference_bertscore

    cands, refs = pairs
    tokenizer, _ = load()
    weights = idf_weights(refs[:4], tokenizer)
    before = dict(weights)
    score(cands, refs, idf=weights)
    reference_bertscore(cands[:2], refs[:2], idf=weights)
    unseen = min(set(range(tokenizer.vocab_size)) - set(weights))
    assert token_weights([unseen], weights) == [weights.default_factory()]
    assert dict(weights) == before
