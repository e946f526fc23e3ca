"""Streaming many pairs through the engine: windows of pairs tokenized together, chunks whose
vectors fit a memory budget, and one progress bar over them all.

`course_lib.score` embeds and matches one chunk at a time, so 100,000 pairs need no more memory
than a few thousand. Within a window, pairs that share a sentence are taken together and the
longest first (`pair_groups`): a shared sentence is embedded in few chunks, and a chunk holds
sentences of similar lengths, so its model batches need little padding.
"""
from __future__ import annotations

from tqdm.auto import tqdm

from course_lib.engine.fast_tokenizer import encode_many

CHUNK_PAIRS = 8192  # the most pairs embedded and matched at a time
# The most stored vector floats per chunk: 32 MB in float32. WMT16's 3,360 pairs at every layer (chapter 08) grew the
# process by 513-595 MB with 256 MB chunks, 258-371 MB with 64 MB (same time, 2 runs each, 2026-12-02); 32 MB with
# packing.MAX_BATCH_TOKENS = 1024 keeps chapters 07a and 08 within a hub's 1 GB (make memory).
STORE_FLOATS = 1 << 23
WINDOW_PAIRS = 16384  # pairs tokenized (in one call) and grouped and ordered together, at most
# A window's texts have at most WINDOW_CHARS characters: this bounds the token ids held at once
# (idf=True still tokenizes all references once, to count their document frequencies).
WINDOW_CHARS = 1 << 22


def pair_windows(flat_cands, flat_refs):
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


def pair_groups(pairs: range, flat_cands, flat_refs, size: dict) -> list[list[int]]:
    """The pairs in groups, in the order to take them (size: tokens of each sentence).

    Pairs linked by shared sentences form a group (one candidate with its references; one
    reference with the candidates of several systems); `chunks` keeps a group in one chunk
    when it fits, so a shared sentence is embedded once. Groups go longest first (by their
    longest sentence), so a chunk holds sentences of similar lengths and its model batches
    need little padding; inside a group, longest candidate first, its pairs side by side.
    Measured against consecutive pairs: 100,000 random pairs from data/ embed 2.48M tokens
    instead of 3.01M (-18 %); WMT16's 3,360 pairs with all_layers=True take 10 % less CPU time
    (36.8 s vs 40.9 s, 1 thread) and 12 % less peak memory (469 vs 535 MB), medians of 3.
    """
    parent: dict[str, str] = {}  # union-find over sentences

    def root(s):
        while parent.setdefault(s, s) != s:
            parent[s] = s = parent[parent[s]]  # path halving
        return s

    for k in pairs:
        parent[root(flat_cands[k])] = root(flat_refs[k])
    groups: dict[str, list[int]] = {}
    for k in pairs:
        groups.setdefault(root(flat_cands[k]), []).append(k)
    longest = {g: max(max(size[flat_cands[k]], size[flat_refs[k]]) for k in ks) for g, ks in groups.items()}
    by_candidate = lambda k: (-size[flat_cands[k]], flat_cands[k])  # noqa: E731
    return [sorted(groups[g], key=by_candidate) for g in sorted(groups, key=lambda g: -longest[g])]


def chunks(tokenizer, flat_cands, flat_refs, floats_per_token):
    """Cut the pairs into chunks whose unique sentences' vectors fit `STORE_FLOATS` floats
    (and at most `CHUNK_PAIRS` pairs). Yields (pair indices, sentences, their ids, truncated)
    per chunk: `truncated` counts the texts cut to the model's limit when a window was tokenized
    (given with the window's first chunk, 0 with the others).

    The pairs are read in windows (`pair_windows`), each tokenized in one call. Within a window
    they are taken in groups (`pair_groups`): a group that fits in a chunk is never split; only
    a group larger than a chunk is cut, pair by pair. Holds the ids of one window.
    """
    for window, stop in pair_windows(flat_cands, flat_refs):
        todo = list(dict.fromkeys(flat_cands[window:stop] + flat_refs[window:stop]))
        ids, truncated = encode_many(tokenizer, todo)
        cache = dict(zip(todo, ids))
        size = {s: len(i) for s, i in cache.items()}
        chunk: dict[str, None] = {}  # the chunk's sentences, in order
        pairs, tokens = [], 0

        def new_sentences(ks):  # sentences of pairs ks not in the chunk yet
            return list(dict.fromkeys(s for k in ks for s in (flat_cands[k], flat_refs[k]) if s not in chunk))

        def full(ks):  # would adding pairs ks overflow the (non-empty) chunk?
            extra = sum(size[s] for s in new_sentences(ks))
            return bool(pairs) and (len(pairs) + len(ks) > CHUNK_PAIRS
                                    or (tokens + extra) * floats_per_token > STORE_FLOATS)

        for group in pair_groups(range(window, stop), flat_cands, flat_refs, size):
            for k in group:  # a group that fits in a fresh chunk starts one; a larger one is cut
                if (k == group[0] and full(group)) or full([k]):
                    yield pairs, list(chunk), [cache[s] for s in chunk], truncated
                    chunk, pairs, tokens, truncated = {}, [], 0, 0
                added = new_sentences([k])
                chunk.update(dict.fromkeys(added))
                tokens += sum(size[s] for s in added)
                pairs.append(k)
        if pairs:
            yield pairs, list(chunk), [cache[s] for s in chunk], truncated


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
