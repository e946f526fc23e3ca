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

import re
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch

from course_lib.demo.scoring import PairView, Result, escape, weakest

NUMBERED_MAX = (30, 18)  # (candidate, reference) tokens, [CLS]/[SEP] included: numbers in cells
GRID_MAX = (60, 40)  # colour-only grid up to here; beyond it, the long-text view
MARK_DARK, MARK_LIGHT = "#000000", "#ffffff"  # the match marks' two colours (one contrasts with any cell)
# a frame, black inside white: the best match of a candidate token (precision)
P_MARK = f"inset 0 0 0 2px {MARK_DARK}, inset 0 0 0 4px {MARK_LIGHT}"
# a thick white bar with a black top edge along the bottom: the best match of a reference token (recall)
R_MARK = f"inset 0 -6px 0 0 {MARK_LIGHT}, inset 0 -8px 0 0 {MARK_DARK}"
P_MARK_SMALL = f"inset 0 0 0 1px {MARK_DARK}, inset 0 0 0 3px {MARK_LIGHT}"
R_MARK_SMALL = f"inset 0 -3px 0 0 {MARK_LIGHT}, inset 0 -4px 0 0 {MARK_DARK}"

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
  white-space: nowrap; margin: 0 auto; padding-top: 8px; }}
.bsd-numbers td.c {{ width: 42px; min-width: 42px; height: 29px; font-size: 16px;
  text-align: center; }}
.bsd-numbers th {{ font-size: 16px; }}
.bsd-colors td.c {{ width: 17px; min-width: 17px; height: 15px; }}
.bsd-colors th {{ font-size: 13px; }}
.bsd-grid td.mp {{ box-shadow: {P_MARK}; }}
.bsd-grid td.mr {{ box-shadow: {R_MARK}; }}
.bsd-grid td.mp.mr {{ box-shadow: {R_MARK}, {P_MARK}; }}
.bsd-colors td.mp {{ box-shadow: {P_MARK_SMALL}; }}
.bsd-colors td.mr {{ box-shadow: {R_MARK_SMALL}; }}
.bsd-colors td.mp.mr {{ box-shadow: {R_MARK_SMALL}, {P_MARK_SMALL}; }}
.bsd-grid td.w {{ vertical-align: bottom; text-align: center; font-size: 14px; color: #333; }}
.bsd-grid tr.bsd-wrow td.w {{ height: 44px; }}
.bsd-grid td.w .bar {{ background: #f4a261; margin: 0 auto; }}
.bsd-grid tr.bsd-wrow td.w .bar {{ width: 60%; }}
.bsd-grid td.wr {{ text-align: left; vertical-align: middle; white-space: nowrap; padding: 0 6px 0 2px; }}
.bsd-grid td.wr .bar {{ display: inline-block; height: 10px; margin: 0 3px 0 0; }}
.bsd-legend {{ font-size: 15px; color: #333; margin-top: 6px; max-width: 560px; line-height: 1.45; }}
.bsd-legend > span.item {{ display: inline-block; white-space: nowrap; margin-right: 14px; }}
.bsd-legend .sw {{ display: inline-block; width: 22px; height: 16px; vertical-align: middle;
  margin: 0 4px 0 0; }}
.bsd-scale {{ display: inline-block; width: 120px; height: 12px; vertical-align: middle;
  background: linear-gradient(to right, #440154, #3b528b, #21918c, #5ec962, #fde725); margin: 0 4px; }}
.bsd-note {{ font-size: 16px; color: #7c2d12; background: #fff7ed; border-left: 4px solid #f97316;
  padding: 4px 10px; margin: 4px 0; max-width: 900px; }}
.bsd-note b.bsd-warn {{ display: inline-block; width: 18px; height: 18px; line-height: 18px; margin-right: 8px;
  border-radius: 50%; background: #c2410c; color: #fff; text-align: center; font: 700 14px sans-serif; }}
.bsd-scores {{ font-size: 18px; padding: 2px 12px 4px 0; min-height: 200px; }}
.bsd-scores .title {{ font-size: 20px; font-weight: 600; white-space: nowrap; }}
.bsd-scores table {{ border-collapse: collapse; }}
.bsd-scores td, .bsd-scores th {{ padding: 1px 8px; text-align: right; white-space: nowrap; }}
.bsd-scores .big td {{ font-size: 36px; font-weight: 600; line-height: 1.1; }}
.bsd-scores .big th {{ font-size: 20px; }}
.bsd-scores .small td, .bsd-scores .small th {{ font-size: 18px; }}
.bsd-scores .meta {{ color: #444; font-size: 15px; margin-top: 4px; white-space: nowrap; }}
.bsd-heat {{ overflow-x: auto; }}
.bsd-long {{ max-height: calc(100vh - 150px); min-height: 240px; overflow-y: auto; padding-right: 6px; }}
.bsd-text {{ font-size: 18px; line-height: 1.9; max-width: 1100px; }}
.bsd-text span {{ padding: 1px 2px; border-radius: 3px; }}
.bsd-text span.bad {{ outline: 2px solid {MARK_DARK}; box-shadow: 0 0 0 4px {MARK_LIGHT}, 0 0 0 5px {MARK_DARK}; }}
.bsd-worst {{ font-size: 17px; }}
.bsd-busy {{ opacity: 0; animation: bsd-appear 0s linear 0.2s forwards; color: #1d4ed8;
  font-size: 17px; font-weight: 600; white-space: nowrap; }}
.bsd-spin {{ display: inline-block; width: 12px; height: 12px; margin: 0 6px 0 4px; border: 3px solid #bfdbfe;
  border-top-color: #1d4ed8; border-radius: 50%; vertical-align: -2px; animation: bsd-turn 0.8s linear infinite; }}
@keyframes bsd-appear {{ to {{ opacity: 1; }} }}
@keyframes bsd-turn {{ to {{ transform: rotate(360deg); }} }}
/* a control changed and the kernel has not answered yet (it may be busy with the other tab):
   grey the numbers at once after a preset change, after 0.2 s otherwise, and say so */
.bertscore-demo.bsd-pending .bertscore-demo-scores, .bertscore-demo.bsd-pending .bertscore-demo-heatmap,
.bertscore-demo.bsd-pending .bertscore-demo-worst {{ animation: bsd-grey 0s linear 0.2s forwards; }}
.bertscore-demo.bsd-relabel .bertscore-demo-scores, .bertscore-demo.bsd-relabel .bertscore-demo-heatmap,
.bertscore-demo.bsd-relabel .bertscore-demo-worst {{ opacity: 0.12; }}
@keyframes bsd-grey {{ to {{ opacity: 0.12; }} }}
.bertscore-demo.bsd-pending .bertscore-demo-busy:not(:has(.bsd-busy))::after {{
  content: "Waiting for the kernel…"; color: #1d4ed8; font-size: 17px; font-weight: 600;
  opacity: 0; animation: bsd-appear 0s linear 0.2s forwards; }}
.bertscore-demo.bsd-relabel .bertscore-demo-busy:not(:has(.bsd-busy))::after {{ animation: none; opacity: 1; }}
.bertscore-demo .bsd-rank td, .bertscore-demo .bsd-rank th {{ padding: 3px 8px; font-size: 16px; }}
.bertscore-demo-class-table {{ max-height: calc(100vh - 375px); min-height: 190px; overflow: auto; }}
.bertscore-demo-present .lm-TabBar-tab, .bertscore-demo-present .p-TabBar-tab {{ font-size: 16px !important;
  min-height: 30px !important; line-height: 28px !important; }}
.bsd-title {{ margin: 2px 0 4px 0; font-size: 22px; }}
.bsd-rank .bar {{ display: inline-block; height: 12px; vertical-align: middle; }}
/* after a kernel restart JupyterLab marks every widget view "disconnected": say so */
.bertscore-demo.jupyter-widgets-disconnected > * {{ opacity: 0.35; pointer-events: none; }}
.bertscore-demo.jupyter-widgets-disconnected::before {{
  content: "The kernel was restarted: this demo is no longer connected. Run the cell again (Run \\25B8  Run All Cells).";
  font: 600 18px sans-serif; color: #9a3412; background: #fff7ed; border-left: 4px solid #f97316;
  padding: 8px 12px; display: block; }}
"""


# Three small behaviours in the page. An <img> error handler is the one way an ipywidgets HTML
# widget can run JavaScript without a custom extension; if a page blocks it, the demo still works.
#  * Ctrl+Enter (or Cmd+Enter) in a demo text box scores it: the box loses focus (which sends its
#    text to the kernel, like Tab) and gets it back.
#  * After a preset is chosen the list lets go of the keyboard focus, so PageDown and the arrow
#    keys scroll the page instead of changing the preset.
#  * When a control changes, the demo is marked pending (the CSS greys its numbers and says it is
#    waiting) until the kernel's answer arrives (its `done` widget changes): the kernel may be busy
#    with the other tab, and old numbers must never stand under a newly chosen preset.
_KEYS_JS = ("if(!window.__bsdKeys){window.__bsdKeys=1;document.addEventListener('keydown',function(e){"
            "if(e.key==='Enter'&&(e.ctrlKey||e.metaKey)&&e.target&&e.target.closest&&"
            "e.target.closest('.bertscore-demo-text')){e.preventDefault();e.stopPropagation();"
            "var t=e.target;t.blur();setTimeout(function(){t.focus();},0);}},true);"
            "document.addEventListener('change',function(e){var t=e.target;"
            "var d=t&&t.closest&&t.closest('.bertscore-demo');if(!d)return;"
            "var done=d.querySelector('.bertscore-demo-done');if(!done)return;"
            "var preset=t.closest('.bertscore-demo-preset');"
            "d.classList.add('bsd-pending');if(preset){d.classList.add('bsd-relabel');t.blur();}"
            "if(!d.__bsdWatch){d.__bsdWatch=new MutationObserver(function(){"
            "d.classList.remove('bsd-pending','bsd-relabel');});"
            "d.__bsdWatch.observe(done,{childList:true,subtree:true,characterData:true,attributes:true});}"
            "},true);}")


def style_html() -> str:
    """The demo's <style> (and its Ctrl+Enter handler), shown once in an HTML widget."""
    return (f"<style>{CSS}</style>"
            f'<img src="data:image/gif;base64,AA" alt="" style="display:none" onerror="{_KEYS_JS}">')


@lru_cache(maxsize=1)
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


def _matches(view: PairView):
    """Greedy matches as index sets: (i, argmax_j) for real candidate rows, (argmax_i, j) for
    real reference columns ([CLS]/[SEP] weigh 0 and are sources of no match)."""
    rows = {(i, j) for i, j in enumerate(view.sim.argmax(dim=1).tolist()) if view.cand_weights[i] > 0}
    cols = {(i, j) for j, i in enumerate(view.sim.argmax(dim=0).tolist()) if view.ref_weights[j] > 0}
    return rows, cols


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
    rows, cols = _matches(view)
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


def _text_spans(tokens, best, weights, bad: set[int], idf: bool) -> str:
    bg, fg = cell_colors(best)
    spans = []
    for i, t in enumerate(tokens):
        if t in ("[CLS]", "[SEP]", "<s>", "</s>"):
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
    for side, tokens, best, weights, worst in (
            ("Candidate", view.cand_tokens, view.sim.max(dim=1).values, view.cand_weights, worst_c),
            ("Reference", view.ref_tokens, view.sim.max(dim=0).values, view.ref_weights, worst_r)):
        spans = _text_spans(tokens, best, weights, {w.index for w in worst}, idf)
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


def problem_html(text: str) -> str:
    """A message in place of the picture (bad input, a failure). Its mark is drawn by CSS, not an
    emoji (a machine without an emoji font shows an emoji as a box)."""
    return f'<div class="demo-problem bsd-note"><b class="bsd-warn">!</b>{escape(text)}</div>'


_SCRIPTS = {"zh": re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"),
            "ja": re.compile(r"[\u3040-\u30ff]"), "ko": re.compile(r"[\u1100-\u11ff\uac00-\ud7af]")}
_CJK = re.compile("|".join(p.pattern for p in _SCRIPTS.values()))
_CJK_FAMILIES = ("CJK", "Source Han", "Hei", "Gothic", "Mincho", "Ming", "Song", "Kai", "YaHei",
                 "PingFang", "Hiragino", "DroidSansFallback", "WenQuanYi", "Nanum", "Malgun", "Meiryo")
BAD_PIECES_PER_CHAR = 0.75  # English text: about 0.25 word pieces per character; French, German ~0.45
BAD_UNKNOWN_SHARE = 0.10


def _fc_list(lang: str) -> list[str]:
    """Font families covering `lang`, from fontconfig (the fonts installed now, as the browser
    sees them); [] when fontconfig is missing."""
    fc = shutil.which("fc-list")
    if fc is None:
        return []
    try:
        out = subprocess.run([fc, f":lang={lang}", "family"], capture_output=True, text=True,
                             timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return sorted({line.split(",")[0].strip() for line in out.splitlines() if line.strip()})


def cjk_font(lang: str = "zh") -> str | None:
    """An installed font with glyphs for `lang` ('zh', 'ja' or 'ko'), or None.

    Asked of the system each time, not of matplotlib's font cache (which can predate the font):
    fontconfig on Linux; macOS and Windows ship CJK fonts; elsewhere, font files whose names
    say CJK."""
    if sys.platform == "darwin":
        return "PingFang SC"
    if sys.platform == "win32":
        return "Microsoft YaHei"
    if shutil.which("fc-list"):
        found = _fc_list(lang)
        return found[0] if found else None
    from matplotlib import font_manager

    for path in font_manager.findSystemFonts():
        name = Path(path).name
        if any(f.replace(" ", "").lower() in name.lower() for f in _CJK_FAMILIES):
            return name
    return None


def _reading(tokens: list[str], weights, text: str) -> tuple[int, int, int]:
    """(word pieces, unknown pieces, characters) of one text; [CLS]/[SEP] (weight 0) left out."""
    pieces = [t for t, w in zip(tokens, weights.tolist()) if w > 0]
    return len(pieces), sum(t == "[UNK]" for t in pieces), sum(not c.isspace() for c in text)


def script_notes(view: PairView, texts: tuple[str, str]) -> str:
    """Notes above the picture: a script the model reads badly (about a word piece per letter, or
    many unknown pieces: an English model's scores then say little), and for Chinese, Japanese or
    Korean text a missing font."""
    notes = []
    for side, tokens, weights, text in (("candidate", view.cand_tokens, view.cand_weights, texts[0]),
                                        ("reference", view.ref_tokens, view.ref_weights, texts[1])):
        pieces, unknown, chars = _reading(tokens, weights, text)
        if chars and (pieces / chars >= BAD_PIECES_PER_CHAR or unknown / max(pieces, 1) >= BAD_UNKNOWN_SHARE):
            what = (f"{unknown} of its {pieces} word pieces are unknown to it ([UNK], all compared as "
                    "the same token)" if unknown else
                    f"it cuts these {chars} characters into {pieces} word pieces (about one per letter)")
            notes.append(f"The {side} is in a script this model reads badly: {what}. The model "
                         "learned English; its scores for this text say little (compare ROUGE-L).")
    missing = [lang for lang, pattern in _SCRIPTS.items()
               if any(pattern.search(t) for t in texts) and cjk_font(lang) is None]
    if missing:
        names = ", ".join({"zh": "Chinese", "ja": "Japanese", "ko": "Korean"}[m] for m in missing)
        notes.append(f"No font for {names} was found on this machine: the characters may show as "
                     "empty boxes (install e.g. Noto Sans CJK; Debian: fonts-noto-cjk).")
    return "".join(f'<div class="bsd-note">{escape(n)}</div>' for n in notes)
