"""embed_long and chunked_score on texts longer than one window, against an independent computation.

Where a text fits in one window both equal `course_lib.score` by construction (tested elsewhere).
Here every text needs several windows, so the engine's batching, padding and window bookkeeping
are checked against a plain loop: each window run alone through the Hugging Face model
(`output_hidden_states=True`), each token taking its vector from the window where it sits farthest
from an edge, and greedy matching written out with numpy.
"""
import numpy as np
import pytest
import torch

import course_lib
from course_lib.engine.long_text import chunked_score, embed_long
from course_lib.model import load

LAYER = 4
SIZE, OVERLAP = 16, 5  # small windows: texts of a few sentences need several

CAND = ("The committee met on Tuesday to discuss the new budget. After a long debate about schools, "
        "roads and the hospital, the members agreed to raise spending on public transport by ten "
        "percent, while cutting the money set aside for the new stadium.")
REF = ("On Tuesday the council debated next year's budget for hours. It finally decided to spend "
       "ten percent more on buses and trains and less on the planned football stadium; schools and "
       "the hospital keep the money they had.")


def _independent_vectors(text: str, size: int, overlap: int, layer: int = LAYER) -> np.ndarray:
    """[n + 2, dim] unit vectors: each window alone through the model, each token from its most
    central window ([CLS] from the first window, [SEP] from the last)."""
    tokenizer, model = load(device="cpu")
    body = tokenizer.convert_tokens_to_ids(tokenizer.tokenize(text))
    n = len(body)
    spans = []
    start = 0
    while True:  # windows of `size`, consecutive ones sharing `overlap`; the last one ends at n
        end = min(start + size, n)
        spans.append((max(end - size, 0), end))
        if end == n:
            break
        start += size - overlap
    states = []
    for a, b in spans:
        ids = torch.tensor([[tokenizer.cls_token_id] + body[a:b] + [tokenizer.sep_token_id]])
        with torch.no_grad():
            out = model(input_ids=ids, attention_mask=torch.ones_like(ids), output_hidden_states=True)
        states.append(out.hidden_states[layer][0].numpy())
    rows = [states[0][0]]
    for p in range(n):
        best = None  # (distance from the nearer edge, window); the first window wins a tie
        for w, (a, b) in enumerate(spans):
            if a <= p < b and (best is None or min(p - a, b - 1 - p) > best[0]):
                best = (min(p - a, b - 1 - p), w)
        w = best[1]
        rows.append(states[w][1 + p - spans[w][0]])
    rows.append(states[-1][-1])
    vectors = np.stack(rows)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _independent_prf(cand: np.ndarray, ref: np.ndarray) -> tuple[float, float, float]:
    """Greedy matching, every token weighing 1 but [CLS]/[SEP] (first and last rows) 0; the
    special tokens still count as match targets, as in bert-score."""
    sim = cand @ ref.T
    P = sim.max(axis=1)[1:-1].mean()
    R = sim.max(axis=0)[1:-1].mean()
    return float(P), float(R), float(2 * P * R / (P + R))


@pytest.mark.parametrize("text", [CAND, REF], ids=["cand", "ref"])
def test_embed_long_equals_windows_run_one_by_one(text):
    tokenizer, _ = load(device="cpu")
    got = embed_long(text, layer=LAYER, size=SIZE, overlap=OVERLAP, device="cpu")
    n = len(tokenizer.tokenize(text))
    assert n > 2 * SIZE and len(got.spans) >= 3, (n, got.spans)  # several windows, or this test shows nothing
    assert got.ids == tokenizer.build_inputs_with_special_tokens(tokenizer.convert_tokens_to_ids(tokenizer.tokenize(text)))
    want = _independent_vectors(text, SIZE, OVERLAP)
    assert got.embeddings.shape == (n + 2, want.shape[1])
    assert np.abs(got.embeddings.numpy() - want).max() < 1e-5


def test_chunked_score_equals_greedy_matching_by_hand():
    P, R, F = chunked_score([CAND, REF], [REF, CAND], num_layers=LAYER, size=SIZE, overlap=OVERLAP)
    c, r = _independent_vectors(CAND, SIZE, OVERLAP), _independent_vectors(REF, SIZE, OVERLAP)
    for k, (a, b) in enumerate([(c, r), (r, c)]):
        want = _independent_prf(a, b)
        got = (P[k].item(), R[k].item(), F[k].item())
        assert np.allclose(got, want, atol=1e-5, rtol=0), (k, got, want)
    assert P[0].item() == pytest.approx(R[1].item(), abs=1e-6)  # swapping the texts swaps P and R
    # not equal to the one-window score: the windows really changed the vectors
    whole = course_lib.score([CAND], [REF], num_layers=LAYER)[2].item()
    assert abs(whole - F[0].item()) > 1e-3


def test_a_text_beyond_the_model_limit_is_scored_whole():
    """600+ word pieces: `score` truncates to 510, chunked_score reads every piece."""
    tokenizer, _ = load(device="cpu")
    long_cand = " ".join([CAND, REF] * 8)
    long_ref = " ".join([REF, CAND] * 7) + " The stadium will not be built this year."
    assert len(tokenizer.tokenize(long_cand)) > 600 and len(tokenizer.tokenize(long_ref)) > 600
    P, R, F = chunked_score([long_cand], [long_ref], num_layers=LAYER)
    want = _independent_prf(_independent_vectors(long_cand, 510, 64), _independent_vectors(long_ref, 510, 64))
    assert np.allclose([P.item(), R.item(), F.item()], want, atol=1e-5, rtol=0)
    with pytest.warns(UserWarning):
        truncated = course_lib.score([long_cand], [long_ref], num_layers=LAYER)
    assert abs(truncated[1].item() - R.item()) > 1e-4  # the truncated score misses the last sentence
