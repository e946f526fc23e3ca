"""The demo's pictures, as HTML: the similarity grid, the long-text view and the scores.

The heatmap is an HTML table with CSS colours, not a matplotlib figure: building it takes about
a millisecond, the browser draws it in a few, it scales with the page (projector zoom), and the
text in it is real text (any font the browser has, CJK included). The chapters' matplotlib
heatmap (`course_lib.teaching.plots.similarity_heatmap`) uses the same colour map (viridis,
0 to 1) and the same greedy matches.

Three views, by size:
  * up to NUMBERED_MAX tokens: every cell shows its cosine in 12 pt type, black or white,
    whichever contrasts more with the cell (at least 4.5:1 on every viridis colour, WCAG AA);
  * up to GRID_MAX tokens: colours only (hover a cell for its value);
  * longer: the texts themselves, each token coloured by the cosine of its best match, and the
    weakest matches listed (a matrix that size cannot be read from the back of a room).
Greedy matches are drawn on the cell edges, so they never hide the numbers, in black and white
only, told apart by shape (colour-blind viewers, greyscale print and a washed-out projector see
them too): a frame, black inside white, for each candidate token's best match (precision); a
thick white bar with a black edge along the bottom for each reference token's best match (recall).
"""
from __future__ import annotations

import numpy as np
import torch

from course_lib.bertscore.pair import PairView, match_cells
from course_lib.caching import cached
from course_lib.demo.inputs import baseline_for
from course_lib.demo.notes import cjk_font, script_notes  # noqa: F401  (shown above the matrix)
from course_lib.demo.scoring import Result, escape, weakest
from course_lib.demo.style import (CSS, MARK_DARK, MARK_LIGHT, P_MARK, P_MARK_SMALL, R_MARK,  # noqa: F401
                                   R_MARK_SMALL, style_html)

NUMBERED_MAX = (30, 18)  # (candidate, reference) tokens, [CLS]/[SEP] included: numbers in cells
GRID_MAX = (60, 40)  # colour-only grid up to here; beyond it, the long-text view


@cached(1)
def _viridis():
    import matplotlib

    return matplotlib.colormaps["viridis"]


def relative_luminance(rgb: np.ndarray) -> np.ndarray:
    """WCAG 2 relative luminance of sRGB colours [..., 3] in 0..255."""
    c = np.asarray(rgb, dtype=float) / 255.0
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return linear @ np.array([0.2126, 0.7152, 0.0722])


def contrast_ratio(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """WCAG 2 contrast ratio (1 to 21) between sRGB colours a and b [..., 3] in 0..255."""
    la, lb = relative_luminance(a), relative_luminance(b)
    return (np.maximum(la, lb) + 0.05) / (np.minimum(la, lb) + 0.05)


def hex_rgb(color: str) -> np.ndarray:
    """'#rrggbb' or '#rgb' -> [r, g, b] in 0..255."""
    h = color.lstrip("#")
    h = "".join(c * 2 for c in h) if len(h) == 3 else h
    return np.array([int(h[i:i + 2], 16) for i in (0, 2, 4)])


def cell_colors(values: torch.Tensor) -> tuple[list[str], list[str]]:
    """Background (viridis over 0..1) and text colour for every value (flattened): black or white,
    whichever contrasts more with the background (on viridis, always at least 4.6:1)."""
    rgba = _viridis()(np.clip(values.flatten().numpy(), 0.0, 1.0))
    rgb = (rgba[:, :3] * 255).round().astype(int)
    black = contrast_ratio(rgb, np.zeros(3)) >= contrast_ratio(rgb, np.full(3, 255))
    bg = [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in rgb]
    return bg, ["#000" if x else "#fff" for x in black]


def number(x: float) -> str:
    """Two decimals without the leading zero (fits a 40 px cell): 0.83 -> .83, -0.05 -> -.05."""
    s = f"{x:.2f}"
    return s.replace("0.", ".", 1) if s.startswith(("0.", "-0.")) else s


def view_kind(view: PairView) -> str:
    """'numbers', 'colors' or 'long' (see the module docstring)."""
    n_c, n_r = len(view.cand_tokens), len(view.ref_tokens)
    if n_c <= NUMBERED_MAX[0] and n_r <= NUMBERED_MAX[1]:
        return "numbers"
    if n_c <= GRID_MAX[0] and n_r <= GRID_MAX[1]:
        return "colors"
    return "long"


def _bar(w: float, top: float, vertical: bool, px: int) -> str:
    size = max(1, round(px * w / top)) if top > 0 else 1
    dim = f"height:{size}px" if vertical else f"width:{size}px"
    return f'<div class="bar" style="{dim}"></div>'


def heatmap_html(view: PairView, idf: bool) -> str:
    """The cosine matrix as an HTML table: rows = candidate tokens, columns = reference tokens.

    With `idf`, a strip of bars shows each token's weight (top row: reference tokens; column next
    to the labels: candidate tokens), with the weights written out in the numbered view.
    """
    kind = view_kind(view)
    if kind == "long":
        return long_text_html(view, idf)
    numbers = kind == "numbers"
    bg, fg = cell_colors(view.sim)
    rows, cols = match_cells(view.sim, view.cand_weights, view.ref_weights)
    n_r = len(view.ref_tokens)
    sim = view.sim.tolist()
    top = float(max(view.cand_weights.max(), view.ref_weights.max()))
    head = ['<table class="bsd-grid bsd-numbers">' if numbers else '<table class="bsd-grid bsd-colors">']
    if idf:
        cells = "".join(f'<td class="w" title="idf {w:.2f}">{_bar(w, top, True, 26)}'
                        f'{f"{w:.1f}" if numbers else ""}</td>' for w in view.ref_weights.tolist())
        head.append(f'<tr class="bsd-wrow"><th></th><th></th>{cells}</tr>')
    cols_html = "".join(f'<th class="bsd-col"><div>{escape(t)}</div></th>' for t in view.ref_tokens)
    head.append(f'<tr><th class="bsd-corner"></th>{"<th></th>" if idf else ""}{cols_html}</tr>')
    body = []
    for i, token in enumerate(view.cand_tokens):
        cells = []
        for j in range(n_r):
            k = i * n_r + j
            mark = ("mp" if (i, j) in rows else "") + (" mr" if (i, j) in cols else "")
            value = sim[i][j]
            text = number(value) if numbers else ""
            cells.append(f'<td class="c {mark}" title="{escape(token)} / {escape(view.ref_tokens[j])}: '
                         f'{value:.3f}" style="background:{bg[k]};color:{fg[k]}">{text}</td>')
        weight = ""
        if idf:
            w = float(view.cand_weights[i])
            weight = (f'<td class="w wr" title="idf {w:.2f}">{_bar(w, top, False, 30)}'
                      f'{f"{w:.1f}" if numbers else ""}</td>')
        body.append(f'<tr><th class="bsd-row">{escape(token)}</th>{weight}{"".join(cells)}</tr>')
    note = "" if numbers else (
        f'<div class="bsd-note">{len(view.cand_tokens)} × {n_r} word pieces: too many to print the '
        "numbers legibly, so colours only (hover a cell for its value).</div>")
    return f'<div class="bsd-heat">{note}{"".join(head)}{"".join(body)}</table>{legend(idf)}</div>'


def legend(idf: bool) -> str:
    """What the colours, borders and bars mean."""
    parts = ['cosine 0<span class="bsd-scale"></span>1',
             f'<span class="sw" style="box-shadow:{P_MARK};background:#21918c"></span>frame: best match '
             "of each candidate token (precision)",
             f'<span class="sw" style="box-shadow:{R_MARK};background:#21918c"></span>'
             "bar: best match of each reference token (recall)"]
    if idf:
        parts.append('<span class="sw" style="background:#f4a261"></span>idf weight of each token '
                     "(bars and numbers next to the labels): rare word pieces weigh more in P and R; "
                     "[CLS] and [SEP] weigh 0")
    items = "".join(f'<span class="item">{p}</span>' for p in parts[:3])
    extra = f"<div>{parts[3]}</div>" if idf else ""
    return f'<div class="bsd-legend">{items}{extra}</div>'


def _text_spans(tokens, special, best, weights, bad: set[int], idf: bool) -> str:
    bg, fg = cell_colors(best)
    spans = []
    for i, t in enumerate(tokens):
        if special[i]:
            continue
        size = f";font-size:{70 + 60 * float(weights[i]) / float(weights.max()):.0f}%" if idf else ""
        cls = ' class="bad"' if i in bad else ""
        spans.append(f'<span{cls} title="best match cos {float(best[i]):.2f}" '
                     f'style="background:{bg[i]};color:{fg[i]}{size}">{escape(t)}</span>')
    return " ".join(spans)


def long_text_html(view: PairView, idf: bool, k: int = 5) -> str:
    """The long-text view: both texts, each word piece coloured by the cosine of its best match on
    the other side (its term in P or R), the k weakest matches of each side outlined and listed."""
    n_c, n_r = len(view.cand_tokens), len(view.ref_tokens)
    worst_c, worst_r = weakest(view, "candidate", k), weakest(view, "reference", k)
    rows = []
    for side, tokens, special, best, weights, worst in (
            ("Candidate", view.cand_tokens, view.cand_special, view.sim.max(dim=1).values, view.cand_weights, worst_c),
            ("Reference", view.ref_tokens, view.ref_special, view.sim.max(dim=0).values, view.ref_weights, worst_r)):
        spans = _text_spans(tokens, special, best, weights, {w.index for w in worst}, idf)
        weak = ", ".join(f"<b>{escape(w.token)}</b> → {escape(w.best_match)} ({w.similarity:.2f})"
                         for w in worst)
        rows.append(f'<div class="bsd-text"><b>{side}</b> ({"precision" if side == "Candidate" else "recall"}'
                    f" terms): {spans}</div><div class='bsd-worst'>Weakest {len(worst)}: {weak}</div>")
    sized = " Font size = idf weight (bigger = rarer, weighs more)." if idf else ""
    note = (f'<div class="bsd-note">Long texts ({n_c} × {n_r} word pieces): a matrix this size '
            "cannot be read on a screen, so this is the long-text view. Each word piece is coloured by "
            f"the cosine of its best match in the other text; the weakest {k} of each side are outlined "
            f"and listed.{sized}</div>")
    scale = '<div class="bsd-legend">cosine <span>0</span><span class="bsd-scale"></span><span>1</span></div>'
    return f'<div class="bsd-long">{note}{"".join(rows)}{scale}</div>'


def scores_html(result: Result) -> str:
    """P, R, F in large type, BLEU and ROUGE-L below, and the settings they were computed with."""
    kind = "rescaled" if result.rescaled else "raw"
    big = "".join(f'<td class="demo-bertscore-{m}">{v:.3f}</td>' for m, v in zip("PRF", (result.P, result.R, result.F)))
    rouge = "".join(f'<td class="demo-rougel-{m}">{v:.3f}</td>' for m, v in zip("PRF", result.rouge_l))
    note = f"layer {result.layer} · idf: {escape(result.idf_corpus or 'off')} · {kind}"
    if result.rescaled:
        note += f" (raw F {result.raw[2]:.3f})"
    # raw F is never near 0, even for unrelated texts: say where it sits, from the baseline file (b of F)
    b = float(baseline_for(result.layer)[2])
    scale = (f"rescaled with b = {b:.2f}: unrelated texts near 0" if result.rescaled else
             f"unrelated texts: about {b:.2f} raw, near 0 rescaled")  # one line in the 470-px column
    return ('<div class="bsd-scores">'  # the settings on the title's line: one screen at 125% zoom
            f"<div class='title'><span>BERTScore</span><span class='meta'>{note}</span></div>"
            '<table class="demo-table"><tr class="big"><th>P</th><th>R</th><th>F</th></tr>'
            f'<tr class="big">{big}</tr></table><div class="bsd-range">{scale}</div>'
            '<table class="demo-table"><tr class="small"><th></th><th>P</th><th>R</th><th>F</th></tr>'
            f'<tr class="small"><th>ROUGE-L</th>{rouge}</tr>'
            f"<tr class='small'><th>BLEU</th><td class='demo-bleu' colspan='3'>{result.bleu:.1f} "
            "<small>(0–100)</small></td></tr></table></div>")


def problem_html(text: str) -> str:
    """A message in place of the picture (bad input, a failure). Its mark is drawn by CSS, not an
    emoji (a machine without an emoji font shows an emoji as a box)."""
    return f'<div class="demo-problem bsd-note"><b class="bsd-warn">!</b>{escape(text)}</div>'
