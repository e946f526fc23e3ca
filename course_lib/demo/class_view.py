"""The class view, `ClassView`: a whole set of answers to one question, ranked by BERTScore F beside BLEU
(the presenter's second tab). It shares the pair demo's lock and look (`course_lib.demo.widgets`)."""
from __future__ import annotations

from course_lib.demo import drawing
from course_lib.demo.classset import CLASS_SET, labels_for, rank_answers, ranking_html
from course_lib.demo.inputs import InputProblem
from course_lib.demo.scoring import escape, torch_threads
from course_lib.demo.widgets import CSS_PREFIX, ONE_AT_A_TIME, _busy, _Shown

EDIT_TITLE = "Edit the reference and the answers (one per line)"


class ClassView(_Shown):
    """A whole set of answers at once: edit the reference and the answers (one per line), press
    Rank (or leave the box): a table with bars, by BERTScore F next to BLEU. An edited answer
    shows as "edited (no label)"; Reset brings the start back. `rank_now=False`: nothing is
    ranked until `show()` (the presenter's tab opened). The same texts are never ranked twice in
    a row (a box losing focus to Rank ranks once). Ranking runs torch on one thread."""

    def __init__(self, question: str | None = None, reference: str | None = None,
                 answers: list[str] | None = None, labels: list[str] | None = None,
                 rank_now: bool = True, editors_open: bool = True):
        import ipywidgets as w

        if answers is None:
            answers, labels = map(list, zip(*CLASS_SET["answers"]))
        question = CLASS_SET["question"] if question is None else question
        reference = CLASS_SET["reference"] if reference is None else reference
        self.labels = {a: l for a, l in zip(answers, labels)} if labels else {}
        self._start = (reference, "\n".join(answers))
        self.style = w.HTML(drawing.style_html(), layout=w.Layout(height="0px", overflow="hidden"))
        self.question = w.HTML(f"<div class='bsd-question'><b>Question:</b> {escape(question)}</div>")
        self.reference = w.Textarea(value=reference, description="Reference", continuous_update=False,
                                    layout=w.Layout(width="98%", height="4.2em"),
                                    style={"description_width": "7.2em"})
        self.answers = w.Textarea(value=self._start[1], description="Answers", continuous_update=False,
                                  layout=w.Layout(width="98%", height="6.5em"),
                                  style={"description_width": "7.2em"})
        self.button = w.Button(description="Rank", button_style="primary", layout=w.Layout(width="6em", margin="0 0 0 1em"))
        self.reset = w.Button(description="Reset", tooltip="Bring back the reference and the ten answers",
                              layout=w.Layout(width="6em"))
        self.busy = w.HTML()
        self.table = w.HTML(layout=w.Layout(max_width="100%"))
        for name in ("reference", "answers", "button", "reset", "table", "busy"):
            getattr(self, name).add_class(f"{CSS_PREFIX}-class-{name}")
        # the texts fold away (`editors_open=False`: the presenter's tab), so the ten answers fit one screen
        self.editors = w.Accordion([w.VBox([self.reference, self.answers])], titles=(EDIT_TITLE,),
                                   selected_index=0 if editors_open else None, layout=w.Layout(width="auto"))
        self.editors.add_class(f"{CSS_PREFIX}-class-editors")
        top = w.HBox([self.question, self.button, self.reset, self.busy],
                     layout=w.Layout(flex_flow="row wrap", align_items="center", width="100%"))
        self.widget = w.VBox([self.style, top, self.editors, self.table], layout=w.Layout(width="100%"))
        self.widget.add_class(CSS_PREFIX)
        self.widget.add_class(f"{CSS_PREFIX}-class")
        self.button.on_click(lambda _: self.update())
        self.reset.on_click(lambda _: self.restore())
        for box in (self.reference, self.answers):  # an edited box ranks again when it loses focus
            box.observe(lambda _: self.update(), "value")
        self.df = None
        self._ranked = None  # the (reference, answers) the table shows
        self._shown = rank_now
        if rank_now:
            self.update()

    def show(self) -> None:
        """Rank now if nothing was ranked yet (the tab was opened)."""
        with ONE_AT_A_TIME:
            self._shown = True
            self._update()

    def restore(self) -> None:
        """Back to the reference and the answers it started with, ranked."""
        with ONE_AT_A_TIME:
            self._shown = False  # one ranking after both boxes are set, not one per box
            self.reference.value, self.answers.value = self._start
            self._shown = True
            self._update()

    def update(self) -> None:
        with ONE_AT_A_TIME:
            if self._shown:
                self._update()

    def _update(self) -> None:
        texts = (self.reference.value, self.answers.value)
        if texts == self._ranked:
            return  # already on the table (e.g. the box lost focus to the Rank button: one run)
        answers = [a.strip() for a in self.answers.value.splitlines() if a.strip()]
        labels = labels_for(answers, self.labels) if self.labels else None
        self.busy.value = _busy("Ranking…")
        try:
            with torch_threads(1):  # ten short answers: one thread is faster than two on 2 cores
                self.df = rank_answers(answers, self.reference.value, labels)
            self.table.value = ranking_html(self.df)
            self._ranked = texts
        except InputProblem as err:
            self.df, self._ranked = None, None
            text = str(err).replace(" (or pick a preset)", "")  # this view has no presets
            self.table.value = drawing.problem_html(text + " (Reset brings back the example.)")
        except Exception as err:
            self.df, self._ranked = None, None
            self.table.value = drawing.problem_html(f"Could not rank these ({type(err).__name__}: {err}).")
        finally:
            self.busy.value = ""
