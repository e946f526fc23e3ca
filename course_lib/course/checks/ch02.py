"""Chapter 02's exercises as data (from symbols to vectors): each compared with course_lib's similarity module and
the embedded model on cases drawn when the check runs. `SENSE_PAIRS` is the chapter's data: the published words
here, others drawn with the grading secret in nbgrader's runs (`hidden_data`)."""
from __future__ import annotations

import math
import sys
from pathlib import Path

import torch

from course_lib.caching import cached
from course_lib.model import DEFAULT_LAYER

from . import ForbiddenCall
from .exercise import Exercise, Function, Mismatch, Slip, Value, checker

PUBLISHED = {
    # 2.4: words with two senses, never shown in the chapter: word -> (a sentence of one sense, one of the other)
    "SENSE_PAIRS": {
        "bat": ("A bat flew out of the dark cave.", "He hit the ball hard with his bat."),
        "spring": ("The flowers bloom every spring.", "The old mattress had a broken spring inside."),
        "crane": ("A white crane stood in the shallow lake.", "The crane lifted steel beams onto the roof."),
        "pitch": ("The players ran onto the muddy pitch.", "She sang the note at a perfect pitch."),
        "watch": ("I watch the news every evening.", "My watch stopped at midnight."),
        "bark": ("The dog started to bark at night.", "The bark of the old oak tree was rough."),
    },
}

# grading: words with two senses that no release prints (2.4 draws six of them, as many as the published ones)
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


def __getattr__(name):  # the chapter's data, read when asked (never drawn at import)
    if name in PUBLISHED:
        from .state import grading

        if grading():
            from .grading import hidden

            return hidden(name)
        return PUBLISHED[name]
    raise AttributeError(name)


def hidden_data(rng) -> dict:
    """Other data of the same kind, for grading: six words of `_HIDDEN_SENSES` (none of the published ones)."""
    return {"SENSE_PAIRS": {w: _HIDDEN_SENSES[w] for w in rng.sample(sorted(_HIDDEN_SENSES), 6)}}


def _tokenizer():
    from course_lib.model import load

    return load()[0]


def _tokens(sentence) -> list[str]:
    from course_lib.bertscore.embeddings import tokens

    return tokens(_tokenizer(), sentence)


# ------------------------------------------------------------------ 2.1 all pairwise cosines at once

LOOP_ROWS = 32  # a case with at least this many rows on each side shows whether the work grows with the rows


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


def _library_dirs() -> tuple[str, ...]:
    import sysconfig

    import course_lib

    paths = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    paths |= {str(Path(course_lib.__file__).parent), str(Path(torch.__file__).parent.parent)}
    return tuple(sorted(paths | {str(Path(p).resolve()) for p in paths})) + ("<frozen",)


class _Count(torch.overrides.TorchFunctionMode):
    """Counts the torch calls made while it is on (calls inside torch's own functions not counted)."""
    def __init__(self):
        super().__init__()
        self.calls = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.calls += 1
        return func(*args, **(kwargs or {}))


def _no_row_loop(fn):
    """`fn` watched: on a case with LOOP_ROWS rows or more on both sides, the lines of the student's own code it
    runs and the torch calls it makes must not reach the number of rows (one matrix product: a handful of each, for
    any number of rows; a Python loop over the rows or the pairs, in torch, numpy or plain Python: one or more per
    row). Counts, not timings: the same verdict on any machine."""
    libraries = _library_dirs()

    def watched(a, b):
        rows = min(len(a), len(b)) if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) else 0
        if rows < LOOP_ROWS:
            return fn(a, b)
        lines = [0]

        def in_frame(frame, event, arg):
            if event == "line":
                lines[0] += 1
            return in_frame

        def on_call(frame, event, arg):
            path = frame.f_code.co_filename
            return None if path.startswith(libraries) or "site-packages" in path else in_frame

        before = sys.gettrace()
        count = _Count()
        sys.settrace(on_call)
        try:
            with count:
                out = fn(a, b)
        finally:
            sys.settrace(before)
        if max(lines[0], count.calls) >= rows:
            raise ForbiddenCall(
                f"for a of {len(a)} rows and b of {len(b)} rows your function ran {lines[0]} lines of its code and "
                f"{count.calls} torch calls: a Python loop over the rows (or the pairs), which the exercise asks you "
                "to do without. Compute all n x m cosines at once, with operations on whole matrices")
        return out

    return watched


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


EX_2_1 = Exercise(
    "2.1", chapter="02",
    idea="a cosine is the dot product of two vectors divided by both their lengths: it does not change when a "
         "vector is made longer. Every row needs its own length; then one matrix product gives all n x m values.",
    answers=[Function("pairwise_cosines", _matrix_cases, _cosines, _same_cosines,
                      forbid=("course_lib.bertscore.similarity",), wrap=_no_row_loop, slips=[
        Slip("dot products", lambda a, b: a @ b.T,
             "you return the dot products, which grow with the vectors' lengths (a row times 5 gives 5 times the "
             "value); a cosine divides by both lengths"),
        Slip("dim 0", lambda a, b: _unit_rows(a, 0) @ _unit_rows(b, 0).T,
             "you divided along dim 0, by each *column's* length (a coordinate over all the vectors); each row is one "
             "vector and needs its own length (the last dimension)"),
        Slip("a only", lambda a, b: _unit_rows(a) @ b.T,
             "you scaled the rows of one input only: both a and b need their rows scaled to length 1"),
        Slip("b only", lambda a, b: a @ _unit_rows(b).T,
             "you scaled the rows of one input only: both a and b need their rows scaled to length 1"),
        Slip("whole norms", lambda a, b: a @ b.T / (a.norm() * b.norm()),
             "you divided by the length of each whole matrix: every row is a vector of its own and needs its own "
             "length")])],
    after="The library's version: `normalize` and `cosine_matrix` in course_lib.bertscore.similarity (shown below).")


# ------------------------------------------------------------------ 2.2 masked max pooling

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


EX_2_2 = Exercise(
    "2.2", chapter="02",
    idea="the maximum must run over a sentence's real tokens only: padding must never win it, neither with its own "
         "values nor with whatever value you put in its place, and a sentence's real values may all be negative.",
    answers=[Function("masked_max_pool", _pooling_cases, _max_pool, _same_pooled, slips=[
        Slip("padding included", lambda emb, mask: emb.max(dim=1).values,
             "you take the maximum over every position, padding included: a padding position holding a large value "
             "wins. Use the mask"),
        Slip("multiplied", lambda emb, mask: (emb * _m(emb, mask)).max(dim=1).values,
             "you multiplied by the mask: padding becomes 0, and 0 beats a sentence whose real values are all "
             "negative (the mean ignores a 0 in the sum; the maximum picks it)"),
        Slip("inverted", lambda emb, mask: emb.masked_fill(mask.bool().unsqueeze(-1), float("-inf")).max(dim=1).values,
             "you filled the real tokens and kept the padding: the mask is 1 (True) on a sentence's real tokens, so "
             "it is where the mask is 0 that -inf belongs"),
        Slip("mean", lambda emb, mask: (emb * _m(emb, mask)).sum(dim=1) / _m(emb, mask).sum(dim=1),
             "you return the mean of the real tokens; max pooling keeps each dimension's largest real value")])],
    after="course_lib.engine.pooling has the mean pooling of section 5 (`mean_pool`); Sentence-BERT's max pooling is "
          "yours.")


# ------------------------------------------------------------------ 2.3 a word of several pieces

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


EX_2_3 = Exercise(
    "2.3", chapter="02",
    idea="a word can be several WordPiece tokens (tokenizer.tokenize(word)), at a different position in each "
         "sentence: find its run of pieces in each sentence's own token list, average their vectors at the given "
         "layer, then take the cosine.",
    answers=[Function("word_cosine", _word_cases, _word_cosine, _same_cosine, slips=[
        Slip("first piece", lambda a, b, w, layer: _cos(*(v.mean(dim=0) for v in _word_vectors(a, b, w, layer, True))),
             "you took the vector of the word's first piece only: a word of several pieces has the mean of all its "
             "pieces' vectors"),
        Slip("one position", lambda a, b, w, layer: _cos(*(v.mean(dim=0) for v in
                                                           _word_vectors(a, b, w, layer, same_start=True))),
             "you took the word's position in sentence_a for sentence_b too: find it in each sentence's own tokens"),
        Slip("mean of cosines", _mean_of_cosines,
             "you averaged the cosines of the pieces, one by one: average the pieces' vectors first, then take one "
             "cosine")])],
    after="Section 3's `contextual.word_cosine_by_layer` is the one-token version.")


# ------------------------------------------------------------------ 2.4 which word does context pull apart most?

@cached()
def _cosines_by_layer(a: str, b: str, word: str) -> tuple[float, ...]:
    from course_lib.teaching.contextual import word_cosine_by_layer

    return tuple(word_cosine_by_layer(a, b, word).tolist())


def _at(senses, layer=DEFAULT_LAYER) -> dict:
    return {w: _cosines_by_layer(a, b, w)[layer] for w, (a, b) in senses.items()}


def _most_separated_word(layer: int = DEFAULT_LAYER, senses=None) -> str:
    """The word of `senses` (the published SENSE_PAIRS) whose two senses have the lowest cosine at `layer`."""
    cosines = _at(PUBLISHED["SENSE_PAIRS"] if senses is None else senses, layer)
    return min(cosines, key=cosines.get)


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


EX_2_4 = Exercise(
    "2.4", chapter="02",
    idea="context separates the senses most where the two vectors are *least* similar: measure each word's cosine at "
         "layer 4 (guessing from the meanings is not enough).",
    answers=[Value("answer_2_4", "SENSE_PAIRS", _separated, _same_separated, slips=[
        Slip("most alike", lambda senses: _separated(senses, most=max),
             "that is the word whose two senses are most *alike* at layer 4 (the highest cosine): the most separated "
             "one has the lowest"),
        Slip("last layer", lambda senses: _separated(senses, layer=6),
             "the cosine you give is at layer 6, not at layer 4, BERTScore's default: measure at layer 4"),
        Slip("rounded", lambda senses: (_separated(senses)[0], round(_separated(senses)[1], 2)),
             "your cosine is rounded too coarsely: give it to 4 decimals or more"),
        Slip("word only", lambda senses: _separated(senses)[0],
             "give a pair (word, cosine at layer 4), e.g. (\"bat\", 0.5), not only the word")])],
    after="Compute, don't type: grading runs your cell on other words.")


# ------------------------------------------------------------------ 2.5 cat twins

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


EX_2_5 = Exercise(
    "2.5", chapter="02",
    idea="layer 0 is LayerNorm(word + position + segment embedding): what does it see of the words around a token, "
         "and what of where the token sits? Count in the model's WordPiece tokens (lowercased, punctuation split, "
         "rare words in pieces), not in words.",
    answers=[Function("cat_twins", _cat_cases, _twins_right, _same_twins, slips=[
        Slip("not a pair", lambda s: s + " Indeed.", "return two sentences (strings), (same, moved)"),
        Slip("no cat", lambda s: (s.replace("cat", "dog"), "Well, " + s),
             "one of your sentences has no token \"cat\" (tokens(tokenizer, s) shows them): keep the word cat"),
        Slip("same tokens", lambda s: (s.upper(), "Well, " + s),
             "your same sentence has the original's tokens (the model is uncased): it gives 1.0 at every layer; "
             "change the context of cat, not its vector at layer 0"),
        Slip("same moved", lambda s: ("Well, " + s, "Well, " + s),
             "in your same sentence cat is at another token position than in the original: layer 0 adds a position "
             "embedding, so the vectors differ"),
        Slip("after changed", lambda s: (s + " Indeed.", s + " Indeed."),
             "keep the words after cat as they are in your moved sentence: change only what comes before it"),
        Slip("not moved", lambda s: (s + " Indeed.", s.upper()),
             "in your moved sentence cat is still at the token position it has in the original: what surrounds a "
             "token does not reach layer 0, so its vector is the original's; change its position")])])


EXERCISES = {ex.id: ex for ex in (EX_2_1, EX_2_2, EX_2_3, EX_2_4, EX_2_5)}


def _data():
    return {name: __getattr__(name) for name in PUBLISHED}


check_2_1, check_2_2, check_2_3, check_2_4, check_2_5 = (checker(ex, _data) for ex in EXERCISES.values())
