"""The demo's behaviour in the browser as a widget of its own: `PageBehaviour`, an anywidget whose ES
module (page.js, beside this file) handles Ctrl+Enter, the "waiting" state of a changed control,
keeping the presenter's settings over a reload, and bringing the demo into view. It works the same in
JupyterLab and in Voilà; without a browser (a test, a committed notebook) it is an inert widget.

The kernel talks to it through three traits: `drawn` (the kernel handled a change: the page stops
greying the numbers), `settings` (the preset, idf switch and corpus to keep) and `restored` (what the
page had kept, sent once after a reload).
"""
from __future__ import annotations

from pathlib import Path

import anywidget
import traitlets

ES_MODULE = Path(__file__).with_name("page.js")


class PageBehaviour(anywidget.AnyWidget):
    """Inert in Python; its ES module (`ES_MODULE`) does the work in the page (see the module docstring)."""

    _esm = ES_MODULE
    drawn = traitlets.Int(0).tag(sync=True)  # grows by one each time the kernel handled a change
    settings = traitlets.Dict().tag(sync=True)  # {"preset": name (absent for typed texts), "idf": bool, "corpus": name}
    restored = traitlets.Dict().tag(sync=True)  # the page's kept settings, sent back after a reload
    keep = traitlets.Bool(False).tag(sync=True)  # keep settings over a reload (the presenter page)
    scroll = traitlets.Bool(False).tag(sync=True)  # bring the demo into view when it first appears
