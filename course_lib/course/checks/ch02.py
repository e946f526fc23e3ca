"""Checkers for chapter 02 (from symbols to vectors). Expected values come from course_lib's
similarity, pooling and contextual modules and the embedded model, computed on several cases."""
from __future__ import annotations

from functools import lru_cache

import torch

from course_lib.teaching.contextual import token_index, word_cosine_by_layer
from course_lib.bertscore.embeddings import embed, tokens
from course_lib.model import load
from course_lib.teaching.pooling import mean_pool
from course_lib.bertscore.similarity import cosine_matrix

from . import close, forbid, run

RIVER, ACCOUNT = "We sat on the river bank.", "We opened a new joint bank account."
CELL_A, CELL_B = "The prisoner sat alone in his cell.", "The cell divides into two daughter cells."
CAT_A, CAT_B = "The cat sat on the mat.", "Yesterday the cat sat on the mat."


def _vector_pairs():
    g = torch.Generator().manual_seed(0)
    pairs = [(torch.randn(8, generator=g) * s, torch.randn(8, generator=g)) for s in (1.0, 3.0, 0.2)]
    u = torch.randn(384, generator=g) * 5
    pairs += [(u, 2 * u), (u, -u), (torch.randn(384, generator=g) + 1, torch.randn(384, generator=g) + 1)]
    return pairs


def check_2_1(cosine, hint: int = 1) -> bool:
    """cosine(u, v) -> the cosine similarity of two 1-D tensors."""
    cosine = forbid(cosine, "course_lib.bertscore.similarity", "course_lib.teaching.pooling")

    def test():
        for u, v in _vector_pairs():
            want = float(cosine_matrix(u[None], v[None])[0, 0])
            got = cosine(u.clone(), v.clone())
            assert close(got, want, 1e-5), f"for vectors of norms {u.norm():.2f} and {v.norm():.2f} " \
                                           f"you return {float(got):.4f}, expected {want:.4f}"
    return run("2.1", test, "the cosine is the dot product divided by the lengths of *both* vectors.",
               code="return float(u @ v / (u.norm() * v.norm()))", level=hint)


def _pooling_cases():
    g = torch.Generator().manual_seed(1)
    emb = torch.randn(3, 5, 4, generator=g)
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0], [1, 0, 0, 0, 0]], dtype=torch.bool)
    real = embed(["A short one.", "A much longer sentence, with quite a few more words in it."], layer=6)
    return [(emb, mask), (real.embeddings, real.mask)]


def check_2_2(masked_mean_pool, hint: int = 1) -> bool:
    """masked_mean_pool(embeddings [batch, seq_len, dim], mask [batch, seq_len]) -> [batch, dim]."""
    masked_mean_pool = forbid(masked_mean_pool, "course_lib.teaching.pooling")

    def test():
        for emb, mask in _pooling_cases():
            want = mean_pool(emb, mask)
            got = masked_mean_pool(emb.clone(), mask.clone())
            assert isinstance(got, torch.Tensor), "return a torch tensor"
            assert tuple(got.shape) == tuple(want.shape), \
                f"shape {tuple(got.shape)}, expected [batch, dim] = {tuple(want.shape)}"
            bad = [b for b in range(len(want)) if not torch.allclose(got[b].float(), want[b], atol=1e-5)]
            assert not bad, f"wrong vector for batch row(s) {bad}; mask lengths {mask.sum(-1).tolist()}"
    return run("2.2", test, "padding positions must not count: average over the real tokens of each "
                            "sentence only, not over seq_len.",
               code="m = mask.unsqueeze(-1).float(); return (embeddings * m).sum(dim=1) / m.sum(dim=1)",
               level=hint)


# (sentence a, sentence b, word, layer): "cat" moves from token 2 to token 3, "bank" stays at token 6
WORD_CASES = [(RIVER, ACCOUNT, "bank", 0), (RIVER, ACCOUNT, "bank", 4), (CAT_A, CAT_B, "cat", 0),
              (CAT_A, CAT_B, "cat", 3)]


@lru_cache(maxsize=None)
def _cosines_by_layer(a: str, b: str, word: str) -> tuple[float, ...]:
    return tuple(word_cosine_by_layer(a, b, word).tolist())


def check_2_3(word_cosine, hint: int = 1) -> bool:
    """word_cosine(sentence_a, sentence_b, word, layer) -> cosine of the word's two vectors."""
    word_cosine = forbid(word_cosine, "course_lib.teaching.contextual.word_cosine_by_layer")

    def test():
        for a, b, word, layer in WORD_CASES:
            want = _cosines_by_layer(a, b, word)[layer]
            got = word_cosine(a, b, word, layer)
            assert close(got, want, 1e-4), f"{word!r} in {a!r} vs {b!r} at layer {layer}: you return " \
                                           f"{float(got):.4f}, expected {want:.4f}"
    return run("2.3", test, "the word may sit at a different position in each sentence: find it in each "
                            "sentence's own token list, at the given layer.",
               code="batch = embed([sentence_a, sentence_b], layer=layer); i = tokens(tokenizer, sentence_a)"
                    ".index(word); j = tokens(tokenizer, sentence_b).index(word); cosine of "
                    "batch.embeddings[0, i] and batch.embeddings[1, j]", level=hint)


def lowest_cell_layer() -> int:
    """The layer where "cell" in CELL_A and CELL_B has the lowest cosine."""
    cosines = _cosines_by_layer(CELL_A, CELL_B, "cell")
    return cosines.index(min(cosines))


def check_2_4(answer, hint: int = 1) -> bool:
    """answer: the layer (0..n) where "cell" in the two sentences is least similar."""
    def test():
        assert answer is not None, "set answer_2_4 to a layer number"
        assert isinstance(answer, (int, float)) or hasattr(answer, "item"), "answer with a layer number"
        n = load()[1].config.num_hidden_layers
        assert float(answer) == int(float(answer)) and 0 <= int(float(answer)) <= n, \
            f"layers are numbered 0..{n}"
        assert int(float(answer)) == lowest_cell_layer(), "not the layer with the lowest cosine"
    return run("2.4", test, "context matters most where the two \"cell\" vectors are *least* similar.",
               code="cosines = [word_cosine(ch02.CELL_A, ch02.CELL_B, \"cell\", k) for k in range(n_layers + 1)]; "
                    "answer_2_4 = int(np.argmin(cosines))", level=hint)


def differing_embedding_input() -> str:
    """Which input of the embedding layer differs between "cat" in CAT_A and in CAT_B:
    "word" (token id), "position" or "segment" (token type; always 0 for one sentence)."""
    tokenizer, _ = load()
    ta, tb = tokens(tokenizer, CAT_A), tokens(tokenizer, CAT_B)
    ia, ib = token_index(ta, "cat"), token_index(tb, "cat")
    differs = {"word": ta[ia] != tb[ib], "position": ia != ib, "segment": False}
    found = [k for k, v in differs.items() if v]
    return found[0] if len(found) == 1 else "+".join(found)


def check_2_5(answer, hint: int = 1) -> bool:
    """answer: "word", "position" or "segment"."""
    def test():
        assert answer is not None, "set answer_2_5 to \"word\", \"position\" or \"segment\""
        text = str(answer).strip().lower()
        assert text in ("word", "position", "segment"), "answer with \"word\", \"position\" or \"segment\""
        assert text == differing_embedding_input(), "that input is the same for both occurrences of \"cat\""
    return run("2.5", test, "layer 0 computes LayerNorm(word + position + segment embedding).",
               code="compare the token, its index (tokens(tokenizer, s).index(\"cat\")) and the segment of "
                    "\"cat\" in the two sentences.", level=hint)
