"""The course as a book (make book), read the way a reader reads it: each page opened from disk
(file://) in Debian's headless Chromium via Playwright, with every request that is not a local file
recorded and refused.

For every page (the course map, each chapter notebooks/[0-9]*.ipynb, the demo, the references):
it is there; every image loads and has alt text that describes it (not empty, not a file hash, not
a word or two like "figure" or "heatmap"); each chapter shows as many images as its notebook has
figure outputs; every internal link leads to a file that exists (and to an element with that id
when it has a #fragment); no request leaves the disk (MathJax and every script are local); headings
go down one level at a time; and axe-core (axe-playwright-python, which ships axe.min.js: it runs
offline) finds no serious or critical violation.

At a phone's width (390 px) and a laptop's (1280 px): no page scrolls sideways or cuts a formula; the
menu button opens the chapters and leads to one, the contents button the page's sections (390 px), the
menu button hides and shows the sidebar (1280 px); one search box, which searches offline; no console
error; the course map's time column unbroken; a cell's prints one block. And no page shows nbgrader's
`### BEGIN SOLUTION` / `### END SOLUTION` lines.

Needs the built book (`make book`; CI runs it before the tests), /usr/bin/chromium and the
book's packages (pip install the `book` extra; make book does). On a laptop a missing one skips
these tests with the reason; under CI (COURSE_CI=1 or CI=true) it fails the run.
"""
from __future__ import annotations

import html
import os
import re
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest

from course_lib.course.alt_text import has_image, trivial
from course_lib.course.book import BUILD, chapters
from browser import chromium, skip_or_fail
from course_lib.paths import NOTEBOOKS

HTML = Path(os.environ.get("COURSE_BOOK_HTML", BUILD / "_build" / "html"))
MATHJAX_TEX_FONT = "/_static/mathjax/fonts/HTML-CSS/TeX/otf/"
TRIVIAL_ALTS = {"figure", "image", "heatmap", "plot", "chart", "png", "output"}


def page_names() -> list[str]:
    names = ["index", *(p.stem for p in chapters())]
    if (NOTEBOOKS / "demo.ipynb").exists():
        names.append("demo")
    return names + ["references"]


def _missing() -> list[str]:
    problems = []
    if not (HTML / "index.html").exists():
        problems.append(f"the book is not built ({HTML / 'index.html'} is missing: run make book)")
    try:
        import axe_playwright_python  # noqa: F401
    except ImportError:
        problems.append("the axe-playwright-python package is missing (make book installs the book's packages)")
    return problems


@pytest.fixture(scope="module")
def browser():
    with chromium("the book in a browser", _missing()) as launched:
        yield launched


MATHJAX_DONE = """() => !document.querySelector('.math.notranslate')
  || (window.MathJax !== undefined && MathJax.isReady === true && MathJax.Hub.queue.pending === 0
      && MathJax.Hub.queue.running === 0)"""

PAGE_FACTS = """() => {
  const main = document.querySelector('main') || document.body;
  return {
    images: Array.from(main.querySelectorAll('img')).map(img => ({
      src: img.getAttribute('src'), alt: img.getAttribute('alt'),
      loaded: img.complete && img.naturalWidth > 0})),
    links: Array.from(document.querySelectorAll('a[href]')).map(a => a.getAttribute('href')),
    headings: Array.from(main.querySelectorAll('h1, h2, h3, h4, h5, h6'))
      .filter(h => h.offsetParent !== null)
      .map(h => ({level: Number(h.tagName[1]), text: h.textContent.trim().replace(/[¶#]$/, '')})),
    mathjaxErrors: document.querySelectorAll('.MathJax_Error, merror').length,
    formulas: document.querySelectorAll('.math.notranslate').length,
    typeset: document.querySelectorAll('.MathJax, .MathJax_Display').length,
  };
}"""


class Pages(dict):
    """{page name: facts (images, links, headings, axe violations, refused requests)}, each page
    opened on first use (so `-k` on one page opens only that one); None for a missing page."""

    def __init__(self, context, axe, refused):
        super().__init__()
        self.context, self.axe, self.refused = context, axe, refused

    def __missing__(self, name):
        self[name] = self.visit(name)
        return self[name]

    def visit(self, name):
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        path = HTML / f"{name}.html"
        if not path.exists():
            return None
        page = self.context.new_page()
        failed: list[str] = []
        # a file that is not there (ERR_ABORTED is a request the page itself cancelled, e.g. a preload)
        # One known, narrow exception: MathJax's @font-face for MathJax_AMS (TeX fonts, which
        # jupyter-server-mathjax does not ship) is asked for by the hidden MathML copy that
        # AssistiveMML adds for screen readers (\\mathbb); the visible formula uses STIX-Web.
        page.on("requestfailed", lambda r: r.url.startswith("file://") and "ERR_ABORTED" not in (r.failure or "")
                and MATHJAX_TEX_FONT not in r.url and failed.append(f"{r.url} ({r.failure})"))
        before = len(self.refused)
        page.goto(path.as_uri(), wait_until="load")
        try:  # pages with formulas: until MathJax has typeset them
            page.wait_for_function(MATHJAX_DONE, timeout=60_000)
            mathjax = "done"
        except PlaywrightTimeout:
            mathjax = "MathJax did not finish within 60 s"
        info = page.evaluate(PAGE_FACTS)
        # preload off: axe would re-read the style sheets with XHR, which file:// pages refuse (net::ERR_FAILED)
        result = self.axe.run(page, options={"resultTypes": ["violations"], "preload": False})
        info.update(mathjax=mathjax, failed=list(failed), refused=self.refused[before:],  # before close() aborts
                    violations=[v for v in result.response["violations"] if v["impact"] in ("serious", "critical")])
        page.close()
        return info


@pytest.fixture(scope="module")
def pages(browser):
    from axe_playwright_python.sync_playwright import Axe

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    refused: list[str] = []

    def route(route):
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    context.route("**/*", route)
    yield Pages(context, Axe(), refused)
    context.close()


def test_every_page_is_there(browser):
    missing = [name for name in page_names() if not (HTML / f"{name}.html").exists()]
    assert not missing, f"pages missing from the book: {missing}"


@pytest.mark.parametrize("name", page_names())
def test_page(pages, name):
    info = pages[name]
    assert info is not None, f"{name}.html is missing from the book"
    problems = []
    problems += [f"a request left the disk: {url}" for url in info["refused"]]
    problems += [f"a local file did not load: {url}" for url in info["failed"]]
    for img in info["images"]:
        if not img["loaded"]:
            problems.append(f"image does not load: {img['src']}")
        if meaningless(img["alt"]):
            problems.append(f"image without meaningful alt text: {img['src']} alt={img['alt']!r}")
    problems += broken_links(name, info["links"])
    problems += heading_jumps(info["headings"])
    if info["mathjax"] != "done":
        problems.append(info["mathjax"])
    if info["mathjaxErrors"]:
        problems.append(f"{info['mathjaxErrors']} formulas MathJax could not typeset")
    for v in info["violations"]:
        where = "; ".join(n["target"][0] if isinstance(n["target"][0], str) else str(n["target"])
                          for n in v["nodes"][:3])
        problems.append(f"axe {v['impact']}: {v['id']} ({v['help']}) on {len(v['nodes'])} elements, e.g. {where}")
    assert not problems, f"{name}.html:\n" + "\n".join(problems)


@pytest.mark.parametrize("notebook", [*chapters(), NOTEBOOKS / "demo.ipynb"], ids=lambda p: p.stem)
def test_chapter_shows_every_figure(pages, notebook):
    """Each figure output of the notebook is an image on its page (the demo adds its screenshots)."""
    info = pages[notebook.stem]
    assert info is not None, f"{notebook.stem}.html is missing from the book"
    figures = sum(has_image(c) for c in nbformat.read(notebook, as_version=4).cells)
    assert len(info["images"]) >= figures > 0 or figures == 0, \
        f"{notebook.stem}: {figures} figure outputs, {len(info['images'])} images on the page"


def test_mathjax_is_local_and_runs(pages):
    """MathJax typesets the formulas from the book's own copy (a chapter with math)."""
    info = pages["01_lexical_metrics"]
    assert info["mathjax"] == "done" and info["formulas"] > 10, (info["mathjax"], info["formulas"])
    assert info["typeset"] >= info["formulas"], f"{info['formulas']} formulas, {info['typeset']} typeset by MathJax"


def meaningless(alt: str | None) -> bool:
    if alt is None or not alt.strip():
        return True
    text = alt.strip().lower()
    return (text in TRIVIAL_ALTS or re.fullmatch(r"[0-9a-f]{16,}(\.\w+)?", text) is not None
            or trivial(alt))


def broken_links(name: str, hrefs: list[str]) -> list[str]:
    """Internal links whose file (or #fragment in it) does not exist."""
    problems = []
    for href in set(hrefs):
        parts = urlsplit(href)
        if parts.scheme in ("http", "https", "mailto"):
            continue
        if parts.scheme or parts.netloc:
            problems.append(f"link with an unexpected scheme: {href}")
            continue
        target = (HTML / unquote(parts.path)).resolve() if parts.path else HTML / f"{name}.html"
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            problems.append(f"broken link: {href}")
        elif parts.fragment and target.suffix == ".html" and not re.search(
                rf'id="{re.escape(unquote(parts.fragment))}"', target.read_text(errors="replace")):
            problems.append(f"link to a missing anchor: {href}")
    return sorted(problems)


def heading_jumps(headings: list[dict]) -> list[str]:
    """Headings must start at h1 and never skip a level going down (h2 → h4)."""
    problems = []
    previous = 0
    for h in headings:
        if h["level"] > previous + 1:
            problems.append(f"heading h{h['level']} {h['text']!r} after h{previous or '-'}")
        previous = h["level"]
    return problems


REMOTE = re.compile(r'<(?:script|link|img|iframe|source|embed|object)\b[^>]*?\b(?:src|href|data)="((?:https?:)?//[^"]*)"',
                    re.I)


def test_no_page_loads_anything_from_the_network():
    """A static check of every HTML file of the book (also the pages the browser test does not open):
    no script, style sheet, image or frame comes from a URL; links to the web (<a href>) are fine."""
    if not (HTML / "index.html").exists():
        skip_or_fail(f"the book is not built ({HTML / 'index.html'} is missing: run make book)")
    remote = {f"{path.name}: {url}" for path in HTML.glob("*.html") for url in REMOTE.findall(path.read_text())}
    assert not remote, sorted(remote)


# ---- The book at a phone's width and at a laptop's (issue: first contact) ----

LAYOUT_FACTS = """() => {
  const se = document.scrollingElement;
  const cut = [];
  for (const d of document.querySelectorAll('.MathJax_Display')) {  // display maths
    const left = d.getBoundingClientRect().left;
    let right = left;
    for (const e of d.querySelectorAll('*')) right = Math.max(right, e.getBoundingClientRect().right);
    const scrolls = ['auto', 'scroll'].includes(getComputedStyle(d).overflowX);
    if (right - left > d.clientWidth + 1 && !scrolls) cut.push((d.textContent || '').slice(0, 40));
  }
  const figures = Array.from(document.querySelectorAll('main .cell_output img')).map(img => {
    const a = img.closest('a'); return a ? a.getAttribute('href') : null; });
  const message = document.getElementById('MathJax_Message');
  return {scrollWidth: se.scrollWidth, clientWidth: se.clientWidth, cut: cut, figures: figures,
          mathjaxMessage: message && message.offsetParent !== null ? message.textContent : null,
          downloads: Array.from(document.querySelectorAll('a[href*="_sources/"]')).map(a => a.getAttribute('href')),
          searchBoxes: Array.from(document.querySelectorAll(
              'form.bd-search, input[type=search], .search-button__button, .search-button-field'))
            .filter(el => { const r = el.getBoundingClientRect();  // shown, and not a part of another one
              return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden'
                && !el.parentElement.closest('form.bd-search, .search-button__button'); }).length};
}"""


# Console errors that are about loading a file, not about the page's scripts: test_page checks every
# request (no file missing, none leaving the disk). MathJax 2's web-font check asks for a font at
# about:blank, which a page opened from file:// may not load (CORS); served over http it may.
LOADING_ERRORS = re.compile(r"^Failed to load resource: |^Access to font at 'about:blank' from origin 'null'")


@pytest.fixture(scope="module", params=[390, 1280], ids=["phone-390px", "laptop-1280px"])
def layout(browser, request):
    """{page name: LAYOUT_FACTS} at one viewport width, each page opened on first use."""
    context = browser.new_context(viewport={"width": request.param, "height": 800})
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file://")
                  else route.abort())
    # each page read as on a first visit: nothing kept from the pages before (the theme stores the colour
    # mode, after which an unset default mode no longer shows)
    context.add_init_script("localStorage.clear(); sessionStorage.clear();")
    facts = {}

    def of(name):
        if name not in facts:
            page = context.new_page()
            messages = []
            page.on("console", lambda m: messages.append((m.type, m.text)))
            page.on("pageerror", lambda e: messages.append(("pageerror", str(e))))
            page.goto((HTML / f"{name}.html").as_uri(), wait_until="load")
            page.wait_for_function(MATHJAX_DONE, timeout=60_000)
            facts[name] = page.evaluate(LAYOUT_FACTS)
            facts[name]["errors"] = [text for kind, text in messages if kind == "pageerror" or kind == "error"
                                     and not LOADING_ERRORS.search(text)]
            page.close()
        return facts[name]
    yield of
    context.close()


@pytest.mark.parametrize("name", page_names())
def test_page_reads_without_sideways_scroll_or_cut_maths(layout, name):
    """No page scrolls sideways (a long URL, inline code or a table that pushes it wider), and no
    display formula is cut off: one wider than its box scrolls inside it."""
    info = layout(name)
    assert info["scrollWidth"] <= info["clientWidth"], \
        f"{name}.html is {info['scrollWidth']} px wide in a {info['clientWidth']} px window"
    assert not info["cut"], f"{name}.html: display maths cut off: {info['cut']}"
    assert info["mathjaxMessage"] is None, f"{name}.html shows MathJax's message {info['mathjaxMessage']!r}"


@pytest.mark.parametrize("notebook", chapters(), ids=lambda p: p.stem)
def test_figures_open_full_size_and_the_chapter_downloads(layout, notebook):
    info = layout(notebook.stem)
    assert all(href and href.startswith("_images/") for href in info["figures"]), \
        f"{notebook.stem}: a figure is not a link to its full-size image: {info['figures']}"
    assert any(h.endswith(f"_sources/{notebook.name}") for h in info["downloads"]), \
        f"{notebook.stem}: no link to download the notebook ({info['downloads']})"


def test_long_source_listings_are_folded():
    """A `show_source` listing over FOLD_LINES lines is folded on its page (a button shows it)."""
    from course_lib.course.book import FOLD_LINES, long_listing

    if not (HTML / "index.html").exists():
        skip_or_fail(f"the book is not built ({HTML / 'index.html'} is missing: run make book)")
    long = {path.stem: sum(long_listing(c) for c in nbformat.read(path, as_version=4).cells) for path in chapters()}
    assert sum(long.values()) > 0, f"no show_source listing over {FOLD_LINES} lines: the test tests nothing"
    for stem, count in long.items():
        html = (HTML / f"{stem}.html").read_text()
        assert html.count("tag_hide-output") >= count, f"{stem}: {count} long listings, not all folded"
    short = nbformat.v4.new_code_cell("show_source(f)", outputs=[nbformat.v4.new_output("stream", text="x\n" * 3)])
    assert not long_listing(short)


def test_each_script_once_and_one_title_style():
    """sphinx-thebe's THEBE_JS_URL is declared once per page (Jupyter Book 1 wrote it twice), and every
    chapter's title reads "NN — Title" (the sidebar showed four styles)."""
    if not (HTML / "index.html").exists():
        skip_or_fail(f"the book is not built ({HTML / 'index.html'} is missing: run make book)")
    twice = [p.name for p in HTML.glob("*.html") if p.read_text().count("const THEBE_JS_URL") > 1]
    assert not twice, f"THEBE_JS_URL declared twice in {twice}"
    titles = {p.stem: nbformat.read(p, as_version=4).cells[0].source.splitlines()[0] for p in chapters()}
    odd = {stem: t for stem, t in titles.items() if not re.match(rf"# {stem.split('_')[0]} — \S", t)}
    assert not odd, f"chapter titles not in the form '# NN — Title': {odd}"


# ---- Finding one's way: the menu and the contents at a phone's width and at a laptop's, search,
# ---- and what a page shows (issue: the book on a phone) ----

PHONE, LAPTOP = {"width": 390, "height": 844}, {"width": 1280, "height": 800}

# the element a reader's tap at the middle of `el` lands on is `el` or inside it: it is on screen
# (in the viewport, at a size) and nothing covers it
ON_SCREEN = """el => {
  const r = el.getBoundingClientRect();
  if (r.width < 1 || r.height < 1 || r.right > innerWidth + 1 || r.left < -1 || r.bottom < 0 || r.top > innerHeight)
    return false;
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return hit !== null && (hit === el || el.contains(hit));
}"""


@contextmanager
def opened(browser, name: str, viewport: dict):
    """The page `name` of the book, in a fresh browser context of that size (so a test depends on no
    other), offline."""
    if not (HTML / f"{name}.html").exists():
        pytest.fail(f"{name}.html is missing from the book")
    context = browser.new_context(viewport=viewport)
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file://")
                  else route.abort())
    page = context.new_page()
    try:
        page.goto((HTML / f"{name}.html").as_uri(), wait_until="load")
        yield page
    finally:
        context.close()


def wait_until(page, condition: str, failure: str, timeout_ms: int = 5_000) -> None:
    """Wait until the JavaScript `condition` (a function) is true on the page; else fail with `failure`."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(condition, timeout=timeout_ms)
        return
    except PlaywrightTimeout:
        pass
    pytest.fail(f"{failure} (on {page.url})", pytrace=False)


def on_screen(selector: str) -> str:
    """A JavaScript condition: some element matching `selector` is on screen (ON_SCREEN)."""
    return f"() => Array.from(document.querySelectorAll({selector!r})).some({ON_SCREEN})"


def the_visible(page, selector: str):
    """The one element matching `selector` that a reader sees (there may be hidden copies)."""
    shown = page.locator(selector).locator("visible=true")
    assert shown.count() == 1, f"{shown.count()} visible elements match {selector!r} on {page.url}"
    return shown.first


def test_menu_opens_on_a_phone_and_leads_to_another_chapter(browser):
    """At 390 px the menu button opens the primary sidebar (the chapters) on screen, and a chapter's
    link in it opens that chapter (pydata-sphinx-theme#2451: the script bound a hidden copy of the button)."""
    chapter_link = 'a[href="02_embeddings.html"]'  # in the sidebar, or in the dialog the theme moves it to
    with opened(browser, "01_lexical_metrics", PHONE) as page:
        assert not page.evaluate(on_screen(chapter_link)), "the chapters' menu is open before the button is pressed"
        the_visible(page, ".primary-toggle").click()
        wait_until(page, on_screen(chapter_link), "the menu button did not open the chapters' menu")
        link = page.locator(chapter_link)
        link.nth(next(i for i in range(link.count()) if link.nth(i).evaluate(ON_SCREEN))).click()
        page.wait_for_url("**/02_embeddings.html", timeout=10_000)
        assert page.locator("main h1").first.inner_text().startswith("02")


def test_contents_toggle_opens_the_page_contents_on_a_phone(browser):
    """At 390 px the contents button opens the page's table of contents on screen; a section in it
    leads to that section."""
    entry = '#pst-page-toc-nav a[href="#rouge"]'
    with opened(browser, "01_lexical_metrics", PHONE) as page:
        assert not page.evaluate(on_screen(entry)), "the page's contents are open before the button is pressed"
        the_visible(page, ".secondary-toggle").click()
        wait_until(page, on_screen(entry), "the contents button did not open the page's contents")
        page.locator(entry).click()
        page.wait_for_url("**/01_lexical_metrics.html#rouge", timeout=5_000)


def test_menu_button_hides_and_shows_the_sidebar_on_a_laptop(browser):
    """At 1280 px the sidebar is shown; the menu button hides it, and pressing it again shows it."""
    shown = on_screen('#pst-primary-sidebar a[href="02_embeddings.html"]')
    with opened(browser, "01_lexical_metrics", LAPTOP) as page:
        assert page.evaluate(shown), "the sidebar is not shown at 1280 px"
        the_visible(page, ".primary-toggle").click()
        wait_until(page, f"() => !({shown})()", "the menu button did not hide the sidebar")
        the_visible(page, ".primary-toggle").click()
        wait_until(page, shown, "the menu button, pressed again, did not show the sidebar")


@pytest.mark.parametrize("name", page_names())
def test_one_search_box(layout, name):
    """A page shows exactly one search box (the theme's top bar added a second one at 1280 px)."""
    assert layout(name)["searchBoxes"] == 1, f"{name}.html shows {layout(name)['searchBoxes']} search boxes"


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone-390px", "laptop-1280px"])
def test_search_works_offline(browser, viewport):
    """The search box finds pages, offline (search.html reads searchindex.js from disk)."""
    with opened(browser, "01_lexical_metrics", viewport) as page:
        the_visible(page, ".search-button__button").click()
        field = page.locator("#pst-search-dialog input[type=search]")
        field.wait_for(state="visible", timeout=5_000)
        field.fill("idf")
        field.press("Enter")
        page.wait_for_url("**/search.html?q=idf*", timeout=10_000)
        wait_until(page, "() => document.querySelectorAll('#search-results li').length > 0",
                   "searching for 'idf' found nothing", timeout_ms=20_000)


@pytest.mark.parametrize("name", page_names())
def test_no_console_errors(layout, name):
    """No page's scripts log an error to the browser console (each logged "Got invalid theme mode: ."
    because the theme's colour mode was unset)."""
    assert not layout(name)["errors"], f"{name}.html logs errors: {layout(name)['errors']}"


SOLUTION_MARKERS = re.compile(r"#{3}\s*(?:BEGIN|END)\s+SOLUTION")


def test_no_page_shows_nbgrader_solution_markers():
    """The chapters' code shows no `### BEGIN SOLUTION` / `### END SOLUTION` lines (nbgrader's markers;
    the solutions themselves stay). HTML comments (the markdown's `<!-- BEGIN SOLUTION -->`) show nothing."""
    if not (HTML / "index.html").exists():
        skip_or_fail(f"the book is not built ({HTML / 'index.html'} is missing: run make book)")
    marked = sum(bool(SOLUTION_MARKERS.search(c.source)) for p in chapters()
                 for c in nbformat.read(p, as_version=4).cells if c.cell_type == "code")
    assert marked > 0, "no chapter has nbgrader solution markers: the test tests nothing"
    shown = {}
    for name in page_names():
        text = re.sub(r"<!--.*?-->", "", (HTML / f"{name}.html").read_text(), flags=re.S)
        text = html.unescape(re.sub(r"<[^>]+>", "", text))
        if found := SOLUTION_MARKERS.findall(text):
            shown[name] = len(found)
    assert not shown, f"nbgrader's solution markers shown on pages (page: count): {shown}"


# every word of the course map's time column (the table whose last header is "time"): on how many
# lines it is (a word on two lines was broken mid-word, e.g. "tim/e")
TIME_COLUMN = """() => {
  const table = Array.from(document.querySelectorAll('main table'))
    .find(t => t.rows.length && t.rows[0].cells[t.rows[0].cells.length - 1].textContent.trim() === 'time');
  if (!table) return null;
  const lines = rects => new Set(Array.from(rects).filter(r => r.width > 0).map(r => Math.round(r.top))).size;
  const words = [];
  for (const row of table.rows) {
    const cell = row.cells[row.cells.length - 1];
    const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode())
      for (const m of node.textContent.matchAll(/[^\\s\\-\\u2013\\u2014]+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
        words.push({word: m[0], lines: lines(range.getClientRects()),
                    tops: Array.from(range.getClientRects()).map(r => Math.round(r.top)), header: row.rowIndex === 0});
      }
  }
  return {words: words, headerLines: new Set(words.filter(w => w.header).flatMap(w => w.tops)).size};
}"""


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone-390px", "laptop-1280px"])
def test_course_map_time_column_is_not_broken_mid_word(browser, viewport):
    """The course map's time column reads "~15 min", not "~1/5 m/in": its header is on one line and
    no word in it is broken across lines."""
    with opened(browser, "index", viewport) as page:
        facts = page.evaluate(TIME_COLUMN)
    assert facts is not None, "index.html has no course map table with a 'time' column"
    assert facts["headerLines"] == 1, f"the header 'time' is on {facts['headerLines']} lines"
    broken = [w["word"] for w in facts["words"] if w["lines"] > 1]
    assert not broken, f"words broken mid-word in the time column: {broken}"


def several_prints():
    """(chapter, first line printed, last line printed) of the first code cell whose outputs start with
    two or more consecutive prints to stdout."""
    for path in chapters():
        for cell in nbformat.read(path, as_version=4).cells:
            outputs = cell.get("outputs", []) if cell.cell_type == "code" else []
            run = [o for o in outputs[:2] if o.output_type == "stream" and o.name == "stdout"]
            if len(run) == 2:
                texts = [o.text for o in outputs]
                last = next(i for i, o in enumerate(outputs + [None])
                            if o is None or o.output_type != "stream" or o.name != "stdout")
                lines = [line.strip() for text in texts[:last] for line in text.splitlines() if line.strip()]
                return path.stem, lines[0], lines[-1]
    return None


PRINTS_BLOCK = """([first, last]) => {
  const blocks = Array.from(document.querySelectorAll('main .cell_output > .output'))
    .filter(b => b.textContent.includes(first) || b.textContent.includes(last));
  const article = document.querySelector('main article') || document.querySelector('main');
  return blocks.map(b => { const pre = b.querySelector('pre') || b; const s = getComputedStyle(pre);
    return {first: b.textContent.includes(first), last: b.textContent.includes(last),
            fits: pre.scrollWidth <= pre.clientWidth + 1, scrolls: ['auto', 'scroll'].includes(s.overflowX),
            wraps: ['pre-wrap', 'break-spaces'].includes(s.whiteSpace),
            right: b.getBoundingClientRect().right, column: article.getBoundingClientRect().right}; });
}"""


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone-390px", "laptop-1280px"])
def test_a_cells_prints_read_as_one_block(browser, viewport):
    """A cell that prints several times shows one output block (not one box per print), whose long lines
    wrap or scroll inside it rather than being cut at the column's edge."""
    found = several_prints()
    assert found is not None, "no chapter has a cell printing twice in a row: the test tests nothing"
    name, first, last = found
    with opened(browser, name, viewport) as page:
        blocks = page.evaluate(PRINTS_BLOCK, [first, last])
    assert len(blocks) == 1 and blocks[0]["first"] and blocks[0]["last"], \
        f"{name}: the cell's prints ({first!r} ... {last!r}) are in {len(blocks)} output blocks: {blocks}"
    block = blocks[0]
    assert block["fits"] or block["scrolls"] or block["wraps"], f"{name}: the printed lines are cut off: {block}"
    assert block["right"] <= block["column"] + 1, f"{name}: the output block runs past the column: {block}"
