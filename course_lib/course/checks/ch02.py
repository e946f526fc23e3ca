"""Checkers for chapter 02 (from symbols to vectors). Expected values come from course_lib's
similarity, pooling and contextual modules and the embedded model, computed on several cases."""
from __future__ import annotations

import torch

from course_lib.caching import cached
from course_lib.teaching.contextual import word_cosine_by_layer
from course_lib.bertscore.embeddings import embed, tokens
from course_lib.model import load
from course_lib.bertscore.similarity import cosine_matrix

from . import close, forbid, grading, hidden_rng, run



def _matrix_cases():
    g = torch.Generator().manual_seed(0)
    cases = [(torch.randn(3, 8, generator=g) * torch.tensor([[1.0], [5.0], [0.1]]), torch.randn(4, 8, generator=g) * 3),
             (torch.randn(1, 384, generator=g) + 1, torch.randn(5, 384, generator=g) * 0.2 + 1)]
    u = torch.randn(2, 16, generator=g)
    cases.append((u, torch.cat([2 * u, -u, torch.randn(1, 16, generator=g)])))  # cosines 1 and -1
    return cases


def check_2_1(pairwise_cosines, hint: int = 1) -> bool:
    """pairwise_cosines(a [n, dim], b [m, dim]) -> [n, m]: the cosine of every row of a with every row of b."""
    pairwise_cosines = forbid(pairwise_cosines, "course_lib.bertscore.similarity")

    def test():
        for a, b in _matrix_cases():
            want = cosine_matrix(a, b)
            got = pairwise_cosines(a.clone(), b.clone())
            assert isinstance(got, torch.Tensor), "return a torch tensor"
            assert tuple(got.shape) == tuple(want.shape), \
                f"for a {tuple(a.shape)} and b {tuple(b.shape)} you return shape {tuple(got.shape)}, expected [n, m] = " \
                f"{tuple(want.shape)}"
            err = float((got.float() - want).abs().max())
            if err >= 1e-5:
                slip = _cosine_slip(a, b, got.float())
                assert slip is None, f"for a {tuple(a.shape)} and b {tuple(b.shape)}: {slip}"
            assert err < 1e-5, f"for rows of norms {[round(float(x), 2) for x in a.norm(dim=1)]} and " \
                               f"{[round(float(x), 2) for x in b.norm(dim=1)]} a cosine is off by {err:.4f}"
    return run("2.1", test, "a cosine is the dot product of two vectors divided by both their lengths: it does "
                            "not change when a vector is made longer. Every row needs its own length; then one "
                            "matrix product gives all n x m values.",
               code="a = a / a.norm(dim=-1, keepdim=True); b = b / b.norm(dim=-1, keepdim=True); return a @ b.T",
               level=hint)


def _cosine_slip(a, b, got) -> str | None:
    """The common mistake of 2.1 that `got` [n, m] shows, named; None when it is none of them."""
    def near(x):
        return tuple(x.shape) == tuple(got.shape) and float((x - got).abs().max()) < 1e-4

    if near(a @ b.T):
        return ("you return the dot products, which grow with the vectors' lengths (a row times 5 gives 5 times "
                "the value); a cosine divides by both lengths")
    if near((a / a.norm(dim=0, keepdim=True)) @ (b / b.norm(dim=0, keepdim=True)).T):
        return ("you divided along dim 0, by each *column's* length (a coordinate over all the vectors); each "
                "row is one vector and needs its own length (the last dimension)")
    if near((a / a.norm(dim=-1, keepdim=True)) @ b.T) or near(a @ (b / b.norm(dim=-1, keepdim=True)).T):
        return "you scaled the rows of one input only: both a and b need their rows scaled to length 1"
    return None


def _pooling_cases():
    g = torch.Generator().manual_seed(1)
    emb = torch.randn(3, 5, 4, generator=g) - 2.0  # real tokens mostly negative: a 0 from padding would win
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0], [1, 0, 0, 0, 0]], dtype=torch.bool)
    emb[~mask] = 5.0  # padding positions hold large values: they must never win the maximum
    real = embed(["A short one.", "A much longer sentence, with quite a few more words in it."], layer=6)
    return [(emb, mask), (real.embeddings, real.mask)]


def _max_pool(emb, mask):
    return torch.stack([emb[b][mask[b].bool()].max(dim=0).values for b in range(len(emb))])


def check_2_2(masked_max_pool, hint: int = 1) -> bool:
    """masked_max_pool(embeddings [batch, seq_len, dim], mask [batch, seq_len]) -> [batch, dim]."""
    def test():
        for emb, mask in _pooling_cases():
            want = _max_pool(emb, mask)
            got = masked_max_pool(emb.clone(), mask.clone())
            assert isinstance(got, torch.Tensor), "return a torch tensor"
            assert tuple(got.shape) == tuple(want.shape), \
                f"shape {tuple(got.shape)}, expected [batch, dim] = {tuple(want.shape)}"
            bad = [b for b in range(len(want)) if not torch.allclose(got[b].float(), want[b], atol=1e-5)]
            if bad:
                slip = _pooling_slip(emb, mask, got.float())
                assert slip is None, slip
            assert not bad, f"wrong vector for batch row(s) {bad}; real tokens per row {mask.sum(-1).tolist()}"
    return run("2.2", test, "the maximum must run over a sentence's real tokens only: padding must never win it, "
                            "neither with its own values nor with whatever value you put in its place, and a "
                            "sentence's real values may all be negative.",
               code="return embeddings.masked_fill(~mask.bool().unsqueeze(-1), float('-inf')).max(dim=1).values",
               level=hint)


def _pooling_slip(emb, mask, got) -> str | None:
    """The common mistake of 2.2 that `got` [batch, dim] shows, named; None when it is none of them."""
    def near(x):
        return tuple(x.shape) == tuple(got.shape) and torch.allclose(x, got, atol=1e-5)

    m = mask.to(emb.dtype).unsqueeze(-1)
    if near(emb.max(dim=1).values):
        return ("you take the maximum over every position, padding included: a padding position holding a large "
                "value wins. Use the mask")
    if near((emb * m).max(dim=1).values):
        return ("you multiplied by the mask: padding becomes 0, and 0 beats a sentence whose real values are all "
                "negative (the mean ignores a 0 in the sum; the maximum picks it)")
    if near(emb.masked_fill(mask.bool().unsqueeze(-1), float("-inf")).max(dim=1).values):
        return ("you filled the real tokens and kept the padding: the mask is 1 (True) on a sentence's real tokens, "
                "so it is where the mask is 0 that -inf belongs")
    if near((emb * m).sum(dim=1) / m.sum(dim=1)):
        return "you return the mean of the real tokens; max pooling keeps each dimension's largest real value"
    return None


# (sentence a, sentence b, word, layer): words of several WordPiece tokens at different positions, and one-token words
WORD_CASES = [("Tokenization is the first step.", "Every model needs careful tokenization of its input.",
               "tokenization", 4),
              ("Unbelievably, it worked.", "It was unbelievably cold today.", "unbelievably", 0),
              ("Unbelievably, it worked.", "It was unbelievably cold today.", "unbelievably", 6),
              ("We sat on the river bank.", "We opened a new joint bank account.", "bank", 4),
              ("The cat sat on the mat.", "Yesterday the cat sat on the mat.", "cat", 3)]


def _span(token_list: list[str], pieces: list[str]) -> range:
    for i in range(len(token_list) - len(pieces) + 1):
        if token_list[i:i + len(pieces)] == pieces:
            return range(i, i + len(pieces))
    raise ValueError(f"{pieces} not in {token_list}")


@cached()
def _word_vector_cosine(a: str, b: str, word: str, layer: int) -> float:
    """The checker's own answer: cosine of the mean of the word's WordPiece vectors in a and in b."""
    tokenizer, _ = load()
    pieces = tokenizer.tokenize(word)
    batch = embed([a, b], layer=layer)
    va = batch.embeddings[0, list(_span(tokens(tokenizer, a), pieces))].mean(dim=0)
    vb = batch.embeddings[1, list(_span(tokens(tokenizer, b), pieces))].mean(dim=0)
    return float(cosine_matrix(va[None], vb[None])[0, 0])


def check_2_3(word_cosine, hint: int = 1) -> bool:
    """word_cosine(sentence_a, sentence_b, word, layer) -> cosine of the word's two vectors (a word of several
    WordPiece tokens: the mean of its pieces' vectors)."""
    def test():
        tokenizer, _ = load()
        for a, b, word, layer in WORD_CASES:
            want = _word_vector_cosine(a, b, word, layer)
            got = word_cosine(a, b, word, layer)
            assert close(got, want, 1e-4), (f"{word!r} ({len(tokenizer.tokenize(word))} WordPiece token(s)) in {a!r} "
                                            f"vs {b!r} at layer {layer}: you return {float(got):.4f}, "
                                            f"expected {want:.4f}")
    return run("2.3", test, "a word can be several WordPiece tokens (tokenizer.tokenize(word)), at a different "
                            "position in each sentence: find its run of pieces in each sentence's own token list, "
                            "average their vectors at the given layer, then take the cosine.",
               code="pieces = tokenizer.tokenize(word); ta = tokens(tokenizer, sentence_a); i = next(k for k in "
                    "range(len(ta)) if ta[k:k + len(pieces)] == pieces); va = batch.embeddings[0, i:i + "
                    "len(pieces)].mean(dim=0); the same for sentence_b; cosine of va and vb", level=hint)


# 2.4: words with two senses, never shown in the chapter
SENSE_PAIRS = {
    "bat": ("A bat flew out of the dark cave.", "He hit the ball hard with his bat."),
    "spring": ("The flowers bloom every spring.", "The old mattress had a broken spring inside."),
    "crane": ("A white crane stood in the shallow lake.", "The crane lifted steel beams onto the roof."),
    "pitch": ("The players ran onto the muddy pitch.", "She sang the note at a perfect pitch."),
    "watch": ("I watch the news every evening.", "My watch stopped at midnight."),
    "bark": ("The dog started to bark at night.", "The bark of the old oak tree was rough."),
}


def _most_separated_word(layer: int = 4) -> str:
    """The word of SENSE_PAIRS whose two senses have the lowest cosine at `layer`."""
    cosines = {w: _cosines_by_layer(a, b, w)[layer] for w, (a, b) in SENSE_PAIRS.items()}
    return min(cosines, key=cosines.get)


@cached()
def _cosines_by_layer(a: str, b: str, word: str) -> tuple[float, ...]:
    return tuple(word_cosine_by_layer(a, b, word).tolist())


def check_2_4(answer, hint: int = 1) -> bool:
    """answer: (the word of SENSE_PAIRS whose two occurrences are least similar at layer 4, that cosine)."""
    def test():
        assert answer is not None, "set answer_2_4 to (word, cosine): a word of ch02.SENSE_PAIRS and its cosine"
        assert isinstance(answer, (tuple, list)) and len(answer) == 2, (
            "give a pair (word, cosine at layer 4), e.g. (\"bat\", 0.5), not only the word")
        word, cos = str(answer[0]).strip().lower(), answer[1]
        assert word in SENSE_PAIRS, f"answer with one of {sorted(SENSE_PAIRS)}"
        assert not isinstance(cos, str), f"the cosine is a number, not the text {cos!r}"
        by_layer = _cosines_by_layer(*SENSE_PAIRS[word], word)
        layers = [k for k, c in enumerate(by_layer) if close(cos, c, 1e-4)]
        assert not layers or 4 in layers, (f"{cos:.4f} is the cosine of {word!r} at layer {layers[0]}, not at "
                                           "layer 4, BERTScore's default: measure at layer 4")
        rounded = close(cos, by_layer[4], 0.005) and close(float(cos), round(float(cos), 3), 1e-12)
        assert close(cos, by_layer[4], 1e-4) or not rounded, (
            f"{cos} is {word!r}'s cosine at layer 4 rounded too coarsely: give it to 4 decimals or more")
        assert close(cos, by_layer[4], 1e-4), f"{word!r}: its two vectors' cosine at layer 4 is not {float(cos):.4f}"
        want = _most_separated_word()
        assert word == want, (f"{word!r} is not the word with the lowest cosine at layer 4: another word's two "
                              "senses are further apart there")
    return run("2.4", test, "context separates the senses most where the two vectors are *least* similar: measure "
                            "each word's cosine at layer 4 (guessing from the meanings is not enough).",
               code="cosines = {w: word_cosine(a, b, w, 4) for w, (a, b) in ch02.SENSE_PAIRS.items()}; "
                    "w = min(cosines, key=cosines.get); answer_2_4 = (w, cosines[w])", level=hint)


# 2.5: sentences with "cat" (hidden ones in grading mode); the student builds, for each, a sentence whose "cat" is the
# same at layer 0 and one whose "cat" is not, keeping the words after it
CAT_SENTENCES = ["Her lazy cat purrs loudly.", "Look, the cat ran away.", "Every morning the cat was hungry.",
                 "Cats? The cat is here."]


def _cat_at(sentence) -> int | None:
    """The token index of the first "cat" in `sentence` (uncased WordPiece tokens), None when it has none."""
    toks = tokens(load()[0], sentence)
    return toks.index("cat") if "cat" in toks else None


def _twins_slip(original: str, same, moved) -> str | None:
    """What is wrong with the student's (same, moved) for `original`, or None."""
    toks = {name: tokens(load()[0], s) for name, s in (("original", original), ("same", same), ("moved", moved))}
    at = {name: _cat_at(s) for name, s in (("original", original), ("same", same), ("moved", moved))}
    for name in ("same", "moved"):
        if at[name] is None:
            return f"your {name} sentence has no token \"cat\" (tokens: {toks[name]}); keep the word cat"
    if toks["same"] == toks["original"]:
        return ("your same sentence has the original's tokens (the model is uncased): it gives 1.0 at every layer; "
                "change the context of cat, not its vector at layer 0")
    if at["same"] != at["original"]:
        return (f"in your same sentence cat is token {at['same']}, in the original token {at['original']}: layer 0 "
                "adds a position embedding, so the vectors differ")
    if toks["moved"][at["moved"] + 1:] != toks["original"][at["original"] + 1:]:
        return "keep the words after cat as they are in your moved sentence: change only what comes before it"
    if at["moved"] == at["original"]:
        return (f"in your moved sentence cat is still token {at['moved']}: what surrounds a token does not reach "
                "layer 0, so its vector is the original's; change its position")
    return None


def check_2_5(cat_twins, hint: int = 1) -> bool:
    """cat_twins(sentence) -> (same, moved): `same` a sentence whose "cat" has the original's layer-0 vector (cosine
    1) but another layer-4 one, `moved` the words after "cat" kept, its layer-0 vector another; checked with the
    model's vectors on CAT_SENTENCES (hidden ones in grading mode)."""
    def test():
        for original in CAT_SENTENCES:
            got = cat_twins(original)
            assert isinstance(got, (tuple, list)) and len(got) == 2 and all(isinstance(s, str) for s in got), (
                f"{original!r}: return two sentences (strings), (same, moved); you returned {got!r}")
            slip = _twins_slip(original, *got)
            assert slip is None, f"{original!r}: {slip}"
            same, moved = (word_cosine_by_layer(original, s, "cat") for s in got)
            assert same[0] > 1 - 1e-6 and same[4] < 1 - 1e-4 and moved[0] < 1 - 1e-4, (
                f"{original!r}: cosines of cat at layers 0 and 4: same {same[0]:.4f}, {same[4]:.4f}; "
                f"moved {moved[0]:.4f}")
    return run("2.5", test, "layer 0 is LayerNorm(word + position + segment embedding): what does it see of the "
                            "words around a token, and what of where the token sits? Count in the model's WordPiece "
                            "tokens (lowercased, punctuation split, rare words in pieces), not in words.",
               code="same = sentence + \" Really.\"  # after cat: cat keeps its position, its context changes; "
                    "moved = \"Well, \" + sentence  # two tokens before cat: another position; return same, moved",
               level=hint)


# Grading mode: words with two senses that no release prints (2.4 draws five of them).
_HIDDEN_SENSES = {
    "bank": ("We sat on the grassy bank of the river.", "She opened an account at the bank."),
    "seal": ("A seal swam past the fishing boat.", "Break the seal before you open the jar."),
    "match": ("He struck a match to light the candle.", "The match ended in a draw."),
    "trunk": ("The elephant lifted its trunk.", "Put the suitcase in the trunk of the car."),
    "rock": ("She climbed the huge rock by the sea.", "They listened to loud rock all night."),
    "fan": ("Turn on the fan, it is hot.", "He is a big fan of that team."),
    "light": ("The box was light enough to carry.", "Switch off the light before you leave."),
    "ring": ("She wore a gold ring on her finger.", "I heard the phone ring twice."),
    "bow": ("The violinist picked up her bow.", "The actors took a bow at the end."),
    "pen": ("The pigs were kept in a muddy pen.", "Sign the form with a blue pen."),
}
_CAT_PREFIXES = ["The", "My", "Our old", "Yesterday, the", "I think the", "See the", "Look, the", "A",
                 "Unbelievably, the", "It's the", "Her lazy", "Cats? The", "Every morning the", "This"]
_CAT_SUFFIXES = ["sat.", "slept.", "is here.", "was hungry.", "left.", "ran away.", "purrs loudly."]


def _hidden_data():
    """In grading mode the value exercise 2.4 runs on pairs drawn with the grading seed, which no release holds:
    answers copied from the solutions do not pass, the right code does. 2.4: five words of _HIDDEN_SENSES (none of
    the published words). 2.5 (a function) runs on four sentences with "cat" after seeded prefixes."""
    rng = hidden_rng("2.4")
    senses = {w: _HIDDEN_SENSES[w] for w in rng.sample(sorted(_HIDDEN_SENSES), 5)}
    rng = hidden_rng("2.5")
    sentences = [f"{rng.choice(_CAT_PREFIXES)} cat {rng.choice(_CAT_SUFFIXES)}" for _ in range(4)]
    return senses, sentences


if grading():
    SENSE_PAIRS, CAT_SENTENCES = _hidden_data()
