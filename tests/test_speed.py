"""The engine's speed measures keep the numbers: fast tokenizer, token-budget batching,
packed vectors, chunked streaming, vectorised several-reference maximum, progress bar."""
import csv
import random
import warnings

import pandas as pd
import pytest
import torch

import course_lib
from course_lib.call.setting import resolve_setting
import course_lib.engine.baseline
import course_lib.bertscore.embeddings as E
import course_lib.engine.fast_tokenizer as FT
import course_lib.engine.packing as PK
import course_lib.engine.pairs as PA
import course_lib.engine.store as SO
import course_lib.engine.streaming as ST
from course_lib.evaluation import datasets
from compare import max_diff

EDGE_CASES = [
    "", "   ", "\t\n", "[MASK] is here", "a [mask] b", "x[SEP]y", "[UNK] [CLS] [PAD]", "<s> </s>", "##ing",
    "Café naïve résumé", "e\u0301 combining", "İstanbul straße", "Ελληνικά Кириллица", "中文字符 测试 日本語",
    "emoji 😀 👍🏽 🍎", "zero\u200bwidth\u200d joiner", "ctrl\x00\x07char\ttab\nnewline\r", "a" * 150 + " b",
    "ﬁ ligature Ⅻ ① ²", "don't U.S.A. $3.50 -- (a) [b] {c}", "  leading and trailing  ", "ALL CAPS Mixed",
]


@pytest.fixture(scope="module")
def tokenizer():
    return course_lib.load()[0]


def every_text_in_data() -> list[str]:
    """Every distinct text cell of every table in data/ (csv, tsv, jsonl: WMT16 with its sources in
    6 languages, STS-B, PAWS, SummEval, the practice sets), and SummEval's 11 references per document."""
    texts = []
    for path in sorted(datasets.DATA.rglob("*")):
        if path.suffix in (".csv", ".tsv"):
            table = pd.read_csv(path, sep="\t" if path.suffix == ".tsv" else ",", keep_default_na=False,
                                quoting=csv.QUOTE_NONE if path.suffix == ".tsv" else csv.QUOTE_MINIMAL)
        elif path.suffix == ".jsonl":
            table = pd.read_json(path, lines=True)
        else:
            continue
        texts += [v for column in table.columns for v in table[column] if isinstance(v, str)]
    texts += [r for refs in datasets.summeval()[0].refs for r in refs]
    return list(dict.fromkeys(texts))


def test_every_text_the_course_reads_is_in_the_comparison():
    texts = {t.strip() for t in every_text_in_data()}  # encode strips, as bert-score does
    wmt, sts, paws = datasets.wmt16(), datasets.stsb(), datasets.paws()
    docs, summaries = datasets.summeval()
    read = wmt.mt.tolist() + wmt.ref.tolist() + wmt.src.tolist() + sts.sentence1.tolist() + sts.sentence2.tolist()
    read += paws.sentence1.tolist() + paws.sentence2.tolist() + docs.src.tolist() + docs.ref.tolist()
    read += summaries.summary.tolist() + datasets.baseline_corpus()
    assert {t.strip() for t in read if isinstance(t, str)} <= texts


def test_fast_tokenizer_gives_bert_scores_ids_on_all_data(tokenizer):
    """bert-score tokenizes with the slow tokenizer; the fast path (transformers' own fast
    tokenizer) must give the same ids on every text the course uses (7 languages, long
    documents) and on edge cases: special tokens written in the text, accents, Chinese."""
    assert FT.fast_tokenizer(tokenizer) is not None  # the fast path is really taken
    texts = EDGE_CASES + every_text_in_data()
    assert len(texts) > 34_000  # distinct texts
    slow = [E.encode(tokenizer, t) for t in texts]  # bert-score's sent_encode, text by text
    fast, truncated = FT.encode_many(tokenizer, texts)
    bad = [t for t, a, b in zip(texts, slow, fast) if a != b]
    assert not bad, f"{len(bad)} texts tokenized differently, e.g. {bad[0][:80]!r}"
    limit = tokenizer.model_max_length
    assert truncated == sum(len(tokenizer.tokenize(t.strip())) + 2 > limit
                            for t, ids in zip(texts, slow) if len(ids) >= limit) > 0  # SummEval docs
    long = [t for t, ids in zip(texts, slow) if len(ids) == limit]
    assert FT.encode_many(tokenizer, long) == (slow_ids := [E.encode(tokenizer, t) for t in long], truncated)
    assert all(i[-1] == tokenizer.sep_token_id for i in slow_ids)


def test_lone_surrogates_take_the_slow_path(tokenizer):
    """The Rust tokenizer refuses a lone surrogate; the slow one drops it: such a list goes the slow way."""
    texts = ["a \ud800 b", "x[SEP]y", "中文 \udfff"]
    assert FT.encode_many(tokenizer, texts) == ([E.encode(tokenizer, t) for t in texts], 0)
    assert FT.encode_many(tokenizer, texts)[0][0] == FT.encode_many(tokenizer, ["a b"])[0][0]


def test_slow_path_switch_gives_the_same_ids(tokenizer, monkeypatch):
    texts = EDGE_CASES + datasets.wmt16().ref.tolist()[:50]
    fast = FT.encode_many(tokenizer, texts)
    monkeypatch.setattr(FT, "USE_FAST_TOKENIZER", False)
    assert FT.encode_many(tokenizer, texts) == fast == (E.encode_all(tokenizer, texts), 0)


def test_length_batches_cover_everything_within_budget():
    rng = random.Random(0)
    lengths = [rng.randint(2, 120) for _ in range(500)] + [700]
    batches = PK.length_batches(lengths, batch_size=16, max_tokens=512)
    flat = [k for b in batches for k in b]
    assert sorted(flat) == list(range(len(lengths)))
    assert [lengths[k] for k in flat] == sorted(lengths, reverse=True)  # longest first
    for b in batches:
        assert len(b) <= 16
        assert len(b) == 1 or len(b) * max(lengths[k] for k in b) <= 512
    assert [700] in [[lengths[k] for k in b] for b in batches]  # too long: a batch of its own


def test_match_batches_cover_everything_within_budget():
    rng = random.Random(1)
    c = [rng.randint(2, 80) for _ in range(300)]
    r = [rng.randint(2, 80) for _ in range(300)]
    batches = PA.match_batches(c, r, dim=8, n_layers=2, max_floats=20_000)
    assert sorted(k for b in batches for k in b) == list(range(300))
    for b in batches:
        assert len(b) == 1 or len(b) * (max(c[k] for k in b) + max(r[k] for k in b)) * 8 * 2 <= 20_000


@pytest.fixture(scope="module")
def pairs():
    wmt = datasets.wmt16().groupby("lp").sample(4, random_state=3)
    sts = datasets.stsb("dev").sample(12, random_state=3)
    cands = wmt.mt.tolist() + sts.sentence1.tolist()
    refs = wmt.ref.tolist() + sts.sentence2.tolist()
    return cands + cands[:5], refs + refs[5:10]  # some sentences repeat across pairs


@pytest.mark.parametrize("all_layers", [False, True], ids=["layer4", "all-layers"])
def test_batching_and_chunking_do_not_change_scores(pairs, monkeypatch, all_layers):
    """Token-budget batches, one sentence per batch, and tiny chunks (many passes over the
    model, duplicates re-embedded per chunk) all give the same scores."""
    cands, refs = pairs
    default = course_lib.score(cands, refs, all_layers=all_layers, idf=True)
    if not all_layers:
        one_by_one = course_lib.score(cands, refs, idf=True, batch_size=1)
        assert max_diff(default, one_by_one) <= 1e-6
    monkeypatch.setattr(PK, "MAX_BATCH_TOKENS", 64)
    monkeypatch.setattr(ST, "STORE_FLOATS", 384 * (7 if all_layers else 1) * 150)
    monkeypatch.setattr(ST, "CHUNK_PAIRS", 7)
    monkeypatch.setattr(PA, "MATCH_FLOATS", 384 * 7 * 100)
    monkeypatch.setattr(ST, "WINDOW_PAIRS", 11)
    small = course_lib.score(cands, refs, all_layers=all_layers, idf=True)
    assert default[0].shape == ((7, len(cands)) if all_layers else (len(cands),))
    assert max_diff(default, small) <= 1e-6


def test_chunks_respect_the_memory_budget(pairs, tokenizer, monkeypatch):
    """Every pair lands in exactly one chunk; a chunk holds each of its sentences once, within
    the budget; within a window of pairs, chunks go from the longest pairs to the shortest."""
    cands, refs = pairs
    monkeypatch.setattr(ST, "STORE_FLOATS", 384 * 200)
    monkeypatch.setattr(ST, "WINDOW_PAIRS", 20)
    chunks = list(ST.chunks(tokenizer, cands, refs, 384))
    assert sorted(k for c in chunks for k in c[0]) == list(range(len(cands)))
    for indices, sentences, ids, _ in chunks:
        assert len(sentences) == len(set(sentences))
        assert set(sentences) == {t for k in indices for t in (cands[k], refs[k])}
        assert ids == [E.encode(tokenizer, s) for s in sentences]
        assert len(indices) == 1 or sum(map(len, ids)) * 384 <= 384 * 200
    assert len(chunks) > 5
    size = {t: len(E.encode(tokenizer, t)) for t in cands[:20] + refs[:20]}
    first_window = [k for c in chunks for k in c[0] if k < 20]
    assert first_window == [k for group in ST.pair_groups(range(20), cands, refs, size) for k in group]


def test_pair_groups_keep_shared_sentences_together_longest_first():
    """Groups of pairs linked by a shared sentence stay together, longest group first; inside
    a group, longest candidate first with its pairs side by side."""
    size = {"X": 3, "Y": 8, "Z": 2, "R1": 2, "R2": 5, "R3": 1}
    cands, refs = ["X", "X", "Y", "Z"], ["R1", "R2", "R3", "R1"]  # Z shares R1 with X
    assert ST.pair_groups(range(4), cands, refs, size) == [[2], [0, 1, 3]]


def test_several_references_are_not_embedded_twice(tokenizer, monkeypatch):
    """A candidate and its references form one group, never split across chunks: with a
    small memory budget (many chunks), still every sentence is embedded once."""
    wmt = datasets.wmt16().head(150)
    cands = wmt.mt.tolist()[:50]
    groups = [[wmt.ref.iloc[k], wmt.mt.iloc[k + 50], wmt.ref.iloc[k + 100]] for k in range(50)]
    flat_cands = [c for c, g in zip(cands, groups) for _ in g]
    flat_refs = [r for g in groups for r in g]
    monkeypatch.setattr(ST, "STORE_FLOATS", 384 * 400)
    chunks = list(ST.chunks(tokenizer, flat_cands, flat_refs, 384))
    assert len(chunks) > 5
    assert sum(len(sentences) for _, sentences, _, _ in chunks) == len(set(flat_cands + flat_refs))


def test_truncation_is_warned_once_with_the_total_count(monkeypatch):
    long_text = " ".join(datasets.wmt16().ref.tolist()[:40])  # ~1,000 word pieces
    other = long_text.replace("the", "a")
    monkeypatch.setattr(ST, "CHUNK_PAIRS", 1)  # the two long texts land in different chunks
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        course_lib.score([long_text, "Short.", other], ["Short.", long_text, "Short."])
    messages = [str(w.message) for w in caught if "truncated" in str(w.message)]
    assert len(messages) == 1 and messages[0].startswith("2 text(s) longer")


def test_best_over_references_equals_a_plain_loop():
    torch.manual_seed(0)
    counts = [1, 3, 2, 1, 4]
    prf = torch.rand(7, sum(counts), 3)
    prf[2, 1, 0] = float("nan")  # NaN propagates, as torch.max does
    bounds = [0] + torch.tensor(counts).cumsum(0).tolist()
    loop = torch.stack([prf[..., a:b, :].max(dim=-2).values for a, b in zip(bounds, bounds[1:])], dim=-2)
    fast = PA.best_over_references(prf, counts)
    assert torch.equal(fast.isnan(), loop.isnan())
    assert torch.equal(fast.nan_to_num(-1.0), loop.nan_to_num(-1.0))
    assert torch.equal(PA.best_over_references(prf[0], counts), loop[0])


def test_scores_are_ordinary_tensors(pairs):
    P, R, F = course_lib.score(pairs[0][:3], pairs[1][:3])
    assert not P.is_inference() and not F.requires_grad
    F.add_(0.0)  # in-place use works (no inference-mode tensor leaks out)


def test_sentence_store_gives_scores_and_padded_batches(pairs):
    cands, refs = pairs
    tokenizer, model = course_lib.load()
    store = SO.SentenceStore(tokenizer, model, 4, resolve_setting().weights, 64)
    store.add(cands[:20] + refs[:20])  # tokenizes itself when no ids are given
    assert len(store.index) == len(set(cands[:20] + refs[:20]))  # each sentence once
    with pytest.raises(RuntimeError, match="filled once"):
        store.add(["more"])
    numbers = [torch.tensor([store.index[s] for s in side[:20]]) for side in (cands, refs)]
    prf, empty = PA.match_pairs(store, *numbers, exclude_special=False)
    assert empty.shape == (20, 2) and not empty.any()
    P, R, F = course_lib.score(cands[:20], refs[:20])
    assert max_diff([prf[:, 0], prf[:, 1], prf[:, 2]], [P, R, F]) <= 1e-6
    tokens = store.batch(cands[:4])
    emb, mask, weights, special = tokens.emb, tokens.mask, tokens.idf, tokens.special
    assert emb.shape[:2] == mask.shape == weights.shape == special.shape
    assert torch.allclose(emb[mask].norm(dim=-1), torch.ones(int(mask.sum())), atol=1e-5)
    assert (weights[special] == 0).all() and (weights[~mask] == 0).all()


def test_verbose_shows_one_progress_bar_on_stderr(pairs, capsys):
    cands, refs = pairs
    course_lib.score(cands, refs, verbose=True)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "BERTScore" in captured.err and f"{len(cands)}/{len(cands)}" in captured.err


def test_stored_vectors_never_exceed_the_chunk_budget(monkeypatch):
    """Streaming: however many pairs, a chunk stores at most STORE_FLOATS floats of vectors
    (a single pair may exceed it alone)."""
    cands, refs = course_lib.engine.baseline.random_pairs(datasets.stsb("dev").sentence1.tolist(), 150, seed=1)
    budget = 384 * 400
    monkeypatch.setattr(ST, "STORE_FLOATS", budget)
    sizes, add = [], SO.SentenceStore.add

    def recording_add(self, *args, **kwargs):
        add(self, *args, **kwargs)
        sizes.append(self.vectors.numel())

    monkeypatch.setattr(SO.SentenceStore, "add", recording_add)
    P, R, F = course_lib.score(cands, refs)
    assert len(sizes) > 5 and max(sizes) <= budget
    monkeypatch.undo()
    assert max_diff((P, R, F), course_lib.score(cands, refs)) <= 1e-6


def test_windows_bound_pairs_and_characters(monkeypatch):
    """Pairs are tokenized a window at a time: at most WINDOW_PAIRS pairs and WINDOW_CHARS
    characters (a single longer pair gets a window of its own), covering every pair in order."""
    monkeypatch.setattr(ST, "WINDOW_PAIRS", 4)
    monkeypatch.setattr(ST, "WINDOW_CHARS", 30)
    cands = ["a" * 5, "b" * 5, "c" * 40, "d", "e", "f", "g", "h", "i" * 10, "j" * 10]
    refs = ["x" * 5] * len(cands)
    windows = list(ST.pair_windows(cands, refs))
    assert [k for a, b in windows for k in range(a, b)] == list(range(len(cands)))
    for a, b in windows:
        chars = sum(len(cands[k]) + len(refs[k]) for k in range(a, b))
        assert b - a <= 4 and (chars <= 30 or b - a == 1)
    assert (2, 3) in windows  # the 45-character pair alone
