"""Streaming many pairs through the engine: windows of pairs tokenized together, chunks whose
vectors fit a memory budget, and one progress bar over them all.

`course_lib.score` embeds and matches one chunk at a time, so 100,000 pairs need no more memory
than a few thousand. Within a window the pairs are taken longest first: a chunk then holds
sentences of similar lengths, and its model batches need little padding.
"""
from __future__ import annotations

from tqdm.auto import tqdm

from course_lib.engine.fast_tokenizer import encode_many

CHUNK_PAIRS = 8192  # the most pairs embedded and matched at a time
STORE_FLOATS = 1 << 26  # the most stored vector floats per chunk (256 MB in float32)
WINDOW_PAIRS = 16384  # pairs tokenized (in one call) and sorted by length together, at most
WINDOW_CHARS = 1 << 22  # characters of those pairs' texts, at most (bounds the ids held at once)


def windows(flat_cands, flat_refs):
    """(start, stop) of consecutive windows of pairs: at most `WINDOW_PAIRS` pairs and (unless
    one pair alone is longer) at most `WINDOW_CHARS` characters of text."""
    start, stop, chars = 0, 0, 0
    while stop < len(flat_cands):
        size = len(flat_cands[stop]) + len(flat_refs[stop])
        if stop > start and (stop - start >= WINDOW_PAIRS or chars + size > WINDOW_CHARS):
            yield start, stop
            start, chars = stop, 0
        chars += size
        stop += 1
    if stop > start:
        yield start, stop


def chunks(tokenizer, flat_cands, flat_refs, floats_per_token, truncated):
    """Cut the pairs into chunks whose unique sentences' vectors fit `STORE_FLOATS` floats
    (and at most `CHUNK_PAIRS` pairs). Yields (pair indices, sentences, their ids) per chunk.

    The pairs are read in windows (`windows`), each tokenized in one call (the number of
    truncated texts is added to `truncated[0]`). Within a window, pairs are taken longest
    first, so each chunk holds sentences of similar lengths: its model batches need little
    padding, as if all sentences had been sorted together. Holds the ids of one window.
    """
    for window, stop in windows(flat_cands, flat_refs):
        todo = list(dict.fromkeys(flat_cands[window:stop] + flat_refs[window:stop]))
        ids, count = encode_many(tokenizer, todo)
        truncated[0] += count
        cache = dict(zip(todo, ids))
        size = {s: len(i) for s, i in cache.items()}
        order = sorted(range(window, stop), key=lambda k: -(size[flat_cands[k]] + size[flat_refs[k]]))
        chunk: dict[str, None] = {}
        pairs, tokens = [], 0
        for k in order:
            new = [s for s in dict.fromkeys((flat_cands[k], flat_refs[k])) if s not in chunk]
            extra = sum(size[s] for s in new)
            if pairs and (len(pairs) >= CHUNK_PAIRS or (tokens + extra) * floats_per_token > STORE_FLOATS):
                yield pairs, list(chunk), [cache[s] for s in chunk]
                chunk, pairs, tokens = {}, [], 0
                new = list(dict.fromkeys((flat_cands[k], flat_refs[k])))
                extra = sum(size[s] for s in new)
            chunk.update(dict.fromkeys(new))
            pairs.append(k)
            tokens += extra
        if pairs:
            yield pairs, list(chunk), [cache[s] for s in chunk]


class Progress:
    """One bar over the pairs (stderr). Within a chunk it moves as sentences are embedded
    (90 % of the chunk's share), then jumps to the chunk's end once its pairs are matched."""

    def __init__(self, total: int, enabled: bool):
        self.bar = tqdm(total=total, desc="BERTScore", unit="pair", disable=not enabled)
        self.done = 0.0

    def chunk(self, n_pairs: int, n_sentences: int):
        self.end, self.rate = self.bar.n + n_pairs, 0.9 * n_pairs / max(1, n_sentences)

    def embedded(self, n_sentences: int):
        self.done += self.rate * n_sentences
        self.bar.update(max(0, min(int(self.done), self.end) - self.bar.n))

    def matched(self):
        self.done = self.end
        self.bar.update(self.end - self.bar.n)
