"""The live demo in a real browser, as an instructor uses it: JupyterLab (`make demo`'s launcher,
JupyterLab's default settings, its default windowing mode) and the Voilà presenter view
(`make present`), in Debian's headless Chromium driven by Playwright, at 1280×720 (and 1024×768
for the layout; the presenter view also at 1024×576, a 1280×720 screen at 125% zoom: each tab on one screen).

It checks meaning, not motion: after each control the scores shown must equal course_lib.score's
for those settings (computed here, in the test process), and each control must change only what it
should (layer → matrix and scores; idf → weights drawn and scores; rescale → scores only, the
matrix unchanged; preset → both texts). No control or score may be clipped horizontally.
Screenshots go to pytest's temporary folder (set DEMO_FIGURES=1 to also write
figures/demo_screenshot.png and figures/demo_present.png). The notebook on disk is never modified.

Needs /usr/bin/chromium (`apt-get install chromium`) and the playwright package (it never
downloads a browser). Under CI (COURSE_CI=1 or CI=true) a missing one FAILS the run; on a laptop
the tests are skipped with the reason.
"""
from __future__ import annotations

import os
import re
import shutil
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from browser import chromium
from demo_servers import NOTEBOOK, ROOT, Server, launcher

VIEWPORTS = [(1280, 720), (1024, 768)]
F = ".bertscore-demo-scores .demo-bertscore-F"
HEAT = ".bertscore-demo-heatmap"
NEW_CANDIDATE = "A lawyer handed in the court papers."
# offline: no news feed, no update check, no toasts over the screenshot (nothing else is changed)
QUIET = {"apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False,
                                             "doNotDisturbMode": True}}


@pytest.fixture(scope="module")
def playwright_browser():
    with chromium("browser test of the demo") as launched:
        yield launched


# --- what the scores must be (computed here, not read from the page) ----------------------------

@pytest.fixture(scope="module")
def expected():
    import course_lib
    from course_lib import demo

    def f(candidate, reference, layer=course_lib.DEFAULT_LAYER, idf=None, rescale=False) -> str:
        weights = demo.idf_for(idf) if idf else False
        _, _, F_ = course_lib.score([candidate], [reference], num_layers=layer, idf=weights,
                                    rescale_with_baseline=rescale)
        return f"{float(F_[0]):.3f}"
    return f


# --- page helpers ------------------------------------------------------------------------------

def shown(page, selector=F) -> str:
    return page.locator(selector).first.inner_text(timeout=30_000).strip()


def heat(page) -> str:
    return page.locator(HEAT).first.inner_html(timeout=30_000)


def wait_shown(page, value: str, timeout=90_000, what="", since: float | None = None) -> float:
    """Wait until the F shown is exactly `value`; return the seconds since `since` (or now)."""
    start = since or time.perf_counter()
    try:
        page.wait_for_function("([sel, v]) => { const el = document.querySelector(sel);"
                               " return el !== null && el.textContent.trim() === v; }",
                               arg=[F, value], timeout=timeout)
    except Exception as err:
        now = page.locator(F).first.inner_text(timeout=1_000) if page.locator(F).count() else "(none)"
        raise AssertionError(f"{what}: F shown {now!r}, expected {value!r}") from err
    return time.perf_counter() - start


def assert_no_horizontal_clipping(page, where: str) -> None:
    """Every part of every demo (controls, scores, matrix) lies inside the window and inside its
    demo's box; no demo scrolls sideways."""
    problems = page.evaluate("""() => {
        const out = [], W = document.documentElement.clientWidth;
        for (const root of document.querySelectorAll('.bertscore-demo')) {
            const box = root.getBoundingClientRect();
            if (box.width === 0) continue;  // a hidden tab
            if (box.right > W + 1) out.push(`demo box ends at ${box.right} > window ${W}`);
            if (root.scrollWidth > root.clientWidth + 1) out.push(`demo scrolls: ${root.scrollWidth} > ${root.clientWidth}`);
            for (const el of root.querySelectorAll('*')) {
                const r = el.getBoundingClientRect();
                if (r.width === 0 || r.height === 0) continue;
                if (r.right > Math.min(box.right, W) + 1 || r.left < box.left - 1)
                    out.push(`${el.tagName}.${el.className} spans ${r.left}..${r.right}, demo ${box.left}..${box.right}`);
            }
        }
        return out.slice(0, 8);
    }""")
    assert not problems, f"{where}: clipped horizontally: {problems}"


def set_layer(page, layer: int) -> None:
    readout = page.locator(".bertscore-demo-layer .widget-readout").first
    readout.click()
    readout.fill(str(layer))
    readout.press("Enter")


def check_controls(page, expected, label: str) -> dict:
    """Each control changes what it should, and the scores shown are the right ones.
    Returns the seconds each change took to appear in the browser."""
    from course_lib import demo

    lawyer, cold = demo.PRESETS["lawyer / attorney"], demo.PRESETS["cold / freezing"]
    want = {"lawyer": expected(*lawyer), "layer 0": expected(*lawyer, layer=0),
            "rescaled": expected(*lawyer, rescale=True), "idf": expected(*lawyer, idf="WMT16 references"),
            "cold": expected(*cold), "new": expected(NEW_CANDIDATE, cold[1])}
    now = time.perf_counter
    took = {"first scores": wait_shown(page, want["lawyer"], what=f"{label} first preset")}
    assert "bsd-numbers" in heat(page)
    font = page.locator(".bsd-numbers td.c").first.evaluate("td => parseFloat(getComputedStyle(td).fontSize)")
    assert font >= 16, f"{label}: matrix numbers are {font}px (< 12 pt)"
    base = heat(page)

    t = now()
    set_layer(page, 0)  # layer: the matrix and the scores
    took["layer"] = wait_shown(page, want["layer 0"], what=f"{label} layer 0", since=t)
    assert heat(page) != base, f"{label}: the matrix did not change with the layer"
    set_layer(page, 4)
    wait_shown(page, want["lawyer"], what=f"{label} layer 4")
    assert heat(page) == base

    t = now()
    page.locator(".bertscore-demo-rescale input[type=checkbox]").first.check()  # rescale: scores only
    took["rescale"] = wait_shown(page, want["rescaled"], what=f"{label} rescale", since=t)
    assert heat(page) == base, f"{label}: rescaling changed the matrix"
    page.locator(".bertscore-demo-rescale input[type=checkbox]").first.uncheck()
    wait_shown(page, want["lawyer"], what=f"{label} rescale off")

    assert "idf weight" not in base
    t = now()
    page.locator(".bertscore-demo-idf input[type=checkbox]").first.check()  # idf: weights and scores
    seen = page.wait_for_function("""([sel, v]) => {
        const b = document.querySelector('.bertscore-demo-busy .bsd-busy');
        if (b && getComputedStyle(b).opacity === '1' && b.textContent.includes('idf')) return 'busy';
        const el = document.querySelector(sel);
        return el !== null && el.textContent.trim() === v ? 'done' : false; }""",
                                  arg=[F, want["idf"]], polling=50, timeout=90_000).json_value()
    took["idf (first time)"] = wait_shown(page, want["idf"], what=f"{label} idf", since=t)
    assert seen == "busy" or took["idf (first time)"] < 1.0, \
        f"{label}: idf took {took['idf (first time)']:.1f} s with no 'Computing idf' sign"
    weighted = heat(page)
    assert "bsd-wrow" in weighted and "idf weight of each token" in weighted, f"{label}: no weights drawn"
    assert page.locator(".bsd-wrow .bar").count() == len(demo.analyze(*lawyer).view.ref_tokens)
    page.locator(".bertscore-demo-idf input[type=checkbox]").first.uncheck()
    wait_shown(page, want["lawyer"], what=f"{label} idf off")
    assert heat(page) == base

    t = now()
    page.locator(".bertscore-demo-preset select").first.select_option("cold / freezing")  # preset: both texts
    took["preset"] = wait_shown(page, want["cold"], what=f"{label} preset", since=t)
    assert page.locator(".bertscore-demo-candidate textarea").first.input_value() == cold[0]
    assert page.locator(".bertscore-demo-reference textarea").first.input_value() == cold[1]
    assert heat(page) != base

    box = page.locator(".bertscore-demo-candidate textarea").first  # a new text, with Ctrl+Enter
    box.fill(NEW_CANDIDATE)
    t = now()
    box.press("Control+Enter")
    took["new text (Ctrl+Enter)"] = wait_shown(page, want["new"], what=f"{label} Ctrl+Enter", since=t)
    assert page.locator(".bertscore-demo-preset select").first.input_value() == demo.CUSTOM
    page.locator(".bertscore-demo-preset select").first.select_option("cold / freezing")  # restores
    wait_shown(page, want["cold"], what=f"{label} preset restored")
    assert box.input_value() == cold[0]

    box.fill("   ")  # bad input: a message, not a traceback
    page.locator(".bertscore-demo-button").first.click()
    page.locator(".bertscore-demo-message .demo-problem").first.wait_for(state="visible", timeout=60_000)
    assert "empty" in page.locator(".bertscore-demo-message").first.inner_text()
    box.fill(NEW_CANDIDATE + " ")
    t = now()
    page.locator(".bertscore-demo-button").first.click()  # the Score button
    took["new text (Score button)"] = wait_shown(page, want["new"], what=f"{label} Score", since=t)
    return took


def layout_and_screenshot(page, tmp_path: Path, name: str) -> None:
    for width, height in VIEWPORTS:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(500)
        assert_no_horizontal_clipping(page, f"{name} at {width}×{height}")
    page.set_viewport_size({"width": 1280, "height": 720})
    page.locator(".bertscore-demo-preset").first.scroll_into_view_if_needed()
    shot = tmp_path / f"demo_{name}.png"
    page.screenshot(path=str(shot))  # what the room sees: the window, not just the widget
    assert shot.stat().st_size > 10_000
    if os.environ.get("DEMO_FIGURES") == "1":
        shutil.copy(shot, ROOT / "figures" / ("demo_screenshot.png" if name == "lab" else shot.name))


def report_failure(page, tmp_path: Path, server: Server) -> None:
    try:
        failure = tmp_path / "failure.png"
        page.screenshot(path=str(failure), full_page=True)
        print(f"screenshot of the failure: {failure}\nserver log:\n{server.log()}")
    except Exception:
        pass


@contextmanager
def demo_page(browser, server: Server, tmp_path: Path):
    """A 1280×720 page of `browser`; if the block fails, a screenshot and the server's log;
    then the page is closed and the server stopped."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.set_default_timeout(60_000)
    page.remote_requests = []  # what the page asks of another host than this machine (offline: fails)
    page.on("request", lambda r: urlsplit(r.url).scheme in ("http", "https", "ws", "wss")
            and urlsplit(r.url).hostname not in ("127.0.0.1", "localhost") and page.remote_requests.append(r.url))
    page.console_errors = []  # errors in the browser's console (e.g. a lab extension that fails to load)
    page.on("console", lambda m: m.type == "error" and page.console_errors.append(m.text[:300]))
    try:
        yield page
    except Exception:
        report_failure(page, tmp_path, server)
        raise
    finally:
        page.close()
        server.stop()


# --- JupyterLab (make demo) ----------------------------------------------------------------------

def run_all_cells(page) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    item = page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$"))
    item.wait_for(state="visible", timeout=10_000)
    item.click()


def wait_for_idle_kernel(page) -> None:
    idle = '.jp-Notebook-ExecutionIndicator[data-status="idle"]'
    page.wait_for_selector(idle, timeout=120_000)
    page.wait_for_timeout(2_000)
    page.wait_for_selector(idle, timeout=120_000)


def test_demo_in_jupyterlab(playwright_browser, expected, tmp_path):
    from course_lib.demo.widgets import NOT_RUNNING

    original = NOTEBOOK.read_bytes()
    server = Server(launcher("lab", "--LabApp.news_url=None",
                             "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                             "--ServerApp.terminals_enabled=False"), tmp_path, lab_settings=QUIET)
    with demo_page(playwright_browser, server, tmp_path) as page:
        server.wait("/api/status")
        page.goto(server.url("/lab/tree/demo.ipynb"), wait_until="domcontentloaded")
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
        wait_for_idle_kernel(page)
        dialog = page.locator(".jp-Dialog")
        if dialog.count() and dialog.first.is_visible():  # e.g. "Select Kernel": take python3
            dialog.locator("button.jp-mod-accept").first.click()
            wait_for_idle_kernel(page)
        # the committed notebook, not yet run: a note where the widgets will be, no stale repr
        page.locator(".jp-Notebook").hover()
        for _ in range(12):  # JupyterLab attaches only the cells in view: scroll to the demo's
            text = page.locator(".jp-Notebook").inner_text()
            if NOT_RUNNING in text or "VBox(" in text or "Error displaying widget" in text:
                break
            page.mouse.wheel(0, 300)
            page.wait_for_timeout(300)
        assert "VBox(" not in text and "Error displaying widget" not in text
        assert NOT_RUNNING in text

        start = time.perf_counter()
        run_all_cells(page)
        page.locator(F).first.wait_for(state="attached", timeout=180_000)
        wait_for_idle_kernel(page)
        print(f"Run All to idle kernel: {time.perf_counter() - start:.1f} s")
        page.wait_for_timeout(1_500)
        preset = page.locator(".bertscore-demo-preset").first
        top = preset.evaluate("el => el.isConnected ? el.getBoundingClientRect().top : -1")
        assert preset.is_visible() and 60 <= top < 400, f"after Run All the demo is not in view (top {top}px)"

        took = check_controls(page, expected, "JupyterLab")
        print("JupyterLab, seconds from action to the right score shown:",
              {k: round(v, 2) for k, v in took.items()})
        layout_and_screenshot(page, tmp_path, "lab")

        # a kernel restart: the old widgets say they are disconnected
        page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Kernel$")).click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Restart Kernel…$")).click()
        page.locator(".jp-Dialog button.jp-mod-accept").click()
        dead = ".bertscore-demo.jupyter-widgets-disconnected:has(.bertscore-demo-preset)"
        page.wait_for_selector(dead, state="attached", timeout=60_000)
        note = page.locator(dead).first.evaluate(
            "el => getComputedStyle(el, '::before').content")
        assert "kernel was restarted" in note, note
        wait_for_idle_kernel(page)  # stopping the server mid-restart can hang its shutdown
    assert NOTEBOOK.read_bytes() == original


# --- Voilà (make present) --------------------------------------------------------------------------

FOLD = [".bertscore-demo-scores", ".bsd-grid", ".bsd-legend", ".bsd-worst"]  # in view without scrolling
ZOOMS = [("1280×720", {"width": 1280, "height": 720}, 1), ("1280×720 at 125%", {"width": 1024, "height": 576}, 1.25)]


def boxes(page, selectors) -> dict:
    return page.evaluate("""sels => { const o = {}; for (const s of sels) {
        const e = document.querySelector(s); if (!e) { o[s] = null; continue; }
        const r = e.getBoundingClientRect(); o[s] = [r.left, r.top, r.right, r.bottom]; } return o; }""", selectors)


def assert_in_view(page, selectors, where: str) -> None:
    view = page.evaluate("() => [innerWidth, innerHeight, scrollX, scrollY]")
    found = boxes(page, selectors)
    for sel, box in found.items():
        assert box is not None, f"{where}: {sel} missing"
        left, top, right, bottom = box
        assert left >= 0 and top >= 0 and right <= view[0] + 1 and bottom <= view[1] + 1, \
            f"{where}: {sel} spans {box}, the view is {view[0]}×{view[1]} (scrolled {view[2:]})"


def drawn_contrasts(page) -> list[float]:
    """The contrast of every matrix number against its cell, from the colours the browser drew."""
    from course_lib.demo.drawing import contrast_ratio

    pairs = page.evaluate("""() => [...document.querySelectorAll('.bsd-numbers td.c')].map(td => {
        const s = getComputedStyle(td); return [s.backgroundColor, s.color]; })""")
    rgb = lambda c: [int(x) for x in re.findall(r"\d+", c)[:3]]
    return [float(contrast_ratio(rgb(bg), rgb(fg))) for bg, fg in pairs]


def smallest_text(page) -> tuple[float, str]:
    """The smallest font of any visible text the presenter page shows."""
    return tuple(page.evaluate("""() => { let best = [1e9, ''];
        const root = document.querySelector('.bertscore-demo-present');
        const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        while (walk.nextNode()) { const t = walk.currentNode; if (!t.textContent.trim()) continue;
            const el = t.parentElement, r = el.getBoundingClientRect();
            if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
            const size = parseFloat(getComputedStyle(el).fontSize);
            if (size < best[0]) best = [size, t.textContent.trim().slice(0, 40)]; }
        return best; }"""))


def test_demo_in_voila(playwright_browser, expected, tmp_path):
    """`make present` as a user runs it: no JUPYTER_TOKEN; the page is the URL the launcher prints."""
    from course_lib import demo

    server = Server(launcher("present"), tmp_path, own_token=False)
    with demo_page(playwright_browser, server, tmp_path) as page:
        url = server.printed_url()
        printed = time.monotonic() - server.started
        assert "token=..." not in server.log(200) and url.count("token=") == 1
        page.goto(url, wait_until="domcontentloaded", timeout=300_000)
        page.locator(F).first.wait_for(state="visible", timeout=300_000)
        print(f"Voilà: URL printed {printed:.1f} s, page usable {time.monotonic() - server.started:.1f} s "
              "after the launcher started")
        started = server.log_path.read_text(errors="replace").count("Kernel started:")
        assert started == 1, (f"{started} kernels started before the first page was usable: the page's "
                              "kernel loads the model alone (the pool's next one waits until it is idle)")
        assert page.locator(".jp-InputArea-editor, .jp-InputArea .cm-editor").count() == 0  # no code
        assert not page.remote_requests, f"the presenter page asked the network for {page.remote_requests}"
        assert not page.console_errors, f"the presenter page's console shows errors: {page.console_errors}"
        assert "import" not in page.locator("body").inner_text()

        # one screen: scores, the whole matrix and its legend, at 1280×720 and at 125% zoom
        for name, size, zoom in ZOOMS:
            page.set_viewport_size(size)
            page.wait_for_timeout(500)
            assert_in_view(page, FOLD, name)
            if zoom == 1:
                font, text = smallest_text(page)
                assert font >= 14, f"{name}: {text!r} is {font}px (< 14 px)"
            contrasts = drawn_contrasts(page)
            assert len(contrasts) == 81 and min(contrasts) >= 4.5, f"matrix number contrast {min(contrasts):.2f}:1"
            grid = boxes(page, [".bsd-grid"])  # rescaling never moves the matrix
            page.locator(".bertscore-demo-rescale input[type=checkbox]").first.check()
            wait_shown(page, expected(*demo.PRESETS["lawyer / attorney"], rescale=True), what=f"{name} rescale")
            assert boxes(page, [".bsd-grid"]) == grid, f"{name}: rescaling moved the matrix"
            page.locator(".bertscore-demo-rescale input[type=checkbox]").first.uncheck()
            wait_shown(page, expected(*demo.PRESETS["lawyer / attorney"]), what=f"{name} rescale off")
        page.set_viewport_size({"width": 1280, "height": 720})

        # the keyboard leaves the preset list once a preset is chosen (PageDown then scrolls)
        select = page.locator(".bertscore-demo-preset select").first
        cut = select.evaluate("""s => { const c = document.createElement('canvas').getContext('2d');
            const st = getComputedStyle(s); c.font = `${st.fontSize} ${st.fontFamily}`;
            const room = s.clientWidth - parseFloat(st.paddingLeft) - 22;  // the arrow
            return [...s.options].map(o => o.textContent).filter(t => c.measureText(t).width > room); }""")
        assert not cut, f"preset names cut in the list: {cut}"
        select.focus()
        page.keyboard.press("ArrowDown")
        wait_shown(page, expected(*demo.PRESETS["cold / freezing"]), what="preset by keyboard")
        assert page.evaluate("() => document.activeElement.tagName") != "SELECT"
        select.select_option("lawyer / attorney")
        wait_shown(page, expected(*demo.PRESETS["lawyer / attorney"]), what="back to lawyer")

        took = check_controls(page, expected, "Voilà")
        print("Voilà, seconds from action to the right score shown:", {k: round(v, 2) for k, v in took.items()})
        layout_and_screenshot(page, tmp_path, "present")

        select.select_option("Rob Halford: metal singer (right)")  # a long view pages inside the view
        page.locator(".bsd-long").wait_for(state="visible", timeout=60_000)
        assert_in_view(page, [".bsd-long"], "the long view")

        # the class set, ranked when its tab opens; Rank after an edit; its table pages inside the view
        start = time.perf_counter()
        page.get_by_role("tab", name="A class set").click()
        page.locator(".bsd-rank").wait_for(state="visible", timeout=120_000)
        opened = time.perf_counter() - start
        assert page.locator(".bsd-rank tr").count() == 11
        for name, size, zoom in ZOOMS:  # all ten answers on one screen, at 100% and 125%
            page.set_viewport_size(size)
            page.wait_for_timeout(500)
            below = page.evaluate("""() => [...document.querySelectorAll('.bsd-rank tr')].filter(r => {
                const b = r.getBoundingClientRect(); return b.bottom > innerHeight + 1 || b.top < 0; }).length""")
            assert below == 0, f"{name}: {below} rows of the class table out of view"
        page.set_viewport_size({"width": 1280, "height": 720})
        assert_in_view(page, [".bertscore-demo-class-table"], "the class set")
        page.get_by_text("Edit the reference and the answers").click()  # the texts fold away in the presenter
        answers = page.locator(".bertscore-demo-class-answers textarea").first
        new = "Rob Halford sang in Judas Priest, the heavy metal band."  # a text never embedded: Rank runs the model
        answers.fill("\n".join(answers.input_value().splitlines()[:8] + [new]))
        start = time.perf_counter()
        page.locator(".bertscore-demo-class-button").first.click()  # the box loses focus, then the click
        page.wait_for_function("([n]) => document.querySelectorAll('.bsd-rank tr').length === 10 && "
                               "document.querySelector('.bsd-rank').textContent.includes(n.slice(0, 30))", arg=[new],
                               timeout=120_000)
        print(f"class set ranked when its tab opened (ten answers, nothing cached): {opened:.2f} s; Rank after "
              f"an edit (nine answers, one new): {time.perf_counter() - start:.2f} s (a shared, loaded machine)")

        # the other tab waits for the kernel: never old numbers under a newly chosen preset
        cold = expected(*demo.PRESETS["cold / freezing"])
        # 200 new answers keep the kernel ranking for seconds on any machine (40 were done in ~0.1 s on a
        # fast one, before the preset's change was polled: a flaky failure seen on ec3c320 too)
        answers.fill("\n".join(f"Answer {k}: Rob Halford sang with band number {k} for a while." for k in range(200)))
        page.locator(".bertscore-demo-class-button").first.click()  # the kernel ranks ...
        page.get_by_role("tab", name="One pair").click()
        page.evaluate("() => { window.__stale = []; }")
        select.select_option("cold / freezing")  # ... while the preset changes
        page.wait_for_function("""([sel, v]) => {
            const f = document.querySelector(sel), s = document.querySelector('.bertscore-demo-scores');
            window.__polls = (window.__polls || 0) + 1;
            if (f && f.textContent.trim() === v) return true;
            const wait = document.querySelector('.bertscore-demo-busy');
            const said = wait && (wait.textContent + getComputedStyle(wait, '::after').content).match(/Computing|Waiting/);
            if (parseFloat(getComputedStyle(s).opacity) > 0.5 || !said) window.__stale.push(f ? f.textContent : '');
            return false; }""", arg=[F, cold], polling=20, timeout=120_000)
        stale, polls = page.evaluate("() => window.__stale"), page.evaluate("() => window.__polls")
        assert not stale, f"old scores stood under the new preset, or no busy line: {stale[:5]}"
        assert polls > 5, "the preset was scored before the check began: the kernel was not busy ranking"

        # a reload: fast when the pool's kernel is ready, and the old page's kernel goes away
        from course_lib.demo import launch

        deadline = time.monotonic() + 240
        pool = 0 if launch.forks() else 1  # forked kernels (Linux): no pool, each page forks its own
        while len(server.kernels()) < 1 + pool and time.monotonic() < deadline:  # the page's + the pool's
            time.sleep(1)
        # ... and it keeps the preset and the idf setting (texts typed by hand are not kept)
        page.locator(".bertscore-demo-idf input[type=checkbox]").first.check()
        cold_idf = expected(*demo.PRESETS["cold / freezing"], idf="WMT16 references")
        wait_shown(page, cold_idf, what="idf on before the reload")
        page.wait_for_timeout(20_000 * pool)  # the pool's kernel runs the notebook
        start = time.perf_counter()
        page.reload(wait_until="domcontentloaded", timeout=300_000)
        # until the kept preset is drawn, no number may be seen (the preheated kernel drew its own preset)
        page.wait_for_function("""([sel, v]) => {
            const f = document.querySelector(sel);
            if (f === null) return false;
            if (f.textContent.trim() === v) return true;
            const seen = getComputedStyle(f).visibility !== 'hidden' && f.getClientRects().length > 0;
            if (seen) (window.__old = window.__old || []).push(f.textContent.trim());
            return false; }""", arg=[F, cold_idf], polling=20, timeout=300_000)
        shown_s = time.perf_counter() - start
        old = page.evaluate("() => window.__old || []")
        assert not old, f"old numbers shown after the reload, before the kept preset: {sorted(set(old))}"
        wait_shown(page, cold_idf, what="the preset and idf kept over a reload")
        print(f"Voilà reload: page shown {shown_s:.1f} s, its preset and idf back {time.perf_counter() - start:.1f} s")
        assert select.evaluate("s => s.options[s.selectedIndex].textContent").replace("\xa0", " ") == "cold / freezing"
        assert page.locator(".bertscore-demo-idf input[type=checkbox]").first.is_checked()
        deadline = time.monotonic() + 120
        while len(server.kernels()) > 2 and time.monotonic() < deadline:
            time.sleep(1)
        assert len(server.kernels()) <= 2, f"{len(server.kernels())} kernels for one open page (+1 in the pool)"


# --- the presenter view at 125% zoom: each tab on one 1024×576 screen --------------------------------

AT_125 = {"width": 1024, "height": 576}  # a 1280×720 screen at 125% zoom, in CSS px
NOTE = ".bertscore-demo-class-table .bsd-note"  # the note under the ranked answers
RANGE = ".bertscore-demo-scores .bsd-range"  # what raw (or rescaled) scores mean, beside P, R, F


def baseline_F(layer: int) -> float:
    """b of F at `layer`, read from the course's baseline file (what the demo's note must say)."""
    import csv

    from course_lib.resources import BASELINES

    with open(BASELINES / "all-MiniLM-L6-v2.tsv", newline="") as f:
        return float(next(r for r in csv.DictReader(f) if int(r["LAYER"]) == layer)["F"])


def longest_grid_preset() -> str:
    """The preset with the most word pieces that still shows a matrix (not the long-text view)."""
    from course_lib import demo

    sizes = {name: demo.analyze(*pair).view for name, pair in demo.PRESETS.items()}
    grids = {n: len(v.cand_tokens) * len(v.ref_tokens) for n, v in sizes.items() if demo.view_kind(v) != "long"}
    return max(grids, key=grids.get)


def below_the_screen(page, tab_index: int) -> dict:
    """What of the open tab ends below the window (each box drawn), and which of the page's boxes
    around it scroll vertically (tried: scrolled by 1000 px, then back)."""
    return page.evaluate("""(index) => {
        const H = innerHeight, tab = document.querySelectorAll('.bertscore-demo-present .widget-tab-contents > *')[index];
        const below = [];
        for (const el of [tab, ...tab.querySelectorAll('*')]) {
            const r = el.getBoundingClientRect();
            if (r.width > 0 && r.height > 0 && r.bottom > H + 0.5)
                below.push(`${el.tagName}.${String(el.className).slice(0, 60)} ends at ${r.bottom.toFixed(1)}`);
        }
        const scrolls = [];
        for (let el = tab.parentElement; el; el = el.parentElement) {
            const before = el.scrollTop; el.scrollTop = before + 1000;
            if (el.scrollTop !== before) scrolls.push(`${el.tagName}#${el.id}.${String(el.className).slice(0, 40)} `
                                                       + `scrolls ${el.scrollHeight - el.clientHeight}px`);
            el.scrollTop = before;
        }
        window.scrollTo(0, 1000);
        if (scrollY > 0) scrolls.push(`the window scrolls ${scrollY}px`);
        window.scrollTo(0, 0);
        return {below: below.slice(0, 6), scrolls}; }""", tab_index)


@pytest.fixture(scope="module")
def presenter(playwright_browser, tmp_path_factory):
    """One `make present` page for the tests below (each sets its tab, preset and window size)."""
    tmp = tmp_path_factory.mktemp("presenter")
    server = Server(launcher("present"), tmp, own_token=False)
    page = playwright_browser.new_page(viewport=AT_125)
    page.set_default_timeout(60_000)
    try:
        page.goto(server.printed_url(), wait_until="domcontentloaded", timeout=300_000)
        page.locator(F).first.wait_for(state="visible", timeout=300_000)
        yield page
    except Exception:
        report_failure(page, tmp, server)
        raise
    finally:
        page.close()
        server.stop()


def test_presenter_one_pair_tab_fits_1280x720_at_125_percent(presenter, expected):
    """Nothing of the One pair tab below a 1024×576 window and no vertical scrolling, with the default
    preset and with the longest one that still shows the matrix; and at the two sizes tested above."""
    from course_lib import demo

    page = presenter
    page.get_by_role("tab", name="One pair").click()
    select = page.locator(".bertscore-demo-preset select").first
    for preset in ("lawyer / attorney", longest_grid_preset()):
        if select.input_value() != preset:  # choosing the preset shown again draws nothing (the page would wait)
            select.select_option(preset)
        wait_shown(page, expected(*demo.PRESETS[preset]), what=preset)
        for size in (AT_125, *({"width": w, "height": h} for w, h in VIEWPORTS)):
            page.set_viewport_size(size)
            page.wait_for_timeout(500)
            found = below_the_screen(page, 0)
            assert not found["below"] and not found["scrolls"], f"{preset} at {size}: {found}"
    page.set_viewport_size(AT_125)


def test_presenter_says_what_raw_scores_mean_beside_F(presenter, expected):
    """Beside P, R, F: unrelated texts score about b raw (b from the baseline file, at the layer shown),
    legible; with rescaling on, that the scores are rescaled; and the tab still fits 1024×576."""
    from course_lib import DEFAULT_LAYER, demo
    from course_lib.demo.drawing import contrast_ratio

    page = presenter
    page.set_viewport_size(AT_125)
    page.get_by_role("tab", name="One pair").click()
    lawyer, select = demo.PRESETS["lawyer / attorney"], page.locator(".bertscore-demo-preset select").first
    if select.input_value() != "lawyer / attorney":
        select.select_option("lawyer / attorney")
    wait_shown(page, expected(*lawyer), what="lawyer")
    b = f"{baseline_F(DEFAULT_LAYER):.2f}"
    note = page.locator(RANGE).first
    assert note.is_visible(), "no note on what raw scores mean beside P, R, F"
    text = note.inner_text()
    assert b in text and "unrelated" in text and "rescale" in text, f"{text!r} (b = {b})"
    f_box, n_box = (boxes(page, [F, RANGE])[s] for s in (F, RANGE))
    assert 0 <= n_box[1] - f_box[3] <= 40 and n_box[0] < f_box[2], f"the note {n_box} is not beside F {f_box}"
    size, color = note.evaluate("e => [parseFloat(getComputedStyle(e).fontSize), getComputedStyle(e).color]")
    ink = [int(x) for x in re.findall(r"\d+", color)[:3]]
    assert size >= 14 and float(contrast_ratio(ink, [255, 255, 255])) >= 4.5, f"{size}px, {color}"
    assert_in_view(page, [RANGE], "the raw-range note at 1024×576")

    set_layer(page, 2)  # the note follows the layer shown
    wait_shown(page, expected(*lawyer, layer=2), what="layer 2")
    assert f"{baseline_F(2):.2f}" in note.inner_text()
    set_layer(page, DEFAULT_LAYER)
    wait_shown(page, expected(*lawyer), what="back to the default layer")

    page.locator(".bertscore-demo-rescale input[type=checkbox]").first.check()
    wait_shown(page, expected(*lawyer, rescale=True), what="rescale")
    assert "rescaled" in note.inner_text() and note.is_visible()
    found = below_the_screen(page, 0)
    assert not found["below"] and not found["scrolls"], f"rescaled: {found}"
    page.locator(".bertscore-demo-rescale input[type=checkbox]").first.uncheck()
    wait_shown(page, expected(*lawyer), what="rescale off")


def test_presenter_class_tab_note_fits_1280x720_at_125_percent(presenter):
    """After ranking, the class tab's note (under the ranked answers) lies wholly inside a 1024×576
    window and inside the table's own scrolling box; the page does not scroll."""
    page = presenter
    page.set_viewport_size(AT_125)
    page.get_by_role("tab", name="A class set").click()
    page.locator(NOTE).wait_for(state="visible", timeout=120_000)
    page.wait_for_timeout(500)
    note, table = (boxes(page, [NOTE, ".bertscore-demo-class-table"])[s] for s in (NOTE, ".bertscore-demo-class-table"))
    assert note[3] <= 576 and note[3] <= table[3] + 0.5, f"the note spans {note}, its box {table}, the window 576 px"
    assert page.locator(".bsd-rank tr").count() == 11
    found = below_the_screen(page, 1)
    assert not found["below"] and not found["scrolls"], f"the class tab: {found}"
    page.get_by_role("tab", name="One pair").click()


TINY = {"nbformat": 4, "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "cells": [{"cell_type": "code", "id": "a", "metadata": {}, "execution_count": None, "outputs": [],
                   "source": "import ipywidgets as w\nw.HTML('<b class=\"tiny\">tiny page</b>')"}]}


def test_twenty_reloads_leave_one_kernel_per_page(playwright_browser, tmp_path):
    """make present's kernel handling (Voilà's pool of one preheated kernel and
    course_lib.demo.kernels) on a one-cell page: 20 reloads, and at most one kernel per open page
    plus the pool's remain, their memory flat. (The demo's own page: test_demo_in_voila.)"""
    import json
    import sys

    from course_lib.demo import launch

    folder = tmp_path / "served"
    folder.mkdir()
    (folder / "tiny.ipynb").write_text(json.dumps(TINY))
    shutil.copy(launch.KERNELS, folder / "bertscore_demo_kernels.py")
    path = os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))
    server = Server([sys.executable, "-m", "voila", str(folder / "tiny.ipynb"), "--Voila.ip=127.0.0.1",
                     "--token", f"--Voila.root_dir={folder}", "--no-browser", "--Voila.port_retries=0",
                     "--port={port}", *launch.PRESENT_FLAGS], tmp_path, extra_env={"PYTHONPATH": path})
    with demo_page(playwright_browser, server, tmp_path) as page:
        server.wait(tcp_only=True)
        counts, memory = [], []
        for i in range(21):
            if i == 0:
                page.goto(server.url("/"), wait_until="domcontentloaded", timeout=120_000)
            else:
                page.reload(wait_until="domcontentloaded", timeout=120_000)
            page.locator(".tiny").wait_for(state="visible", timeout=120_000)
            kernels = server.kernels()
            counts.append(len(kernels))
            memory.append(sum(k.memory_info().rss for k in kernels) / 2**20)
        deadline = time.monotonic() + 90
        while len(server.kernels()) > 2 and time.monotonic() < deadline:
            time.sleep(1)
        kernels = server.kernels()
        settled = sum(k.memory_info().rss for k in kernels) / 2**20
        print(f"kernels after each of 20 reloads: {counts}; their memory (MiB): {[round(m) for m in memory]};"
              f" settled: {len(kernels)} kernels, {settled:.0f} MiB")
        # kernels of pages just left (or left before they connected) go within 5 s (30 s) of the page: a few at
        # a time at most, then one for the open page and one waiting in the pool
        assert max(counts) <= 8, f"kernels pile up: {counts}"
        one = memory[0] / counts[0]  # a kernel's memory at the first page (the pool's next one may not run yet)
        assert len(kernels) <= 2 and settled <= 1.5 * 2 * one, f"{len(kernels)} kernels, {settled:.0f} MiB"
