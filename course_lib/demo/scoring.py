"""The demo's scoring: the per-text cache, one pair's view and result (`analyze`), worst matches.

Input checks, idf corpora and the baseline are `course_lib.demo.inputs`. Each text is embedded
once, at every layer (the engine's loop, `packing.embed_texts`), and kept in a small cache; a layer,
idf or rescaling change then only recomputes the pair's view (`course_lib.bertscore.pair.view_of`:
the cosine matrix and the taught greedy matching, a few ms), and a new text costs one forward
pass of that text alone. P, R, F equal `course_lib.score(...)` (tests/test_demo.py checks it).
"""
from __future__ import annotations

import html
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch

from course_lib.bertscore.baseline import rescale
from course_lib.bertscore.pair import PairView, view_of
from course_lib.lexical.bleu import sentence_bleu
from course_lib.lexical.rouge import rouge_l
from course_lib.caching import Cache
from course_lib.call.inputs import warn_empty_view
from course_lib.demo.inputs import baseline_for, check_layer, check_text, demo_setting, idf_for
from course_lib.engine.fast_tokenizer import encode_many
from course_lib.engine.packing import embed_texts

# ---------------------------------------------------------------------------------------------
# Texts: token ids and vectors at every layer, embedded once
# ---------------------------------------------------------------------------------------------

SHORT_TEXT = 128  # word pieces; up to here the forward pass runs on one thread
CACHE_SIZE = 64
LONG_TEXT_THREADS = torch.get_num_threads()  # torch's own choice (one per core), for long texts


@dataclass
class Encoded:
    """One text: token ids [n] and the vectors of every layer [n_layers + 1, n, dim]."""

    ids: list[int]
    layers: torch.Tensor = field(repr=False)


_TEXTS = Cache(CACHE_SIZE)  # text -> Encoded
_PAIRS = Cache(CACHE_SIZE)  # (cand, ref, layer, idf corpus) -> PairView


def clear_cache(texts: bool = True) -> None:
    """Forget every scored pair and (texts=True) every embedded text; the idf corpora stay."""
    if texts:
        _TEXTS.clear()
    _PAIRS.clear()


@contextmanager
def torch_threads(n: int | None):
    """Run torch on n threads inside this block (None: leave it), then restore the setting.

    The demo's small tensors gain nothing from a second thread, and on a busy 2-core machine
    waking an idle OpenMP worker cost 5-10 ms per operation (a layer change took 290 ms on two
    threads, 13 ms on one): `analyze` runs on one thread, except a long text's forward pass.
    """
    before = torch.get_num_threads()
    if n:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def encoded(text: str) -> Encoded:
    """Token ids and the vectors of every layer of one (checked) text; cached."""
    return encoded_many([text])[0]


def encoded_many(texts: list[str]) -> list[Encoded]:
    """`encoded` of each text. The texts not cached yet are embedded together by the engine's loop
    (`packing.embed_texts`: sorted by length, batched, packed; fewer forward passes than one per
    text: the class view's ten answers and its reference), at every layer, on one thread unless one
    is long. A real token's vectors equal those of the text's own pass within float rounding (1e-6)."""
    fresh = {}
    new = [t for t in dict.fromkeys(texts) if t not in _TEXTS]
    if new:
        setting = demo_setting()
        tokenizer, model = setting.tokenizer, setting.net
        ids = encode_many(tokenizer, new)[0]
        with torch_threads(1 if max(map(len, ids)) <= SHORT_TEXT else LONG_TEXT_THREADS):
            index, packed = embed_texts(tokenizer, model, new, None, all_layers=True, unit=False, ids=ids)
        for t, k in index.items():  # [n_layers + 1, n, dim]: this text's real tokens
            rows = slice(int(packed.start[k]), int(packed.start[k] + packed.length[k]))
            fresh[t] = _TEXTS.put(t, Encoded(ids[k], packed.vectors[:, rows].float().cpu().clone()))
    return [_TEXTS.get(t) or fresh[t] for t in texts]


def pair_view(candidate: str, reference: str, layer: int, idf_corpus: str | None) -> PairView:
    """Greedy matching of one pair (`course_lib.bertscore.matching.greedy_match`); cached."""
    def compute():
        setting = demo_setting()
        weights = idf_for(idf_corpus) or setting.weights
        c, r = encoded_many([candidate, reference])
        view = view_of(setting.tokenizer, c.ids, r.ids, c.layers[layer], r.layers[layer], weights)
        warn_empty_view(view)
        return view

    return _PAIRS.get((candidate, reference, layer, idf_corpus), compute)


# ---------------------------------------------------------------------------------------------
# One pair: scores and worst matches
# ---------------------------------------------------------------------------------------------

@dataclass
class WorstMatch:
    """A real token of one side and its best match on the other side."""

    side: str  # "candidate" or "reference"
    token: str
    best_match: str
    similarity: float
    index: int = -1  # position of `token` in its side's tokens


@dataclass
class Result:
    """Everything the demo shows for one (candidate, reference, settings)."""

    candidate: str
    reference: str
    layer: int
    idf_corpus: str | None
    rescaled: bool
    P: float  # BERTScore, rescaled when `rescaled`
    R: float
    F: float
    raw: tuple[float, float, float]  # BERTScore before rescaling
    bleu: float  # sentence BLEU, 0..100
    rouge_l: tuple[float, float, float]  # ROUGE-L precision, recall, F1
    worst: list[WorstMatch]
    view: PairView = field(repr=False)


def weakest(view: PairView, side: str, k: int = 1) -> list[WorstMatch]:
    """The k real tokens of one side whose best match (the greedy max) is lowest.

    Candidate side: sorted by max_j sim[i, j] (the terms of P); reference side: by
    max_i sim[i, j] (the terms of R). [CLS]/[SEP] are skipped as sources, allowed as targets.
    """
    sim, own, other, special = ((view.sim, view.cand_tokens, view.ref_tokens, view.cand_special)
                                if side == "candidate" else
                                (view.sim.T, view.ref_tokens, view.cand_tokens, view.ref_special))
    best, arg = sim.max(dim=1)
    real = ~special
    best = best.masked_fill(~real, float("inf"))
    order = torch.argsort(best, stable=True)[: min(k, int(real.sum()))].tolist()
    return [WorstMatch(side, own[i], other[int(arg[i])], float(best[i]), i) for i in order]


def worst_matches(view: PairView) -> list[WorstMatch]:
    """For each side, the real token whose best match is lowest (min_i max_j sim[i, j] for the
    candidate, the weakest term of P; min_j max_i sim[i, j] for the reference, of R)."""
    return weakest(view, "candidate") + weakest(view, "reference")


def worst_line(worst: list[WorstMatch]) -> str:
    """One line for the audience: which tokens matched worst."""
    parts = [f"{w.side} '{w.token}' (best match '{w.best_match}', cos {w.similarity:.2f})" for w in worst]
    return "Worst matched: " + " · ".join(parts) + "." if parts else "No tokens to match."


def checked_text(text, role: str) -> str:
    """`check_text`, skipped for a text embedded before (it passed then)."""
    if isinstance(text, str) and text.strip() in _TEXTS:
        return text.strip()
    return check_text(text, role)


def analyze(candidate: str, reference: str, layer: int | None = None, idf_corpus: str | None = None,
            rescale_with_baseline: bool = False) -> Result:
    """Score one pair the way the demo shows it (layer=None: the model's default layer).

    P, R, F equal `course_lib.score([candidate], [reference], num_layers=layer,
    idf=idf_for(idf_corpus), rescale_with_baseline=...)`. Texts and pairs are cached, so
    changing only the layer, idf or rescaling costs a few milliseconds.
    Raises InputProblem (a friendly message) for empty, unreadable or too-long texts.
    """
    candidate = checked_text(candidate, "candidate")
    reference = checked_text(reference, "reference")
    layer = check_layer(layer)
    with torch_threads(1):
        view = pair_view(candidate, reference, layer, idf_corpus)
        raw = (view.P, view.R, view.F)
        prf = torch.tensor(raw)
        if rescale_with_baseline:
            prf = rescale(prf, baseline_for(layer))
        worst = worst_matches(view)
    rl = rouge_l(candidate, reference)
    return Result(candidate, reference, layer, idf_corpus, rescale_with_baseline,
                  float(prf[0]), float(prf[1]), float(prf[2]), raw,
                  sentence_bleu(candidate, reference), (rl.precision, rl.recall, rl.fmeasure),
                  worst, view)


def summary_text(result: Result) -> str:
    """The scores of a Result as plain text (for notebooks and logs)."""
    kind = "rescaled" if result.rescaled else "raw"
    idf = f"idf: {result.idf_corpus}" if result.idf_corpus else "idf: off"
    return "\n".join([
        f"layer {result.layer} · {idf} · {kind} scores",
        f"BERTScore  P {result.P:.3f}  R {result.R:.3f}  F {result.F:.3f}",
        f"ROUGE-L    P {result.rouge_l[0]:.3f}  R {result.rouge_l[1]:.3f}  F {result.rouge_l[2]:.3f}",
        f"BLEU       {result.bleu:.1f} / 100",
        worst_line(result.worst),
    ])


def escape(text: str) -> str:
    return html.escape(text, quote=True)
