"""Chapter 02's cases, reference functions, comparisons and the row-loop watch of 2.1; `checks.ch02` holds the
exercises and the chapter's data."""
from __future__ import annotations

import math
import sys
from pathlib import Path

import torch

from course_lib.caching import cached
from course_lib.model import DEFAULT_LAYER

from . import ForbiddenCall
from .exercise import Exercise, Function, Mismatch, Slip, Value  # noqa: F401


def _tokenizer():
    from course_lib.model import load

    return load()[0]


def _tokens(sentence) -> list[str]:
    from course_lib.bertscore.embeddings import tokens

    return tokens(_tokenizer(), sentence)


from .watch import LOOP_ROWS, _no_row_loop  # noqa: F401 - 2.1's watch


def _rows(gen, n, dim, low=0.1, high=10.0):
    """n vectors of `dim` with lengths spread from `low` to `high` (a cosine must not care)."""
    return torch.randn(n, dim, generator=gen) * (low + (high - low) * torch.rand(n, 1, generator=gen))


def _matrix_cases(rng):
    """Rows of very different lengths, a dimension of 384 (the model's), cosines of exactly 1 and -1, and a case
    with many rows on both sides (LOOP_ROWS or more), where a Python loop over the rows shows."""
    gen = torch.Generator().manual_seed(rng.randrange(2 ** 31))
    u = torch.randn(2, 16, generator=gen)
    return [(torch.randn(3, 8, generator=gen) * torch.tensor([[1.0], [5.0], [0.1]]), torch.randn(4, 8, generator=gen) * 3),
            (torch.randn(1, 384, generator=gen) + 1, torch.randn(rng.randint(3, 6), 384, generator=gen) * 0.2 + 1),
            (u, torch.cat([2 * u, -u, torch.randn(1, 16, generator=gen)])),
            (_rows(gen, rng.randint(LOOP_ROWS + 8, 64), 32), _rows(gen, rng.randint(LOOP_ROWS + 8, 64), 32))]


def _cosines(a, b):
    from course_lib.bertscore.similarity import cosine_matrix

    return cosine_matrix(a, b)


def _same_cosines(got, want, args):
    a, b = args
    if not isinstance(got, torch.Tensor):
        raise Mismatch(f"return a torch tensor, not {type(got).__name__}")
    if tuple(got.shape) != tuple(want.shape):
        raise Mismatch(f"for a {tuple(a.shape)} and b {tuple(b.shape)} you return shape {tuple(got.shape)}, expected "
                       f"[n, m] = {tuple(want.shape)}")
    err = float((got.double() - want.double()).abs().max())
    if not err < 1e-5:  # NaN too
        norms = [[round(float(x), 2) for x in side.norm(dim=1)[:6]] for side in (a, b)]
        raise Mismatch(f"for rows of norms {norms[0]}{'…' if len(a) > 6 else ''} and {norms[1]}"
                       f"{'…' if len(b) > 6 else ''} a cosine is off by {err:.4f}")


def _unit_rows(x, dim=-1):
    return x / x.norm(dim=dim, keepdim=True)


@cached(1)
def _real_batch():
    """The model's last-layer vectors of a real padded batch (a short sentence and a long one)."""
    from course_lib.bertscore.embeddings import embed

    real = embed(["A short one.", "A much longer sentence, with quite a few more words in it."], layer=6)
    return real.embeddings, real.mask


def _pooling_cases(rng):
    """Real tokens mostly negative (a 0 from padding would win their maximum), padding holding large values (it
    must never win), one full row and one of a single token; then a real padded batch of the model's vectors."""
    gen = torch.Generator().manual_seed(rng.randrange(2 ** 31))
    cases = []
    for _ in range(2):
        batch, seq, dim = rng.randint(3, 5), rng.randint(4, 7), rng.choice([4, 8, 16])
        lengths = [seq, 1] + [rng.randint(1, seq) for _ in range(batch - 2)]
        rng.shuffle(lengths)
        mask = torch.arange(seq)[None, :] < torch.tensor(lengths)[:, None]
        emb = torch.randn(batch, seq, dim, generator=gen) - 2.0
        emb[~mask] = 5.0 + torch.rand(int((~mask).sum()), dim, generator=gen)
        cases.append((emb, mask))
    cases.append(_real_batch())
    return cases


def _max_pool(emb, mask):
    return torch.stack([emb[b][mask[b].bool()].max(dim=0).values for b in range(len(emb))])


def _same_pooled(got, want, args):
    emb, mask = args
    if not isinstance(got, torch.Tensor):
        raise Mismatch(f"return a torch tensor, not {type(got).__name__}")
    if tuple(got.shape) != tuple(want.shape):
        raise Mismatch(f"shape {tuple(got.shape)}, expected [batch, dim] = {tuple(want.shape)}")
    bad = [b for b in range(len(want)) if not torch.allclose(got[b].float(), want[b].float(), atol=1e-5)]
    if bad:
        raise Mismatch(f"wrong vector for batch row(s) {bad}; real tokens per row {mask.long().sum(-1).tolist()}")


def _m(emb, mask):
    return mask.to(emb.dtype).unsqueeze(-1)


# (sentence a, sentence b, word): a word of several WordPiece tokens, at another position in each sentence
SEVERAL_PIECES = [
    ("Tokenization is the first step.", "Every model needs careful tokenization of its input.", "tokenization"),
    ("Unbelievably, it worked.", "It was unbelievably cold today.", "unbelievably"),
    ("Snowboarding is popular here.", "We went snowboarding in the mountains last winter.", "snowboarding"),
    ("Photosynthesis needs light.", "Plants use photosynthesis to make sugar from water and air.", "photosynthesis"),
    ("Cryptocurrency prices fell again.", "Nobody in my family trusts cryptocurrency at all.", "cryptocurrency"),
    ("Skateboarding looks hard.", "My little brother learned skateboarding in the park.", "skateboarding"),
]


# and a word of one token, so a function that only handles pieces fails too
ONE_PIECE = [("The dog barked all night.", "Yesterday my neighbour's dog ran away.", "dog"),
             ("A river runs through the town.", "We swam across the cold river.", "river"),
             ("The old house was empty.", "Nobody wanted to buy that house.", "house")]


def _word_cases(rng):
    picked = rng.sample(SEVERAL_PIECES, 3) + [rng.choice(ONE_PIECE)]
    return [(a, b, word, rng.randint(0, 6)) for a, b, word in picked]


@cached(64)
def _batch(a, b, layer):
    from course_lib.bertscore.embeddings import embed

    return embed([a, b], layer=layer).embeddings


def _start(toks, pieces) -> int:
    return next((k for k in range(len(toks) - len(pieces) + 1) if toks[k:k + len(pieces)] == pieces), 0)


def _word_vectors(a, b, word, layer, first_only=False, same_start=False):
    """The word's piece vectors in a and in b ([pieces, dim] each): the right ones, or a slip's."""
    pieces = _tokenizer().tokenize(word)
    emb = _batch(a, b, layer)
    i = _start(_tokens(a), pieces)
    j = i if same_start else _start(_tokens(b), pieces)
    n = 1 if first_only else len(pieces)
    return emb[0, i:i + n], emb[1, j:j + n]


def _cos(u, v) -> float:
    return float(u @ v / (u.norm() * v.norm()))


def _word_cosine(a, b, word, layer) -> float:
    u, v = _word_vectors(a, b, word, layer)
    return _cos(u.mean(dim=0), v.mean(dim=0))


def _mean_of_cosines(a, b, word, layer) -> float:
    u, v = _word_vectors(a, b, word, layer)
    return sum(_cos(x, y) for x, y in zip(u, v)) / max(1, len(u))


def _same_cosine(got, want, args):
    a, b, word, layer = args
    try:
        value = float(got)
    except (TypeError, ValueError):
        raise Mismatch(f"return the cosine as a number (a float), not {type(got).__name__}") from None
    if not (math.isfinite(value) and abs(value - want) < 1e-4):
        n = len(_tokenizer().tokenize(word))
        raise Mismatch(f"{word!r} ({n} WordPiece token{'s' if n > 1 else ''}) in {a!r} vs {b!r} at layer {layer}: "
                       f"you return {value:.4f}, expected {want:.4f}")


@cached()
def _cosines_by_layer(a: str, b: str, word: str) -> tuple[float, ...]:
    from course_lib.teaching.contextual import word_cosine_by_layer

    return tuple(word_cosine_by_layer(a, b, word).tolist())


def _at(senses, layer=DEFAULT_LAYER) -> dict:
    return {w: _cosines_by_layer(a, b, w)[layer] for w, (a, b) in senses.items()}


def _separated(senses, layer=DEFAULT_LAYER, most=min):
    cosines = _at(senses, layer)
    word = most(cosines, key=cosines.get)
    return word, cosines[word]


def _close(a, b, tol) -> bool:
    try:
        return math.isclose(float(a), float(b), abs_tol=tol, rel_tol=0)
    except (TypeError, ValueError):
        return False


def _same_separated(got, want, senses):
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        raise Mismatch("give a pair (word, cosine at layer 4), e.g. (\"bat\", 0.5), not only the word"
                       if isinstance(got, str) else f"give a pair (word, cosine at layer 4), not {type(got).__name__}")
    word, cos = str(got[0]).strip().lower(), got[1]
    if word not in senses:
        raise Mismatch(f"answer with a word of ch02.SENSE_PAIRS, not {got[0]!r}")
    if isinstance(cos, str) or not _close(cos, 0, math.inf):
        raise Mismatch(f"the cosine is a number, not {cos!r}")
    by_layer = _cosines_by_layer(*senses[word], word)
    layers = [k for k, c in enumerate(by_layer) if _close(cos, c, 1e-4)]
    if layers and DEFAULT_LAYER not in layers:
        raise Mismatch(f"{float(cos):.4f} is the cosine of {word!r} at layer {layers[0]}, not at layer "
                       f"{DEFAULT_LAYER}, BERTScore's default: measure at layer {DEFAULT_LAYER}")
    if not _close(cos, by_layer[DEFAULT_LAYER], 1e-4):
        if _close(cos, by_layer[DEFAULT_LAYER], 0.005) and _close(cos, round(float(cos), 3), 1e-12):
            raise Mismatch(f"{cos} is {word!r}'s cosine at layer {DEFAULT_LAYER} rounded too coarsely: give it to 4 "
                           "decimals or more")
        raise Mismatch(f"{word!r}: its two vectors' cosine at layer {DEFAULT_LAYER} is not {float(cos):.4f}")
    if word != want[0]:
        if word == _separated(senses, most=max)[0]:
            raise Mismatch(f"{word!r} is the word whose two senses are most *alike* at layer {DEFAULT_LAYER} (the "
                           "highest cosine): the most separated one has the lowest")
        raise Mismatch(f"{word!r} is not the word with the lowest cosine at layer {DEFAULT_LAYER}: another word's two "
                       "senses are further apart there")


# sentences with "cat" the chapter never prints, drawn when the check runs (other ones in grading)
_CAT_PREFIXES = ["The", "My", "Our old", "Yesterday, the", "I think the", "See the", "Look, the", "A",
                 "Unbelievably, the", "It's the", "Her lazy", "Cats? The", "Every morning the", "This"]


_CAT_SUFFIXES = ["sat.", "slept.", "is here.", "was hungry.", "left.", "ran away.", "purrs loudly."]


def _cat_cases(rng):
    prefixes = rng.sample(_CAT_PREFIXES, 4)
    return [(f"{p} cat {rng.choice(_CAT_SUFFIXES)}",) for p in prefixes]


def _cat_at(toks) -> int | None:
    return toks.index("cat") if "cat" in toks else None


def _twins_kind(original, got) -> tuple[str | None, str]:
    """(the kind of mistake `got` = (same, moved) makes for `original`, what is wrong), or (None, "") when right."""
    from course_lib.teaching.contextual import word_cosine_by_layer

    if not (isinstance(got, (tuple, list)) and len(got) == 2 and all(isinstance(s, str) for s in got)):
        return "not a pair", f"return two sentences (strings), (same, moved); you returned {got!r}"
    toks = {"original": _tokens(original), "same": _tokens(got[0]), "moved": _tokens(got[1])}
    at = {name: _cat_at(t) for name, t in toks.items()}
    for name in ("same", "moved"):
        if at[name] is None:
            return "no cat", f"your {name} sentence has no token \"cat\" (tokens: {toks[name]}); keep the word cat"
    if toks["same"] == toks["original"]:
        return "same tokens", ("your same sentence has the original's tokens (the model is uncased): it gives 1.0 at "
                               "every layer; change the context of cat, not its vector at layer 0")
    if at["same"] != at["original"]:
        return "same moved", (f"in your same sentence cat is token {at['same']}, in the original token "
                              f"{at['original']}: layer 0 adds a position embedding, so the vectors differ")
    if toks["moved"][at["moved"] + 1:] != toks["original"][at["original"] + 1:]:
        return "after changed", ("keep the words after cat as they are in your moved sentence: change only what "
                                 "comes before it")
    if at["moved"] == at["original"]:
        return "not moved", (f"in your moved sentence cat is still token {at['moved']}: what surrounds a token does "
                             "not reach layer 0, so its vector is the original's; change its position")
    same, moved = (word_cosine_by_layer(original, s, "cat") for s in got)
    if not (same[0] > 1 - 1e-6 and same[DEFAULT_LAYER] < 1 - 1e-4 and moved[0] < 1 - 1e-4):
        return "cosines", (f"cosines of cat at layers 0 and {DEFAULT_LAYER}: same {same[0]:.4f}, "
                           f"{same[DEFAULT_LAYER]:.4f}; moved {moved[0]:.4f}")
    return None, ""


def _twins_right(sentence):
    """No one right answer: any (same, moved) with the asked properties passes (`_same_twins` with want=None)."""
    return None


def _same_twins(got, want, args):
    """want None (the reference): `got` must be right; want a slip's twins: `got` must make the same mistake."""
    (original,) = args
    kind, message = _twins_kind(original, got)
    if want is None:
        if kind is not None:
            raise Mismatch(f"{original!r}: {message}")
    elif kind is None or kind != _twins_kind(original, want)[0]:
        raise Mismatch("another mistake")
