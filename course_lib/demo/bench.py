"""How fast the demo reacts, kernel-side (for `make bench`): milliseconds per change, measured
through the widget's own update (scores, the HTML heatmap, the widget values), model warm.

The browser's part (sending the widget state, drawing the HTML) is not included; the browser
test (tests/test_demo_browser.py) prints what it saw end to end.
"""
from __future__ import annotations

import statistics
import time

from course_lib.demo.presets import PRESETS
from course_lib.demo.scoring import analyze, clear_cache

SHORT = ["lawyer / attorney", "cold / freezing", "red shoes: rouge slippers", "red shoes: blue socks"]


def _clock(clock: str):
    if clock not in ("wall", "cpu"):
        raise ValueError(f"clock must be 'wall' or 'cpu', got {clock!r}")
    return time.perf_counter if clock == "wall" else time.process_time


def long_text(words: int = 330) -> str:
    """A deterministic answer of about `words` words (the class set's sentences, repeated)."""
    from course_lib.demo.presets import CLASS_SET

    pool = " ".join(a for a, _ in CLASS_SET["answers"]).split()
    return " ".join(pool[i % len(pool)] for i in range(words))


def time_reaction(n: int = 20, layer: int | None = None, widget: bool = True,
                  clock: str = "wall") -> float:
    """Median milliseconds per preset change with nothing cached (both texts embedded anew).

    Each change puts a new (candidate, reference) pair into the demo, cycling through the four
    short presets, as a preset click does. `widget=True` runs the widget's own update (scores,
    heatmap HTML, widget values; the browser's transfer excluded); False calls `analyze` only.
    clock="cpu" measures this process' CPU time (steadier on a busy shared machine).
    """
    now = _clock(clock)
    from course_lib.demo.widgets import Demo

    demo = Demo(layer=layer, scroll=False) if widget else None
    for name in SHORT:  # warm-up: model, tokenizer, colour map
        analyze(*PRESETS[name], layer=layer)
    times = []
    for i in range(n):
        pair = PRESETS[SHORT[i % len(SHORT)]]
        clear_cache()
        start = now()
        demo.fill(*pair) if demo is not None else analyze(*pair, layer=layer)
        times.append((now() - start) * 1000)
    return statistics.median(times)


def time_controls(n: int = 20, clock: str = "wall") -> dict[str, float]:
    """Median ms per change of each control, kernel-side, through `Demo`'s update.

    Keys: 'preset (cached)', 'preset (not cached)', 'layer (texts cached)', 'layer (not cached)',
    'idf on/off', 'rescale on/off', 'new text', 'long text (330 words)', 'idf first time',
    'rank class set'. "Not cached" clears every embedded text and scored pair first.
    """
    from course_lib.demo.inputs import IDF_CORPORA, forget_idf, idf_for
    from course_lib.demo.class_view import ClassView
    from course_lib.demo.widgets import Demo

    now = _clock(clock)
    demo = Demo(scroll=False)
    for name in SHORT:
        demo.fill(*PRESETS[name])
    idf_for(list(IDF_CORPORA)[0])
    out: dict[str, list[float]] = {}

    def timed(key, action, before=None):
        if before is not None:
            before()
        start = now()
        action()
        out.setdefault(key, []).append((now() - start) * 1000)

    layer = lambda: setattr(demo.layer, "value", 6 if demo.layer.value != 6 else 2)  # noqa: E731
    pairs_only = lambda: clear_cache(texts=False)  # noqa: E731
    for i in range(n):
        pair = PRESETS[SHORT[i % len(SHORT)]]
        timed("preset (not cached)", lambda: demo.fill(*pair), before=clear_cache)
        timed("layer (texts cached)", layer, before=pairs_only)
        timed("idf on/off", lambda: setattr(demo.idf, "value", not demo.idf.value), before=pairs_only)
        timed("rescale on/off", lambda: setattr(demo.rescale, "value", not demo.rescale.value))
        timed("new text", lambda: setattr(demo.candidate, "value", f"{pair[0]} ({i})"))
        timed("preset (cached)", lambda: demo.fill(*pair))
        timed("layer (not cached)", layer, before=clear_cache)
    text = long_text()
    for i in range(max(3, n // 5)):
        timed("long text (330 words)", lambda: setattr(demo.candidate, "value", f"{text} {i}"))
    forget_idf(list(IDF_CORPORA)[0])
    demo.idf.value = False
    timed("idf first time", lambda: setattr(demo.idf, "value", True))
    view = ClassView()
    for _ in range(3):
        timed("rank class set", view.update, before=clear_cache)
    return {key: statistics.median(v) for key, v in out.items()}


if __name__ == "__main__":
    for key, ms in time_controls(n=10).items():
        print(f"{key:<24} {ms:8.1f} ms")
