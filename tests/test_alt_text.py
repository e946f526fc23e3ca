"""Every figure of the course has alternative text, in the cell metadata both Jupyter Book (myst-nb)
and nbconvert read, equal to its entry in course_lib/course/alt_texts.toml.

Fix a failure with `python -m course_lib.course.alt_text` (after adding the figure's text to
alt_texts.toml when it is a new figure).
"""
from __future__ import annotations

import nbformat
import pytest

from course_lib.course import alt_text
from course_lib.course.book import DEMO_SCREENSHOTS


@pytest.mark.parametrize("notebook", alt_text.notebooks(), ids=lambda p: p.stem)
def test_every_figure_cell_has_alt_text(notebook):
    problems = alt_text.problems(notebook)
    assert not problems, "\n".join(problems)


def test_every_alt_text_is_used_and_describes():
    """No entry of alt_texts.toml is left over, and none is a word or two."""
    texts = alt_text.load_alt_texts()
    used = {name for path in alt_text.notebooks() for cell in nbformat.read(path, as_version=4).cells
            for name in alt_text.figure_names(cell)} | set(DEMO_SCREENSHOTS)
    assert set(texts) - used == set(), "alt texts for figures no notebook saves"
    assert [name for name, text in texts.items() if alt_text.trivial(text)] == []


def test_the_check_catches_a_missing_and_a_trivial_alt_text(tmp_path):
    """The check itself: a figure cell without alt text, or with "heatmap", is reported; the tool fixes it."""
    source = alt_text.notebooks()[0]
    nb = nbformat.read(source, as_version=4)
    cells = [c for c in nb.cells if alt_text.is_figure_cell(c)]
    del cells[0].metadata["alt"]
    path = tmp_path / source.name
    nbformat.write(nb, path)
    assert any("no alt text" in p for p in alt_text.problems(path))
    assert alt_text.apply(path, alt_text.load_alt_texts()) and alt_text.problems(path) == []
    assert not alt_text.apply(path, alt_text.load_alt_texts())  # idempotent: nothing left to write
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if alt_text.is_figure_cell(c))
    cell.metadata["alt"] = cell.metadata["mystnb"]["image"]["alt"] = "heatmap"
    nbformat.write(nb, path)
    assert any("too short" in p for p in alt_text.problems(path))


def test_setup_sets_a_colour_blind_safe_palette():
    """After the chapters' setup(), matplotlib's colour cycle is seaborn's "colorblind" palette."""
    import matplotlib
    import seaborn as sns

    from course_lib.teaching.notebook import setup

    setup()
    cycle = [matplotlib.colors.to_hex(c) for c in matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]]
    assert cycle == sns.color_palette("colorblind").as_hex()
