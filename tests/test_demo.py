"""Unit tests of the live demo's logic and widgets (course_lib/demo/), no browser needed."""
import math

import pytest
import torch

import course_lib
from course_lib import demo
from course_lib.lexical.bleu import sentence_bleu
from course_lib.teaching.plots import PairView
from course_lib.lexical.rouge import rouge_l

LAWYER = demo.PRESETS["lawyer / attorney"]
COLD = demo.PRESETS["cold / freezing"]


def close(a, b, tol=1e-5):
    return math.isclose(float(a), float(b), abs_tol=tol)


@pytest.fixture(scope="module", autouse=True)
def small_idf_corpus():
    """A small idf corpus instead of the full ones, so the tests stay fast."""
    demo.IDF_CORPORA["tiny WMT16"] = lambda: demo._wmt16_references()[:200]
    yield
    demo.IDF_CORPORA.pop("tiny WMT16")
    demo._IDF_CACHE.pop("tiny WMT16", None)


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
    result = demo.analyze(cand, ref, layer=layer, render=False)
    P, R, F = course_lib.score([cand], [ref], num_layers=layer)
    assert close(result.P, P[0]) and close(result.R, R[0]) and close(result.F, F[0])
    assert result.raw == (result.P, result.R, result.F)
    assert result.bleu == pytest.approx(sentence_bleu(cand, ref))
    assert result.rouge_l == pytest.approx(tuple(rouge_l(cand, ref)))


def test_rescaled_scores_equal_course_lib_score():
    result = demo.analyze(*COLD, rescale_with_baseline=True, render=False)
    P, R, F = course_lib.score([COLD[0]], [COLD[1]], rescale_with_baseline=True)
    assert close(result.P, P[0]) and close(result.R, R[0]) and close(result.F, F[0])
    assert result.F < result.raw[2]  # the baseline pulls scores down


def test_idf_scores_equal_course_lib_score_and_are_computed_once():
    weights = demo.idf_for("tiny WMT16")
    assert demo.idf_for("tiny WMT16") is weights
    result = demo.analyze(*LAWYER, idf_corpus="tiny WMT16", render=False)
    P, R, F = course_lib.score([LAWYER[0]], [LAWYER[1]], idf=weights)
    assert close(result.P, P[0]) and close(result.R, R[0]) and close(result.F, F[0])
    assert not close(result.F, demo.analyze(*LAWYER, render=False).F)
    with pytest.raises(ValueError):
        demo.idf_for("no such corpus")


def test_heatmap_is_rendered_as_png_and_cached():
    demo.clear_cache()
    first = demo.analyze(*LAWYER)
    assert first.png.startswith(b"\x89PNG") and len(first.png) > 5_000
    again = demo.analyze(*LAWYER, rescale_with_baseline=True)  # same texts and layer: no redraw
    assert again.png is first.png
    long = demo.analyze(*demo.PRESETS["Rob Halford: English outlaw (wrong)"])
    assert long.png.startswith(b"\x89PNG") and long.png != first.png


def test_worst_matches_pick_the_weakest_real_token():
    sim = torch.tensor([[1.0, 0.1, 0.2, 0.0],
                        [0.1, 0.9, 0.3, 0.2],
                        [0.2, 0.4, 0.5, 0.1],
                        [0.0, 0.2, 0.1, 1.0]])
    view = PairView(["[CLS]", "a", "b", "[SEP]"], ["[CLS]", "x", "y", "[SEP]"], sim,
                    torch.ones(4), torch.ones(4), 0.0, 0.0, 0.0)
    cand, ref = demo.worst_matches(view)
    assert (cand.side, cand.token, cand.best_match) == ("candidate", "b", "y") and close(cand.similarity, 0.5)
    assert (ref.side, ref.token, ref.best_match) == ("reference", "y", "b") and close(ref.similarity, 0.5)
    assert "'b'" in demo.worst_line([cand, ref])


@pytest.mark.parametrize("text, words", [("", "empty"), ("   \n\t ", "empty"), ("word " * 600, "too long"),
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
    result = demo.analyze(*COLD, render=False)
    text = demo.summary_text(result)
    assert f"F {result.F:.3f}" in text and "BLEU" in text and "ROUGE-L" in text and "Worst matched" in text
    page = demo.scores_html(result)
    assert f'class="demo-bertscore-F" style="padding:2px 10px;text-align:right">{result.F:.3f}<' in page
    assert "demo-bleu" in page and "demo-rougel-F" in page


# --- the widgets -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ui():
    return demo.Demo()


def test_widget_shows_the_first_preset(ui):
    assert ui.result is not None and ui.result.candidate == LAWYER[0]
    assert ui.image.value == ui.result.png and ui.message.value == ""
    assert f"{ui.result.F:.3f}" in ui.scores.value and "Worst matched" in ui.worst.value


def test_scores_change_when_the_candidate_changes(ui):
    before, page = ui.result.F, ui.scores.value
    ui.candidate.value = "A banana is a yellow fruit."
    assert ui.result.candidate == "A banana is a yellow fruit."
    assert not close(ui.result.F, before) and ui.scores.value != page
    P, R, F = course_lib.score([ui.candidate.value], [ui.reference.value])
    assert close(ui.result.F, F[0])


def test_controls_change_the_scores(ui):
    ui.preset.value = "cold / freezing"
    assert (ui.candidate.value, ui.reference.value) == COLD
    raw = ui.result.F
    ui.rescale.value = True
    assert ui.result.rescaled and ui.result.F < raw and "rescaled" in ui.scores.value
    ui.rescale.value = False
    ui.layer.value = 0
    assert ui.result.layer == 0 and not close(ui.result.F, raw)
    ui.layer.value = course_lib.DEFAULT_LAYER
    ui.corpus.value = "tiny WMT16"
    ui.idf.value = True
    assert ui.result.idf_corpus == "tiny WMT16" and not close(ui.result.F, raw)
    ui.idf.value = False


@pytest.mark.parametrize("text", ["", "   ", "word " * 600])
def test_widget_turns_bad_input_into_a_message(ui, text):
    ui.candidate.value = text
    assert ui.result is None and "demo-problem" in ui.message.value
    assert ui.image.layout.display == "none" and ui.scores.value == ""
    ui.candidate.value = COLD[0]  # and it recovers
    assert ui.result is not None and ui.message.value == "" and ui.image.layout.display is None


def test_widget_never_shows_a_traceback(ui, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(demo, "analyze", broken)
    ui.candidate.value = "Something new."
    assert ui.result is None and "RuntimeError: boom" in ui.message.value


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


def test_class_set_table_and_chart():
    table = demo.class_set_table()
    assert len(table) == 10 and set(table["label"]) == {"right", "wrong", "garbled", "no answer"}
    fig = demo.ranking_chart(table)
    assert len(fig.axes) == 2
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_class_view_widget_ranks_and_handles_bad_input():
    view = demo.ClassView()
    assert view.df is not None and len(view.df) == 10 and bytes(view.chart.value).startswith(b"\x89PNG")
    view.answers.value = "\n  \n"
    view.button.click()
    assert view.df is None and "demo-problem" in view.table.value
    view.answers.value = "Judas Priest's singer.\nA trumpet player."
    view.button.click()
    assert view.df is not None and len(view.df) == 2


def test_time_reaction_returns_a_median_in_ms():
    ms = demo.time_reaction(n=2, widget=False)
    assert 0 < ms < 60_000
    with pytest.raises(ValueError):
        demo.time_reaction(n=1, clock="sundial")
