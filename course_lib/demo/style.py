"""The demo's look: the match marks' colours and shapes and its CSS (`style_html`), shown once per
widget in an HTML widget. Its JavaScript is an ES module of its own (`course_lib.demo.page`)."""
from __future__ import annotations


MARK_DARK, MARK_LIGHT = "#000000", "#ffffff"  # the match marks' two colours (one contrasts with any cell)
# a frame, black inside white: the best match of a candidate token (precision)
P_MARK = f"inset 0 0 0 2px {MARK_DARK}, inset 0 0 0 4px {MARK_LIGHT}"
# a bar along the bottom, black under white, each stripe as thick as the other (a thin black edge on a
# white bar vanished on yellow cells): the best match of a reference token (recall)
R_MARK = f"inset 0 -4px 0 0 {MARK_DARK}, inset 0 -8px 0 0 {MARK_LIGHT}"
P_MARK_SMALL = f"inset 0 0 0 1px {MARK_DARK}, inset 0 0 0 3px {MARK_LIGHT}"
R_MARK_SMALL = f"inset 0 -2px 0 0 {MARK_DARK}, inset 0 -4px 0 0 {MARK_LIGHT}"

CSS = f"""
.bertscore-demo, .bertscore-demo-present {{ font-size: 16px; }}
.bertscore-demo .widget-label, .bertscore-demo .widget-readout,
.bertscore-demo .widget-checkbox label, .bertscore-demo select,
.bertscore-demo textarea, .bertscore-demo button {{ font-size: 16px !important; }}
.bertscore-demo textarea {{ line-height: 1.35; }}
.bsd-question {{ font-size: 16px; }}
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
  padding: 4px 10px; margin: 4px 0; max-width: 900px; line-height: 1.35; }}
.bsd-note b.bsd-warn {{ display: inline-block; width: 18px; height: 18px; line-height: 18px; margin-right: 8px;
  border-radius: 50%; background: #c2410c; color: #fff; text-align: center; font: 700 14px sans-serif; }}
.bsd-scores {{ font-size: 18px; padding: 2px 12px 0 0; min-height: 180px; }}
.bsd-scores .title {{ font-size: 20px; font-weight: 600; display: flex; flex-wrap: wrap; align-items: baseline;
  column-gap: 14px; }}
.bsd-scores table {{ border-collapse: collapse; }}
.bsd-scores td, .bsd-scores th {{ padding: 1px 8px; text-align: right; white-space: nowrap; }}
.bsd-scores .big td {{ font-size: 36px; font-weight: 600; line-height: 1.1; }}
.bsd-scores .big th {{ font-size: 20px; }}
.bsd-scores .small td, .bsd-scores .small th {{ font-size: 18px; }}
.bsd-scores .meta {{ color: #444; font-size: 15px; font-weight: normal; white-space: nowrap; }}
.bsd-scores .bsd-range {{ color: #444; font-size: 15px; margin: 0 0 2px 8px; line-height: 1.3; }}
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
.bertscore-demo .bsd-rank td.answer {{ text-align: left; }}
.bertscore-demo .bsd-rank {{ line-height: 1.3; }}
/* the presenter's page has the width for one line per answer: ten rows on one screen at 125% */
.bertscore-demo-present .bsd-rank td {{ white-space: nowrap; }}
.bertscore-demo-class-table {{ max-height: calc(100vh - 190px); min-height: 190px; overflow: auto; }}
/* on the presenter page 122 px stand above the table and 9 below it: the ten answers and the note under
   them fit 1024×576 without scrolling the table */
.bertscore-demo-present .bertscore-demo-class-table {{ max-height: calc(100vh - 140px); }}
.bertscore-demo-present .lm-TabBar-tab, .bertscore-demo-present .p-TabBar-tab {{ font-size: 16px !important;
  min-height: 30px !important; line-height: 28px !important; }}
.bsd-title {{ margin: 2px 0 4px 0; font-size: 22px; }}
/* the presenter page (Voila): no spare margins around and inside the tabs, and the title at the right end
   of the tabs' row rather than a row of its own, so a tab fits one screen at 125% (1024×576 CSS px) */
#rendered_cells:has(.bertscore-demo-present) {{ padding-top: 0; padding-bottom: 0; }}
#rendered_cells:has(.bertscore-demo-present) .jp-Cell {{ padding-top: 0; padding-bottom: 0; }}
.bertscore-demo-page {{ position: relative; }}
.bertscore-demo-page > .bertscore-demo-title {{ position: absolute; top: 0; right: 12px; z-index: 1; margin: 0; }}
.bertscore-demo-page .bsd-title {{ margin: 0; line-height: 30px; }}
#rendered_cells:has(.bertscore-demo-present) .jp-Cell-outputWrapper {{ margin-top: 0; }}
.bertscore-demo-present .widget-tab-contents {{ padding: 6px 12px !important; }}
.bsd-rank .bar {{ display: inline-block; height: 12px; vertical-align: middle; }}
/* after a kernel restart JupyterLab marks every widget view "disconnected": say so */
.bertscore-demo.jupyter-widgets-disconnected > * {{ opacity: 0.35; pointer-events: none; }}
/* after a reload, the kept settings are on their way (demo/page.js): no old numbers meanwhile */
.bertscore-demo:has(.bsd-restoring) .bertscore-demo-scores, .bertscore-demo:has(.bsd-restoring) .bertscore-demo-heatmap,
.bertscore-demo:has(.bsd-restoring) .bertscore-demo-worst, .bertscore-demo:has(.bsd-restoring) .bertscore-demo-message,
/* ... and before page.js has run at all (it loads after the other widgets draw): it may be about to restore */
.bertscore-demo-keep:not(:has(.bsd-behaviour)) .bertscore-demo-scores,
.bertscore-demo-keep:not(:has(.bsd-behaviour)) .bertscore-demo-heatmap,
.bertscore-demo-keep:not(:has(.bsd-behaviour)) .bertscore-demo-worst,
.bertscore-demo-keep:not(:has(.bsd-behaviour)) .bertscore-demo-message
  {{ visibility: hidden; }}
.bertscore-demo.jupyter-widgets-disconnected::before {{
  content: "The kernel was restarted: this demo is no longer connected. Run the cell again (Run \\25B8  Run All Cells).";
  font: 600 18px sans-serif; color: #9a3412; background: #fff7ed; border-left: 4px solid #f97316;
  padding: 8px 12px; display: block; }}
"""


def style_html() -> str:
    """The demo's <style>, shown once per widget in an HTML widget. (Its behaviour in the page, keys and
    the waiting state, is the ES module of `course_lib.demo.page.PageBehaviour`.)"""
    return f"<style>{CSS}</style>"
