"""The instructor's live demo: type two sentences, see BERTScore's matrix and scores at once.

Everything the demo notebook (notebooks/demo.ipynb) shows is computed here, so its cells stay
one line long and the logic is unit-tested (tests/test_demo.py):

    from course_lib.demo import Demo, ClassView
    Demo()          # candidate + reference boxes, layer slider, idf / rescaling toggles, presets
    ClassView()     # a whole set of answers to one question, ranked by BERTScore and by BLEU

Pure functions first (`analyze`, `rank_answers`, `ranking_chart`, `time_reaction`), widgets last.
The scores are the chapters' own: the heatmap is `course_lib.teaching.plots.similarity_heatmap`, P/R/F
equal `course_lib.score(...)`, BLEU is `course_lib.lexical.bleu.sentence_bleu` (sacrebleu's), ROUGE-L
`course_lib.lexical.rouge.rouge_l` (rouge-score's).
"""
from __future__ import annotations

import html
import io
import statistics
import time
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field

import matplotlib
import pandas as pd
import torch
from matplotlib.figure import Figure

from course_lib.evaluation import datasets
from course_lib.bertscore.baseline import default_baseline_path, layer_baseline, rescale
from course_lib.lexical.bleu import sentence_bleu
from course_lib.bertscore.embeddings import tokens
from course_lib.bertscore.idf import idf_weights
from course_lib.model import DEFAULT_LAYER, ModelNotAvailableError, load, num_layers_of
from course_lib.teaching.plots import PairView, similarity_heatmap
from course_lib.lexical.rouge import rouge_l

# ---------------------------------------------------------------------------------------------
# Presets: the chapters' running examples, as (candidate, reference)
# ---------------------------------------------------------------------------------------------

from course_lib.resources import halford


_HALFORD = halford()
_HALFORD_NAMES = {1: "metal singer (right)", 2: "jazz trumpeter (wrong)", 3: "English outlaw (wrong)"}
HALFORD_QUESTION = _HALFORD["question"]
HALFORD_REFERENCE = _HALFORD["expected_answer"]
HALFORD_CANDIDATES = {_HALFORD_NAMES[c["id"]]: c["text"] for c in _HALFORD["candidates"]}

PRESETS: dict[str, tuple[str, str]] = {
    "lawyer / attorney": ("The attorney filed the legal brief.",
                          "The lawyer submitted the court document."),
    "cold / freezing": ("It is freezing today.", "The weather is cold today."),
    "red shoes: rouge slippers": ("The rouge slippers cost $20", "The red shoes cost $20.00"),
    "red shoes: blue socks": ("The blue socks cost $20", "The red shoes cost $20.00"),
    **{f"Rob Halford: {name}": (text, HALFORD_REFERENCE) for name, text in HALFORD_CANDIDATES.items()},
}

# ---------------------------------------------------------------------------------------------
# idf corpora (computed once per corpus, then cached) and the rescaling baseline
# ---------------------------------------------------------------------------------------------


def _wmt16_references() -> list[str]:
    return sorted({t.strip() for t in datasets.wmt16()["ref"] if isinstance(t, str) and t.strip()})


def _stsb_sentences() -> list[str]:
    df = datasets.stsb()
    texts = df["sentence1"].tolist() + df["sentence2"].tolist()
    return sorted({t.strip() for t in texts if isinstance(t, str) and t.strip()})


IDF_CORPORA = {"WMT16 references": _wmt16_references, "STS-B sentences": _stsb_sentences}
_IDF_CACHE: dict = {}


def corpus_size(name: str) -> int:
    """Number of (unique) texts in an idf corpus."""
    return len(IDF_CORPORA[name]())


def idf_for(name: str | None):
    """idf weights {token id: weight} of the named corpus (None: no idf). Computed once.

    idf(w) = log((M + 1) / (df(w) + 1)) over the corpus' M unique texts
    (`course_lib.bertscore.idf.idf_weights`).
    """
    if name is None:
        return None
    if name not in IDF_CORPORA:
        raise ValueError(f"unknown idf corpus {name!r}; choose one of {sorted(IDF_CORPORA)}")
    if name not in _IDF_CACHE:
        tokenizer, _ = load()
        _IDF_CACHE[name] = idf_weights(IDF_CORPORA[name](), tokenizer)
    return _IDF_CACHE[name]


def baseline_for(layer: int) -> torch.Tensor:
    """The course's (P, R, F) baseline [3] of the embedded model at `layer`."""
    return layer_baseline(default_baseline_path(None), layer)


# ---------------------------------------------------------------------------------------------
# Input checks: bad input becomes a friendly message, never a traceback
# ---------------------------------------------------------------------------------------------

MAX_CHARS = 20_000  # beyond this, do not even tokenize: it is certainly over the token limit


class InputProblem(ValueError):
    """Input the demo cannot score; str(err) is a message meant for the audience."""


def max_tokens() -> int:
    """Word pieces the model reads at most, [CLS] and [SEP] included (512 for MiniLM)."""
    tokenizer, _ = load()
    n = tokenizer.model_max_length
    return n if n < 100_000 else 512


def check_text(text, role: str = "candidate") -> str:
    """Return the stripped text, or raise InputProblem with a message saying what to change."""
    if not isinstance(text, str):
        raise InputProblem(f"The {role} must be text, not {type(text).__name__}.")
    text = text.strip()
    if not text:
        raise InputProblem(f"The {role} box is empty: type a sentence (or pick a preset).")
    limit = max_tokens()
    if len(text) > MAX_CHARS:
        raise InputProblem(
            f"The {role} is very long ({len(text):,} characters). The model reads at most "
            f"{limit - 2} word pieces (plus [CLS] and [SEP]); paste a shorter text.")
    tokenizer, _ = load()
    n = len(tokenizer.tokenize(text))
    if n == 0:
        raise InputProblem(f"The {role} has no word the tokenizer can read: type some words.")
    if n + 2 > limit:
        raise InputProblem(
            f"The {role} is too long: {n} word pieces, and the model reads at most {limit - 2} "
            "(plus [CLS] and [SEP]). BERTScore would silently cut the tail; shorten the text.")
    return text


def check_layer(layer) -> int:
    _, model = load()
    n = num_layers_of(model)
    if isinstance(layer, bool) or not isinstance(layer, int) or not 0 <= layer <= n:
        raise InputProblem(f"The layer must be a whole number from 0 to {n}, got {layer!r}.")
    return layer


# ---------------------------------------------------------------------------------------------
# One pair: scores, worst matches, heatmap
# ---------------------------------------------------------------------------------------------

_SPECIAL = {"[CLS]", "[SEP]", "<s>", "</s>"}


@dataclass
class WorstMatch:
    """The real token of one side whose best match on the other side is weakest."""

    side: str  # "candidate" or "reference"
    token: str
    best_match: str
    similarity: float


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
    png: bytes | None = field(default=None, repr=False)


def worst_matches(view: PairView) -> list[WorstMatch]:
    """For each side, the real token whose best match (the greedy max) is lowest.

    Candidate side: min_i max_j sim[i, j] (the weakest term of P);
    reference side: min_j max_i sim[i, j] (the weakest term of R).
    [CLS]/[SEP] are skipped as sources, but allowed as targets, as in the heatmap.
    """
    out = []
    for side, sim, own, other in (("candidate", view.sim, view.cand_tokens, view.ref_tokens),
                                  ("reference", view.sim.T, view.ref_tokens, view.cand_tokens)):
        best, arg = sim.max(dim=1)
        real = torch.tensor([t not in _SPECIAL for t in own])
        if not real.any():
            continue
        best = best.masked_fill(~real, float("inf"))
        i = int(best.argmin())
        out.append(WorstMatch(side, own[i], other[int(arg[i])], float(best[i])))
    return out


def worst_line(worst: list[WorstMatch]) -> str:
    """One line for the audience: which tokens matched worst."""
    parts = [f"{w.side} '{w.token}' (best match '{w.best_match}', cos {w.similarity:.2f})" for w in worst]
    return "Worst matched: " + " · ".join(parts) + "." if parts else "No tokens to match."


class HeatmapRenderer:
    """Draws `similarity_heatmap` into one reused figure and returns PNG bytes.

    Cheap redraws: one off-screen figure (not managed by pyplot, so it never pops up in the
    notebook), a small dpi, numbers in the cells only for short texts (text is the slow part),
    margins estimated from the token labels instead of measured (`bbox_inches="tight"` would
    draw the figure twice), and light PNG compression.
    """

    max_annotated_cells = 150  # numbers in the cells up to ~12 x 12 tokens
    cell_inches = (0.42, 0.33)  # width, height of one cell for short texts
    max_area_inches = (8.0, 7.0)  # the matrix and colour bar never grow beyond this

    def __init__(self, dpi: int = 90):  # 90 dpi costs ~5% more than 72 and reads better on a projector
        self.dpi = dpi
        self.fig = Figure(dpi=dpi)

    def layout(self, cand_tokens: list[str], ref_tokens: list[str], dense: bool):
        """Figure size (inches) and subplot margins (fractions) for these token labels."""
        char = 0.06 if dense else 0.09  # inches per character of a tick label
        slant = 1.0 if dense else 0.72  # x labels rotated by 90 or 45 degrees
        left = 0.75 + char * max(map(len, cand_tokens))
        bottom = 0.65 + char * slant * max(map(len, ref_tokens))
        top, right = 0.4, 0.1
        area_w = min(self.max_area_inches[0], max(3.0, self.cell_inches[0] * len(ref_tokens)) + 1.3)
        area_h = min(self.max_area_inches[1], max(2.4, self.cell_inches[1] * len(cand_tokens)))
        width, height = left + area_w + right, bottom + area_h + top
        margins = dict(left=left / width, right=1 - right / width, bottom=bottom / height,
                       top=1 - top / height)
        return (width, height), margins

    def render(self, candidate, reference, layer, weights) -> tuple[PairView, bytes]:
        """Draw the heatmap of one pair; return its PairView and the PNG bytes."""
        tokenizer, _ = load()
        cand_tokens, ref_tokens = tokens(tokenizer, candidate), tokens(tokenizer, reference)
        n_c, n_r = len(cand_tokens), len(ref_tokens)
        dense = n_c * n_r > self.max_annotated_cells
        size, margins = self.layout(cand_tokens, ref_tokens, dense)
        fig = self.fig
        fig.clf()
        fig.set_size_inches(*size)
        fig.subplots_adjust(**margins)
        ax = fig.add_subplot()
        ax, view = similarity_heatmap(candidate, reference, layer=layer, weights=weights, ax=ax,
                                      annot=not dense)
        if dense:  # long texts: smaller labels and marks
            box = ax.get_position()
            cell = min(box.width * size[0] / n_r, box.height * size[1] / n_c) * 72
            for line in ax.lines:
                line.set_markersize(min(line.get_markersize(), 0.9 * cell))
                line.set_markeredgewidth(1.0)
            for patch in ax.patches:
                patch.set_linewidth(1.0)
            ax.tick_params(labelsize=7)
            ax.tick_params(axis="x", labelrotation=90)
        buf = io.BytesIO()
        with matplotlib.rc_context({"savefig.bbox": "standard"}):  # one draw, no tight bbox
            fig.savefig(buf, format="png", dpi=self.dpi, pil_kwargs={"compress_level": 1})
        return view, buf.getvalue()


_RENDERER: HeatmapRenderer | None = None
_VIEWS: OrderedDict = OrderedDict()  # (cand, ref, layer, idf corpus, rendered) -> (view, png)
CACHE_SIZE = 64


def clear_cache() -> None:
    _VIEWS.clear()


@contextmanager
def one_torch_thread():
    """Run torch on one thread inside this block (then restore the setting).

    Two short sentences gain nothing from a second thread, and on a busy 2-core machine the
    idle OpenMP worker keeps spinning while matplotlib draws, which slowed a change by 2-3x.
    """
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _view(candidate, reference, layer, idf_corpus, render: bool):
    key = (candidate, reference, layer, idf_corpus, render)
    if key in _VIEWS:
        _VIEWS.move_to_end(key)
        return _VIEWS[key]
    weights = idf_for(idf_corpus)
    with one_torch_thread():
        value = _draw_or_score(candidate, reference, layer, weights, render)
    _VIEWS[key] = value
    while len(_VIEWS) > CACHE_SIZE:
        _VIEWS.popitem(last=False)
    return value


def _draw_or_score(candidate, reference, layer, weights, render: bool):
    if render:
        global _RENDERER
        _RENDERER = _RENDERER or HeatmapRenderer()
        value = _RENDERER.render(candidate, reference, layer, weights)
    else:
        from course_lib.teaching.plots import pair_view

        value = (pair_view(candidate, reference, layer=layer, weights=weights), None)
    return value


def analyze(candidate: str, reference: str, layer: int = DEFAULT_LAYER, idf_corpus: str | None = None,
            rescale_with_baseline: bool = False, render: bool = True) -> Result:
    """Score one pair the way the demo shows it.

    P, R, F equal `course_lib.score([candidate], [reference], num_layers=layer,
    idf=idf_for(idf_corpus), rescale_with_baseline=...)`; `render=True` also draws the heatmap
    (PNG bytes in `Result.png`). Results are cached per (texts, layer, idf corpus).
    Raises InputProblem (a friendly message) for empty, unreadable or too-long texts.
    """
    candidate = check_text(candidate, "candidate")
    reference = check_text(reference, "reference")
    layer = check_layer(layer)
    view, png = _view(candidate, reference, layer, idf_corpus, render)
    raw = (view.P, view.R, view.F)
    prf = torch.tensor(raw)
    if rescale_with_baseline:
        prf = rescale(prf, baseline_for(layer))
    rl = rouge_l(candidate, reference)
    return Result(candidate, reference, layer, idf_corpus, rescale_with_baseline,
                  float(prf[0]), float(prf[1]), float(prf[2]), raw,
                  sentence_bleu(candidate, reference), (rl.precision, rl.recall, rl.fmeasure),
                  worst_matches(view), view, png)


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


def scores_html(result: Result) -> str:
    """The scores of a Result as a small HTML table (what the widget shows)."""
    kind = "rescaled" if result.rescaled else "raw"
    cell = 'style="padding:2px 10px;text-align:right"'
    rows = [
        ("BERTScore" + (" (rescaled)" if result.rescaled else ""), "bertscore",
         (result.P, result.R, result.F)),
        ("ROUGE-L", "rougel", result.rouge_l),
    ]
    body = "".join(
        f"<tr><td>{name}</td>" + "".join(
            f'<td class="demo-{key}-{m}" {cell}>{v:.3f}</td>' for m, v in zip("PRF", values))
        + "</tr>" for name, key, values in rows)
    body += (f'<tr><td>BLEU</td><td class="demo-bleu" colspan="3" {cell}>{result.bleu:.1f} '
             '<small>(0–100)</small></td></tr>')
    note = f"layer {result.layer} · idf: {html.escape(result.idf_corpus or 'off')} · {kind}"
    if result.rescaled:
        note += f" (raw F {result.raw[2]:.3f})"
    return ('<table class="demo-table" style="border-collapse:collapse;font-size:110%">'
            f'<tr><th></th><th {cell}>P</th><th {cell}>R</th><th {cell}>F</th></tr>{body}</table>'
            f'<div style="color:#555;margin-top:4px">{note}</div>')


# ---------------------------------------------------------------------------------------------
# The class view: many answers to one question, ranked by BERTScore and by BLEU
# ---------------------------------------------------------------------------------------------

# Ten answers to the blog's question: its three, plus seven written for the course. The labels
# are the course's own judgment of each answer, for discussing where each metric goes wrong.
CLASS_SET = {
    "question": HALFORD_QUESTION,
    "reference": HALFORD_REFERENCE,
    "answers": [
        (HALFORD_CANDIDATES["metal singer (right)"], "right"),
        (HALFORD_CANDIDATES["jazz trumpeter (wrong)"], "wrong"),
        (HALFORD_CANDIDATES["English outlaw (wrong)"], "wrong"),
        ("He is the lead singer of Judas Priest, the heavy metal band.", "right"),
        ("The frontman of Judas Priest, nicknamed the Metal God.", "right"),
        ("Rob Halford is an English singer, best known as the vocalist of Judas Priest.", "right"),
        ("Rob Halford is known as the drummer of the famous jazz band Weather Report. With his "
         "distinctive style and energetic performances, he has become a legend in the world of jazz.",
         "wrong"),
        ("Rob Halford is not known as the singer of the famous metal band Judas Priest.", "wrong"),
        ("Metal band Judas Priest singer Halford Rob the famous known as is.", "garbled"),
        ("I don't know who Rob Halford is.", "no answer"),
    ],
}


def rank_answers(answers: list[str], reference: str, labels: list[str] | None = None,
                 layer: int = DEFAULT_LAYER, rescale_with_baseline: bool = True) -> pd.DataFrame:
    """Score every answer against one reference; rank by BERTScore F and by BLEU.

    Returns a DataFrame sorted by BERTScore F (best first) with columns answer, [label],
    BERTScore P, R, F (rescaled by default), BLEU (0-100), ROUGE-L F, rank BERTScore (by F),
    rank BLEU (1 = best; ties share the best rank).
    """
    from course_lib.engine.scorer import score

    answers = [check_text(a, f"answer {i + 1}") for i, a in enumerate(answers)]
    if not answers:
        raise InputProblem("There are no answers to rank: type one answer per line.")
    reference = check_text(reference, "reference")
    layer = check_layer(layer)
    P, R, F = score(answers, [reference] * len(answers), num_layers=layer,
                    rescale_with_baseline=rescale_with_baseline)
    df = pd.DataFrame({"answer": answers})
    if labels is not None:
        if len(labels) != len(answers):
            raise ValueError(f"{len(labels)} labels for {len(answers)} answers")
        df["label"] = list(labels)
    df["BERTScore P"] = P.tolist()
    df["BERTScore R"] = R.tolist()
    df["BERTScore F"] = F.tolist()
    df["BLEU"] = [sentence_bleu(a, reference) for a in answers]
    df["ROUGE-L F"] = [rouge_l(a, reference).fmeasure for a in answers]
    df["rank BERTScore"] = df["BERTScore F"].rank(ascending=False, method="min").astype(int)
    df["rank BLEU"] = df["BLEU"].rank(ascending=False, method="min").astype(int)
    df = df.sort_values(["rank BERTScore", "rank BLEU"], kind="stable").reset_index(drop=True)
    df.attrs["rescaled"] = bool(rescale_with_baseline)
    return df


def class_set_table() -> pd.DataFrame:
    """`rank_answers` on the course's ten answers about Rob Halford."""
    answers, labels = zip(*CLASS_SET["answers"])
    return rank_answers(list(answers), CLASS_SET["reference"], list(labels))


def short(text: str, n: int = 48) -> str:
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


_LABEL_COLORS = {"right": "#2a9d8f", "wrong": "#e76f51", "garbled": "#e9c46a", "no answer": "#8d99ae"}


def ranking_chart(df: pd.DataFrame, fig=None, title: str | None = None):
    """Two bar panels over the same answers (ordered by BERTScore F): BERTScore F and BLEU.

    Bars are coloured by `label` when the table has one. Returns the figure.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    if fig is None:
        fig = plt.figure(figsize=(10, 0.42 * len(df) + 1.6))
    axes = fig.subplots(1, 2, sharey=True)
    names = [f"{i + 1}. {short(a)}" for i, a in enumerate(df["answer"])]
    labels = df["label"] if "label" in df else ["answer"] * len(df)
    colors = [_LABEL_COLORS.get(l, "#4c72b0") for l in labels]
    y = list(range(len(df)))
    for ax, column in zip(axes, ["BERTScore F", "BLEU"]):
        ax.barh(y, df[column], color=colors)
        note = {"BLEU": " (0–100)", "BERTScore F": " (rescaled)" if df.attrs.get("rescaled") else ""}
        ax.set_xlabel(column + note[column])
        for yi, (v, r) in enumerate(zip(df[column], df[f"rank {column.split()[0]}"])):
            ax.text(v, yi, f" #{r}", va="center", fontsize=8)
        ax.margins(x=0.15)
    axes[0].set_yticks(y, names, fontsize=8)
    axes[0].invert_yaxis()
    if "label" in df:
        present = [l for l in _LABEL_COLORS if l in set(labels)]
        axes[1].legend(handles=[Patch(color=_LABEL_COLORS[l], label=l) for l in present],
                       loc="lower right", fontsize=8)
    fig.suptitle(title or "Answers ranked by BERTScore F (left); the same answers' BLEU (right)")
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------------
# Reaction time (for the benchmark): one change = score + heatmap + PNG
# ---------------------------------------------------------------------------------------------

def time_reaction(n: int = 20, layer: int = DEFAULT_LAYER, widget: bool = True,
                  clock: str = "wall", render: bool = True) -> float:
    """Median milliseconds per change (score + heatmap PNG), model warm, cache bypassed.

    Each change puts a new (candidate, reference) pair into the demo, cycling through the four
    short presets, as a preset click does. `widget=True` runs the widget's own update
    (`Demo.update`: scores, heatmap PNG and HTML; the browser's transfer excluded); False calls
    `analyze` directly. `render=False` (with widget=False) times the scores alone.
    clock="wall" measures elapsed time; clock="cpu" this process' CPU time, which on a busy
    shared machine estimates the idle wall time better when torch runs one thread.
    """
    if clock not in ("wall", "cpu"):
        raise ValueError(f"clock must be 'wall' or 'cpu', got {clock!r}")
    now = time.perf_counter if clock == "wall" else time.process_time
    pairs = [p for name, p in PRESETS.items() if not name.startswith("Rob Halford")]
    demo = Demo(layer=layer) if widget else None
    for pair in pairs:  # warm-up: model, tokenizer, matplotlib's font caches
        analyze(*pair, layer=layer, render=render)
    times = []
    for i in range(n):
        cand, ref = pairs[i % len(pairs)]
        clear_cache()
        start = now()
        if demo is not None:  # as a preset click: both boxes filled, then one update
            demo._filling = True
            demo.candidate.value, demo.reference.value = cand, ref
            demo._filling = False
            demo.update()
        else:
            analyze(cand, ref, layer=layer, render=render)
        times.append((now() - start) * 1000)
    return statistics.median(times)


# ---------------------------------------------------------------------------------------------
# Widgets
# ---------------------------------------------------------------------------------------------

CSS_PREFIX = "bertscore-demo"


class Demo:
    """The live demo: text boxes, layer slider, idf and rescaling toggles, presets; heatmap,
    P/R/F, BLEU and ROUGE-L, and which tokens matched worst. Display it in a notebook cell.

    Text boxes score when they lose focus (Tab, or a click outside), not on every key.
    """

    def __init__(self, preset: str = "lawyer / attorney", layer: int = DEFAULT_LAYER,
                 candidate: str | None = None, reference: str | None = None):
        import ipywidgets as w

        _, model = load()  # the model once, before the first change
        cand, ref = PRESETS[preset]
        box = w.Layout(width="98%", height="4.5em")
        self.preset = w.Dropdown(options=list(PRESETS), value=preset, description="Preset")
        self.candidate = w.Textarea(value=candidate if candidate is not None else cand,
                                    description="Candidate", layout=box, continuous_update=False)
        self.reference = w.Textarea(value=reference if reference is not None else ref,
                                    description="Reference", layout=box, continuous_update=False)
        self.layer = w.IntSlider(value=layer, min=0, max=num_layers_of(model), description="Layer",
                                 continuous_update=False)
        self.idf = w.Checkbox(value=False, description="idf weights from", indent=False,
                              layout=w.Layout(width="auto", margin="0 0 0 2em"))
        self.corpus = w.Dropdown(options=list(IDF_CORPORA), value=list(IDF_CORPORA)[0],
                                 layout=w.Layout(width="13em"))
        self.rescale = w.Checkbox(value=False, description="rescale with baseline", indent=False,
                                  layout=w.Layout(width="auto", margin="0 0 0 2em"))
        self.message = w.HTML()
        self.image = w.Image(format="png", layout=w.Layout(max_width="820px"))
        self.scores = w.HTML()
        self.worst = w.HTML()
        for name in ("candidate", "reference", "layer", "idf", "rescale", "message", "image",
                     "scores", "worst", "preset", "corpus"):
            getattr(self, name).add_class(f"{CSS_PREFIX}-{name}")
        self.output = w.VBox([self.message, w.HBox([self.image, self.scores]), self.worst])
        self.output.add_class(f"{CSS_PREFIX}-output")
        controls = w.HBox([self.layer, self.idf, self.corpus, self.rescale])
        self.widget = w.VBox([self.preset, self.candidate, self.reference, controls, self.output])
        self.widget.add_class(CSS_PREFIX)
        self.result: Result | None = None
        self._filling = False
        self.preset.observe(self._on_preset, "value")
        for control in (self.candidate, self.reference, self.layer, self.idf, self.corpus, self.rescale):
            control.observe(self.update, "value")
        self.update()

    def _on_preset(self, change) -> None:
        if change["new"] is None:
            return
        self._filling = True  # one update for both boxes, not two
        try:
            self.candidate.value, self.reference.value = PRESETS[change["new"]]
        finally:
            self._filling = False
        self.update()

    def show_problem(self, text: str) -> None:
        self.message.value = (f'<div class="demo-problem" style="color:#9a3412;background:#fff7ed;'
                              f'padding:6px 10px;border-left:4px solid #f97316">⚠️ {html.escape(text)}</div>')
        self.image.layout.display = "none"
        self.scores.value = ""
        self.worst.value = ""

    def update(self, change=None) -> None:
        """Recompute and redraw for the current settings; bad input becomes a message."""
        if self._filling:
            return
        corpus = self.corpus.value if self.idf.value else None
        try:
            if corpus is not None and corpus not in _IDF_CACHE:
                self.message.value = (f"<i>Computing idf over {corpus_size(corpus):,} {corpus} "
                                      "(once; a few seconds)…</i>")
            result = analyze(self.candidate.value, self.reference.value, self.layer.value, corpus,
                             self.rescale.value)
        except InputProblem as err:
            self.result = None
            self.show_problem(str(err))
            return
        except ModelNotAvailableError as err:
            self.result = None
            self.show_problem(f"The model could not be loaded: {err}")
            return
        except Exception as err:  # never a traceback in front of the class
            self.result = None
            self.show_problem(f"Could not score this ({type(err).__name__}: {err}).")
            return
        self.result = result
        self.message.value = ""
        self.image.value = result.png
        self.image.layout.display = None
        self.scores.value = scores_html(result)
        self.worst.value = f'<div class="demo-worst">{html.escape(worst_line(result.worst))}</div>'

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)


class ClassView:
    """A whole set of answers at once: edit the reference and the answers (one per line), press
    Rank; a table and a bar chart show the order by BERTScore F next to the order by BLEU."""

    def __init__(self, question: str = CLASS_SET["question"], reference: str = CLASS_SET["reference"],
                 answers: list[str] | None = None, labels: list[str] | None = None):
        import ipywidgets as w

        if answers is None:
            answers, labels = map(list, zip(*CLASS_SET["answers"]))
        self.labels = {a: l for a, l in zip(answers, labels)} if labels else {}
        self.question = w.HTML(f"<b>Question:</b> {html.escape(question)}")
        self.reference = w.Textarea(value=reference, description="Reference",
                                    layout=w.Layout(width="98%", height="5em"))
        self.answers = w.Textarea(value="\n".join(answers), description="Answers",
                                  layout=w.Layout(width="98%", height="12em"))
        self.button = w.Button(description="Rank", button_style="primary")
        self.table = w.HTML()
        self.chart = w.Image(format="png", layout=w.Layout(max_width="900px"))
        for name in ("reference", "answers", "button", "table", "chart"):
            getattr(self, name).add_class(f"{CSS_PREFIX}-class-{name}")
        self.widget = w.VBox([self.question, self.reference, self.answers, self.button,
                              self.table, self.chart])
        self.button.on_click(lambda _: self.update())
        self.df: pd.DataFrame | None = None
        self.update()

    def update(self) -> None:
        answers = [a for a in self.answers.value.splitlines() if a.strip()]
        labels = [self.labels.get(a.strip(), "") or "answer" for a in answers]
        try:
            df = rank_answers(answers, self.reference.value,
                              labels if any(l != "answer" for l in labels) else None)
        except InputProblem as err:
            self.df = None
            self.table.value = f'<div class="demo-problem">⚠️ {html.escape(str(err))}</div>'
            self.chart.layout.display = "none"
            return
        except Exception as err:
            self.df = None
            self.table.value = f"⚠️ Could not rank these ({type(err).__name__}: {html.escape(str(err))})."
            self.chart.layout.display = "none"
            return
        self.df = df
        shown = df.assign(answer=df["answer"].map(lambda a: short(a, 70)))
        formats = {c: "{:.3f}".format for c in shown.columns if c.startswith(("BERTScore", "ROUGE"))}
        formats["BLEU"] = "{:.1f}".format
        self.table.value = shown.to_html(index=False, formatters=formats)
        fig = ranking_chart(df, fig=Figure(figsize=(10, 0.42 * len(df) + 1.6), dpi=72))
        buf = io.BytesIO()
        fig.savefig(buf, format="png", bbox_inches="tight")
        self.chart.value = buf.getvalue()
        self.chart.layout.display = None

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)
