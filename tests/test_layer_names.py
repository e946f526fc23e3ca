"""One meaning per name: a layer is a hidden-state index (0 = embedding output), `None` is the
model's default BERTScore layer, and every layer is only ever `all_layers=True`."""
import pytest
import torch

from course_lib.bertscore.embeddings import embed, encode_all, hidden_states, pad
from course_lib.call.setting import resolve_setting
from course_lib.engine import packing
from course_lib.model import DEFAULT_LAYER, load
from course_lib.engine import pooling
from course_lib.teaching import naive

TEXTS = ["The cat sat on the mat.", "A dog barked."]


@pytest.fixture(scope="module")
def batch():
    tokenizer, model = load()
    input_ids, mask = pad(encode_all(tokenizer, TEXTS), tokenizer.pad_token_id)
    return model, input_ids, mask


def test_hidden_states_takes_a_layer_and_all_layers_is_every_layer(batch):
    """Below the setting a layer is a required argument; embed's None is the default layer,
    decided where every setting decides it (`model.check_layer`)."""
    model, input_ids, mask = batch
    every = hidden_states(model, input_ids, mask, None, all_layers=True)
    assert every.shape[:2] == (model.config.num_hidden_layers + 1, len(TEXTS))
    assert torch.equal(hidden_states(model, input_ids, mask, 0), every[0])
    assert torch.equal(hidden_states(model, input_ids, mask, DEFAULT_LAYER), every[DEFAULT_LAYER])
    with pytest.raises(TypeError):
        hidden_states(model, input_ids, mask)  # no default: the caller's setting says which layer
    assert torch.equal(embed(TEXTS).embeddings, every[DEFAULT_LAYER])
    assert resolve_setting().layer == DEFAULT_LAYER


def test_an_unknown_model_needs_an_explicit_layer():
    from course_lib.model import check_layer

    with pytest.raises(ValueError, match="num_layers=<layer>"):
        check_layer(None, "/some/local/model", 12)
    assert check_layer(2, "/some/local/model", 12) == 2


def test_embed_packed_takes_an_index_or_all_layers(batch):
    model, _, _ = batch
    ids = encode_all(load()[0], TEXTS)
    with pytest.raises(ValueError, match="all_layers=True"):
        packing.embed_packed(model, ids, None, 0)
    every = packing.embed_packed(model, ids, None, 0, all_layers=True).vectors
    one = packing.embed_packed(model, ids, 3, 0).vectors
    assert every.shape[0] == model.config.num_hidden_layers + 1
    assert (every[3] - one).abs().max() <= 1e-6


def test_teaching_helpers_use_the_same_meaning():
    assert torch.equal(naive.naive_embeddings(TEXTS), naive.naive_embeddings(TEXTS, layer=DEFAULT_LAYER))
    with pytest.raises(TypeError):
        pooling.sentence_embeddings(TEXTS)  # pooling has no default layer: say which one
    last = pooling.sentence_embeddings(TEXTS, layer=6)
    assert torch.allclose(last.norm(dim=-1), torch.ones(2))
