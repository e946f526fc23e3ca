"""The demo read from the back of a room: contrast of the matrix numbers, match marks that survive
colour blindness, greyscale and a washed-out projector, symbols any font has, notes for scripts
the model reads badly, and the class view ranking once per change. No browser needed (the
browser test measures the page itself)."""
import html
import re

import numpy as np
import pytest
import torch

from course_lib import demo
from course_lib.demo import drawing, notes

LAWYER = demo.PRESETS["lawyer / attorney"]
CELLS = np.linspace(-0.3, 1.2, 1501)  # every cosine the grid can show, beyond both ends of the scale

# Machado, Oliveira & Fernandes (2009), "A Physiologically-based Model for Simulation of Color Vision
# Deficiency", IEEE TVCG 15(6), severity 1.0, applied to linear RGB.
DEUTERANOPIA = np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                         [-0.011820, 0.042940, 0.968881]])
PROTANOPIA = np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                       [-0.003882, -0.048116, 1.051998]])
AMBIENT = 0.2  # a washed-out projector: a fifth of full white added by room light to every colour


def _linear(rgb):
    c = np.asarray(rgb, dtype=float) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _srgb(linear):
    c = np.clip(linear, 0.0, 1.0)
    return 255.0 * np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1 / 2.4) - 0.055)


VIEWS = {  # how a colour is seen: sRGB [..., 3] -> sRGB [..., 3]
    "normal": lambda rgb: np.asarray(rgb, dtype=float),
    "deuteranopia": lambda rgb: _srgb(_linear(rgb) @ DEUTERANOPIA.T),
    "protanopia": lambda rgb: _srgb(_linear(rgb) @ PROTANOPIA.T),
    "greyscale": lambda rgb: _srgb(np.repeat((_linear(rgb) @ [0.2126, 0.7152, 0.0722])[..., None], 3, -1)),
    "washed-out projector": lambda rgb: _srgb(AMBIENT + (1 - AMBIENT) * _linear(rgb)),
}


def _colors(values) -> tuple[np.ndarray, np.ndarray]:
    bg, fg = drawing.cell_colors(torch.tensor(values))
    return np.array([drawing.hex_rgb(c) for c in bg]), np.array([drawing.hex_rgb(c) for c in fg])


def test_every_matrix_number_contrasts_4_5_to_1_with_its_cell():
    bg, fg = _colors(CELLS)
    ratios = drawing.contrast_ratio(bg, fg)
    worst = int(ratios.argmin())
    assert ratios.min() >= 4.5, f"cosine {CELLS[worst]:.3f}: text contrast {ratios.min():.2f}:1 < 4.5:1"
    # and in the drawn page: every numbered cell's own background and text colour
    page = drawing.heatmap_html(demo.analyze(*LAWYER).view, idf=False)
    cells = re.findall(r'style="background:(#[0-9a-f]{6});color:(#[0-9a-f]{3,6})">([-.\d]+)<', page)
    assert len(cells) == len(demo.analyze(*LAWYER).view.sim.flatten())
    drawn = drawing.contrast_ratio(np.array([drawing.hex_rgb(b) for b, _, _ in cells]),
                                   np.array([drawing.hex_rgb(f) for _, f, _ in cells]))
    assert drawn.min() >= 4.5


def _mark_colors(shadow: str) -> list[np.ndarray]:
    return [drawing.hex_rgb(c) for c in re.findall(r"#[0-9a-fA-F]{3,6}\b", shadow)]


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("mark", ["P_MARK", "R_MARK", "P_MARK_SMALL", "R_MARK_SMALL"])
def test_match_marks_survive_colour_blindness_greyscale_and_a_washed_out_projector(view, mark):
    """Each mark is two rings; the ring that contrasts more with the cell must stand out from
    it (3:1, WCAG's bound for graphics; under room light no two colours reach 3:1 with every
    cell, so there 1.8:1), and the two rings must stand out from each other (the mark's shape)."""
    see = VIEWS[view]
    rings = [see(c) for c in _mark_colors(getattr(drawing, mark))]
    assert len(rings) == 2, f"{mark} should be two rings"
    cells = see(_colors(CELLS)[0])
    best = np.maximum(*(drawing.contrast_ratio(cells, np.broadcast_to(r, cells.shape)) for r in rings))
    bound = 1.8 if view == "washed-out projector" else 3.0
    worst = int(best.argmin())
    assert best.min() >= bound, (f"{mark} seen with {view}: at cosine {CELLS[worst]:.2f} it contrasts "
                                 f"{best.min():.2f}:1 with the cell (< {bound}:1)")
    assert drawing.contrast_ratio(rings[0], rings[1]) >= 3.0


@pytest.mark.parametrize("mark, least", [("R_MARK", 3), ("R_MARK_SMALL", 2)])
def test_both_stripes_of_the_recall_bar_are_thick_enough_to_see(mark, least):
    """Whichever stripe contrasts with a cell must be wide enough to see: a 2-px black edge on a white bar
    was invisible on yellow cells. Each stripe (the part of an inset shadow the one before leaves) >= least px."""
    shadows = re.findall(r"inset 0 -(\d+)px 0 0 (#[0-9a-fA-F]{3,6})", getattr(drawing, mark))
    widths = [int(a) - int(b) for (a, _), (b, _) in zip(shadows, [("0", "")] + shadows[:-1])]
    assert len(shadows) == 2 and min(widths) >= least, f"{mark}: stripes {widths} px"
    assert f"box-shadow:{drawing.R_MARK}" in drawing.legend(idf=False)  # drawn the same in the legend


def _dejavu_charmap() -> set[int]:
    from pathlib import Path

    import matplotlib
    from matplotlib.ft2font import FT2Font

    path = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    return set(FT2Font(str(path)).get_charmap())


def test_the_demos_own_symbols_render_without_an_emoji_font():
    """Every character the demo writes itself (not the user's text) is in DejaVu Sans, the font
    matplotlib ships and Linux browsers fall back to: no emoji that shows as a box."""
    result = demo.analyze(*LAWYER)
    long = demo.analyze(*demo.PRESETS["Rob Halford: metal singer (right)"])
    pieces = [drawing.style_html(), drawing.problem_html("x"), demo.widgets._busy(),
              demo.widgets._busy("Ranking…"), drawing.legend(True), drawing.scores_html(result),
              drawing.heatmap_html(result.view, True), drawing.heatmap_html(long.view, True),
              demo.widgets.NOT_RUNNING, demo.ranking_html(demo.class_set_table())]
    known = _dejavu_charmap()
    missing = sorted({ch for piece in pieces for ch in piece if ord(ch) > 127 and ord(ch) not in known})
    assert not missing, f"characters without a glyph in DejaVu Sans: {[f'U+{ord(c):04X} {c}' for c in missing]}"


SCRIPTS = {"Arabic": "قدم المحامي المذكرة القانونية.", "Hindi": "वकील ने कानूनी दस्तावेज़ दाखिल किया।",
           "Russian": "Адвокат подал юридическую записку.", "Korean": "변호사가 법률 문서를 제출했다.",
           "Chinese": "律师提交了法律文件。"}
READ_WELL = {"English": LAWYER[0], "German": "Der Anwalt reichte den Schriftsatz ein.",
             "Numbers": "The red shoes cost $20.00"}


@pytest.mark.parametrize("script", list(SCRIPTS))
def test_a_script_the_model_reads_badly_gets_a_note(script):
    result = demo.analyze(SCRIPTS[script], LAWYER[1])
    notes = drawing.script_notes(result.view, (result.candidate, result.reference))
    assert "The candidate is in a script this model reads badly" in notes
    assert "reference is in a script" not in notes


@pytest.mark.parametrize("language", list(READ_WELL))
def test_text_the_model_reads_well_gets_no_note(language):
    result = demo.analyze(READ_WELL[language], LAWYER[1])
    assert drawing.script_notes(result.view, (result.candidate, result.reference)) == ""


# What each text gets instead of the wrong "script this model reads badly" note (issue: the presenter view)
FITTING_NOTES = {
    "punctuation only": (("!!!", "?"), ["The candidate has no words", "The reference has no words"]),
    "emoji in English": (("I love this 😀 so much 🎉!", "I really like it."),
                         ["2 of the candidate's word pieces are [UNK]", "😀"]),
    "typos": (("Teh wether is freezng todya.", "The weather is cold today."),
              ["4 of the candidate's 5 words are cut into word pieces (e.g. teh → te ##h)"]),
    "French": (("L'avocat a déposé le mémoire juridique.", LAWYER[1]),
               ["4 of the candidate's 7 words are cut into word pieces", "non-English"]),
}


@pytest.mark.parametrize("case", list(FITTING_NOTES))
def test_punctuation_emoji_and_typos_get_a_note_that_fits(case):
    texts, expected = FITTING_NOTES[case]
    result = demo.analyze(*texts)
    shown = html.unescape(drawing.script_notes(result.view, (result.candidate, result.reference)))
    assert "script this model reads badly" not in shown, shown
    assert all(e in shown for e in expected), shown


def test_the_cjk_font_note_asks_the_system_not_a_font_cache(monkeypatch):
    result = demo.analyze("我喜欢猫", "I like cats.")
    texts = (result.candidate, result.reference)
    monkeypatch.setattr(notes.sys, "platform", "linux")
    monkeypatch.setattr(notes.shutil, "which", lambda name: "/usr/bin/fc-list")
    monkeypatch.setattr(notes, "_fc_list", lambda lang: [])
    assert "No font for Chinese" in notes.script_notes(result.view, texts)
    monkeypatch.setattr(notes, "_fc_list", lambda lang: ["Noto Sans CJK SC"] if lang == "zh" else [])
    shown = notes.script_notes(result.view, texts)
    assert "No font" not in shown and "[UNK]" in shown  # the font is there; the model still reads it badly


def test_unrelated_preset_sits_at_the_baseline_raw_and_near_zero_rescaled():
    pair = demo.PRESETS["unrelated: penguins / tax form"]
    raw, rescaled = demo.analyze(*pair), demo.analyze(*pair, rescale_with_baseline=True)
    assert abs(raw.F - float(demo.baseline_for(raw.layer)[2])) < 0.05
    assert abs(rescaled.F) < 0.1


# --- the class view: one ranking per change, on one thread ------------------------------------

def _counting(monkeypatch):
    calls = []
    real = demo.class_view.rank_answers

    def rank(*args, **kwargs):
        calls.append(torch.get_num_threads())
        return real(*args, **kwargs)
    monkeypatch.setattr(demo.class_view, "rank_answers", rank)
    return calls


def test_class_view_ranks_once_per_change_on_one_thread(monkeypatch):
    calls = _counting(monkeypatch)
    view = demo.ClassView(rank_now=False)
    assert view.df is None and calls == []  # the presenter ranks when the tab opens
    view.show()
    assert len(view.df) == 10 and calls == [1]
    view.answers.value = "\n".join(view.answers.value.splitlines()[:9])  # the box loses focus: ranks
    view.button.click()  # ... and the click that took the focus does not rank again
    assert len(view.df) == 9 and calls == [1, 1]
    view.reset.click()
    assert len(view.df) == 10 and calls == [1, 1, 1]


def test_class_view_empty_reference_message_fits_the_view(monkeypatch):
    view = demo.ClassView()
    view.reference.value = "  "
    assert view.df is None and "empty" in view.table.value
    assert "preset" not in view.table.value and "Reset" in view.table.value
    view.reset.click()
    assert view.df is not None and len(view.df) == 10


def test_demo_tells_the_page_each_change_was_handled():
    ui = demo.Demo(scroll=False)
    seen = [ui.page.drawn]
    ui.preset.value = "cold / freezing"
    seen.append(ui.page.drawn)
    ui.preset.value = demo.CUSTOM  # nothing to compute, still answered
    seen.append(ui.page.drawn)
    ui.rescale.value = True
    seen.append(ui.page.drawn)
    assert seen == sorted(set(seen)) and len(seen) == 4  # each change answered once
