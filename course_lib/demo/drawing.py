"""The demo's pictures, as HTML: the similarity grid, the long-text view and the scores.

The heatmap is an HTML table with CSS colours, not a matplotlib figure: building it takes about
a millisecond, the browser draws it in a few, it scales with the page (projector zoom), and the
text in it is real text (any font the browser has, CJK included). The chapters' matplotlib
heatmap (`course_lib.teaching.plots.similarity_heatmap`) uses the same colour map (viridis,
0 to 1) and the same greedy matches.

Three views, by size:
  * up to NUMBERED_MAX tokens: every cell shows its cosine in 12 pt type;
  * up to GRID_MAX tokens: colours only (hover a cell for its value);
  * longer: the texts themselves, each token coloured by the cosine of its best match, and the
    weakest matches listed (a matrix that size cannot be read from the back of a room).
Greedy matches are drawn on the cell edges (a red frame: each candidate token's best match, for
precision; a white bar along the bottom: each reference token's best match, for recall), so they
never hide the numbers.
"""
from __future__ import annotations

import re
from functools import lru_cache

import numpy as np
import torch

from course_lib.bertscore.pair import PairView, match_cells
from course_lib.demo.scoring import Result, escape, weakest

NUMBERED_MAX = (30, 18)  # (candidate, reference) tokens, [CLS]/[SEP] included: numbers in cells
GRID_MAX = (60, 40)  # colour-only grid up to here; beyond it, the long-text view
P_COLOR = "#e4002b"
P_MARK = f"inset 0 0 0 3px {P_COLOR}"  # a red frame: the best match of a candidate token (precision)
R_MARK = "inset 0 -5px 0 0 #fff, inset 0 -7px 0 0 #111"  # a white bar at the bottom: recall

CSS = f"""
.bertscore-demo, .bertscore-demo-present {{ font-size: 16px; }}
.bertscore-demo .widget-label, .bertscore-demo .widget-readout,
.bertscore-demo .widget-checkbox label, .bertscore-demo select,
.bertscore-demo textarea, .bertscore-demo button {{ font-size: 16px !important; }}
.bertscore-demo textarea {{ line-height: 1.35; }}
.bsd-grid {{ border-collapse: separate; border-spacing: 0; font-family: 'DejaVu Sans', 'Noto Sans',
  'Noto Sans CJK SC', 'Noto Sans CJK JP', 'Source Han Sans', 'Microsoft YaHei', 'PingFang SC',
  'Hiragino Sans', sans-serif; }}
.bsd-grid td, .bsd-grid th {{ padding: 0; }}
.bsd-grid th {{ font-weight: normal; color: #222; }}
.bsd-grid th.bsd-row {{ text-align: right; padding-right: 6px; white-space: nowrap; }}
.bsd-grid th.bsd-col > div {{ writing-mode: vertical-rl; transform: rotate(180deg);
  white-space: nowrap; margin: 0 auto; padding-bottom: 4px; }}
.bsd-numbers td.c {{ width: 40px; min-width: 40px; height: 30px; font-size: 16px;
  text-align: center; }}
.bsd-numbers th {{ font-size: 16px; }}
.bsd-colors td.c {{ width: 17px; min-width: 17px; height: 15px; }}
.bsd-colors th {{ font-size: 13px; }}
.bsd-grid td.mp {{ box-shadow: {P_MARK}; }}
.bsd-grid td.mr {{ box-shadow: {R_MARK}; }}
.bsd-grid td.mp.mr {{ box-shadow: {R_MARK}, {P_MARK}; }}
.bsd-colors td.mp {{ box-shadow: inset 0 0 0 2px {P_COLOR}; }}
.bsd-colors td.mr {{ box-shadow: inset 0 -3px 0 0 #fff, inset 0 -4px 0 0 #111; }}
.bsd-colors td.mp.mr {{ box-shadow: inset 0 -3px 0 0 #fff, inset 0 -4px 0 0 #111, inset 0 0 0 2px {P_COLOR}; }}
.bsd-grid td.w {{ vertical-align: bottom; text-align: center; font-size: 12px; color: #444; }}
.bsd-grid tr.bsd-wrow td.w {{ height: 44px; }}
.bsd-grid td.w .bar {{ background: #f4a261; margin: 0 auto; }}
.bsd-grid tr.bsd-wrow td.w .bar {{ width: 60%; }}
.bsd-grid td.wr {{ text-align: left; vertical-align: middle; white-space: nowrap; padding: 0 6px 0 2px; }}
.bsd-grid td.wr .bar {{ display: inline-block; height: 10px; margin: 0 3px 0 0; }}
.bsd-legend {{ font-size: 15px; color: #333; margin-top: 6px; max-width: 400px; line-height: 1.5; }}
.bsd-legend > span.item {{ display: inline-block; white-space: nowrap; margin-right: 14px; }}
.bsd-legend .sw {{ display: inline-block; width: 14px; height: 14px; vertical-align: middle;
  margin: 0 3px 0 8px; }}
.bsd-scale {{ display: inline-block; width: 120px; height: 12px; vertical-align: middle;
  background: linear-gradient(to right, #440154, #3b528b, #21918c, #5ec962, #fde725); margin: 0 4px; }}
.bsd-note {{ font-size: 16px; color: #7c2d12; background: #fff7ed; border-left: 4px solid #f97316;
  padding: 4px 10px; margin: 4px 0; max-width: 900px; }}
.bsd-scores {{ font-size: 18px; padding: 0 24px 8px 0; }}
.bsd-scores .title {{ font-size: 22px; font-weight: 600; }}
.bsd-scores table {{ border-collapse: collapse; }}
.bsd-scores td, .bsd-scores th {{ padding: 2px 8px; text-align: right; }}
.bsd-scores .big td {{ font-size: 36px; font-weight: 600; line-height: 1.1; }}
.bsd-scores .big th {{ font-size: 22px; }}
.bsd-scores .small td, .bsd-scores .small th {{ font-size: 20px; }}
.bsd-scores .meta {{ color: #555; font-size: 15px; margin-top: 6px; }}
.bsd-text {{ font-size: 18px; line-height: 1.9; max-width: 1100px; }}
.bsd-text span {{ padding: 1px 2px; border-radius: 3px; }}
.bsd-text span.bad {{ outline: 3px solid {P_COLOR}; }}
.bsd-worst {{ font-size: 17px; }}
.bsd-busy {{ opacity: 0; animation: bsd-appear 0s linear 0.2s forwards; color: #1d4ed8;
  font-size: 17px; font-weight: 600; }}
@keyframes bsd-appear {{ to {{ opacity: 1; }} }}
.bertscore-demo .bsd-rank td, .bertscore-demo .bsd-rank th {{ padding: 3px 8px; font-size: 16px; }}
.bsd-rank .bar {{ display: inline-block; height: 12px; vertical-align: middle; }}
/* after a kernel restart JupyterLab marks every widget view "disconnected": say so */
.bertscore-demo.jupyter-widgets-disconnected > * {{ opacity: 0.35; pointer-events: none; }}
.bertscore-demo.jupyter-widgets-disconnected::before {{
  content: "The kernel was restarted: this demo is no longer connected. Run the cell again (Run \\25B8  Run All Cells).";
  font: 600 18px sans-serif; color: #9a3412; background: #fff7ed; border-left: 4px solid #f97316;
  padding: 8px 12px; display: block; }}
"""


# Ctrl+Enter (or Cmd+Enter) in a demo text box scores it: the box loses focus (which sends its
# text to the kernel, like Tab) and gets it back. An <img> error handler is the one way an
# ipywidgets HTML widget can run a line of JavaScript without a custom extension; if a page
# blocks it, the Score button and Tab still work.
_KEYS_JS = ("if(!window.__bsdKeys){window.__bsdKeys=1;document.addEventListener('keydown',function(e){"
            "if(e.key==='Enter'&&(e.ctrlKey||e.metaKey)&&e.target&&e.target.closest&&"
            "e.target.closest('.bertscore-demo-text')){e.preventDefault();e.stopPropagation();"
            "var t=e.target;t.blur();setTimeout(function(){t.focus();},0);}},true);}")


def style_html() -> str:
    """The demo's <style> (and its Ctrl+Enter handler), shown once in an HTML widget."""
    return (f"<style>{CSS}</style>"
            f'<img src="data:image/gif;base64,AA" alt="" style="display:none" onerror="{_KEYS_JS}">')


@lru_cache(maxsize=1)
def _viridis():
    import matplotlib

    return matplotlib.colormaps["viridis"]


def cell_colors(values: torch.Tensor) -> tuple[list[str], list[str]]:
    """Background (viridis over 0..1) and a readable text colour for every value (flattened)."""
    rgba = _viridis()(np.clip(values.flatten().numpy(), 0.0, 1.0))
    rgb = (rgba[:, :3] * 255).round().astype(int)
    light = (0.299 * rgb[:, 0] + 0.587 * rgb[:, 1] + 0.114 * rgb[:, 2]) > 140
    bg = [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in rgb]
    return bg, ["#000" if x else "#fff" for x in light]


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
             f'<span class="sw" style="box-shadow:{P_MARK}"></span>best match of each candidate token (precision)',
             f'<span class="sw" style="box-shadow:{R_MARK};background:#555"></span>'
             "best match of each reference token (recall)"]
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
    return ('<div class="bsd-scores">'
            f"<div class='title'>BERTScore{' (rescaled)' if result.rescaled else ''}</div>"
            '<table class="demo-table"><tr class="big"><th>P</th><th>R</th><th>F</th></tr>'
            f'<tr class="big">{big}</tr></table>'
            '<table class="demo-table"><tr class="small"><th></th><th>P</th><th>R</th><th>F</th></tr>'
            f'<tr class="small"><th>ROUGE-L</th>{rouge}</tr>'
            f"<tr class='small'><th>BLEU</th><td class='demo-bleu' colspan='3'>{result.bleu:.1f} "
            "<small>(0–100)</small></td></tr></table>"
            f'<div class="meta">{note}</div></div>')


_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_CJK_FAMILIES = ("CJK", "Source Han", "Hei", "Gothic", "Mincho", "Ming", "Song", "Kai", "YaHei",
                 "PingFang", "Hiragino", "Droid Sans Fallback", "WenQuanYi", "Nanum", "Malgun", "Meiryo")


@lru_cache(maxsize=1)
def cjk_font() -> str | None:
    """The name of an installed font with CJK glyphs (None when none is found)."""
    from matplotlib import font_manager

    for font in font_manager.fontManager.ttflist:
        if any(f.lower() in font.name.lower() for f in _CJK_FAMILIES):
            return font.name
    return None


def script_notes(view: PairView, texts: tuple[str, str]) -> str:
    """Notes for texts in Chinese, Japanese or Korean: a missing font, unknown word pieces."""
    if not any(_CJK.search(t) for t in texts):
        return ""
    notes = []
    if cjk_font() is None:
        notes.append("This text has Chinese/Japanese/Korean characters and no CJK font was found on "
                     "this machine: they may show as empty boxes (install e.g. Noto Sans CJK; Debian: "
                     "fonts-noto-cjk).")
    unknown = sum(t == "[UNK]" for t in view.cand_tokens + view.ref_tokens)
    if unknown:
        notes.append(f"The model's vocabulary does not know {unknown} of these word pieces ([UNK]): "
                     "an English model compares them all as the same token.")
    return "".join(f'<div class="bsd-note">{escape(n)}</div>' for n in notes)
