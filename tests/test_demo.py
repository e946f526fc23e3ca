"""Unit tests of the live demo's logic and widgets (course_lib/demo/), no browser needed."""
import json
import math
import re
import subprocess
import sys
import threading
import time

import pytest
import torch

import course_lib
from course_lib import demo
from course_lib.bertscore.idf import idf_weights, weight_of
from course_lib.lexical.bleu import sentence_bleu
from course_lib.lexical.rouge import rouge_l
from course_lib.paths import NOTEBOOKS

LAWYER = demo.PRESETS["lawyer / attorney"]
COLD = demo.PRESETS["cold / freezing"]


def close(a, b, tol=1e-5):
    return math.isclose(float(a), float(b), abs_tol=tol)


@pytest.fixture(scope="module", autouse=True)
def small_idf_corpus():
    """A small idf corpus instead of the full ones, so the tests stay fast."""
    demo.IDF_CORPORA["tiny WMT16"] = lambda: demo.wmt16_references()[:200]
    yield
    demo.IDF_CORPORA.pop("tiny WMT16")
    demo.forget_idf("tiny WMT16")


def test_presets_hold_the_chapters_examples():
    assert LAWYER == ("The attorney filed the legal brief.", "The lawyer submitted the court document.")
    assert COLD == ("It is freezing today.", "The weather is cold today.")
    assert demo.PRESETS["red shoes: rouge slippers"] == ("The rouge slippers cost $20", "The red shoes cost $20.00")
    assert demo.PRESETS["red shoes: blue socks"] == ("The blue socks cost $20", "The red shoes cost $20.00")
    halford = {k: v for k, v in demo.PRESETS.items() if k.startswith("Rob Halford")}
    assert len(halford) == 3 and all(ref == demo.HALFORD_REFERENCE for _, ref in halford.values())
    data = demo.halford()  # the texts come from course_lib/resources/rag_halford/, shared with chapter 06
    assert sorted(c for c, _ in halford.values()) == sorted(c["text"] for c in data["candidates"])
    assert demo.HALFORD_REFERENCE == data["expected_answer"] and demo.HALFORD_QUESTION == data["question"]
    assert len(demo.CLASS_SET["answers"]) == 10


@pytest.mark.parametrize("name", ["lawyer / attorney", "red shoes: rouge slippers", "Rob Halford: jazz trumpeter (wrong)"])
@pytest.mark.parametrize("layer", [0, course_lib.DEFAULT_LAYER, 6])
def test_scores_equal_course_lib_score(name, layer):
    cand, ref = demo.PRESETS[name]
    result = demo.analyze(cand, ref, layer=layer)
    P, R, F = course_lib.score([cand], [ref], num_layers=layer)
    assert close(result.P, P[0]) and close(result.R, R[0]) and close(result.F, F[0])
    assert result.raw == (result.P, result.R, result.F)
    assert result.bleu == pytest.approx(sentence_bleu(cand, ref))
    assert result.rouge_l == pytest.approx(tuple(rouge_l(cand, ref)))


def test_rescaled_scores_equal_course_lib_score():
    result = demo.analyze(*COLD, rescale_with_baseline=True)
    P, R, F = course_lib.score([COLD[0]], [COLD[1]], rescale_with_baseline=True)
    assert close(result.P, P[0]) and close(result.R, R[0]) and close(result.F, F[0])
    assert result.F < result.raw[2]  # the baseline pulls scores down


def test_idf_scores_equal_course_lib_score_and_are_computed_once():
    weights = demo.idf_for("tiny WMT16")
    assert demo.idf_for("tiny WMT16") is weights
    result = demo.analyze(*LAWYER, idf_corpus="tiny WMT16")
    P, R, F = course_lib.score([LAWYER[0]], [LAWYER[1]], idf=weights)
    assert close(result.P, P[0]) and close(result.R, R[0]) and close(result.F, F[0])
    assert not close(result.F, demo.analyze(*LAWYER).F)
    with pytest.raises(ValueError):
        demo.idf_for("no such corpus")


@pytest.mark.parametrize("corpus", [None, "tiny WMT16"])
def test_the_demos_settings_are_a_bertscorers(corpus):
    """The demo's idf weights are the taught idf over the corpus' texts and its baseline the course's
    file: a course_lib.BERTScorer with these settings gives the demo's scores at every layer."""
    weights = demo.idf_for(corpus)
    assert (weights is None) == (corpus is None)
    if corpus is not None:  # the taught idf over the corpus' texts
        taught = idf_weights(demo.IDF_CORPORA[corpus](), course_lib.load()[0])
        assert dict(weights) == dict(taught) and weight_of(weights, -1) == weight_of(taught, -1)
    scorer = course_lib.BERTScorer(all_layers=True, idf=weights if weights is not None else False,
                                   rescale_with_baseline=True)
    rescaled = scorer.score([LAWYER[0]], [LAWYER[1]])  # P, R, F [layers, 1] each
    for layer in (1, course_lib.DEFAULT_LAYER, 6):
        result = demo.analyze(*LAWYER, layer=layer, idf_corpus=corpus, rescale_with_baseline=True)
        assert close(result.P, rescaled[0][layer, 0]) and close(result.F, rescaled[2][layer, 0])
        assert torch.equal(demo.baseline_for(layer), scorer.baseline_vals[layer, 0])


def test_heatmap_shows_every_cosine_and_marks_the_greedy_matches():
    result = demo.analyze(*LAWYER)
    view = result.view
    page = demo.heatmap_html(view, idf=False)
    n_c, n_r = len(view.cand_tokens), len(view.ref_tokens)
    assert demo.view_kind(view) == "numbers" and "bsd-numbers" in page
    cells = re.findall(r'<td class="c ([^"]*)"[^>]*>([^<]*)</td>', page)
    assert len(cells) == n_c * n_r
    assert [text for _, text in cells] == [demo.drawing.number(v) for v in view.sim.flatten().tolist()]
    # one red border per real candidate token (its row max), one blue per real reference token
    marks = [m.split() for m, _ in cells]
    p_cells = [k for k, m in enumerate(marks) if "mp" in m]
    r_cells = [k for k, m in enumerate(marks) if "mr" in m]
    assert p_cells == [i * n_r + int(view.sim[i].argmax()) for i in range(1, n_c - 1)]
    assert sorted(r_cells) == sorted(int(view.sim[:, j].argmax()) * n_r + j for j in range(1, n_r - 1))
    assert "idf weight" not in page and "bsd-wrow" not in page
    # numbers in 16 px (12 pt) type; marks are borders (box-shadow), never glyphs over the number
    assert re.search(r"\.bsd-numbers td\.c \{[^}]*font-size: 16px", demo.drawing.CSS)


def test_idf_draws_the_token_weights_with_a_legend():
    result = demo.analyze(*LAWYER, idf_corpus="tiny WMT16")
    page = demo.heatmap_html(result.view, idf=True)
    assert "bsd-wrow" in page and "idf weight of each token" in page
    shown = re.findall(r'<td class="w[^"]*" title="idf ([0-9.]+)"', page)
    expected = result.view.ref_weights.tolist() + result.view.cand_weights.tolist()
    assert sorted(float(x) for x in shown) == pytest.approx(sorted(expected), abs=0.006)
    assert len(set(shown)) > 2  # real weights, not all equal


def test_texts_too_long_for_numbers_get_another_view():
    halford = demo.analyze(*demo.PRESETS["Rob Halford: jazz trumpeter (wrong)"])
    page = demo.heatmap_html(halford.view, idf=False)
    assert demo.view_kind(halford.view) == "long" and "long-text view" in page and "<table" not in page
    worst = demo.weakest(halford.view, "candidate", 5)
    assert len(worst) == 5 and all(f"<b>{w.token}</b>" in page for w in worst)
    assert [w.similarity for w in worst] == sorted(w.similarity for w in worst)
    medium = demo.analyze("The attorney filed the legal brief with the court on Monday morning after a "
                          "long night of work.", "The lawyer submitted the court document on Monday.")
    assert demo.view_kind(medium.view) in ("numbers", "colors")
    long = demo.analyze(demo.long_text(330), LAWYER[1])
    assert demo.view_kind(long.view) == "long"


def test_cjk_text_gets_a_note():
    result = demo.analyze("我喜欢猫", "I like cats.")
    notes = demo.drawing.script_notes(result.view, (result.candidate, result.reference))
    assert "[UNK]" in notes
    if demo.drawing.cjk_font() is None:
        assert "No font for Chinese" in notes
    english = demo.analyze("I like cats.", "I like dogs.")
    assert demo.drawing.script_notes(english.view, (english.candidate, english.reference)) == ""


def test_worst_matches_pick_the_weakest_real_token():
    sim = torch.tensor([[1.0, 0.1, 0.2, 0.0],
                        [0.1, 0.9, 0.3, 0.2],
                        [0.2, 0.4, 0.5, 0.1],
                        [0.0, 0.2, 0.1, 1.0]])
    special = torch.tensor([True, False, False, True])  # [CLS] a b [SEP], recognised by id
    view = demo.PairView(["[CLS]", "a", "b", "[SEP]"], ["[CLS]", "x", "y", "[SEP]"], sim,
                         torch.ones(4), torch.ones(4), 0.0, 0.0, 0.0, special, special)
    cand, ref = demo.worst_matches(view)
    assert (cand.side, cand.token, cand.best_match) == ("candidate", "b", "y") and close(cand.similarity, 0.5)
    assert (ref.side, ref.token, ref.best_match) == ("reference", "y", "b") and close(ref.similarity, 0.5)
    assert "'b'" in demo.worst_line([cand, ref])


@pytest.mark.parametrize("text, words", [("", "empty"), ("   \n\t ", "empty"), ("word " * 600, "too long"),
                                         ("word " * 3000, "too long"),
                                         ("x" * 30_000, "very long"), (None, "must be text")])
def test_bad_input_gives_a_friendly_message(text, words):
    with pytest.raises(demo.InputProblem, match=words):
        demo.analyze(text, "The red shoes cost $20.00")
    with pytest.raises(demo.InputProblem, match="reference"):
        demo.analyze("The red shoes cost $20.00", text)


def test_bad_layer_gives_a_friendly_message():
    for layer in (-1, 7, 2.5, True):
        with pytest.raises(demo.InputProblem, match="layer"):
            demo.analyze(*LAWYER, layer=layer)


def test_summary_and_html_show_all_metrics():
    result = demo.analyze(*COLD)
    text = demo.summary_text(result)
    assert f"F {result.F:.3f}" in text and "BLEU" in text and "ROUGE-L" in text and "Worst matched" in text
    page = demo.scores_html(result)
    assert f'<td class="demo-bertscore-F">{result.F:.3f}</td>' in page
    assert "demo-bleu" in page and "demo-rougel-F" in page


# --- the widgets -----------------------------------------------------------------------------


@pytest.fixture
def ui():
    """A fresh demo for each test: the tests type into it, click, break its analyze, so one shared across the
    module made each test depend on what the tests before it left (the first preset, a result)."""
    return demo.Demo(scroll=False)


def test_widget_shows_the_first_preset(ui):
    assert ui.result is not None and ui.result.candidate == LAWYER[0]
    assert ui.heatmap.value == demo.heatmap_html(ui.result.view, idf=False) and ui.message.value == ""
    assert f"{ui.result.F:.3f}" in ui.scores.value and "Worst matched" in ui.worst.value
    assert ui.preset.value == "lawyer / attorney" and ui.busy.value == ""


def test_scores_change_when_the_candidate_changes(ui):
    before, page = ui.result.F, ui.scores.value
    ui.candidate.value = "A banana is a yellow fruit."
    assert ui.result.candidate == "A banana is a yellow fruit."
    assert not close(ui.result.F, before) and ui.scores.value != page
    P, R, F = course_lib.score([ui.candidate.value], [ui.reference.value])
    assert close(ui.result.F, F[0])


def test_each_control_changes_what_it_should(ui):
    ui.preset.value = "cold / freezing"
    assert (ui.candidate.value, ui.reference.value) == COLD
    raw, heat, scores = ui.result.F, ui.heatmap.value, ui.scores.value
    ui.rescale.value = True  # rescale: the scores only
    assert ui.result.rescaled and ui.result.F < raw and "rescaled" in ui.scores.value
    assert ui.heatmap.value == heat
    ui.rescale.value = False
    assert ui.scores.value == scores
    ui.layer.value = 0  # layer: the matrix and the scores
    assert ui.result.layer == 0 and not close(ui.result.F, raw) and ui.heatmap.value != heat
    P, R, F = course_lib.score([COLD[0]], [COLD[1]], num_layers=0)
    assert close(ui.result.F, F[0])
    ui.layer.value = course_lib.DEFAULT_LAYER
    assert ui.heatmap.value == heat
    ui.corpus.value = "tiny WMT16"
    ui.idf.value = True  # idf: the weights drawn, and the scores
    assert ui.result.idf_corpus == "tiny WMT16" and not close(ui.result.F, raw)
    assert "idf weight of each token" in ui.heatmap.value and "idf weight" not in heat
    ui.idf.value = False
    assert ui.heatmap.value == heat


def test_preset_list_shows_custom_and_always_restores(ui):
    ui.preset.value = "lawyer / attorney"
    ui.candidate.value = "An edited sentence."
    assert ui.preset.value == demo.CUSTOM
    ui.preset.value = "lawyer / attorney"  # the same preset again restores its texts
    assert (ui.candidate.value, ui.reference.value) == LAWYER and ui.result.candidate == LAWYER[0]
    ui.candidate.value = COLD[0]
    ui.reference.value = COLD[1]  # typing a preset's texts selects it
    assert ui.preset.value == "cold / freezing"


def test_score_button_scores_and_slider_sends_only_on_release(ui):
    ui.result = None
    ui.button.click()
    assert ui.result is not None and ui.result.candidate == ui.candidate.value.strip()
    assert ui.layer.continuous_update is False  # a drag is one change, sent on release
    assert not ui.candidate.continuous_update  # boxes: on blur, Ctrl+Enter or the button
    assert "bertscore-demo-text" in ui.candidate._dom_classes  # Ctrl+Enter there: demo/page.js


def test_the_page_behaviour_is_a_widget_with_its_own_module_and_no_script_in_html():
    # Ctrl+Enter, the waiting state and the kept settings: an ES module (anywidget), no <img onerror>,
    # no polling; the HTML the demo shows carries no script at all
    from pathlib import Path

    import course_lib.demo as package
    from course_lib.demo.page import ES_MODULE, PageBehaviour

    module = ES_MODULE.read_text()
    assert PageBehaviour()._esm == module  # the widget sends this module to the page
    assert "export default" in module and "'Enter'" not in module and '"Enter"' in module
    assert "setInterval" not in module and "sessionStorage" in module
    for source in Path(package.__file__).parent.glob("*.py"):
        text = source.read_text()
        assert "onerror" not in text and "setInterval" not in text and "<script" not in text, source.name
    assert "<img" not in demo.drawing.style_html()


def test_the_page_gets_the_settings_to_keep_and_a_restore_draws_once(monkeypatch):
    ui = demo.Demo(scroll=False, keep=True)
    assert ui.page.keep and not ui.page.scroll
    assert ui.page.settings == {"preset": "lawyer / attorney", "idf": False, "corpus": ui.corpus.value}
    ui.idf.value = True
    assert ui.page.settings["idf"] is True
    ui.candidate.value = "typed by hand"  # no preset: the page keeps the last one it had
    assert "preset" not in ui.page.settings
    drawn = []
    monkeypatch.setattr(ui, "_draw", lambda result: drawn.append((result.candidate, result.idf_corpus)))
    before = ui.page.drawn
    ui.page.restored = {"preset": "cold / freezing", "idf": False, "corpus": "nonsense"}
    assert drawn == [(COLD[0], None)] and ui.page.drawn == before + 1  # one draw, then the page is told
    assert ui.preset.value == "cold / freezing" and ui.idf.value is False
    assert ui.corpus.value in demo.widgets.IDF_CORPORA  # an unknown corpus is ignored


@pytest.mark.parametrize("text", ["", "   ", "word " * 600, "word " * 3000])
def test_widget_turns_bad_input_into_a_message(ui, text):
    ui.candidate.value = text
    assert ui.result is None and "demo-problem" in ui.message.value
    assert ui.heatmap.layout.display == "none" and ui.scores.value == ""
    ui.candidate.value = COLD[0]  # and it recovers
    assert ui.result is not None and ui.message.value == "" and ui.heatmap.layout.display is None


def test_widget_never_shows_a_traceback(ui, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(demo.widgets, "analyze", broken)
    ui.candidate.value = "Something new."
    assert ui.result is None and "RuntimeError: boom" in ui.message.value and ui.busy.value == ""


def _slow_for(real, slow_when, seconds=0.5):
    """`real`, made to take `seconds` longer when `slow_when(*args)` holds."""
    def wrapped(*args, **kwargs):
        if slow_when(*args):
            time.sleep(seconds)
        return real(*args, **kwargs)
    return wrapped


def _two_threads(first, second, gap=0.1):
    """Run `first` on one thread and, `gap` s later, `second` on another (as JupyterLab with
    ipykernel 7 delivers a click and a text box's new value); wait for both."""
    a = threading.Thread(target=first)
    a.start()
    time.sleep(gap)
    b = threading.Thread(target=second)
    b.start()
    a.join(10)
    b.join(10)
    assert not a.is_alive() and not b.is_alive(), "a callback is still waiting after 10 s (deadlock?)"


def test_widget_callbacks_on_two_threads_end_on_the_latest_text(ui, monkeypatch):
    # the Score click redraws the old text slowly while the new text ("   ") arrives on another thread
    ui.fill(*COLD)
    monkeypatch.setattr(demo.widgets, "analyze", _slow_for(demo.widgets.analyze, lambda c, *_: c == COLD[0]))
    _two_threads(ui.button.click, lambda: setattr(ui.candidate, "value", "   "))
    assert ui.result is None and "demo-problem" in ui.message.value and "empty" in ui.message.value
    assert ui.scores.value == "" and ui.busy.value == "" and ui.preset.value == demo.CUSTOM


def test_class_view_on_two_threads_ranks_the_latest_answers(monkeypatch):
    view = demo.ClassView()
    monkeypatch.setattr(demo.class_view, "rank_answers",
                        _slow_for(demo.class_view.rank_answers, lambda answers, *_: len(answers) == 10))
    new = ["A trumpet player.", "Judas Priest's singer."]
    _two_threads(view.button.click, lambda: setattr(view.answers, "value", "\n".join(new)))
    assert sorted(view.df["answer"]) == sorted(new) and view.busy.value == ""


def test_widgets_without_a_kernel_show_a_note_not_their_repr(ui):
    data = ui._repr_mimebundle_()
    data = data[0] if isinstance(data, tuple) else data
    assert data["text/plain"] == demo.widgets.NOT_RUNNING
    assert "application/vnd.jupyter.widget-view+json" in data
    assert "jupyter-widgets-disconnected" in demo.drawing.CSS  # the message after a kernel restart


def test_importing_the_demo_reads_no_file():
    code = ("import sys; opened = []\n"
            "sys.addaudithook(lambda e, a: opened.append(str(a[0])) if e == 'open' else None)\n"
            "import course_lib.demo\n"
            "from course_lib.paths import DATA\n"
            "print([p for p in opened if p.startswith(str(DATA))])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


# --- the class view ------------------------------------------------------------------------


def test_rank_answers_matches_course_lib_and_bleu():
    answers = [a for a, _ in demo.CLASS_SET["answers"][:4]]
    ref = demo.CLASS_SET["reference"]
    table = demo.rank_answers(answers, ref)
    P, R, F = course_lib.score(answers, [ref] * 4, rescale_with_baseline=True)
    by_answer = table.set_index("answer")
    for a, f in zip(answers, F.tolist()):
        assert close(by_answer.loc[a, "BERTScore F"], f)
        assert by_answer.loc[a, "BLEU"] == pytest.approx(sentence_bleu(a, ref))
    assert list(table["rank BERTScore"]) == [1, 2, 3, 4]
    assert list(table["BERTScore F"]) == sorted(table["BERTScore F"], reverse=True)
    assert sorted(table["rank BLEU"]) == [1, 2, 3, 4]
    with pytest.raises(demo.InputProblem):
        demo.rank_answers([], ref)


def test_ranking_again_after_an_edit_embeds_only_the_edited_answer(monkeypatch):
    """The class view's Rank after an edit: the reference and the unchanged answers come from the
    demo's cache; one forward pass, of the edited answer alone; the scores still equal
    course_lib.score's (all ten answers) and a text embedded in a batch equals its own pass."""
    answers = [a for a, _ in demo.CLASS_SET["answers"]]
    ref = demo.CLASS_SET["reference"]
    demo.clear_cache()
    demo.rank_answers(answers, ref)
    batched = demo.scoring._TEXTS.get(answers[3]).layers
    rows = []
    from course_lib.engine import packing

    real = packing._layer_states  # the engine's loop: one call a forward pass
    monkeypatch.setattr(packing, "_layer_states",
                        lambda model, ids, *a, **k: rows.append(ids.shape[0]) or real(model, ids, *a, **k))
    edited = answers[:9] + ["Rob Halford sang for Judas Priest, a metal band."]
    table = demo.rank_answers(edited, ref).set_index("answer")
    assert rows == [1], f"forward passes of {rows} texts: the unchanged texts were embedded again"
    P, R, F = course_lib.score(edited, [ref] * 10, rescale_with_baseline=True)
    for a, p, f in zip(edited, P.tolist(), F.tolist()):
        assert close(table.loc[a, "BERTScore F"], f) and close(table.loc[a, "BERTScore P"], p)
    demo.clear_cache()
    alone = demo.scoring.encoded(answers[3]).layers
    assert alone.shape == batched.shape and float((alone - batched).abs().max()) < 1e-5


def test_class_view_embeds_its_texts_ahead_of_opening():
    from course_lib.demo.presenter import embed_ahead

    demo.clear_cache()
    view = demo.ClassView(rank_now=False)
    embed_ahead(view)  # what the presenter page runs in a thread while the page loads
    texts = [demo.CLASS_SET["reference"], *(a for a, _ in demo.CLASS_SET["answers"])]
    assert all(t in demo.scoring._TEXTS for t in texts) and view.df is None


def test_class_set_table_and_chart():
    table = demo.class_set_table()
    assert len(table) == 10 and set(table["label"]) == {"right", "wrong", "garbled", "no answer"}
    fig = demo.ranking_chart(table)
    assert len(fig.axes) == 2
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_class_view_widget_ranks_and_handles_bad_input():
    view = demo.ClassView()
    assert view.df is not None and len(view.df) == 10 and "bsd-rank" in view.table.value
    assert set(view.df["label"]) == {"right", "wrong", "garbled", "no answer"}
    view.answers.value = "\n  \n"
    view.button.click()
    assert view.df is None and "demo-problem" in view.table.value and view.busy.value == ""
    first = demo.CLASS_SET["answers"][0][0]
    view.answers.value = f"{first}\nJudas Priest's singer.\nA trumpet player."
    view.button.click()  # the labelled answer keeps its label; the edited ones say so
    labels = dict(zip(view.df["answer"], view.df["label"]))
    assert labels == {first: "right", "Judas Priest's singer.": demo.UNLABELLED,
                      "A trumpet player.": demo.UNLABELLED}
    assert view.table.value.count(demo.UNLABELLED) == 2


def test_committed_notebook_has_no_stale_widget_output():
    nb = json.loads((NOTEBOOKS / "demo.ipynb").read_text())
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "application/vnd.jupyter.widget-view+json" in data:
                assert "".join(data["text/plain"]) == demo.widgets.NOT_RUNNING
            assert "VBox(" not in "".join(data.get("text/plain", ""))


def test_time_controls_rejects_an_unknown_clock():
    with pytest.raises(ValueError, match="clock"):
        demo.time_reaction(n=1, clock="sundial")
    assert len(demo.long_text(330).split()) == 330


def test_the_class_table_says_raw_or_rescaled_and_its_note_holds():
    """The class tab labels P, R and F raw or rescaled, and what its note says is true of the numbers:
    rescaled F is not the harmonic mean of the rescaled P and R, and lower than the raw F."""
    rescaled = demo.class_set_table()
    answers, reference = list(rescaled["answer"]), demo.classset.CLASS_SET["reference"]
    raw = demo.classset.rank_answers(answers, reference, rescale_with_baseline=False).set_index("answer")
    page = demo.ranking_html(rescaled)
    assert "BERTScore F (rescaled)" in page and "P, R and F rescaled" in page and "not the harmonic mean" in page
    P, R, F = (rescaled[f"BERTScore {c}"] for c in "PRF")
    assert ((2 * P * R / (P + R) - F).abs() > 1e-3).any()
    assert (raw.loc[answers, "BERTScore F"].to_numpy() > F.to_numpy()).all()
    shown_raw = demo.ranking_html(raw.reset_index())
    assert "BERTScore F (raw)" in shown_raw and "P, R and F raw" in shown_raw and "not the harmonic mean" not in shown_raw
