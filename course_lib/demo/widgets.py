"""The demo's pair widget, `Demo` (one pair, live), and what it shares with `class_view.ClassView`.

Both show a short note instead of raw widget text where no kernel runs them (a committed
notebook, a kernel restart), and a "Computing…" line whenever work takes more than ~0.2 s (the
line is sent at the start of every change and becomes visible only after 0.2 s, by CSS).

Their callbacks can run on two threads at once: JupyterLab 4.4 with ipykernel 7 delivers a text
box's new value on a kernel subshell's thread and a button's click on the main thread, in either
order. The widgets' callbacks therefore run one at a time, under one lock (which also guards the
demo's caches of embedded texts), and every redraw reads the settings as they are then: the last
drawing is always of the latest texts. Without the lock a click's redraw of the old text could
land after, and over, the new text's.
"""
from __future__ import annotations

import threading

from course_lib.demo import drawing
from course_lib.demo.notes import script_notes
from course_lib.demo.page import PageBehaviour
from course_lib.demo.presets import CUSTOM, PRESETS, preset_of
from course_lib.demo.inputs import IDF_CORPORA, InputProblem, check_layer, corpus_size, demo_setting, idf_ready
from course_lib.demo.scoring import analyze, escape, torch_threads, worst_line
from course_lib.model import ModelNotAvailableError

CSS_PREFIX = "bertscore-demo"
NOT_RUNNING = ("Live demo: run this cell (Run ▸ Run All Cells) to start it; "
               "after a kernel restart, run it again.")


ONE_AT_A_TIME = threading.RLock()  # held by every widget callback (see above)


def _busy(text: str = "Computing…") -> str:
    return f'<span class="bsd-busy"><span class="bsd-spin"></span>{escape(text)}</span>'


class _Shown:
    """Display as the widget; as plain text, a note (what a notebook shows when no kernel runs)."""

    widget = None

    def _repr_mimebundle_(self, **kwargs):
        bundle = self.widget._repr_mimebundle_(**kwargs)
        if isinstance(bundle, tuple):
            data, meta = bundle
            return {**data, "text/plain": NOT_RUNNING}, meta
        return {**bundle, "text/plain": NOT_RUNNING}


class Demo(_Shown):
    """The live demo: text boxes, layer slider, idf and rescaling toggles, presets; the cosine
    matrix (or, for long texts, the long-text view), P/R/F in large type, BLEU and ROUGE-L, and
    the tokens that matched worst. Display it in a notebook cell (or with `make present`).

    A text box scores when it loses focus (Tab), on Ctrl+Enter, or with the Score button; the
    slider, toggles and presets react at once. Editing a box turns the preset list to "(custom)".
    In the page, `PageBehaviour` (demo/page.py) handles the keys and the waiting state; with
    `keep` it keeps the preset and idf setting over a reload; with `scroll` it brings the demo
    into view when it first appears.
    """

    def __init__(self, preset: str = "lawyer / attorney", layer: int | None = None,
                 candidate: str | None = None, reference: str | None = None, scroll: bool = True,
                 keep: bool = False):
        import ipywidgets as w

        setting = demo_setting()  # the model once, before the first change
        cand, ref = PRESETS[preset]
        cand = cand if candidate is None else candidate
        ref = ref if reference is None else reference
        self.style = w.HTML(drawing.style_html(), layout=w.Layout(height="0px", overflow="hidden", margin="0"))
        self.page = PageBehaviour(scroll=scroll, keep=keep,
                                  layout=w.Layout(height="0px", overflow="hidden", margin="0"))
        self.preset = w.Dropdown(options=[*PRESETS, CUSTOM], value=preset_of(cand, ref),
                                 description="Preset", layout=w.Layout(width="23.5em"),
                                 style={"description_width": "3.5em"})
        self.button = w.Button(description="Score", button_style="primary",
                               tooltip="Score the texts (or Ctrl+Enter in a box)",
                               layout=w.Layout(width="4.6em", margin="0 0 0 6px"))
        self.busy = w.HTML()
        box = dict(layout=w.Layout(width="auto", height="3.1em", flex="1 1 auto"),
                   continuous_update=False, style={"description_width": "7.2em"})
        self.candidate = w.Textarea(value=cand, description="Candidate", **box)
        self.reference = w.Textarea(value=ref, description="Reference", **box)
        self.layer = w.IntSlider(value=check_layer(layer), min=0, max=setting.n_layers, description="Layer",
                                 continuous_update=False, layout=w.Layout(width="15em"))
        self.idf = w.Checkbox(value=False, description="idf weights from", indent=False,
                              layout=w.Layout(width="auto", margin="0 0 0 1em"))
        self.corpus = w.Dropdown(options=list(IDF_CORPORA), value=list(IDF_CORPORA)[0],
                                 layout=w.Layout(width="13em"))
        self.rescale = w.Checkbox(value=False, description="rescale with baseline", indent=False,
                                  layout=w.Layout(width="auto", margin="0 0 0 1em"))
        self.message = w.HTML()
        self.heatmap = w.HTML(layout=w.Layout(max_width="100%"))
        self.scores = w.HTML()
        self.worst = w.HTML()
        for name in ("candidate", "reference", "layer", "idf", "rescale", "message", "heatmap",
                     "scores", "worst", "preset", "corpus", "button", "busy", "page"):
            getattr(self, name).add_class(f"{CSS_PREFIX}-{name}")
        for box_ in (self.candidate, self.reference):
            box_.add_class(f"{CSS_PREFIX}-text")
        wrap = dict(flex_flow="row wrap", align_items="center", width="100%")
        # texts, settings, scores | the matrix: one 1280x720 screen; the scores never move the matrix
        left = w.VBox([
            w.HBox([self.preset, self.button, self.busy], layout=w.Layout(**wrap)),
            w.HBox([self.candidate], layout=w.Layout(width="100%")),
            w.HBox([self.reference], layout=w.Layout(width="100%")),
            w.HBox([self.layer, self.rescale], layout=w.Layout(**wrap)),
            w.HBox([self.idf, self.corpus], layout=w.Layout(**wrap)),
            self.scores, self.worst], layout=w.Layout(flex="0 1 470px", min_width="360px"))
        right = w.VBox([self.message, self.heatmap], layout=w.Layout(flex="1 1 400px", min_width="0"))
        left.add_class(f"{CSS_PREFIX}-left")
        right.add_class(f"{CSS_PREFIX}-right")
        self.output = right
        self.output.add_class(f"{CSS_PREFIX}-output")
        self.widget = w.VBox([self.style, self.page,
                              w.HBox([left, right], layout=w.Layout(flex_flow="row wrap", width="100%",
                                                                     align_items="flex-start"))],
                             layout=w.Layout(width="100%", max_width="1400px"))
        self.widget.add_class(CSS_PREFIX)
        if keep:  # until page.js runs, it cannot say whether kept settings are on their way: no numbers (style.py)
            self.widget.add_class(f"{CSS_PREFIX}-keep")
        self.result = None
        self._filling = False
        self._handled = 0
        self.preset.observe(self._on_preset, "value")
        for control in (self.candidate, self.reference):
            control.observe(self._on_text, "value")
        for control in (self.layer, self.idf, self.corpus, self.rescale):
            control.observe(self.update, "value")
        self.button.on_click(lambda _: self.update())
        for control in (self.preset, self.idf, self.corpus):
            control.observe(self._report_settings, "value")
        self.page.observe(self._on_restored, "restored")
        self._report_settings()
        self.update()

    def _finished(self) -> None:
        """Tell the page a change was handled (it greys the numbers from a change until then)."""
        self._handled += 1
        self.page.drawn = self._handled

    def _report_settings(self, change=None) -> None:
        """What the page keeps over a reload: the preset (none for typed texts), idf and its corpus."""
        preset = {} if self.preset.value in (None, CUSTOM) else {"preset": self.preset.value}
        self.page.settings = {**preset, "idf": self.idf.value, "corpus": self.corpus.value}

    def _on_restored(self, change) -> None:
        """The page's kept settings after a reload: set them all, then draw once."""
        kept = change["new"]
        with ONE_AT_A_TIME:
            self._filling = True
            try:
                if kept.get("corpus") in IDF_CORPORA:
                    self.corpus.value = kept["corpus"]
                if isinstance(kept.get("idf"), bool):
                    self.idf.value = kept["idf"]
            finally:
                self._filling = False
            if kept.get("preset") in PRESETS:
                self.fill(*PRESETS[kept["preset"]])  # its texts, then the one draw
            else:
                self.update()

    def _on_preset(self, change) -> None:
        with ONE_AT_A_TIME:
            if self._filling:
                return  # fill() or a restore sets the preset, then draws and answers the page once
            try:
                if change["new"] not in (None, CUSTOM):
                    self.fill(*PRESETS[change["new"]])
            finally:
                self._finished()

    def _on_text(self, change) -> None:
        with ONE_AT_A_TIME:
            if self._filling:
                return
            self._filling = True
            try:
                self.preset.value = preset_of(self.candidate.value, self.reference.value)
            finally:
                self._filling = False
            self.update()

    def fill(self, candidate: str, reference: str) -> None:
        """Put both texts in at once (one update, not two), as a preset does."""
        with ONE_AT_A_TIME:
            self._filling = True
            try:
                self.candidate.value, self.reference.value = candidate, reference
                self.preset.value = preset_of(candidate, reference)
            finally:
                self._filling = False
            self.update()

    def show_problem(self, text: str) -> None:
        self.message.value = drawing.problem_html(text)
        self.heatmap.layout.display = "none"
        self.scores.value = ""
        self.worst.value = ""

    def update(self, change=None) -> None:
        """Recompute and redraw for the current settings; bad input becomes a message."""
        with ONE_AT_A_TIME:
            if not self._filling:
                try:
                    self._update()
                finally:
                    self._finished()

    def _update(self) -> None:
        corpus = self.corpus.value if self.idf.value else None
        if idf_ready(corpus):
            self.busy.value = _busy()
        else:
            self.busy.value = _busy(f"Computing idf over the {corpus_size(corpus):,} {corpus} (once)…")
        try:
            self._show(analyze(self.candidate.value, self.reference.value, self.layer.value, corpus,
                               self.rescale.value))
        except InputProblem as err:
            self.result = None
            self.show_problem(str(err))
        except ModelNotAvailableError as err:
            self.result = None
            self.show_problem(f"The model could not be loaded: {err}")
        except Exception as err:  # never a traceback in front of the class
            self.result = None
            self.show_problem(f"Could not score this ({type(err).__name__}: {err}).")
        finally:
            self.busy.value = ""

    def _show(self, result) -> None:
        with torch_threads(1):
            self._draw(result)

    def _draw(self, result) -> None:
        idf = result.idf_corpus is not None
        self.result = result
        self.message.value = script_notes(result.view, (result.candidate, result.reference))
        self.heatmap.value = drawing.heatmap_html(result.view, idf)
        self.heatmap.layout.display = None
        self.scores.value = drawing.scores_html(result)
        long = drawing.view_kind(result.view) == "long"  # the long view lists the worst itself
        self.worst.value = "" if long else f'<div class="demo-worst bsd-worst">{escape(worst_line(result.worst))}</div>'
